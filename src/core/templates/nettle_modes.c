/* Templates over any 16-byte block cipher whose mode comes from Nettle,
 * which takes the block cipher as a callback: gcm(cipher) (crypto/gcm.c,
 * the kernel's gcm_base(ctr(cipher),ghash)) and kw(cipher) (crypto/
 * keywrap.c, NIST SP 800-38F / RFC 3394 key wrap).  gcm(aes) itself has
 * whole-mode drivers of higher priority; this builds gcm(camellia),
 * gcm(serpent), gcm(twofish), gcm(sm4)...
 *
 * And rfc3686(ctr(cipher)) (crypto/ctr.c's rfc3686 template, IPsec's
 * AES-CTR, RFC 3686): the key carries a 4-byte nonce at its end, the IV
 * is 8 bytes, the counter block is nonce || IV || be32(1).  As the
 * kernel's, the request's IV is not advanced: each request starts at
 * block 1 again. */
#include "../template.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/gcm.h>
#include <nettle/nist-keywrap.h>

/* nettle_cipher_func over the child transform (ctx is the transform). */
static void child_encrypt(const void *ctx, size_t len, uint8_t *dst, const uint8_t *src)
{
	struct ualg_tfm *child = (struct ualg_tfm *)ctx;

	for (size_t off = 0; off < len; off += 16)
		ualg_cipher_encrypt_one(child, dst + off, src + off);
}

static void child_decrypt(const void *ctx, size_t len, uint8_t *dst, const uint8_t *src)
{
	struct ualg_tfm *child = (struct ualg_tfm *)ctx;

	for (size_t off = 0; off < len; off += 16)
		ualg_cipher_decrypt_one(child, dst + off, src + off);
}

static struct ualg_alg *cipher16(const char *const *args, unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *c = ualg_alg_lookup(UALG_ALG_CIPHER, args[0], err);
	if (c && c->blocksize != 16) {
		ualg_alg_put(c);
		*err = EINVAL;
		return NULL;
	}
	return c;
}

/* ---- gcm ---------------------------------------------------------------- */

struct gcm_tctx {
	struct ualg_tfm *child;		/* first, for ualg_tmpl_child() */
	struct gcm_key key;		/* H, from the child's key */
};

static int gcm_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct gcm_tctx *c = tfm->ctx;
	int r = ualg_tfm_setkey(c->child, key, len);

	if (!r)
		gcm_set_key(&c->key, c->child, child_encrypt);
	return r;
}

/* crypto_gcm_check_authsize() */
static int gcm_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	(void)tfm;
	switch (authsize) {
	case 4: case 8: case 12: case 13: case 14: case 15: case 16:
		return 0;
	}
	return -EINVAL;
}

static int gcm_crypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req, bool enc)
{
	struct gcm_tctx *c = tfm->ctx;
	const size_t textlen = enc ? req->cryptlen : req->cryptlen - tfm->authsize;
	uint8_t tag[GCM_DIGEST_SIZE];
	struct gcm_ctx g;

	gcm_set_iv(&g, &c->key, GCM_IV_SIZE, req->iv);
	gcm_update(&g, &c->key, req->assoclen, req->aad);
	if (enc)
		gcm_encrypt(&g, &c->key, c->child, child_encrypt, textlen, req->text, req->text);
	else
		gcm_decrypt(&g, &c->key, c->child, child_encrypt, textlen, req->text, req->text);
	gcm_digest(&g, &c->key, c->child, child_encrypt, GCM_DIGEST_SIZE, tag);
	int r = 0;
	if (enc)
		memcpy(req->text + textlen, tag, tfm->authsize);
	else if (ualg_memneq(tag, req->text + textlen, tfm->authsize)) {
		/* No plaintext is left behind: the keystream again gives
		 * the ciphertext back. */
		gcm_set_iv(&g, &c->key, GCM_IV_SIZE, req->iv);
		gcm_encrypt(&g, &c->key, c->child, child_encrypt, textlen, req->text, req->text);
		r = -EBADMSG;
	}
	ualg_wipe(tag, sizeof(tag));
	ualg_wipe(&g, sizeof(g));
	return r;
}

