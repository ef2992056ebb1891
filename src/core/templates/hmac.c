/* hmac(hash): RFC 2104 over any unkeyed hash, as crypto/hmac.c. */
#include "../template.h"

#include <errno.h>
#include <string.h>

struct hmac_tctx {
	struct ualg_tfm *child;		/* first, for ualg_tmpl_child() */
	struct ualg_hash_desc ipad, opad;	/* states after the padded key */
};

struct hmac_tstate {
	struct ualg_hash_desc inner;
};

static int hmac_tinit_tfm(struct ualg_tfm *tfm)
{
	return ualg_tmpl_init_child(tfm);
}

static void hmac_texit_tfm(struct ualg_tfm *tfm)
{
	struct hmac_tctx *c = tfm->ctx;

	ualg_hash_exit(&c->ipad);
	ualg_hash_exit(&c->opad);
	ualg_tmpl_exit_child(tfm);
}

static int pad_state(struct ualg_hash_desc *d, struct ualg_tfm *child,
		     const uint8_t *key, size_t bs, uint8_t x)
{
	uint8_t pad[256];

	for (size_t i = 0; i < bs; i++)
		pad[i] = key[i] ^ x;
	int r = ualg_hash_init(d, child);
	if (!r)
		r = ualg_hash_update(d, pad, bs);
	ualg_wipe(pad, sizeof(pad));
	return r;
}

static int hmac_tsetkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct hmac_tctx *c = tfm->ctx;
	const size_t bs = c->child->alg->blocksize;
	uint8_t k[256] = { 0 };
	int r = 0;

	if (len > bs)
		r = ualg_hash_digest(c->child, key, len, k);
	else if (len)
		memcpy(k, key, len);
	if (!r)
		r = pad_state(&c->ipad, c->child, k, bs, 0x36);
	if (!r)
		r = pad_state(&c->opad, c->child, k, bs, 0x5c);
	ualg_wipe(k, sizeof(k));
	return r;
}

static int hmac_tinit(struct ualg_hash_desc *desc)
{
	const struct hmac_tctx *c = desc->tfm->ctx;
	struct hmac_tstate *st = desc->state;

	return ualg_hash_clone(&st->inner, &c->ipad);
}

static int hmac_tupdate(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct hmac_tstate *st = desc->state;

	return ualg_hash_update(&st->inner, data, len);
}

static int hmac_tfinal(struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct hmac_tctx *c = desc->tfm->ctx;
	struct hmac_tstate *st = desc->state;
	struct ualg_hash_desc outer = { 0 };
	uint8_t ihash[UALG_MAX_DIGESTSIZE];
	int r = ualg_hash_final(&st->inner, ihash);

	if (!r)
		r = ualg_hash_clone(&outer, &c->opad);
	if (!r)
		r = ualg_hash_update(&outer, ihash, ualg_hash_digestsize(c->child));
	if (!r)
		r = ualg_hash_final(&outer, out);
	ualg_hash_exit(&outer);
	ualg_wipe(ihash, sizeof(ihash));
	return r;
}

static int hmac_tclone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	struct hmac_tstate *d = dst->state;
	const struct hmac_tstate *s = src->state;

	return ualg_hash_clone(&d->inner, &s->inner);
}

/* The inner hash's state is the whole state: the outer one is the key's. */
static int hmac_texport(const struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct hmac_tstate *st = desc->state;

	return ualg_hash_export(&st->inner, out);
}

static int hmac_timport(struct ualg_hash_desc *desc, const uint8_t *in)
{
	const struct hmac_tctx *c = desc->tfm->ctx;
	struct hmac_tstate *st = desc->state;

	return ualg_hash_import(&st->inner, c->child, in, ualg_hash_statesize(c->child));
}

static void hmac_texit(struct ualg_hash_desc *desc)
{
	struct hmac_tstate *st = desc->state;

	ualg_hash_exit(&st->inner);
}

static struct ualg_alg *hmac_create(const char *const *args, unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *hash = ualg_alg_lookup(UALG_ALG_SHASH, args[0], err);
	if (!hash)
		return NULL;
	struct ualg_alg *inst = NULL;
	const unsigned ds = hash->u.shash.digestsize;
	/* Hashes that need a key cannot be nested (optional keys, as
	 * xxhash64's seed, stay at their default: crypto_shash_alg_needs_key),
	 * and the pads must cover the digest. */
	if ((hash->u.shash.setkey && !hash->u.shash.optional_key) || ds > hash->blocksize ||
	    hash->blocksize > 256) {
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc("hmac", UALG_ALG_SHASH, &hash, 1, err))) {
		inst->ctxsize = sizeof(struct hmac_tctx);
		inst->init_tfm = hmac_tinit_tfm;
		inst->exit_tfm = hmac_texit_tfm;
		inst->u.shash = (struct ualg_shash_ops){
			.digestsize = ds,
			.descsize = sizeof(struct hmac_tstate),
			.setkey = hmac_tsetkey,
			.init = hmac_tinit, .update = hmac_tupdate, .final = hmac_tfinal,
			.clone = hmac_tclone, .exit = hmac_texit,
		};
		if (hash->u.shash.export && hash->u.shash.import) {
			inst->u.shash.statesize = hash->u.shash.statesize;
			inst->u.shash.export = hmac_texport;
			inst->u.shash.import = hmac_timport;
		}
	}
	ualg_alg_put(hash);
	return inst;
}

const struct ualg_template ualg_tmpl_hmac = { .name = "hmac", .create = hmac_create };
