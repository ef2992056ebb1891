/* cmac(cipher) (NIST SP 800-38B, RFC 4493) and xcbc(cipher) (RFC 3566)
 * over a single-block cipher, as crypto/cmac.c and crypto/xcbc.c.
 *
 * Both are CBC-MACs whose last block is XORed with one of two subkeys: a
 * full last block with the first, a padded (10*) one with the second.
 * They differ only in where the chaining key and the subkeys come from:
 * cmac chains with the key itself and derives the subkeys by doubling
 * L = E_K(0); xcbc derives K1, K2, K3 by encrypting constant blocks and
 * chains with K1. */
#include "../modes.h"
#include "../template.h"

#include <errno.h>
#include <string.h>

struct cmac_ctx {
	struct ualg_tfm *child;		/* first, for ualg_tmpl_child() */
	uint8_t sub[2][UALG_MAX_BLOCKSIZE];	/* full-block and padded-block subkeys */
};

struct cmac_state {
	uint8_t mac[UALG_MAX_BLOCKSIZE];	/* chaining value */
	uint8_t buf[UALG_MAX_BLOCKSIZE];	/* pending bytes, never chained yet */
	size_t buflen;
};

/* Doubling in GF(2^b) for b = 64 or 128, big-endian (SP 800-38B 6.1). */
static void gf_double(uint8_t *dst, const uint8_t *src, size_t bs)
{
	const uint8_t carry = src[0] >> 7;

	for (size_t i = 0; i + 1 < bs; i++)
		dst[i] = (uint8_t)(src[i] << 1 | src[i + 1] >> 7);
	dst[bs - 1] = (uint8_t)(src[bs - 1] << 1);
	if (carry)
		dst[bs - 1] ^= bs == 16 ? 0x87 : 0x1b;
}

static int cmac_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct cmac_ctx *c = tfm->ctx;
	const size_t bs = c->child->alg->blocksize;
	uint8_t l[UALG_MAX_BLOCKSIZE] = { 0 };
	int r = ualg_tfm_setkey(c->child, key, len);

	if (r)
		return r;
	ualg_cipher_encrypt_one(c->child, l, l);
	gf_double(c->sub[0], l, bs);
	gf_double(c->sub[1], c->sub[0], bs);
	ualg_wipe(l, sizeof(l));
	return 0;
}

/* RFC 3566 2.1: K1, K2, K3 = E_K(0x01..), E_K(0x02..), E_K(0x03..); the
 * child is then re-keyed with K1, which has the block size as length. */
static int xcbc_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct cmac_ctx *c = tfm->ctx;
	const size_t bs = c->child->alg->blocksize;
	uint8_t k[3][UALG_MAX_BLOCKSIZE];
	int r = ualg_tfm_setkey(c->child, key, len);

	if (r)
		return r;
	for (int i = 0; i < 3; i++) {
		memset(k[i], i + 1, bs);
		ualg_cipher_encrypt_one(c->child, k[i], k[i]);
	}
	memcpy(c->sub[0], k[1], bs);
	memcpy(c->sub[1], k[2], bs);
	r = ualg_tfm_setkey(c->child, k[0], bs);
	ualg_wipe(k, sizeof(k));
	return r;
}

static int cmac_init(struct ualg_hash_desc *desc)
{
	struct cmac_state *st = desc->state;

	memset(st, 0, sizeof(*st));
	return 0;
}

static void chain_block(struct ualg_tfm *child, struct cmac_state *st, const uint8_t *block)
{
	ualg_xor(st->mac, st->mac, block, child->alg->blocksize);
	ualg_cipher_encrypt_one(child, st->mac, st->mac);
}

/* The last block must wait for final (it takes a subkey), so a full
 * buffer is chained only when more data follows it. */
static int cmac_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(desc->tfm);
	struct cmac_state *st = desc->state;
	const size_t bs = child->alg->blocksize;

	while (len) {
		if (st->buflen == bs) {
			chain_block(child, st, st->buf);
			st->buflen = 0;
		}
		size_t n = bs - st->buflen < len ? bs - st->buflen : len;
		memcpy(st->buf + st->buflen, data, n);
		st->buflen += n;
		data += n;
		len -= n;
	}
	return 0;
}

static int cmac_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct cmac_ctx *c = desc->tfm->ctx;
	struct cmac_state *st = desc->state;
	const size_t bs = c->child->alg->blocksize;
	const bool full = st->buflen == bs;

	if (!full) {
		st->buf[st->buflen] = 0x80;
		memset(st->buf + st->buflen + 1, 0, bs - st->buflen - 1);
	}
	ualg_xor(st->buf, st->buf, c->sub[full ? 0 : 1], bs);
	chain_block(c->child, st, st->buf);
	memcpy(out, st->mac, bs);
	return 0;
}

static int cmac_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	memcpy(dst->state, src->state, sizeof(struct cmac_state));
	return 0;
}

/* Partial states: mac, buf (block size each), then buflen in one byte,
 * which may be 0..bs (a full buffer waits for final or more data). */
static int cmac_export(const struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct cmac_state *st = desc->state;
	const size_t bs = desc->tfm->alg->blocksize;

	memcpy(out, st->mac, bs);
	memcpy(out + bs, st->buf, bs);
	out[2 * bs] = (uint8_t)st->buflen;
	return 0;
}