static int gcm_encrypt_req(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return gcm_crypt(tfm, req, true);
}

static int gcm_decrypt_req(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return gcm_crypt(tfm, req, false);
}

static struct ualg_alg *gcm_create(const char *const *args, unsigned nargs, int *err)
{
	struct ualg_alg *cipher = cipher16(args, nargs, err);

	if (!cipher)
		return NULL;
	/* The kernel names a gcm instance gcm(cipher name), driver
	 * gcm_base(ctr(cipher driver),ghash-generic): gcm over a driver name
	 * ("gcm(aes-generic)") matches neither and is ENOENT there. */
	if (strcmp(args[0], cipher->name)) {
		ualg_alg_put(cipher);
		*err = ENOENT;
		return NULL;
	}
	struct ualg_alg *inst = ualg_instance_alloc("gcm", UALG_ALG_AEAD, &cipher, 1, err);
	if (inst && snprintf(inst->driver, sizeof(inst->driver), "gcm_base(ctr(%s),ghash-nettle)",
			     cipher->driver) >= (int)sizeof(inst->driver)) {
		ualg_instance_free(inst);
		inst = NULL;
		*err = ENAMETOOLONG;
	}
	if (inst) {
		inst->blocksize = 1;
		inst->ctxsize = sizeof(struct gcm_tctx);
		inst->init_tfm = ualg_tmpl_init_child;
		inst->exit_tfm = ualg_tmpl_exit_child;
		inst->u.aead = (struct ualg_aead_ops){
			.ivsize = GCM_IV_SIZE, .maxauthsize = GCM_DIGEST_SIZE,
			.setkey = gcm_setkey, .setauthsize = gcm_setauthsize,
			.encrypt = gcm_encrypt_req, .decrypt = gcm_decrypt_req,
		};
	}
	ualg_alg_put(cipher);
	return inst;
}

/* ---- kw ------------------------------------------------------------------ */

#define SEMIBSIZE 8
static const uint8_t kw_default_iv[SEMIBSIZE] = { 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6 };

static int kw_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	return ualg_tfm_setkey(ualg_tmpl_child(tfm), key, len);
}

/* Encryption leaves the integrity value A in the IV; decryption takes A
 * from the IV and fails with EBADMSG unless it unwraps to the default. */
static int kw_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv, const uint8_t *src, uint8_t *dst,
		    size_t len)
{
	if (len < 2 * SEMIBSIZE || len % SEMIBSIZE)
		return -EINVAL;
	uint8_t *buf = malloc(len + SEMIBSIZE);
	if (!buf)
		return -ENOMEM;
	int r = 0;
	if (enc) {
		nist_keywrap16(ualg_tmpl_child(tfm), child_encrypt, kw_default_iv, len + SEMIBSIZE, buf, src);
		memcpy(iv, buf, SEMIBSIZE);
		memcpy(dst, buf + SEMIBSIZE, len);
	} else {
		memcpy(buf, iv, SEMIBSIZE);
		memcpy(buf + SEMIBSIZE, src, len);
		if (!nist_keyunwrap16(ualg_tmpl_child(tfm), child_decrypt, kw_default_iv, len, dst, buf))
			r = -EBADMSG;
	}
	ualg_wipe(buf, len + SEMIBSIZE);
	free(buf);
	return r;
}

static int kw_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return kw_crypt(tfm, true, iv, src, dst, len);
}

static int kw_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return kw_crypt(tfm, false, iv, src, dst, len);
}

static struct ualg_alg *kw_create(const char *const *args, unsigned nargs, int *err)
{
	struct ualg_alg *cipher = cipher16(args, nargs, err);

