/* More Nettle drivers (nettle.c has its AES, SHA-2 and GCM ones): the
 * block ciphers serpent and twofish, which OpenSSL
 * does not have, and ghash, which no library exposes on its own but
 * Nettle's GCM computes as its associated-data hash.
 *
 * Key sizes as the kernel's crypto/serpent_generic.c (0 to 32 bytes, short
 * keys padded as the Serpent specification says, which Nettle does too) and
 * twofish_generic.c (16, 24 or 32 bytes). */
#include "others.h"
#include "openssl.h"

#include <errno.h>
#include <string.h>

#include <nettle/gcm.h>
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
	return r ? r : register_ghash();
}