static int cmac_import(struct ualg_hash_desc *desc, const uint8_t *in)
{
	struct cmac_state *st = desc->state;
	const size_t bs = desc->tfm->alg->blocksize;

	if (in[2 * bs] > bs)
		return -EINVAL;
	memcpy(st->mac, in, bs);
	memcpy(st->buf, in + bs, bs);
	st->buflen = in[2 * bs];
	return 0;
}

static void cmac_exit(struct ualg_hash_desc *desc)
{
	ualg_wipe(desc->state, sizeof(struct cmac_state));
}

static struct ualg_alg *mac_create(const char *tmpl, bool xcbc, const char *const *args,
				   unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *cipher = ualg_alg_lookup(UALG_ALG_CIPHER, args[0], err);
	if (!cipher)
		return NULL;
	struct ualg_alg *inst = NULL;
	const unsigned bs = cipher->blocksize;
	/* As the kernel: cmac for 64- and 128-bit blocks, xcbc for 128 only. */
	if (xcbc ? bs != 16 : bs != 8 && bs != 16) {
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc(tmpl, UALG_ALG_SHASH, &cipher, 1, err))) {
		inst->ctxsize = sizeof(struct cmac_ctx);
		inst->init_tfm = ualg_tmpl_init_child;
		inst->exit_tfm = ualg_tmpl_exit_child;
		inst->blocksize = bs;
		inst->u.shash = (struct ualg_shash_ops){
			.digestsize = bs,
			.descsize = sizeof(struct cmac_state),
			.setkey = xcbc ? xcbc_setkey : cmac_setkey,
			.init = cmac_init, .update = cmac_update, .final = cmac_final,
			.clone = cmac_clone, .exit = cmac_exit,
			.statesize = 2 * bs + 1, .export = cmac_export, .import = cmac_import,
		};
	}
	ualg_alg_put(cipher);
	return inst;
}

static struct ualg_alg *cmac_create(const char *const *args, unsigned nargs, int *err)
{
	return mac_create("cmac", false, args, nargs, err);
}

static struct ualg_alg *xcbc_create(const char *const *args, unsigned nargs, int *err)
{
	return mac_create("xcbc", true, args, nargs, err);
}

/* cbcmac(cipher), as crypto/ccm.c's: the plain CBC-MAC CCM is built on.
 * Data is XORed into the chaining value, which is encrypted at each full
 * block and once more at final when a partial block is pending (zero
 * padding); the digest is the whole block.  Any block size. */
struct cbcmac_state {
	uint8_t mac[UALG_MAX_BLOCKSIZE];
	size_t len;		/* bytes XORed in since the last encryption */
};

static int cbcmac_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	return ualg_tfm_setkey(ualg_tmpl_child(tfm), key, len);
}

static int cbcmac_init(struct ualg_hash_desc *desc)
{
	memset(desc->state, 0, sizeof(struct cbcmac_state));
	return 0;
}

static int cbcmac_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(desc->tfm);
	struct cbcmac_state *st = desc->state;
	const size_t bs = child->alg->blocksize;

	while (len) {
		size_t n = bs - st->len < len ? bs - st->len : len;
		ualg_xor(st->mac + st->len, st->mac + st->len, data, n);
		st->len += n;
		data += n;
		len -= n;
		if (st->len == bs) {
			ualg_cipher_encrypt_one(child, st->mac, st->mac);
			st->len = 0;
		}
	}
	return 0;
}

static int cbcmac_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct ualg_tfm *child = ualg_tmpl_child(desc->tfm);
	struct cbcmac_state *st = desc->state;

	if (st->len)
		ualg_cipher_encrypt_one(child, st->mac, st->mac);
	memcpy(out, st->mac, child->alg->blocksize);
	return 0;
}

static int cbcmac_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	memcpy(dst->state, src->state, sizeof(struct cbcmac_state));
	return 0;
}

static void cbcmac_exit(struct ualg_hash_desc *desc)
{
	ualg_wipe(desc->state, sizeof(struct cbcmac_state));
}

static struct ualg_alg *cbcmac_create(const char *const *args, unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *cipher = ualg_alg_lookup(UALG_ALG_CIPHER, args[0], err);
	if (!cipher)
		return NULL;
	struct ualg_alg *inst = ualg_instance_alloc("cbcmac", UALG_ALG_SHASH, &cipher, 1, err);
	if (inst) {
		inst->ctxsize = sizeof(struct ualg_tfm *);
		inst->init_tfm = ualg_tmpl_init_child;
		inst->exit_tfm = ualg_tmpl_exit_child;
		inst->blocksize = 1;
		inst->u.shash = (struct ualg_shash_ops){
			.digestsize = cipher->blocksize,
			.descsize = sizeof(struct cbcmac_state),
			.setkey = cbcmac_setkey,
			.init = cbcmac_init, .update = cbcmac_update, .final = cbcmac_final,
			.clone = cbcmac_clone, .exit = cbcmac_exit,
		};
	}
	ualg_alg_put(cipher);
	return inst;
}

const struct ualg_template ualg_tmpl_cbcmac = { .name = "cbcmac", .create = cbcmac_create };
const struct ualg_template ualg_tmpl_cmac = { .name = "cmac", .create = cmac_create };
const struct ualg_template ualg_tmpl_xcbc = { .name = "xcbc", .create = xcbc_create };
