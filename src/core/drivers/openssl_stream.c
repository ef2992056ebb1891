/* OpenSSL drivers for Bernstein's primitives as the kernel exposes them:
 * the chacha20 skcipher and the poly1305 shash. */
#include "openssl.h"
#include "../modes.h"

#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

/* ---- chacha20 ------------------------------------------------------------ */

struct chacha_ctx {
	uint8_t key[32];
	EVP_CIPHER_CTX *ctx;
};

static int chacha_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct chacha_ctx *c = tfm->ctx;

	if (len != sizeof(c->key))
		return -EINVAL;
	memcpy(c->key, key, len);
	return 0;
}

static void chacha_exit_tfm(struct ualg_tfm *tfm)
{
	struct chacha_ctx *c = tfm->ctx;

	EVP_CIPHER_CTX_free(c->ctx);
}

/* The kernel's 16-byte IV (32-bit little-endian block counter, then the
 * 96-bit nonce) is also OpenSSL's ChaCha20 IV.  OpenSSL carries a counter
 * overflow into the nonce; the kernel wraps, so a request crossing the
 * wrap restarts at counter 0.  The IV is left unchanged, as the kernel
 * does. */
static int chacha_crypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct chacha_ctx *c = tfm->ctx;
	uint8_t block_iv[16];

	if (!c->ctx && !(c->ctx = EVP_CIPHER_CTX_new()))
		return -ENOMEM;
	memcpy(block_iv, iv, sizeof(block_iv));
	uint32_t ctr = (uint32_t)iv[0] | (uint32_t)iv[1] << 8 | (uint32_t)iv[2] << 16 | (uint32_t)iv[3] << 24;
	int r = 0;
	while (!r && len) {
		const size_t n = ualg_chacha_bytes_before_wrap(ctr, len);
		const size_t step = n > INT32_MAX / 64 * 64 ? INT32_MAX / 64 * 64 : n;
		int outl;
		if (!EVP_EncryptInit_ex2(c->ctx, EVP_chacha20(), c->key, block_iv, NULL) ||
		    !EVP_EncryptUpdate(c->ctx, dst, &outl, src, (int)step) || (size_t)outl != step)
			r = -EINVAL;
		src += step;
		dst += step;
		len -= step;
		ctr += (uint32_t)(step / 64);	/* wraps to 0 after the last block */
		for (int i = 0; i < 4; i++)
			block_iv[i] = (uint8_t)(ctr >> (8 * i));
	}
	ualg_wipe(block_iv, sizeof(block_iv));
	return r;
}

static int register_chacha20(void)
{
	struct ualg_alg *a = ualg_openssl_alloc("chacha20", "chacha20-openssl", UALG_ALG_SKCIPHER,
						UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->blocksize = 1;
	a->ctxsize = sizeof(struct chacha_ctx);
	a->exit_tfm = chacha_exit_tfm;
	a->u.skcipher = (struct ualg_skcipher_ops){
		.min_keysize = 32, .max_keysize = 32, .ivsize = 16, .chunksize = 64,
		.setkey = chacha_setkey, .encrypt = chacha_crypt, .decrypt = chacha_crypt,
	};
	return ualg_openssl_reg(a);
}

/* ---- poly1305 ------------------------------------------------------------ */

/* The kernel's poly1305 shash has no setkey: the first 32 bytes of the
 * data are the one-time key (r, then s), the rest the message, and a final
 * before the whole key arrived fails with ENOKEY (crypto/poly1305_generic.c,
 * arch/x86/crypto/poly1305_glue.c). */
struct poly_state {
	uint8_t key[32];
	size_t keylen;
	EVP_MAC_CTX *mac;	/* once the key is complete */
};

static EVP_MAC *poly1305_mac;

static int poly_init(struct ualg_hash_desc *desc)
{
	struct poly_state *st = desc->state;

	st->keylen = 0;
	st->mac = NULL;
	return 0;
}

static int poly_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct poly_state *st = desc->state;

	if (!st->mac) {
		size_t n = sizeof(st->key) - st->keylen;
		if (n > len)
			n = len;
		memcpy(st->key + st->keylen, data, n);
		st->keylen += n;
		data += n;
		len -= n;
		if (st->keylen < sizeof(st->key))
			return 0;
		st->mac = EVP_MAC_CTX_new(poly1305_mac);
		if (!st->mac || !EVP_MAC_init(st->mac, st->key, sizeof(st->key), NULL))
			return -ENOMEM;
	}
	return !len || EVP_MAC_update(st->mac, data, len) ? 0 : -EINVAL;
}

static int poly_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct poly_state *st = desc->state;
	size_t outl;

	if (!st->mac)
		return -ENOKEY;
	return EVP_MAC_final(st->mac, out, &outl, 16) ? 0 : -EINVAL;
}

static int poly_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	struct poly_state *d = dst->state;
	const struct poly_state *s = src->state;

	memcpy(d->key, s->key, sizeof(d->key));
	d->keylen = s->keylen;
	d->mac = NULL;
	if (s->mac && !(d->mac = EVP_MAC_CTX_dup(s->mac)))
		return -ENOMEM;
	return 0;
}

static void poly_exit(struct ualg_hash_desc *desc)
{
	struct poly_state *st = desc->state;

	EVP_MAC_CTX_free(st->mac);
	st->mac = NULL;
	ualg_wipe(st->key, sizeof(st->key));
}

static int register_poly1305(void)
{
	poly1305_mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	if (!poly1305_mac)
		return 0;	/* not in this OpenSSL: absent */
	struct ualg_alg *a = ualg_openssl_alloc("poly1305", "poly1305-openssl", UALG_ALG_SHASH,
						UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->blocksize = 16;
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = 16,
		.msg_key_len = 32,
		.descsize = sizeof(struct poly_state),
		.init = poly_init, .update = poly_update, .final = poly_final,
		.clone = poly_clone, .exit = poly_exit,
	};
	return ualg_openssl_reg(a);
}

int ualg_openssl_register_stream(void)
{
	int r = register_chacha20();

	return r ? r : register_poly1305();
}

void ualg_openssl_unregister_stream(void)
{
	EVP_MAC_free(poly1305_mac);
	poly1305_mac = NULL;
}
