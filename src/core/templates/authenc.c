/* authenc(AUTH,ENC) and authencesn(AUTH,ENC), as crypto/authenc.c and
 * authencesn.c: encrypt-then-MAC with a keyed hash over the associated
 * data and the ciphertext, keys packed in the kernel's rtattr blob
 * (crypto_authenc_extractkeys()).  authencesn is IPsec's extended sequence
 * number variant: the associated data is SPI || seq_hi || seq_lo ..., and
 * seq_hi is authenticated after the ciphertext instead of in place.  The
 * kernel moves those bytes around in the destination buffer to do that;
 * here the hash is fed the pieces in order, so nothing outside the output
 * is ever written (the Copy Fail bug was such a scratch write). */
#include "../template.h"

#include <errno.h>
#include <string.h>

struct authenc_ctx {
	struct ualg_tfm *auth, *enc;
};

#define CRYPTO_AUTHENC_KEYA_PARAM 1
#define RTATTR_HDR 4

static bool is_esn(const struct ualg_tfm *tfm)
{
	return tfm->alg->priv != NULL;
}

static int authenc_init_tfm(struct ualg_tfm *tfm)
{
	struct authenc_ctx *ctx = tfm->ctx;
	int err = 0;

	if (!(ctx->auth = ualg_tfm_new(tfm->alg->spawns[0], &err)))
		return -err;
	if (!(ctx->enc = ualg_tfm_new(tfm->alg->spawns[1], &err))) {
		ualg_tfm_free(ctx->auth);
		return -err;
	}
	return 0;
}

static void authenc_exit_tfm(struct ualg_tfm *tfm)
{
	struct authenc_ctx *ctx = tfm->ctx;

	ualg_tfm_free(ctx->auth);
	ualg_tfm_free(ctx->enc);
}

/* struct rtattr { u16 rta_len, rta_type; } holding a big-endian
 * crypto_authenc_key_param { enckeylen }, then authkey || enckey. */
static int authenc_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct authenc_ctx *ctx = tfm->ctx;
	uint16_t rta_len, rta_type;

	if (len < RTATTR_HDR)
		return -EINVAL;
	memcpy(&rta_len, key, 2);
	memcpy(&rta_type, key + 2, 2);
	if (rta_len < RTATTR_HDR || rta_len > len || rta_type != CRYPTO_AUTHENC_KEYA_PARAM ||
	    rta_len - RTATTR_HDR != 4)
		return -EINVAL;
	const uint32_t enckeylen = (uint32_t)key[4] << 24 | (uint32_t)key[5] << 16 |
				   (uint32_t)key[6] << 8 | key[7];
	const size_t skip = (rta_len + 3u) & ~3u;	/* RTA_ALIGN */
	key += skip;
	len -= skip;
	if (len < enckeylen)
		return -EINVAL;
	const size_t authkeylen = len - enckeylen;
	int r = ualg_tfm_setkey(ctx->auth, key, authkeylen);
	return r ? r : ualg_tfm_setkey(ctx->enc, key + authkeylen, enckeylen);
}

/* The tag over the associated data and ciphertext, in the order each
 * variant authenticates them. */
static int compute_tag(struct ualg_tfm *tfm, const struct ualg_aead_req *req, size_t textlen,
		       uint8_t *tag)
{
	struct authenc_ctx *ctx = tfm->ctx;
	struct ualg_hash_desc d = { 0 };
	int r = ualg_hash_init(&d, ctx->auth);

	if (!r && is_esn(tfm)) {
		r = ualg_hash_update(&d, req->aad, 4);
		if (!r)
			r = ualg_hash_update(&d, req->aad + 8, req->assoclen - 8);
		if (!r)
			r = ualg_hash_update(&d, req->text, textlen);
		if (!r)
			r = ualg_hash_update(&d, req->aad + 4, 4);
	} else if (!r) {
		r = ualg_hash_update(&d, req->aad, req->assoclen);
		if (!r)
			r = ualg_hash_update(&d, req->text, textlen);
	}
	if (!r)
		r = ualg_hash_final(&d, tag);
	ualg_hash_exit(&d);
	return r;
}

static int authenc_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	struct authenc_ctx *ctx = tfm->ctx;
	uint8_t tag[UALG_MAX_DIGESTSIZE];

	if (is_esn(tfm) && req->assoclen < 8)
		return -EINVAL;
	int r = ualg_skcipher_crypt(ctx->enc, true, req->iv, req->text, req->text, req->cryptlen);
	if (!r && tfm->authsize)
		r = compute_tag(tfm, req, req->cryptlen, tag);
	if (!r)
		memcpy(req->text + req->cryptlen, tag, tfm->authsize);
	ualg_wipe(tag, sizeof(tag));
	return r;
}

/* The tag is checked before anything is decrypted. */
static int authenc_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	struct authenc_ctx *ctx = tfm->ctx;
	const size_t textlen = req->cryptlen - tfm->authsize;
	uint8_t tag[UALG_MAX_DIGESTSIZE];
	int r = 0;

	if (is_esn(tfm) && req->assoclen < 8)
		return -EINVAL;
	if (tfm->authsize) {
		r = compute_tag(tfm, req, textlen, tag);
		if (!r && ualg_memneq(tag, req->text + textlen, tfm->authsize))
			r = -EBADMSG;
		ualg_wipe(tag, sizeof(tag));
	}
	return r ? r : ualg_skcipher_crypt(ctx->enc, false, req->iv, req->text, req->text, textlen);
}

static struct ualg_alg *create(const char *tmpl, const void *esn, const char *const *args,
			       unsigned nargs, int *err)
{
	if (nargs != 2) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *spawns[2] = { ualg_alg_lookup(UALG_ALG_SHASH, args[0], err), NULL };
	if (!spawns[0])
		return NULL;
	struct ualg_alg *inst = NULL;
	if (!(spawns[1] = ualg_alg_lookup(UALG_ALG_SKCIPHER, args[1], err))) {
		ualg_alg_put(spawns[0]);
		return NULL;
	}
	if (!spawns[0]->u.shash.setkey) {	/* the MAC must be keyed */
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc(tmpl, UALG_ALG_AEAD, spawns, 2, err))) {
		inst->priority = spawns[1]->priority;
		inst->blocksize = spawns[1]->blocksize;
		inst->ctxsize = sizeof(struct authenc_ctx);
		inst->priv = esn;
		inst->init_tfm = authenc_init_tfm;
		inst->exit_tfm = authenc_exit_tfm;
		inst->u.aead = (struct ualg_aead_ops){
			.ivsize = spawns[1]->u.skcipher.ivsize,
			.maxauthsize = spawns[0]->u.shash.digestsize,
			.setkey = authenc_setkey,
			.encrypt = authenc_encrypt,
			.decrypt = authenc_decrypt,
		};
	}
	ualg_alg_put(spawns[0]);
	ualg_alg_put(spawns[1]);
	return inst;
}

static struct ualg_alg *authenc_create(const char *const *args, unsigned nargs, int *err)
{
	return create("authenc", NULL, args, nargs, err);
}

static const char esn_marker = 1;

static struct ualg_alg *authencesn_create(const char *const *args, unsigned nargs, int *err)
{
	return create("authencesn", &esn_marker, args, nargs, err);
}

const struct ualg_template ualg_tmpl_authenc = { .name = "authenc", .create = authenc_create };
const struct ualg_template ualg_tmpl_authencesn = { .name = "authencesn", .create = authencesn_create };
