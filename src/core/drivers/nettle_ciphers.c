/* More Nettle drivers (nettle.c has its AES, SHA-2 and GCM ones): the
 * block ciphers serpent and twofish, which OpenSSL does not have; ghash,
 * which no library exposes on its own but Nettle's GCM computes as its
 * associated-data hash; and poly1305 with a state that can move.
 *
 * Key sizes as the kernel's crypto/serpent_generic.c (0 to 32 bytes, short
 * keys padded as the Serpent specification says, which Nettle does too) and
 * twofish_generic.c (16, 24 or 32 bytes). */
#include "others.h"
#include "openssl.h"
#include "nettle.h"

#include <errno.h>
#include <string.h>

#include <nettle/aes.h>
#include <nettle/gcm.h>
#include <nettle/poly1305.h>
#include <nettle/serpent.h>
#include <nettle/twofish.h>

#define MODULE "nettle"

union nettle_ctx {
	struct serpent_ctx serpent;
	struct twofish_ctx twofish;
};

static int serpent_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	union nettle_ctx *c = tfm->ctx;

	if (len > SERPENT_MAX_KEY_SIZE)
		return -EINVAL;
	serpent_set_key(&c->serpent, len, key);
	return 0;
}

static void serpent_enc(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	union nettle_ctx *c = tfm->ctx;

	serpent_encrypt(&c->serpent, SERPENT_BLOCK_SIZE, dst, src);
}

static void serpent_dec(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	union nettle_ctx *c = tfm->ctx;

	serpent_decrypt(&c->serpent, SERPENT_BLOCK_SIZE, dst, src);
}

static int twofish_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	union nettle_ctx *c = tfm->ctx;

	if (len != 16 && len != 24 && len != 32)
		return -EINVAL;
	twofish_set_key(&c->twofish, len, key);
	return 0;
}

static void twofish_enc(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	union nettle_ctx *c = tfm->ctx;

	twofish_encrypt(&c->twofish, TWOFISH_BLOCK_SIZE, dst, src);
}

static void twofish_dec(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	union nettle_ctx *c = tfm->ctx;

	twofish_decrypt(&c->twofish, TWOFISH_BLOCK_SIZE, dst, src);
}

/* ---- ghash --------------------------------------------------------------- */

/* The kernel's ghash (crypto/ghash-generic.c): the key is the hash key H
 * itself, 16 bytes; the digest is the GHASH of the data, its last partial
 * block padded with zeros, without GCM's length block.  Nettle derives H
 * by encrypting a zero block with the cipher it is given: a "cipher" that
 * answers H hands it over.  gcm_update hashes the data as associated data
 * into gcm_ctx.x, which is that GHASH; it takes whole blocks until its
 * last call, so partial blocks wait in the state. */
struct ghash_ctx {
	struct gcm_key key;
};

struct ghash_state {
	struct gcm_ctx gcm;
	uint8_t buf[GCM_BLOCK_SIZE];
	size_t buflen;
};

static void answer_h(const void *h, size_t length, uint8_t *dst, const uint8_t *src)
{
	(void)src;	/* the zero block */
	memcpy(dst, h, length);
}

static int ghash_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct ghash_ctx *c = tfm->ctx;

	if (len != GCM_BLOCK_SIZE)
		return -EINVAL;
	gcm_set_key(&c->key, key, answer_h);
	return 0;
}

static int ghash_init(struct ualg_hash_desc *desc)
{
	const struct ghash_ctx *c = desc->tfm->ctx;
	struct ghash_state *st = desc->state;
	static const uint8_t iv[GCM_IV_SIZE];

	gcm_set_iv(&st->gcm, &c->key, sizeof(iv), iv);	/* zeroes x */
	st->buflen = 0;
	return 0;
}

