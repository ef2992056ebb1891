/* AEAD drivers over OpenSSL's EVP: gcm(aes), ccm(aes) and
 * rfc7539(chacha20,poly1305), with the kernel's rules for keys, IVs and
 * tag sizes (crypto/gcm.c, ccm.c, chacha20poly1305.c) checked here, since
 * EVP accepts more than the kernel does.  The IPsec variants (rfc4106,
 * rfc4309, rfc4543, rfc7539esp) are templates over these. */
#include "openssl.h"

#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

enum aead_kind { AEAD_GCM, AEAD_CCM, AEAD_CHACHAPOLY };

struct evp_aead {
	const char *name, *driver;
	enum aead_kind kind;
	unsigned ivsize, maxauthsize;
	const EVP_CIPHER *(*by_keylen[33])(void);
};

static const struct evp_aead aeads[] = {
	{ "gcm(aes)", "gcm-aes-openssl", AEAD_GCM, 12, 16,
	  { [16] = EVP_aes_128_gcm, [24] = EVP_aes_192_gcm, [32] = EVP_aes_256_gcm } },
	{ "ccm(aes)", "ccm-aes-openssl", AEAD_CCM, 16, 16,
	  { [16] = EVP_aes_128_ccm, [24] = EVP_aes_192_ccm, [32] = EVP_aes_256_ccm } },
	{ "rfc7539(chacha20,poly1305)", "rfc7539-chacha20-poly1305-openssl", AEAD_CHACHAPOLY, 12, 16,
	  { [32] = EVP_chacha20_poly1305 } },
};

/* CCM must be set up again for every request (the tag and message lengths
 * come before the key), so it keeps the key; the others keep one keyed
 * context per direction. */
struct aead_ctx {
	const EVP_CIPHER *cipher;
	EVP_CIPHER_CTX *evp[2];		/* [enc] */
	uint8_t key[32];
	size_t keylen;
};

static const struct evp_aead *aead_of(const struct ualg_tfm *tfm)
{
	return tfm->alg->priv;
}

static void aead_exit_tfm(struct ualg_tfm *tfm)
{
	struct aead_ctx *c = tfm->ctx;

	EVP_CIPHER_CTX_free(c->evp[0]);
	EVP_CIPHER_CTX_free(c->evp[1]);
	c->evp[0] = c->evp[1] = NULL;
}

static int aead_init_tfm(struct ualg_tfm *tfm)
{
	struct aead_ctx *c = tfm->ctx;

	c->evp[0] = EVP_CIPHER_CTX_new();
	c->evp[1] = EVP_CIPHER_CTX_new();
	if (!c->evp[0] || !c->evp[1]) {
		aead_exit_tfm(tfm);
		return -ENOMEM;
	}
	return 0;
}

static int aead_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct evp_aead *a = aead_of(tfm);
	struct aead_ctx *c = tfm->ctx;

	if (len >= sizeof(a->by_keylen) / sizeof(a->by_keylen[0]) || !a->by_keylen[len])
		return -EINVAL;
	c->cipher = a->by_keylen[len]();
	ualg_wipe(c->key, sizeof(c->key));
	memcpy(c->key, key, len);
	c->keylen = len;
	if (a->kind == AEAD_CCM)
		return 0;
	for (int enc = 0; enc < 2; enc++)
		if (EVP_CipherInit_ex(c->evp[enc], c->cipher, NULL, key, NULL, enc) != 1)
			return -EINVAL;
	return 0;
}

/* crypto_gcm_check_authsize(), crypto_ccm_setauthsize(),
 * chachapoly_setauthsize(). */
static int aead_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	switch (aead_of(tfm)->kind) {
	case AEAD_GCM:
		return authsize == 4 || authsize == 8 || (authsize >= 12 && authsize <= 16) ? 0 : -EINVAL;
	case AEAD_CCM:
		return authsize >= 4 && authsize <= 16 && !(authsize & 1) ? 0 : -EINVAL;
	case AEAD_CHACHAPOLY:
		return authsize == 16 ? 0 : -EINVAL;
	}
	return -EINVAL;
}

