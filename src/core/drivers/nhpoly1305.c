/* nhpoly1305, as crypto/nhpoly1305.c: the ε-almost-∆-universal hash of
 * Adiantum.  The message is cut into 1024-byte NH messages (the last one
 * zero-padded to a 16-byte unit); NH, with four passes over the 1072-byte
 * key, turns each into 32 bytes, and Poly1305 without its final addition
 * evaluates the concatenation of those.  The 1088-byte key is the 16-byte
 * Poly1305 r followed by the NH key.
 *
 * NH is written here from its specification (the Adiantum paper, section
 * 6.3, and the kernel's nh_generic()): additions and multiplications only,
 * no data-dependent branch or index.  Poly1305 is OpenSSL's (EVP_MAC
 * "POLY1305") keyed with r and a zero s: the NH output is whole 16-byte
 * blocks, so its tag is exactly the kernel's poly1305_core_emit() of the
 * evaluation without a nonce. */
#include "others.h"
#include "openssl.h"

#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>

#define NH_UNIT 16			/* NH_MESSAGE_UNIT */
#define NH_PASSES 4			/* NH_NUM_PASSES */
#define NH_HASH_BYTES (NH_PASSES * 8)
#define NH_MESSAGE_BYTES 1024		/* NH_MESSAGE_WORDS * 4 */
#define NH_KEY_WORDS (NH_MESSAGE_BYTES / 4 + 4 * (NH_PASSES - 1))
#define POLY_KEY_BYTES 16
#define KEY_SIZE (POLY_KEY_BYTES + NH_KEY_WORDS * 4)	/* NHPOLY1305_KEY_SIZE: 1088 */

struct nhp_ctx {
	uint8_t poly_key[32];		/* r, then a zero s */
	uint32_t nh_key[NH_KEY_WORDS];
	EVP_MAC_CTX *poly;		/* keyed with poly_key, copied by init */
};

struct nhp_state {
	EVP_MAC_CTX *poly;
	uint8_t buffer[NH_UNIT];
	unsigned buflen;
	unsigned nh_remaining;		/* bytes until the open NH message is whole */
	uint64_t nh_hash[NH_PASSES];	/* the open NH message's sums */
};

static EVP_MAC *nhp_mac;

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* NH over len bytes (a multiple of 16) with the key words from key: the
 * four passes use the key offset by 0, 4, 8 and 12 words. */
static void nh(const uint32_t *key, const uint8_t *m, size_t len, uint64_t sums[NH_PASSES])
{
	uint64_t s[NH_PASSES] = { 0 };

	for (; len; len -= NH_UNIT, m += NH_UNIT, key += 4) {
		const uint32_t m0 = le32(m), m1 = le32(m + 4), m2 = le32(m + 8), m3 = le32(m + 12);
		for (unsigned p = 0; p < NH_PASSES; p++) {
			const uint32_t *k = key + 4 * p;
			s[p] += (uint64_t)(uint32_t)(m0 + k[0]) * (uint32_t)(m2 + k[2]);
			s[p] += (uint64_t)(uint32_t)(m1 + k[1]) * (uint32_t)(m3 + k[3]);
		}
	}
	memcpy(sums, s, sizeof(s));
}

/* The NH hash of a whole (or final) NH message goes to Poly1305 as two
 * little-endian 16-byte blocks. */
static int absorb_nh_hash(struct nhp_state *st)
{
	uint8_t b[NH_HASH_BYTES];

	for (unsigned i = 0; i < NH_PASSES; i++)
		for (unsigned j = 0; j < 8; j++)
			b[8 * i + j] = (uint8_t)(st->nh_hash[i] >> (8 * j));
	const int ok = EVP_MAC_update(st->poly, b, sizeof(b));
	ualg_wipe(b, sizeof(b));
	return ok ? 0 : -EINVAL;
}

/* len bytes, a multiple of 16, into the open NH message and onwards. */
static int nhp_units(struct nhp_state *st, const struct nhp_ctx *c, const uint8_t *src, size_t len)
{
	while (len) {
		size_t n;
		if (!st->nh_remaining) {
			n = len < NH_MESSAGE_BYTES ? len : NH_MESSAGE_BYTES;
			nh(c->nh_key, src, n, st->nh_hash);
			st->nh_remaining = (unsigned)(NH_MESSAGE_BYTES - n);
		} else {
			uint64_t tmp[NH_PASSES];
			const size_t pos = NH_MESSAGE_BYTES - st->nh_remaining;
			n = len < st->nh_remaining ? len : st->nh_remaining;
			nh(&c->nh_key[pos / 4], src, n, tmp);
			for (unsigned i = 0; i < NH_PASSES; i++)
				st->nh_hash[i] += tmp[i];
			st->nh_remaining -= (unsigned)n;
		}
		if (!st->nh_remaining) {
			int r = absorb_nh_hash(st);
			if (r)
				return r;
		}
		src += n;
		len -= n;
	}
	return 0;
}