static int ghash_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	const struct ghash_ctx *c = desc->tfm->ctx;
	struct ghash_state *st = desc->state;

	if (st->buflen) {
		size_t n = GCM_BLOCK_SIZE - st->buflen < len ? GCM_BLOCK_SIZE - st->buflen : len;
		memcpy(st->buf + st->buflen, data, n);
		st->buflen += n;
		data += n;
		len -= n;
		if (st->buflen < GCM_BLOCK_SIZE)
			return 0;
		gcm_update(&st->gcm, &c->key, GCM_BLOCK_SIZE, st->buf);
		st->buflen = 0;
	}
	const size_t whole = len / GCM_BLOCK_SIZE * GCM_BLOCK_SIZE;
	if (whole)
		gcm_update(&st->gcm, &c->key, whole, data);
	memcpy(st->buf, data + whole, len - whole);
	st->buflen = len - whole;
	return 0;
}

static int ghash_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct ghash_ctx *c = desc->tfm->ctx;
	struct ghash_state *st = desc->state;

	if (st->buflen)
		gcm_update(&st->gcm, &c->key, st->buflen, st->buf);	/* zero-padded */
	st->buflen = 0;
	memcpy(out, st->gcm.x.b, GCM_BLOCK_SIZE);
	return 0;
}

static int ghash_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	memcpy(dst->state, src->state, sizeof(struct ghash_state));
	return 0;
}

/* The state moves as it is (it holds no pointer and no key: the key is the
 * transform's).  A forged one must not make update write past buf. */
static int ghash_export(const struct ualg_hash_desc *desc, uint8_t *out)
{
	memcpy(out, desc->state, sizeof(struct ghash_state));
	return 0;
}

static int ghash_import(struct ualg_hash_desc *desc, const uint8_t *in)
{
	struct ghash_state st;
	memcpy(&st, in, sizeof(st));
	if (st.buflen >= GCM_BLOCK_SIZE)
		return -EINVAL;
	memcpy(desc->state, &st, sizeof(st));
	ualg_wipe(&st, sizeof(st));
	return 0;
}

static void ghash_exit(struct ualg_hash_desc *desc)
{
	ualg_wipe(desc->state, sizeof(struct ghash_state));
}

static int register_ghash(void)
{
	struct ualg_alg *a = ualg_openssl_alloc("ghash", "ghash-" MODULE, UALG_ALG_SHASH,
						UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->module = MODULE;
	a->blocksize = GCM_BLOCK_SIZE;
	a->ctxsize = sizeof(struct ghash_ctx);
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = GCM_BLOCK_SIZE,
		.descsize = sizeof(struct ghash_state),
		.setkey = ghash_setkey,
		.init = ghash_init, .update = ghash_update, .final = ghash_final,
		.clone = ghash_clone, .exit = ghash_exit,
		.statesize = sizeof(struct ghash_state),
		.export = ghash_export, .import = ghash_import,
	};
	return ualg_openssl_reg(a);
}

/* ---- poly1305 ------------------------------------------------------------ */

/* The kernel's poly1305 shash (crypto/poly1305_generic.c) has no setkey:
 * the first 16 bytes of the data are r, the next 16 s, the rest the
 * message, and a final before s arrived is ENOKEY.  Nettle exposes
 * Poly1305 only as Poly1305-AES (Bernstein): Poly1305_r(m) + AES_k(n) mod
 * 2^128.  With a fixed, public AES key k (zero), the nonce n = AES_k^-1(s)
 * makes AES_k(n) = s, which gives RFC 8439's Poly1305_r(m) + s.  Unlike
 * OpenSSL's EVP_MAC (openssl_stream.c) the state is a plain struct, so a
 * socket using it can move between the program and algd. */
struct poly_state {
	uint8_t key[32];	/* r, then s, as they come */
	uint32_t keylen;
	struct poly1305_aes_ctx ctx;	/* once keylen is 32 */
};

static struct aes128_ctx zero_key_dec;	/* AES-128 decryption under k = 0 */

static int poly_init(struct ualg_hash_desc *desc)
{
	struct poly_state *st = desc->state;

	memset(st, 0, sizeof(*st));
	return 0;
}

static void poly_keyed(struct poly_state *st)
{
	uint8_t k[POLY1305_AES_KEY_SIZE] = { 0 }, n[POLY1305_AES_NONCE_SIZE];

	memcpy(k + AES128_KEY_SIZE, st->key, 16);	/* k = 0, then r */
	poly1305_aes_set_key(&st->ctx, k);
	aes128_decrypt(&zero_key_dec, sizeof(n), n, st->key + 16);
	poly1305_aes_set_nonce(&st->ctx, n);
	ualg_wipe(k, sizeof(k));
	ualg_wipe(n, sizeof(n));
}

