/* essiv(SKCIPHER,HASH), the skcipher form of crypto/essiv.c (dm-crypt's
 * and fscrypt's IV generator): the key goes to the inner skcipher as it
 * is, and its digest keys a single-block cipher that encrypts each
 * request's IV (the sector number) before the inner skcipher runs.  That
 * cipher is the one inside the inner name's parentheses: "aes" for
 * "cbc(aes)".
 *
 * The AEAD form, essiv(authenc(HASH,SKCIPHER),HASH) (dm-crypt with
 * integrity): the key is authenc's blob; the digest of its encryption key
 * followed by its authentication key keys the IV cipher; the request's IV is encrypted the same
 * way and stands, as dm-crypt lays it out, in the last IV-size bytes of
 * the associated data that the inner AEAD authenticates.  The kernel
 * writes it there in the caller's output buffer; here the inner AEAD is
 * handed a copy of the associated data with it, and the output keeps
 * the associated data as it was sent. */
#include "../template.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct essiv_ctx {
	struct ualg_tfm *inner;		/* first, for ualg_tmpl_child() */
	struct ualg_tfm *hash, *iv_cipher;
};

static int essiv_init_tfm(struct ualg_tfm *tfm)
{
	struct essiv_ctx *c = tfm->ctx;
	int err = 0;

	if (!(c->inner = ualg_tfm_new(tfm->alg->spawns[0], &err)) ||
	    !(c->hash = ualg_tfm_new(tfm->alg->spawns[1], &err)) ||
	    /* priv: the IV cipher, a registered driver that lives as long
	     * as the registry. */
	    !(c->iv_cipher = ualg_tfm_new((struct ualg_alg *)tfm->alg->priv, &err))) {
		ualg_tfm_free(c->inner);
		ualg_tfm_free(c->hash);
		return -err;
	}
	return 0;
}

static void essiv_exit_tfm(struct ualg_tfm *tfm)
{
	struct essiv_ctx *c = tfm->ctx;

	ualg_tfm_free(c->inner);
	ualg_tfm_free(c->hash);
	ualg_tfm_free(c->iv_cipher);
}

static int essiv_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct essiv_ctx *c = tfm->ctx;
	uint8_t salt[UALG_MAX_DIGESTSIZE];
	int r = ualg_tfm_setkey(c->inner, key, len);

	if (!r)
		r = ualg_hash_digest(c->hash, key, len, salt);
	if (!r)
		r = ualg_tfm_setkey(c->iv_cipher, salt, ualg_hash_digestsize(c->hash));
	ualg_wipe(salt, sizeof(salt));
	return r;
}

static int essiv_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv, const uint8_t *src,
		       uint8_t *dst, size_t len)
{
	struct essiv_ctx *c = tfm->ctx;

	ualg_cipher_encrypt_one(c->iv_cipher, iv, iv);
	return ualg_skcipher_crypt(c->inner, enc, iv, src, dst, len);
}

static int essiv_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return essiv_crypt(tfm, true, iv, src, dst, len);
}

static int essiv_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return essiv_crypt(tfm, false, iv, src, dst, len);
}

/* "cbc(aes)", "authenc(hmac(sha256),cbc(aes))" -> "aes": after the last
 * '(' up to the next ')', as essiv_get_cipher_name(). */
static int inner_cipher_name(const char *inner, char *out, size_t size)
{
	const char *open = strrchr(inner, '(');

	if (!open)
		return -1;
	const size_t len = strcspn(open + 1, ")");
	if (open[1 + len] != ')' || len >= size)
		return -1;
	memcpy(out, open + 1, len);
	out[len] = '\0';
	return 0;
}

/* ---- the AEAD form -------------------------------------------------------- */

static int essiv_aead_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct essiv_ctx *c = tfm->ctx;
	uint8_t salt[UALG_MAX_DIGESTSIZE];
	struct ualg_hash_desc d = { 0 };
	uint16_t rta_len;
	int r = ualg_tfm_setkey(c->inner, key, len);

	if (r)
		return r;
	/* The inner authenc accepted the blob: its header is sound; then
	 * come the authentication key and the encryption key.  The salt is
	 * the digest of the encryption key followed by the authentication
	 * key (essiv_aead_setkey()). */
	memcpy(&rta_len, key, 2);
	const size_t skip = (rta_len + 3u) & ~3u;	/* RTA_ALIGN */
	const uint32_t enckeylen = (uint32_t)key[4] << 24 | (uint32_t)key[5] << 16 |
				   (uint32_t)key[6] << 8 | key[7];
	const uint8_t *authkey = key + skip, *enckey = key + len - enckeylen;
	r = ualg_hash_init(&d, c->hash);
	if (!r)
		r = ualg_hash_update(&d, enckey, enckeylen);
	if (!r)
		r = ualg_hash_update(&d, authkey, (size_t)(enckey - authkey));
	if (!r)
		r = ualg_hash_final(&d, salt);
	ualg_hash_exit(&d);
	if (!r)
		r = ualg_tfm_setkey(c->iv_cipher, salt, ualg_hash_digestsize(c->hash));
	ualg_wipe(salt, sizeof(salt));
	return r;
}