	if (!cipher)
		return NULL;
	struct ualg_alg *inst = ualg_instance_alloc("kw", UALG_ALG_SKCIPHER, &cipher, 1, err);
	if (inst) {
		inst->blocksize = SEMIBSIZE;
		inst->ctxsize = sizeof(struct ualg_tfm *);
		inst->init_tfm = ualg_tmpl_init_child;
		inst->exit_tfm = ualg_tmpl_exit_child;
		inst->u.skcipher = (struct ualg_skcipher_ops){
			.min_keysize = cipher->u.cipher.min_keysize,
			.max_keysize = cipher->u.cipher.max_keysize,
			.ivsize = SEMIBSIZE, .chunksize = SEMIBSIZE,
			.setkey = kw_setkey, .encrypt = kw_encrypt, .decrypt = kw_decrypt,
		};
	}
	ualg_alg_put(cipher);
	return inst;
}

/* ---- rfc3686 ------------------------------------------------------------- */

#define RFC3686_NONCE 4
#define RFC3686_IV 8

struct rfc3686_ctx {
	struct ualg_tfm *child;		/* first, for ualg_tmpl_child() */
	uint8_t nonce[RFC3686_NONCE];
};

static int rfc3686_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct rfc3686_ctx *c = tfm->ctx;

	if (len < RFC3686_NONCE)
		return -EINVAL;
	memcpy(c->nonce, key + len - RFC3686_NONCE, RFC3686_NONCE);
	return ualg_tfm_setkey(c->child, key, len - RFC3686_NONCE);
}

static int rfc3686_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv, const uint8_t *src,
			 uint8_t *dst, size_t len)
{
	struct rfc3686_ctx *c = tfm->ctx;
	uint8_t block[16] = { 0 };

	memcpy(block, c->nonce, RFC3686_NONCE);
	memcpy(block + RFC3686_NONCE, iv, RFC3686_IV);
	block[15] = 1;
	int r = ualg_skcipher_crypt(c->child, enc, block, src, dst, len);
	ualg_wipe(block, sizeof(block));
	return r;
}

static int rfc3686_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return rfc3686_crypt(tfm, true, iv, src, dst, len);
}

static int rfc3686_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return rfc3686_crypt(tfm, false, iv, src, dst, len);
}

static struct ualg_alg *rfc3686_create(const char *const *args, unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *ctr = ualg_alg_lookup(UALG_ALG_SKCIPHER, args[0], err);
	if (!ctr)
		return NULL;
	struct ualg_alg *inst = NULL;
	/* As crypto_rfc3686_create(): a 16-byte IV and a stream cipher. */
	if (ctr->u.skcipher.ivsize != 16 || ctr->blocksize != 1) {
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc("rfc3686", UALG_ALG_SKCIPHER, &ctr, 1, err))) {
		inst->blocksize = 1;
		inst->ctxsize = sizeof(struct rfc3686_ctx);
		inst->init_tfm = ualg_tmpl_init_child;
		inst->exit_tfm = ualg_tmpl_exit_child;
		inst->u.skcipher = (struct ualg_skcipher_ops){
			.min_keysize = ctr->u.skcipher.min_keysize + RFC3686_NONCE,
			.max_keysize = ctr->u.skcipher.max_keysize + RFC3686_NONCE,
			.ivsize = RFC3686_IV, .chunksize = ctr->u.skcipher.chunksize,
			.setkey = rfc3686_setkey, .encrypt = rfc3686_encrypt, .decrypt = rfc3686_decrypt,
		};
	}
	ualg_alg_put(ctr);
	return inst;
}

const struct ualg_template ualg_tmpl_gcm = { .name = "gcm", .create = gcm_create };
const struct ualg_template ualg_tmpl_kw = { .name = "kw", .create = kw_create };
const struct ualg_template ualg_tmpl_rfc3686 = { .name = "rfc3686", .create = rfc3686_create };