/* The kernel's CCM IV is flags || nonce || counter: iv[0] is L - 1 for a
 * length field of L bytes (crypto_ccm_check_iv()); the counter bytes are
 * ignored.  OpenSSL takes the nonce and the lengths up front. */
static int ccm_begin(struct aead_ctx *c, const struct ualg_aead_req *req, bool enc,
		     unsigned authsize, size_t textlen)
{
	EVP_CIPHER_CTX *e = c->evp[enc];
	const unsigned l = req->iv[0] + 1u;

	if (l < 2 || l > 8)
		return -EINVAL;
	if (l < 8 && (uint64_t)textlen >> (8 * l))
		return -EOVERFLOW;	/* set_msg_len() */
	int len;
	if (EVP_CipherInit_ex(e, c->cipher, NULL, NULL, NULL, enc) != 1 ||
	    EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_SET_IVLEN, (int)(15 - l), NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_SET_TAG, (int)authsize,
				enc ? NULL : req->text + textlen) != 1 ||
	    EVP_CipherInit_ex(e, NULL, NULL, c->key, req->iv + 1, enc) != 1 ||
	    EVP_CipherUpdate(e, NULL, &len, NULL, (int)textlen) != 1)
		return -EINVAL;
	return 0;
}

static int aead_crypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req, bool enc)
{
	const struct evp_aead *a = aead_of(tfm);
	struct aead_ctx *c = tfm->ctx;
	EVP_CIPHER_CTX *e = c->evp[enc];
	const unsigned authsize = tfm->authsize;
	const size_t textlen = enc ? req->cryptlen : req->cryptlen - authsize;
	int len, r;

	if (textlen > INT32_MAX || req->assoclen > INT32_MAX)
		return -EINVAL;
	if (a->kind == AEAD_CCM) {
		r = ccm_begin(c, req, enc, authsize, textlen);
		if (r)
			return r;
	} else if (EVP_CipherInit_ex(e, NULL, NULL, NULL, req->iv, enc) != 1 ||
		   (!enc && EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_SET_TAG, (int)authsize,
						req->text + textlen) != 1)) {
		return -EINVAL;
	}
	if (req->assoclen && EVP_CipherUpdate(e, NULL, &len, req->aad, (int)req->assoclen) != 1)
		return -EINVAL;
	/* CCM decryption checks the tag here; the others in Final. */
	r = EVP_CipherUpdate(e, req->text, &len, enc && req->src ? req->src : req->text, (int)textlen) == 1 &&
	    (a->kind == AEAD_CCM || EVP_CipherFinal_ex(e, req->text + len, &len) == 1);
	if (!r) {
		ualg_wipe(req->text, textlen);
		return enc ? -EINVAL : -EBADMSG;
	}
	if (enc && EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_GET_TAG, (int)authsize, req->text + textlen) != 1)
		return -EINVAL;
	return 0;
}

static int aead_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return aead_crypt(tfm, req, true);
}

static int aead_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return aead_crypt(tfm, req, false);
}

int ualg_openssl_register_aead(void)
{
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(aeads) / sizeof(aeads[0]); i++) {
		const struct evp_aead *a = &aeads[i];
		struct ualg_alg *alg = ualg_openssl_alloc(a->name, a->driver, UALG_ALG_AEAD,
							  UALG_OPENSSL_PRIO_WHOLE);
		if (!alg)
			return -ENOMEM;
		alg->blocksize = 1;
		alg->ctxsize = sizeof(struct aead_ctx);
		alg->priv = a;
		alg->init_tfm = aead_init_tfm;
		alg->exit_tfm = aead_exit_tfm;
		alg->u.aead = (struct ualg_aead_ops){
			.ivsize = a->ivsize,
			.maxauthsize = a->maxauthsize,
			.setkey = aead_setkey,
			.setauthsize = aead_setauthsize,
			.encrypt = aead_encrypt,
			.decrypt = aead_decrypt,
			.src_ok = true,
		};
		r = ualg_openssl_reg(alg);
	}
	return r;
}
