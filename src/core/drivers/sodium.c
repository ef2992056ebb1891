/* libsodium drivers: blake2b-160/256/384/512 and xchacha20.
 *
 * OpenSSL 3.0 has BLAKE2b only at 512 bits and keyed only through a MAC
 * that refuses the empty key; the kernel's blake2b-N takes an optional key
 * of 0 to 64 bytes (crypto/blake2b_generic.c), as libsodium's generichash
 * does.  OpenSSL has no XChaCha20. */
#include "others.h"
#include "openssl.h"
#include "../modes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#define MODULE "libsodium"

/* ---- blake2b ----------------------------------------------------------- */

struct blake2b_ctx {
	uint8_t key[crypto_generichash_blake2b_KEYBYTES_MAX];
	size_t keylen;
};

/* libsodium's state type asks for 64-byte alignment, which the caller's
 * descriptor does not promise: it lives in its own allocation. */
struct blake2b_state {
	crypto_generichash_blake2b_state *st;
};

static crypto_generichash_blake2b_state *blake2b_state_new(void)
{
	return aligned_alloc(64, (sizeof(crypto_generichash_blake2b_state) + 63) / 64 * 64);
}

static int blake2b_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct blake2b_ctx *c = tfm->ctx;

	/* As blake2b_generic: an empty key is refused (leaving the hash
	 * unkeyed is how one asks for no key). */
	if (!len || len > sizeof(c->key))
		return -EINVAL;
	memcpy(c->key, key, len);
	c->keylen = len;
	return 0;
}

static int blake2b_init(struct ualg_hash_desc *desc)
{
	const struct blake2b_ctx *c = desc->tfm->ctx;
	struct blake2b_state *s = desc->state;

	s->st = blake2b_state_new();
	if (!s->st)
		return -ENOMEM;
	return crypto_generichash_blake2b_init(s->st, c->keylen ? c->key : NULL, c->keylen,
					       desc->tfm->alg->u.shash.digestsize) ? -EINVAL : 0;
}

static int blake2b_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct blake2b_state *s = desc->state;

	return crypto_generichash_blake2b_update(s->st, data, len) ? -EINVAL : 0;
}

static int blake2b_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct blake2b_state *s = desc->state;

	return crypto_generichash_blake2b_final(s->st, out, desc->tfm->alg->u.shash.digestsize) ?
		-EINVAL : 0;
}

static int blake2b_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	struct blake2b_state *d = dst->state;
	const struct blake2b_state *s = src->state;

	d->st = blake2b_state_new();
	if (!d->st)
		return -ENOMEM;
	memcpy(d->st, s->st, sizeof(*d->st));
	return 0;
}

static void blake2b_exit(struct ualg_hash_desc *desc)
{
	struct blake2b_state *s = desc->state;

	if (s->st)
		sodium_memzero(s->st, sizeof(*s->st));
	free(s->st);
	s->st = NULL;
}

/* States that move (the in-process engine's, RFC mode's): libsodium's
 * state as the library lays it out, its blake2b_state (BLAKE2b's chaining
 * value, counters and flags, two blocks of buffer and the buffer's fill;
 * crypto_generichash/blake2b/ref/blake2.h), the same in every process of
 * the host, which share the library.  A forged one must not make an update
 * or final read or write past the buffer: the fill must lie within it, as
 * blake2b_update() and blake2b_final() assume, and the state must not be
 * a finalised one. */
struct blake2b_layout {
	uint64_t h[8], t[2], f[2];
	uint8_t buf[2 * 128];
	size_t buflen;
	uint8_t last_node;
};
_Static_assert(sizeof(struct blake2b_layout) <= sizeof(crypto_generichash_blake2b_state),
	       "libsodium's blake2b state holds its layout");

static int blake2b_export(const struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct blake2b_state *s = desc->state;

	memcpy(out, s->st, sizeof(*s->st));
	return 0;
}

static int blake2b_import(struct ualg_hash_desc *desc, const uint8_t *in)
{
	struct blake2b_state *s = desc->state;
	struct blake2b_layout l;

	memcpy(&l, in, sizeof(l));
	const bool sane = l.buflen <= sizeof(l.buf) && !l.f[0] && !l.f[1] && !l.last_node;
	sodium_memzero(&l, sizeof(l));
	if (!sane)
		return -EINVAL;
	memcpy(s->st, in, sizeof(*s->st));
	return 0;
}

static int register_blake2b(unsigned bits)
{
	char name[UALG_MAX_ALG_NAME], driver[UALG_MAX_ALG_NAME];

	snprintf(name, sizeof(name), "blake2b-%u", bits);
	snprintf(driver, sizeof(driver), "blake2b-%u-%s", bits, MODULE);
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, UALG_ALG_SHASH, UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->module = MODULE;
	a->blocksize = 128;	/* BLAKE2B_BLOCK_SIZE */
	a->ctxsize = sizeof(struct blake2b_ctx);
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = bits / 8,
		.descsize = sizeof(struct blake2b_state),
		.optional_key = true,
		.setkey = blake2b_setkey,
		.init = blake2b_init, .update = blake2b_update, .final = blake2b_final,
		.clone = blake2b_clone, .exit = blake2b_exit,
		.statesize = sizeof(crypto_generichash_blake2b_state),
		.export = blake2b_export, .import = blake2b_import,
	};
	return ualg_openssl_reg(a);
}

/* ---- xchacha20 ---------------------------------------------------------- */

struct xchacha_ctx {
	uint8_t key[crypto_stream_xchacha20_KEYBYTES];
};

static int xchacha_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct xchacha_ctx *c = tfm->ctx;

	if (len != sizeof(c->key))
		return -EINVAL;
	memcpy(c->key, key, len);
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The kernel's 32-byte IV (crypto/chacha_generic.c): a 24-byte nonce, of
 * which the first 16 bytes go to HChaCha20 and the last 8 are the ChaCha
 * nonce, then the 64-bit little-endian stream position.  libsodium's
 * crypto_stream_xchacha20_xor_ic takes the same nonce and the position as
 * its initial counter.  The IV is left unchanged, as the kernel does. */
static int xchacha_crypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	const struct xchacha_ctx *c = tfm->ctx;
	uint32_t lo = le32(iv + 24);
	const uint64_t hi = (uint64_t)le32(iv + 28) << 32;

	while (len) {
		size_t n = ualg_chacha_bytes_before_wrap(lo, len);
		if (crypto_stream_xchacha20_xor_ic(dst, src, n, iv, hi | lo, c->key))
			return -EINVAL;
		src += n;
		dst += n;
		len -= n;
		lo = 0;
	}
	return 0;
}

static int register_xchacha20(void)
{
	struct ualg_alg *a = ualg_openssl_alloc("xchacha20", "xchacha20-" MODULE, UALG_ALG_SKCIPHER,
						UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->module = MODULE;
	a->blocksize = 1;
	a->ctxsize = sizeof(struct xchacha_ctx);
	a->u.skcipher = (struct ualg_skcipher_ops){
		.min_keysize = 32, .max_keysize = 32, .ivsize = 32, .chunksize = 64,
		.setkey = xchacha_setkey, .encrypt = xchacha_crypt, .decrypt = xchacha_crypt,
	};
	return ualg_openssl_reg(a);
}

int ualg_sodium_register(void)
{
	static const unsigned sizes[] = { 160, 256, 384, 512 };
	int r = sodium_init() < 0 ? -EINVAL : 0;

	for (size_t i = 0; !r && i < sizeof(sizes) / sizeof(sizes[0]); i++)
		r = register_blake2b(sizes[i]);
	if (!r)
		r = register_xchacha20();
	return r;
}
