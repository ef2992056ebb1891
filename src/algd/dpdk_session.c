/* A transform's key and its sessions on the device (dpdk_impl.h). */
#include "dpdk_impl.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include <openssl/evp.h>

void dpdk_sess_drop(struct ualg_tfm *tfm)
{
	struct ctx *c = tfm->ctx;
	for (int i = 0; i < 2; i++)
		if (c->sess[i]) {
			rte_cryptodev_sym_session_free(priv_of(tfm)->dev->id, c->sess[i]);
			c->sess[i] = NULL;
		}
}

int dpdk_init_tfm(struct ualg_tfm *tfm)
{
	dpdk_check_failed();
	return atomic_load(&priv_of(tfm)->dev->failed) ? -EIO : 0;
}

void dpdk_exit_tfm(struct ualg_tfm *tfm)
{
	dpdk_sess_drop(tfm);
}

/* The session for direction enc, made now if need be. */
void *dpdk_session(struct ualg_tfm *tfm, bool enc, unsigned aadlen)
{
	const struct priv *p = priv_of(tfm);
	const struct desc *ds = p->desc;
	struct ctx *c = tfm->ctx;
	const int i = enc;

	if (c->sess[i] && (ds->kind != K_AEAD || (c->sess_aad[i] == aadlen && c->sess_auth[i] == tfm->authsize)))
		return c->sess[i];
	if (c->sess[i]) {
		rte_cryptodev_sym_session_free(p->dev->id, c->sess[i]);
		c->sess[i] = NULL;
	}
	struct rte_crypto_sym_xform x;
	memset(&x, 0, sizeof(x));
	switch (ds->kind) {
	case K_CIPHER:
		x.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
		x.cipher.op = enc ? RTE_CRYPTO_CIPHER_OP_ENCRYPT : RTE_CRYPTO_CIPHER_OP_DECRYPT;
		x.cipher.algo = (enum rte_crypto_cipher_algorithm)ds->algo;
		x.cipher.key.data = c->key;
		x.cipher.key.length = (uint16_t)c->keylen;
		x.cipher.iv.offset = IV_OFF;
		x.cipher.iv.length = (uint16_t)ds->ivsize;
		break;
	case K_HASH:
	case K_HMAC:
		x.type = RTE_CRYPTO_SYM_XFORM_AUTH;
		x.auth.op = RTE_CRYPTO_AUTH_OP_GENERATE;
		x.auth.algo = (enum rte_crypto_auth_algorithm)ds->algo;
		x.auth.key.data = ds->kind == K_HMAC ? c->key : NULL;
		x.auth.key.length = ds->kind == K_HMAC ? (uint16_t)c->keylen : 0;
		x.auth.digest_length = (uint16_t)ds->digestsize;
		break;
	case K_AEAD:
		x.type = RTE_CRYPTO_SYM_XFORM_AEAD;
		x.aead.op = enc ? RTE_CRYPTO_AEAD_OP_ENCRYPT : RTE_CRYPTO_AEAD_OP_DECRYPT;
		x.aead.algo = (enum rte_crypto_aead_algorithm)ds->algo;
		x.aead.key.data = c->key;
		x.aead.key.length = (uint16_t)c->keylen;
		x.aead.iv.offset = IV_OFF;
		x.aead.iv.length = (uint16_t)ds->ivsize;
		x.aead.digest_length = (uint16_t)tfm->authsize;
		x.aead.aad_length = (uint16_t)aadlen;
		break;
	}
	c->sess[i] = rte_cryptodev_sym_session_create(p->dev->id, &x, p->dev->sess_pool);
	c->sess_aad[i] = aadlen;
	c->sess_auth[i] = tfm->authsize;
	return c->sess[i];
}

static bool key_ok(const struct desc *ds, size_t len)
{
	for (unsigned i = 0; i < 3; i++)
		if (ds->keys[i] && ds->keys[i] == len)
			return true;
	return false;
}

int dpdk_key_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct ctx *c = tfm->ctx;

	if (!key_ok(priv_of(tfm)->desc, len))
		return -EINVAL;
	dpdk_sess_drop(tfm);
	ualg_wipe(c->key, sizeof(c->key));
	memcpy(c->key, key, len);
	c->keylen = (unsigned)len;
	return 0;
}

/* HMAC's key made a block long, as HMAC itself does (hashed when longer,
 * zero-padded when shorter): the device then needs one key length. */
int dpdk_hmac_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct desc *ds = priv_of(tfm)->desc;
	struct ctx *c = tfm->ctx;
	uint8_t k[KEY_MAX];
	unsigned klen = 0;

	memset(k, 0, sizeof(k));
	if (len > ds->blocksize) {
		const EVP_MD *md = EVP_get_digestbyname(ds->md);
		if (!md || !EVP_Digest(key, len, k, &klen, md, NULL)) {
			explicit_bzero(k, sizeof(k));
			return -ENOMEM;
		}
	} else {
		memcpy(k, key, len);
	}
	dpdk_sess_drop(tfm);
	ualg_wipe(c->key, sizeof(c->key));
	memcpy(c->key, k, ds->blocksize);
	c->keylen = ds->blocksize;
	explicit_bzero(k, sizeof(k));
	return 0;
}
