/* AEADs on a device (dpdk_impl.h): one operation per request, the
 * associated data in the device's scratch area. */
#include "dpdk_impl.h"

#include <errno.h>
#include <string.h>

static int aead_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	if (priv_of(tfm)->desc->algo == RTE_CRYPTO_AEAD_AES_GCM)
		return authsize == 4 || authsize == 8 || (authsize >= 12 && authsize <= 16) ? 0 : -EINVAL;
	return authsize == 16 ? 0 : -EINVAL;
}

static int aead_crypt(struct ualg_tfm *tfm, bool enc, const struct ualg_aead_req *req)
{
	const struct priv *p = priv_of(tfm);
	const unsigned as = tfm->authsize;

	dpdk_check_failed();
	if (!enc && req->cryptlen < as)
		return -EINVAL;
	const size_t textlen = enc ? req->cryptlen : req->cryptlen - as;
	if (req->assoclen > SCRATCH_SIZE - 64 || textlen > UINT32_MAX)
		return -EINVAL;
	void *sess = dpdk_session(tfm, enc, (unsigned)req->assoclen);
	if (!sess)
		return -ENOMEM;
	uint8_t tag[16];
	if (!enc)
		memcpy(tag, req->text + textlen, as);
	/* Nothing to decrypt nor authenticate: the tag is made as in
	 * encryption and compared here, not left to the device's check of
	 * an empty operation. */
	if (!enc && !textlen && !req->assoclen) {
		uint8_t made[16];
		const struct ualg_aead_req e = { .aad = req->aad, .text = made, .iv = req->iv };
		int r = aead_crypt(tfm, true, &e);
		if (!r && ualg_memneq(made, tag, as))
			r = -EBADMSG;
		explicit_bzero(made, sizeof(made));
		return r;
	}
	struct job j = {
		.kind = JOB_AEAD, .sess = sess, .iv = req->iv, .ivlen = p->desc->ivsize,
		.in = { { req->text, textlen } }, .nin = 1, .data_off = 0, .data_len = (uint32_t)textlen,
		.aad = req->aad, .aadlen = (unsigned)req->assoclen,
		.digest = enc ? req->text + textlen : tag, .digestlen = as, .verify = !enc,
		.out = req->text, .out_off = 0, .out_len = textlen,
	};
	return dpdk_run_job(p->dev, &j);
}

static int aead_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return aead_crypt(tfm, true, req);
}

static int aead_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return aead_crypt(tfm, false, req);
}

void dpdk_aead_ops(struct ualg_alg *a, const struct desc *ds)
{
	a->type = UALG_ALG_AEAD;
	a->u.aead = (struct ualg_aead_ops){
		.ivsize = ds->ivsize, .maxauthsize = ds->digestsize,
		.setkey = dpdk_key_setkey, .setauthsize = aead_setauthsize,
		.encrypt = aead_encrypt, .decrypt = aead_decrypt,
	};
}
