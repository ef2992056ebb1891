/* Drivers over Botan's C interface (botan/ffi.h) for what OpenSSL, Nettle
 * and libgcrypt lack or what Botan alone has in one place: the block
 * cipher cast6 (CAST-256, RFC 2612; crypto/cast6_generic.c), the hashes
 * streebog256/512 (GOST R 34.11-2012, RFC 6986; crypto/streebog_generic.c)
 * and wp512/384/256 (Whirlpool and its truncations; crypto/wp512.c).
 * The modes and hmac come from the templates.  And, over Botan's C++
 * interface (cxx_libs.h), the stream cipher xchacha12
 * (crypto/chacha_generic.c): ChaCha with 12 rounds, which only Botan has. */
#include "others.h"
#include "openssl.h"
#include "cxx_libs.h"
#include "../modes.h"

#include <errno.h>
#include <string.h>

#include <botan/ffi.h>

#define MODULE "botan"

/* ---- cast6 --------------------------------------------------------------- */

struct cast6_ctx {
	botan_block_cipher_t bc;
};

static int cast6_init_tfm(struct ualg_tfm *tfm)
{
	struct cast6_ctx *c = tfm->ctx;

	return botan_block_cipher_init(&c->bc, "CAST-256") ? -ENOMEM : 0;
}

static void cast6_exit_tfm(struct ualg_tfm *tfm)
{
	struct cast6_ctx *c = tfm->ctx;

	botan_block_cipher_destroy(c->bc);
}

/* cast6_setkey(): 16 to 32 bytes, a multiple of 4. */
static int cast6_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct cast6_ctx *c = tfm->ctx;

	if (len % 4)
		return -EINVAL;
	return botan_block_cipher_set_key(c->bc, key, len) ? -EINVAL : 0;
}

static void cast6_enc(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	struct cast6_ctx *c = tfm->ctx;

	botan_block_cipher_encrypt_blocks(c->bc, src, dst, 1);
}

static void cast6_dec(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	struct cast6_ctx *c = tfm->ctx;

	botan_block_cipher_decrypt_blocks(c->bc, src, dst, 1);
}

/* ---- hashes --------------------------------------------------------------- */

struct botan_hash_impl {
	const char *botan;	/* Botan's name */
	unsigned size;		/* digest bytes: a prefix of Botan's output */
	bool reversed;		/* output byte order reversed */
};

struct bhash_state {
	botan_hash_t h;
};

static const struct botan_hash_impl *hash_impl(const struct ualg_tfm *tfm)
{
	return tfm->alg->priv;
}

static int bhash_init(struct ualg_hash_desc *desc)
{
	struct bhash_state *st = desc->state;

	return botan_hash_init(&st->h, hash_impl(desc->tfm)->botan, 0) ? -ENOMEM : 0;
}

static int bhash_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct bhash_state *st = desc->state;

	return botan_hash_update(st->h, data, len) ? -EINVAL : 0;
}

static int bhash_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct bhash_state *st = desc->state;
	const struct botan_hash_impl *impl = hash_impl(desc->tfm);
	uint8_t full[64];

	if (botan_hash_final(st->h, full))
		return -EINVAL;
	for (unsigned i = 0; i < impl->size; i++)
		out[i] = impl->reversed ? full[impl->size - 1 - i] : full[i];
	ualg_wipe(full, sizeof(full));
	return 0;
}

static int bhash_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	struct bhash_state *d = dst->state;
	const struct bhash_state *s = src->state;

	return botan_hash_copy_state(&d->h, s->h) ? -ENOMEM : 0;
}

static void bhash_exit(struct ualg_hash_desc *desc)
{
	struct bhash_state *st = desc->state;

	botan_hash_destroy(st->h);
	st->h = NULL;
}

static const struct {
	const char *name, *driver;
	unsigned blocksize;
	struct botan_hash_impl impl;
} hashes[] = {
	{ "streebog256", "streebog256-botan", 64, { "Streebog-256", 32, false } },
	{ "streebog512", "streebog512-botan", 64, { "Streebog-512", 64, false } },
	{ "wp512", "wp512-botan", 64, { "Whirlpool", 64, false } },
	{ "wp384", "wp384-botan", 64, { "Whirlpool", 48, false } },
	{ "wp256", "wp256-botan", 64, { "Whirlpool", 32, false } },
};

/* ---- xchacha12 ------------------------------------------------------------ */

struct xchacha12_ctx {
	uint8_t key[32];
};

static int xchacha12_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct xchacha12_ctx *c = tfm->ctx;

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
 * which the first 16 bytes go to HChaCha12 and the last 8 are the ChaCha
 * nonce, then the 64-bit little-endian block counter.  The kernel steps
 * only the counter's low word, which wraps without carry: each piece ends
 * where it wraps and the next starts from 0.  The IV is left unchanged,
 * as the kernel does. */
static int xchacha12_crypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	const struct xchacha12_ctx *c = tfm->ctx;
	uint32_t lo = le32(iv + 24);
	const uint32_t hi = le32(iv + 28);

	while (len) {
		size_t n = ualg_chacha_bytes_before_wrap(lo, len);
		int r = ualg_cxx_xchacha_xor(12, c->key, iv, lo, hi, src, dst, n);

		if (r)
			return r;
		src += n;
		dst += n;
		len -= n;
		lo = 0;
	}
	return 0;
}

static int register_xchacha12(void)
{
	struct ualg_alg *a = ualg_openssl_alloc("xchacha12", "xchacha12-botan", UALG_ALG_SKCIPHER,
						UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->module = MODULE;
	a->blocksize = 1;
	a->ctxsize = sizeof(struct xchacha12_ctx);
	a->u.skcipher = (struct ualg_skcipher_ops){
		.min_keysize = 32, .max_keysize = 32, .ivsize = 32, .chunksize = 64,
		.setkey = xchacha12_setkey, .encrypt = xchacha12_crypt, .decrypt = xchacha12_crypt,
	};
	return ualg_openssl_reg(a);
}

int ualg_botan_register(void)
{
	struct ualg_alg *a = ualg_openssl_alloc("cast6", "cast6-botan", UALG_ALG_CIPHER,
						UALG_OPENSSL_PRIO_PRIMITIVE);
	int r;

	if (!a)
		return -ENOMEM;
	a->module = MODULE;
	a->blocksize = 16;
	a->ctxsize = sizeof(struct cast6_ctx);
	a->init_tfm = cast6_init_tfm;
	a->exit_tfm = cast6_exit_tfm;
	a->u.cipher = (struct ualg_cipher_ops){
		.min_keysize = 16, .max_keysize = 32,
		.setkey = cast6_setkey, .encrypt = cast6_enc, .decrypt = cast6_dec,
	};
	if ((r = ualg_openssl_reg(a)))
		return r;

	for (size_t i = 0; i < sizeof(hashes) / sizeof(hashes[0]); i++) {
		if (!(a = ualg_openssl_alloc(hashes[i].name, hashes[i].driver, UALG_ALG_SHASH,
					     UALG_OPENSSL_PRIO_PRIMITIVE)))
			return -ENOMEM;
		a->module = MODULE;
		a->blocksize = hashes[i].blocksize;
		a->priv = &hashes[i].impl;
		a->u.shash = (struct ualg_shash_ops){
			.digestsize = hashes[i].impl.size,
			.descsize = sizeof(struct bhash_state),
			.init = bhash_init, .update = bhash_update, .final = bhash_final,
			.clone = bhash_clone, .exit = bhash_exit,
		};
		if ((r = ualg_openssl_reg(a)))
			return r;
	}
	return register_xchacha12();
}
