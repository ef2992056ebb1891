/* IV generators, as crypto/seqiv.c and echainiv.c: the caller gives a
 * sequence number as the IV and reserves ivsize bytes after the associated
 * data; encryption writes the IV actually used there.  seqiv's IV is the
 * sequence number XOR a per-transform random salt, authenticated as part
 * of the associated data; echainiv encrypts a zero block in that place (so
 * the first ciphertext block is the chained IV) with the IV salt * seqno.
 * Decryption reads the IV back from the data.  The salt comes from the
 * default "stdrng", as the kernel's crypto_get_default_rng(). */
#include "../modes.h"
#include "../template.h"

#include <errno.h>
#include <string.h>

struct geniv_ctx {
	struct ualg_tfm *child;		/* first, for ualg_tmpl_child() */
	uint8_t salt[UALG_MAX_IVSIZE];
};

static bool is_echainiv(const struct ualg_tfm *tfm)
{
	return tfm->alg->priv != NULL;
}

static int random_salt(uint8_t *salt, size_t len)
{
	int err = 0;
	struct ualg_alg *alg = ualg_alg_lookup(UALG_ALG_RNG, "stdrng", &err);
	if (!alg)
		return -err;
	struct ualg_tfm *rng = ualg_tfm_new(alg, &err);
	ualg_alg_put(alg);
	if (!rng)
		return -err;
	int r = ualg_rng_seed(rng, NULL, 0);
	if (!r)
		r = ualg_rng_generate(rng, salt, len);
	ualg_tfm_free(rng);
	return r;
}

static int geniv_init_tfm(struct ualg_tfm *tfm)
{
	struct geniv_ctx *ctx = tfm->ctx;
	int r = ualg_tmpl_init_child(tfm);

	if (!r && (r = random_salt(ctx->salt, tfm->alg->u.aead.ivsize)))
		ualg_tmpl_exit_child(tfm);
	return r;
}

static int geniv_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	return ualg_tfm_setkey(ualg_tmpl_child(tfm), key, len);
}

static int geniv_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	return ualg_aead_setauthsize(ualg_tmpl_child(tfm), authsize);
}

/* echainiv's IV: for each 64-bit word, (salt word | 1) * seqno, where
 * seqno is the last 8 bytes of the caller's IV, big-endian. */
static void echainiv_iv(const struct geniv_ctx *ctx, uint8_t *iv, size_t ivsize)
{
	uint64_t seqno = 0;

	for (int i = 0; i < 8; i++)
		seqno = seqno << 8 | iv[ivsize - 8 + i];
	for (size_t off = 0; off < ivsize; off += 8) {
		uint64_t a;
		memcpy(&a, ctx->salt + ivsize - 8, 8);
		a = (a | 1) * seqno;
		memcpy(iv + off, &a, 8);
	}
}

static int geniv_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	struct geniv_ctx *ctx = tfm->ctx;
	const size_t ivsize = tfm->alg->u.aead.ivsize;
	struct ualg_aead_req sub = *req;

	if (req->cryptlen < ivsize || req->text != req->aad + req->assoclen)
		return -EINVAL;
	if (is_echainiv(tfm)) {
		memset(req->text, 0, ivsize);
		echainiv_iv(ctx, req->iv, ivsize);
	} else {
		ualg_xor(req->iv, req->iv, ctx->salt, ivsize);
		memcpy(req->text, req->iv, ivsize);
		sub.assoclen = req->assoclen + ivsize;
		sub.text = req->text + ivsize;
		sub.cryptlen = req->cryptlen - ivsize;
	}
	return ualg_aead_encrypt(ualg_tmpl_child(tfm), &sub);
}

static int geniv_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	const size_t ivsize = tfm->alg->u.aead.ivsize;
	struct ualg_aead_req sub = *req;

	if (req->cryptlen < ivsize || req->text != req->aad + req->assoclen)
		return -EINVAL;
	memcpy(req->iv, req->text, ivsize);
	sub.assoclen = req->assoclen + ivsize;
	sub.text = req->text + ivsize;
	sub.cryptlen = req->cryptlen - ivsize;
	return ualg_aead_decrypt(ualg_tmpl_child(tfm), &sub);
}

static struct ualg_alg *create(const char *tmpl, const void *echain, const char *const *args,
			       unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *inner = ualg_alg_lookup(UALG_ALG_AEAD, args[0], err);
	if (!inner)
		return NULL;
	const unsigned ivsize = inner->u.aead.ivsize;
	struct ualg_alg *inst = NULL;
	/* seqiv takes 64-bit IVs; echainiv any multiple of 64 bits. */
	if (echain ? !ivsize || ivsize % 8 || ivsize > UALG_MAX_IVSIZE : ivsize != 8) {
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc(tmpl, UALG_ALG_AEAD, &inner, 1, err))) {
		inst->ctxsize = sizeof(struct geniv_ctx);
		inst->priv = echain;
		inst->init_tfm = geniv_init_tfm;
		inst->exit_tfm = ualg_tmpl_exit_child;
		inst->u.aead = (struct ualg_aead_ops){
			.ivsize = ivsize,
			.maxauthsize = inner->u.aead.maxauthsize,
			.setkey = geniv_setkey,
			.setauthsize = geniv_setauthsize,
			.encrypt = geniv_encrypt,
			.decrypt = geniv_decrypt,
		};
	}
	ualg_alg_put(inner);
	return inst;
}

static struct ualg_alg *seqiv_create(const char *const *args, unsigned nargs, int *err)
{
	return create("seqiv", NULL, args, nargs, err);
}

static const char echainiv_marker = 1;

static struct ualg_alg *echainiv_create(const char *const *args, unsigned nargs, int *err)
{
	return create("echainiv", &echainiv_marker, args, nargs, err);
}

const struct ualg_template ualg_tmpl_seqiv = { .name = "seqiv", .create = seqiv_create };
const struct ualg_template ualg_tmpl_echainiv = { .name = "echainiv", .create = echainiv_create };
