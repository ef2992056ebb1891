/* michael_mic, as crypto/michael_mic.c: Michael, the message integrity code
 * of IEEE 802.11i TKIP.  The 8-byte key is two little-endian words (l, r);
 * the message is taken 4 bytes at a time as little-endian words, each
 * XORed into l followed by the block function
 *   r ^= rol32(l, 17); l += r; r ^= xswap(l); l += r;
 *   r ^= rol32(l, 3);  l += r; r ^= ror32(l, 2); l += r
 * (xswap exchanges the bytes within each 16-bit half).  The message ends
 * with 0x5a and zero bytes to a word boundary, then a zero word; the MIC
 * is l and r little-endian.  A key is required; it must be 8 bytes.  No
 * library in Debian has it; written from that description (IEEE 802.11i's
 * Michael, as the kernel implements it) and checked with testmgr.h's
 * vectors.  Additions, rotations and XORs only: constant time. */
#include "others.h"
#include "openssl.h"

#include <errno.h>
#include <string.h>

struct michael_ctx {
	uint32_t l, r;		/* the key */
};

struct michael_state {
	uint32_t l, r;
	uint8_t pending[4];	/* bytes of an incomplete word */
	uint32_t pending_len;
};

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint32_t rol32(uint32_t v, unsigned n)
{
	return v << n | v >> (32 - n);
}

static void michael_block(struct michael_state *st, uint32_t word)
{
	uint32_t l = st->l ^ word, r = st->r;

	r ^= rol32(l, 17);
	l += r;
	r ^= (l & 0x00ff00ffu) << 8 | (l & 0xff00ff00u) >> 8;
	l += r;
	r ^= rol32(l, 3);
	l += r;
	r ^= rol32(l, 30);
	l += r;
	st->l = l;
	st->r = r;
}

static int michael_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct michael_ctx *c = tfm->ctx;

	if (len != 8)
		return -EINVAL;
	c->l = get_le32(key);
	c->r = get_le32(key + 4);
	return 0;
}

static int michael_init(struct ualg_hash_desc *desc)
{
	const struct michael_ctx *c = desc->tfm->ctx;
	struct michael_state *st = desc->state;

	memset(st, 0, sizeof(*st));
	st->l = c->l;
	st->r = c->r;
	return 0;
}

static int michael_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct michael_state *st = desc->state;

	if (st->pending_len) {
		size_t n = 4 - st->pending_len;
		if (n > len)
			n = len;
		memcpy(st->pending + st->pending_len, data, n);
		st->pending_len += (uint32_t)n;
		data += n;
		len -= n;
		if (st->pending_len < 4)
			return 0;
		michael_block(st, get_le32(st->pending));
		st->pending_len = 0;
	}
	for (; len >= 4; data += 4, len -= 4)
		michael_block(st, get_le32(data));
	memcpy(st->pending, data, len);
	st->pending_len = (uint32_t)len;
	return 0;
}

static int michael_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct michael_state *st = desc->state;
	uint8_t last[4] = { 0 };

	memcpy(last, st->pending, st->pending_len);
	last[st->pending_len] = 0x5a;
	michael_block(st, get_le32(last));
	michael_block(st, 0);
	put_le32(out, st->l);
	put_le32(out + 4, st->r);
	ualg_wipe(last, sizeof(last));
	return 0;
}

static int michael_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	memcpy(dst->state, src->state, sizeof(struct michael_state));
	return 0;
}

static void michael_exit(struct ualg_hash_desc *desc)
{
	ualg_wipe(desc->state, sizeof(struct michael_state));
}

/* The partial state, as the kernel's default export (the descriptor):
 * l, r, the pending bytes and their count, little-endian. */
#define MICHAEL_STATESIZE 16

static int michael_export(const struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct michael_state *st = desc->state;

	put_le32(out, st->l);
	put_le32(out + 4, st->r);
	memcpy(out + 8, st->pending, 4);
	put_le32(out + 12, st->pending_len);
	return 0;
}

static int michael_import(struct ualg_hash_desc *desc, const uint8_t *in)
{
	struct michael_state *st = desc->state;
	const uint32_t pending_len = get_le32(in + 12);

	if (pending_len > 3)
		return -EINVAL;
	st->l = get_le32(in);
	st->r = get_le32(in + 4);
	memcpy(st->pending, in + 8, 4);
	st->pending_len = pending_len;
	return 0;
}

int ualg_michael_mic_register(void)
{
	struct ualg_alg *a = ualg_openssl_alloc("michael_mic", "michael_mic-generic", UALG_ALG_SHASH, 0);

	if (!a)
		return -ENOMEM;
	a->module = "michael_mic";
	a->blocksize = 8;
	a->ctxsize = sizeof(struct michael_ctx);
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = 8,
		.descsize = sizeof(struct michael_state),
		.setkey = michael_setkey,
		.init = michael_init, .update = michael_update, .final = michael_final,
		.clone = michael_clone, .exit = michael_exit,
		.statesize = MICHAEL_STATESIZE, .export = michael_export, .import = michael_import,
	};
	return ualg_openssl_reg(a);
}