static int nhp_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct nhp_ctx *c = tfm->ctx;

	if (len != KEY_SIZE)
		return -EINVAL;
	memcpy(c->poly_key, key, POLY_KEY_BYTES);
	memset(c->poly_key + POLY_KEY_BYTES, 0, sizeof(c->poly_key) - POLY_KEY_BYTES);
	for (size_t i = 0; i < NH_KEY_WORDS; i++)
		c->nh_key[i] = le32(key + POLY_KEY_BYTES + 4 * i);
	if (!c->poly && !(c->poly = EVP_MAC_CTX_new(nhp_mac)))
		return -ENOMEM;
	return EVP_MAC_init(c->poly, c->poly_key, sizeof(c->poly_key), NULL) ? 0 : -EINVAL;
}

static void nhp_exit_tfm(struct ualg_tfm *tfm)
{
	struct nhp_ctx *c = tfm->ctx;

	EVP_MAC_CTX_free(c->poly);
	c->poly = NULL;
}

static int nhp_init(struct ualg_hash_desc *desc)
{
	const struct nhp_ctx *c = desc->tfm->ctx;
	struct nhp_state *st = desc->state;

	memset(st, 0, sizeof(*st));
	if (!c->poly)
		return -ENOKEY;
	st->poly = EVP_MAC_CTX_dup(c->poly);
	return st->poly ? 0 : -ENOMEM;
}

static int nhp_update(struct ualg_hash_desc *desc, const uint8_t *src, size_t len)
{
	const struct nhp_ctx *c = desc->tfm->ctx;
	struct nhp_state *st = desc->state;
	int r = 0;

	if (st->buflen) {
		size_t n = NH_UNIT - st->buflen;
		if (n > len)
			n = len;
		memcpy(st->buffer + st->buflen, src, n);
		st->buflen += (unsigned)n;
		if (st->buflen < NH_UNIT)
			return 0;
		if ((r = nhp_units(st, c, st->buffer, NH_UNIT)))
			return r;
		st->buflen = 0;
		src += n;
		len -= n;
	}
	if (len >= NH_UNIT) {
		const size_t n = len - len % NH_UNIT;
		if ((r = nhp_units(st, c, src, n)))
			return r;
		src += n;
		len -= n;
	}
	if (len) {
		memcpy(st->buffer, src, len);
		st->buflen = (unsigned)len;
	}
	return 0;
}

static int nhp_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct nhp_ctx *c = desc->tfm->ctx;
	struct nhp_state *st = desc->state;
	size_t outl;
	int r = 0;

	if (st->buflen) {
		memset(st->buffer + st->buflen, 0, NH_UNIT - st->buflen);
		r = nhp_units(st, c, st->buffer, NH_UNIT);
		st->buflen = 0;
	}
	if (!r && st->nh_remaining) {
		r = absorb_nh_hash(st);
		st->nh_remaining = 0;
	}
	if (!r && !EVP_MAC_final(st->poly, out, &outl, 16))
		r = -EINVAL;
	return r;
}

static int nhp_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	struct nhp_state *d = dst->state;
	const struct nhp_state *s = src->state;

	*d = *s;
	d->poly = EVP_MAC_CTX_dup(s->poly);
	return d->poly ? 0 : -ENOMEM;
}

static void nhp_exit(struct ualg_hash_desc *desc)
{
	struct nhp_state *st = desc->state;

	EVP_MAC_CTX_free(st->poly);
	ualg_wipe(st, sizeof(*st));
}

int ualg_nhpoly1305_register(void)
{
	if (!nhp_mac && !(nhp_mac = EVP_MAC_fetch(NULL, "POLY1305", NULL)))
		return 0;	/* no Poly1305 in this OpenSSL: absent */
	struct ualg_alg *a = ualg_openssl_alloc("nhpoly1305", "nhpoly1305-" UALG_OWN_MODULE,
						UALG_ALG_SHASH, UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->module = UALG_OWN_MODULE;
	a->blocksize = 0;	/* the kernel's nhpoly1305 sets none */
	a->ctxsize = sizeof(struct nhp_ctx);
	a->exit_tfm = nhp_exit_tfm;
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = 16,
		.descsize = sizeof(struct nhp_state),
		.setkey = nhp_setkey,
		.init = nhp_init, .update = nhp_update, .final = nhp_final,
		.clone = nhp_clone, .exit = nhp_exit,
	};
	return ualg_openssl_reg(a);
}
