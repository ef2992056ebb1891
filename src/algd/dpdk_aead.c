/* AEADs on a device (dpdk_impl.h): one operation per request, or a burst
 * of a ring batch's encryptions or decryptions; the associated data is the
 * request's own on a device that reads the CPU's memory, else copied to
 * the device's scratch area. */
#include "dpdk_impl.h"

#include <errno.h>
#include <string.h>

static int aead_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	if (priv_of(tfm)->desc->algo == RTE_CRYPTO_AEAD_AES_GCM)
		return authsize == 4 || authsize == 8 || (authsize >= 12 && authsize <= 16) ? 0 : -EINVAL;
	return authsize == 16 ? 0 : -EINVAL;
}

/* q's operation: the text in place, and the tag made after it or, when
 * decrypting, read from there (into the operation's scratch area, before
 * the device runs: dpdk_job.c). */
static struct job aead_job(const struct ualg_tfm *tfm, bool enc, void *sess, const struct ualg_aead_req *q)
{
	const size_t textlen = enc ? q->cryptlen : q->cryptlen - tfm->authsize;

	return (struct job){
		.kind = JOB_AEAD, .sess = sess, .iv = q->iv, .ivlen = priv_of(tfm)->desc->ivsize,
		.in = { { q->text, textlen } }, .nin = 1, .data_off = 0, .data_len = (uint32_t)textlen,
		.aad = q->aad, .aadlen = (unsigned)q->assoclen,
		.digest = q->text + textlen, .digestlen = tfm->authsize, .verify = !enc,
		.out = q->text, .out_off = 0, .out_len = textlen,
	};
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
	/* Nothing to decrypt nor authenticate: the tag is made as in
	 * encryption and compared here, not left to the device's check of
	 * an empty operation. */
	if (!enc && !textlen && !req->assoclen) {
		uint8_t made[16];
		const struct ualg_aead_req e = { .aad = req->aad, .text = made, .iv = req->iv };
		int r = aead_crypt(tfm, true, &e);
		if (!r && ualg_memneq(made, req->text, as))
			r = -EBADMSG;
		explicit_bzero(made, sizeof(made));
		return r;
	}
	const struct job j = aead_job(tfm, enc, sess, req);
	return dpdk_run_job(p->dev, &j);
}

/* Independent requests of one direction (the native ring's batches):
 * those whose text and AAD fit a burst go to the device together, a
 * burst per AAD length (each length is a session), the others one at a
 * time as aead_crypt runs them; the burst pending goes first, since their
 * session may change.  Each operation of a burst has its own scratch area
 * and its own result: a decryption whose tag fails leaves its text alone
 * (dpdk_job.c) whatever the others' do. */
static int aead_many(struct ualg_tfm *tfm, bool enc, unsigned n, const struct ualg_aead_req *reqs, int *res)
{
	const struct priv *p = priv_of(tfm);
	const unsigned as = tfm->authsize;
	struct job jobs[DPDK_BURST_MAX];
	unsigned idx[DPDK_BURST_MAX], k = 0;
	size_t aadlen = 0;

	dpdk_check_failed();
	for (unsigned i = 0; i <= n; i++) {
		const struct ualg_aead_req *q = i < n ? &reqs[i] : NULL;
		/* A decryption with nothing to authenticate runs alone (aead_crypt). */
		const bool fits = q && q->assoclen <= BURST_AAD_MAX &&
				  (enc ? q->cryptlen <= SEG_DATA
				       : q->cryptlen >= as && q->cryptlen - as <= SEG_DATA &&
						 (q->cryptlen > as || q->assoclen));
		if (k && (!fits || k == DPDK_BURST_MAX || q->assoclen != aadlen)) {
			dpdk_run_burst(p->dev, k, jobs, idx, res);
			k = 0;
		}
		if (!q)
			break;
		void *sess = fits ? dpdk_session(tfm, enc, (unsigned)q->assoclen) : NULL;
		if (!sess) {
			res[i] = aead_crypt(tfm, enc, q);
			continue;
		}
		aadlen = q->assoclen;
		jobs[k] = aead_job(tfm, enc, sess, q);
		idx[k++] = i;
	}
	return 0;
}

static int aead_encrypt_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_aead_req *reqs, int *res)
{
	return aead_many(tfm, true, n, reqs, res);
}

static int aead_decrypt_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_aead_req *reqs, int *res)
{
	return aead_many(tfm, false, n, reqs, res);
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
		.encrypt_many = aead_encrypt_many, .decrypt_many = aead_decrypt_many,
	};
}
