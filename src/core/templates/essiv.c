/* essiv(SKCIPHER,HASH), the skcipher form of crypto/essiv.c (dm-crypt's
 * and fscrypt's IV generator): the key goes to the inner skcipher as it
 * is, and its digest keys a single-block cipher that encrypts each
 * request's IV (the sector number) before the inner skcipher runs.  That
 * cipher is the one inside the inner name's parentheses: "aes" for
 * "cbc(aes)".  The AEAD form (essiv over authenc) is not provided. */
#include "../template.h"

#include <errno.h>
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

/* "cbc(aes)" -> "aes": between the first '(' and the last ')', as
 * essiv_get_cipher_name(). */
static int inner_cipher_name(const char *inner, char *out, size_t size)
{
	const char *open = strchr(inner, '('), *close = strrchr(inner, ')');

	if (!open || !close || close < open || (size_t)(close - open - 1) >= size)
		return -1;
	memcpy(out, open + 1, (size_t)(close - open - 1));
	out[close - open - 1] = '\0';
	return 0;
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
	if (cipher->blocksize != inner->u.skcipher.ivsize ||
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
	if (!spawns[0])
		return NULL;
	struct ualg_alg *inst = NULL, *cipher = NULL;
	if ((spawns[1] = ualg_alg_lookup(UALG_ALG_SHASH, args[1], err)) &&
	    !spawns[1]->u.shash.setkey && (cipher = iv_cipher_for(spawns[0], spawns[1], err)) &&
	    (inst = ualg_instance_alloc("essiv", UALG_ALG_SKCIPHER, spawns, 2, err))) {
		inst->priv = cipher;
		inst->ctxsize = sizeof(struct essiv_ctx);
		inst->init_tfm = essiv_init_tfm;
		inst->exit_tfm = essiv_exit_tfm;
		inst->u.skcipher = spawns[0]->u.skcipher;
		inst->u.skcipher.setkey = essiv_setkey;
		inst->u.skcipher.encrypt = essiv_encrypt;
		inst->u.skcipher.decrypt = essiv_decrypt;
	} else if (spawns[1] && spawns[1]->u.shash.setkey) {
		*err = EINVAL;
	}
	ualg_alg_put(spawns[0]);
	ualg_alg_put(spawns[1]);
	return inst;
}

const struct ualg_template ualg_tmpl_essiv = { .name = "essiv", .create = essiv_create };