static int poly_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct poly_state *st = desc->state;

	if (st->keylen < sizeof(st->key)) {
		size_t n = sizeof(st->key) - st->keylen < len ? sizeof(st->key) - st->keylen : len;
		memcpy(st->key + st->keylen, data, n);
		st->keylen += (uint32_t)n;
		data += n;
		len -= n;
		if (st->keylen < sizeof(st->key))
			return 0;
		poly_keyed(st);
	}
	if (len)
		poly1305_aes_update(&st->ctx, len, data);
	return 0;
}

static int poly_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct poly_state *st = desc->state;

	if (st->keylen < sizeof(st->key))
		return -ENOKEY;
	poly1305_aes_digest(&st->ctx, POLY1305_AES_DIGEST_SIZE, out);
	return 0;
}

static int poly_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	memcpy(dst->state, src->state, sizeof(struct poly_state));
	return 0;
}

static int poly_export(const struct ualg_hash_desc *desc, uint8_t *out)
{
	memcpy(out, desc->state, sizeof(struct poly_state));
	return 0;
}

/* A forged state must not make update write past the key or Nettle's
 * block buffer. */
static int poly_import(struct ualg_hash_desc *desc, const uint8_t *in)
{
	struct poly_state st;
	memcpy(&st, in, sizeof(st));
	const bool sane = st.keylen < sizeof(st.key) ||
			  (st.keylen == sizeof(st.key) && st.ctx.index < POLY1305_BLOCK_SIZE);
	if (sane)
		memcpy(desc->state, &st, sizeof(st));
	ualg_wipe(&st, sizeof(st));
	return sane ? 0 : -EINVAL;
}

static void poly_exit(struct ualg_hash_desc *desc)
{
	ualg_wipe(desc->state, sizeof(struct poly_state));
}

static int register_poly1305(void)
{
	static const uint8_t zero[AES128_KEY_SIZE];
	aes128_set_decrypt_key(&zero_key_dec, zero);
	struct ualg_alg *a = ualg_openssl_alloc("poly1305", "poly1305-" MODULE, UALG_ALG_SHASH,
						UALG_NETTLE_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->module = MODULE;
	a->blocksize = POLY1305_BLOCK_SIZE;
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = POLY1305_AES_DIGEST_SIZE,
		.msg_key_len = 32,
		.descsize = sizeof(struct poly_state),
		.init = poly_init, .update = poly_update, .final = poly_final,
		.clone = poly_clone, .exit = poly_exit,
		.statesize = sizeof(struct poly_state),
		.export = poly_export, .import = poly_import,
	};
	return ualg_openssl_reg(a);
}

static int register_block(const char *name, const char *driver, const struct ualg_cipher_ops *ops)
{
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, UALG_ALG_CIPHER, UALG_OPENSSL_PRIO_PRIMITIVE);

	if (!a)
		return -ENOMEM;
	a->module = MODULE;
	a->blocksize = 16;
	a->ctxsize = sizeof(union nettle_ctx);
	a->u.cipher = *ops;
	return ualg_openssl_reg(a);
}

int ualg_nettle_more_register(void)
{
	static const struct ualg_cipher_ops serpent = {
		.min_keysize = 0, .max_keysize = SERPENT_MAX_KEY_SIZE,
		.setkey = serpent_setkey, .encrypt = serpent_enc, .decrypt = serpent_dec,
	};
	static const struct ualg_cipher_ops twofish = {
		.min_keysize = 16, .max_keysize = 32,
		.setkey = twofish_setkey, .encrypt = twofish_enc, .decrypt = twofish_dec,
	};
	int r = register_block("serpent", "serpent-" MODULE, &serpent);

	if (!r)
		r = register_block("twofish", "twofish-" MODULE, &twofish);
	if (!r)
		r = register_ghash();
	return r ? r : register_poly1305();
}