static int essiv_aead_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	struct essiv_ctx *c = tfm->ctx;

	return ualg_aead_setauthsize(c->inner, authsize);
}

static int essiv_aead_crypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req, bool enc)
{
	struct essiv_ctx *c = tfm->ctx;
	const size_t ivsize = tfm->alg->u.aead.ivsize;

	if (req->assoclen < ivsize)
		return -EINVAL;
	uint8_t *aad = malloc(req->assoclen);
	if (!aad)
		return -ENOMEM;
	ualg_cipher_encrypt_one(c->iv_cipher, req->iv, req->iv);
	memcpy(aad, req->aad, req->assoclen - ivsize);
	memcpy(aad + req->assoclen - ivsize, req->iv, ivsize);
	const struct ualg_aead_req sub = {
		.aad = aad, .assoclen = req->assoclen,
		.text = req->text, .cryptlen = req->cryptlen, .iv = req->iv,
	};
	int r = enc ? ualg_aead_encrypt(c->inner, &sub) : ualg_aead_decrypt(c->inner, &sub);
	ualg_wipe(aad, req->assoclen);
	free(aad);
	return r;
}

static int essiv_aead_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return essiv_aead_crypt(tfm, req, true);
}

static int essiv_aead_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return essiv_aead_crypt(tfm, req, false);
}

/* As essiv_supported_algorithms(): the IV cipher's block is the inner
 * IV, and the digest is one of its key sizes. */
static struct ualg_alg *iv_cipher_for(const struct ualg_alg *inner, const struct ualg_alg *hash, int *err)
{
	char name[UALG_MAX_ALG_NAME];

	if (inner_cipher_name(inner->name, name, sizeof(name))) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *cipher = ualg_alg_lookup(UALG_ALG_CIPHER, name, err);
	if (!cipher)
		return NULL;
	const unsigned ds = hash->u.shash.digestsize;
	ualg_alg_put(cipher);	/* a driver: stays registered (see init) */
	const unsigned ivsize = inner->type == UALG_ALG_AEAD ? inner->u.aead.ivsize : inner->u.skcipher.ivsize;
	if (cipher->blocksize != ivsize ||
	    ds < cipher->u.cipher.min_keysize || ds > cipher->u.cipher.max_keysize) {
		*err = EINVAL;
		return NULL;
	}
	return cipher;
}

static struct ualg_alg *essiv_create(const char *const *args, unsigned nargs, int *err)
{
	if (nargs != 2) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *spawns[2] = { ualg_alg_lookup(UALG_ALG_SKCIPHER, args[0], err), NULL };
	/* The AEAD form is over authenc only (essiv_create()). */
	if (!spawns[0] && !strncmp(args[0], "authenc(", 8))
		spawns[0] = ualg_alg_lookup(UALG_ALG_AEAD, args[0], err);
	if (!spawns[0])
		return NULL;
	const bool aead = spawns[0]->type == UALG_ALG_AEAD;
	struct ualg_alg *inst = NULL, *cipher = NULL;
	if ((spawns[1] = ualg_alg_lookup(UALG_ALG_SHASH, args[1], err)) &&
	    !spawns[1]->u.shash.setkey && (cipher = iv_cipher_for(spawns[0], spawns[1], err)) &&
	    (inst = ualg_instance_alloc("essiv", aead ? UALG_ALG_AEAD : UALG_ALG_SKCIPHER, spawns, 2, err))) {
		inst->priv = cipher;
		inst->ctxsize = sizeof(struct essiv_ctx);
		inst->init_tfm = essiv_init_tfm;
		inst->exit_tfm = essiv_exit_tfm;
		if (aead) {
			inst->u.aead = spawns[0]->u.aead;
			inst->u.aead.setkey = essiv_aead_setkey;
			inst->u.aead.setauthsize = essiv_aead_setauthsize;
			inst->u.aead.encrypt = essiv_aead_encrypt;
			inst->u.aead.decrypt = essiv_aead_decrypt;
			inst->u.aead.encrypt_many = NULL;
			inst->u.aead.decrypt_many = NULL;
		} else {
			inst->u.skcipher = spawns[0]->u.skcipher;
			inst->u.skcipher.setkey = essiv_setkey;
			inst->u.skcipher.encrypt = essiv_encrypt;
			inst->u.skcipher.decrypt = essiv_decrypt;
			inst->u.skcipher.crypt_many = NULL;
		}
	} else if (spawns[1] && spawns[1]->u.shash.setkey) {
		*err = EINVAL;
	}
	ualg_alg_put(spawns[0]);
	ualg_alg_put(spawns[1]);
	return inst;
}

const struct ualg_template ualg_tmpl_essiv = { .name = "essiv", .create = essiv_create };
