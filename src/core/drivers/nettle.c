/* GNU Nettle drivers: md5, sha1, sha224/256/384/512, the aes cipher, ecb/cbc/ctr(aes)
 * as whole-mode drivers and gcm(aes).  Self-tested at registration by the
 * same vectors as every other driver of those names; tests/unit/test_core.c
 * also checks them against OpenSSL's and gcm against the GCM specification. */
#include "nettle.h"
#include "../crypto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/aes.h>
#include <nettle/cbc.h>
#include <nettle/ctr.h>
#include <nettle/gcm.h>
#include <nettle/nettle-meta.h>
#include <nettle/md5.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include <nettle/sha3.h>
#include <nettle/md4.h>
#include <nettle/ripemd160.h>
#include <nettle/sm3.h>
#include <nettle/streebog.h>
#include <stddef.h>

#define MODULE "nettle"

static void driver_destroy(struct ualg_alg *alg)
{
	free(alg);
}

static int reg(const char *name, const char *driver, enum ualg_alg_type type, int prio,
	       const struct ualg_alg *tmpl)
{
	struct ualg_alg *alg = malloc(sizeof(*alg));

	if (!alg)
		return -ENOMEM;
	*alg = *tmpl;
	snprintf(alg->name, sizeof(alg->name), "%s", name);
	snprintf(alg->driver, sizeof(alg->driver), "%s", driver);
	alg->type = type;
	alg->priority = prio;
	alg->module = MODULE;
	alg->destroy = driver_destroy;
	int r = ualg_register(alg);
	if (r)
		free(alg);
	return r;
}

/* ---- SHA-2: nettle's generic hash interface -------------------------- */

static const struct nettle_hash *hash_of(const struct ualg_hash_desc *desc)
{
	return desc->tfm->alg->priv;
}

static int hash_init(struct ualg_hash_desc *desc)
{
	hash_of(desc)->init(desc->state);
	return 0;
}

static int hash_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	hash_of(desc)->update(desc->state, len, data);
	return 0;
}

static int hash_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	hash_of(desc)->digest(desc->state, hash_of(desc)->digest_size, out);
	return 0;
}

/* Nettle's contexts hold no pointers: a copy is a clone. */
static int hash_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	memcpy(dst->state, src->state, hash_of(src)->context_size);
	return 0;
}

static void hash_exit(struct ualg_hash_desc *desc)
{
	(void)desc;	/* tfm.c wipes the state */
}

/* Partial states (RFC mode): the context itself.  A forged one must not
 * make update index past the buffer: index is the only field that
 * addresses memory, and it must lie within the block. */
static int hash_export(const struct ualg_hash_desc *desc, uint8_t *out)
{
	memcpy(out, desc->state, hash_of(desc)->context_size);
	return 0;
}

/* The contexts whose layout is known here, and where their index is. */
static const struct {
	const struct nettle_hash *h;
	size_t index;
} exportable[] = {
	{ &nettle_md5, offsetof(struct md5_ctx, index) },
	{ &nettle_sha1, offsetof(struct sha1_ctx, index) },
	{ &nettle_sha224, offsetof(struct sha256_ctx, index) },
	{ &nettle_sha256, offsetof(struct sha256_ctx, index) },
	{ &nettle_sha384, offsetof(struct sha512_ctx, index) },
	{ &nettle_sha512, offsetof(struct sha512_ctx, index) },
	{ &nettle_sha3_224, offsetof(struct sha3_224_ctx, index) },
	{ &nettle_sha3_256, offsetof(struct sha3_256_ctx, index) },
	{ &nettle_sha3_384, offsetof(struct sha3_384_ctx, index) },
	{ &nettle_sha3_512, offsetof(struct sha3_512_ctx, index) },
	{ &nettle_md4, offsetof(struct md4_ctx, index) },
	{ &nettle_ripemd160, offsetof(struct ripemd160_ctx, index) },
	{ &nettle_sm3, offsetof(struct sm3_ctx, index) },
	{ &nettle_streebog256, offsetof(struct streebog256_ctx, index) },
	{ &nettle_streebog512, offsetof(struct streebog512_ctx, index) },
};

static size_t index_offset(const struct nettle_hash *h)
{
	for (size_t i = 0; i < sizeof(exportable) / sizeof(exportable[0]); i++)
		if (exportable[i].h == h)
			return exportable[i].index;
	return SIZE_MAX;
}

static int hash_import(struct ualg_hash_desc *desc, const uint8_t *in)
{
	const struct nettle_hash *h = hash_of(desc);
	unsigned index;

	memcpy(&index, in + index_offset(h), sizeof(index));
	if (index >= h->block_size)
		return -EINVAL;
	memcpy(desc->state, in, h->context_size);
	return 0;
}

/* Only the contexts whose layout hash_import() knows export. */
static bool exports(const struct nettle_hash *h)
{
	return index_offset(h) != SIZE_MAX;
}

static int register_hash(const char *name, const struct nettle_hash *h)
{
	char driver[UALG_MAX_ALG_NAME];
	const struct ualg_alg tmpl = {
		.blocksize = h->block_size,
		.priv = h,
		.u.shash = {
			.digestsize = h->digest_size, .descsize = h->context_size,
			.init = hash_init, .update = hash_update, .final = hash_final,
			.clone = hash_clone, .exit = hash_exit,
			.statesize = exports(h) ? h->context_size : 0,
			.export = exports(h) ? hash_export : NULL,
			.import = exports(h) ? hash_import : NULL,
		},
	};

	snprintf(driver, sizeof(driver), "%s-nettle", name);
	return reg(name, driver, UALG_ALG_SHASH, UALG_NETTLE_PRIO_PRIMITIVE, &tmpl);
}

/* ---- AES ------------------------------------------------------------- */

/* Nettle has one context type per key size; both directions are kept. */
struct aes_key {
	size_t keylen;
	union aes_any {
		struct aes128_ctx k128;
		struct aes192_ctx k192;
		struct aes256_ctx k256;
	} enc, dec;
};

static int aes_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct aes_key *k = tfm->ctx;

	switch (len) {
	case 16:
		aes128_set_encrypt_key(&k->enc.k128, key);
		aes128_invert_key(&k->dec.k128, &k->enc.k128);
		break;
	case 24:
		aes192_set_encrypt_key(&k->enc.k192, key);
		aes192_invert_key(&k->dec.k192, &k->enc.k192);
		break;
	case 32:
		aes256_set_encrypt_key(&k->enc.k256, key);
		aes256_invert_key(&k->dec.k256, &k->enc.k256);
		break;
	default:
		return -EINVAL;
	}
	k->keylen = len;
	return 0;
}

/* nettle_cipher_func over the encryption schedule; the context is the
 * struct aes_key. */
static void aes_encrypt_blocks(const void *ctx, size_t len, uint8_t *dst, const uint8_t *src)
{
	const struct aes_key *k = ctx;

	if (k->keylen == 16)
		aes128_encrypt(&k->enc.k128, len, dst, src);
	else if (k->keylen == 24)
		aes192_encrypt(&k->enc.k192, len, dst, src);
	else
		aes256_encrypt(&k->enc.k256, len, dst, src);
}

static void aes_decrypt_blocks(const void *ctx, size_t len, uint8_t *dst, const uint8_t *src)
{
	const struct aes_key *k = ctx;

	if (k->keylen == 16)
		aes128_decrypt(&k->dec.k128, len, dst, src);
	else if (k->keylen == 24)
		aes192_decrypt(&k->dec.k192, len, dst, src);
	else
		aes256_decrypt(&k->dec.k256, len, dst, src);
}

static void aes_encrypt_one(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	aes_encrypt_blocks(tfm->ctx, AES_BLOCK_SIZE, dst, src);
}

static void aes_decrypt_one(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	aes_decrypt_blocks(tfm->ctx, AES_BLOCK_SIZE, dst, src);
}

enum mode { MODE_ECB, MODE_CBC, MODE_CTR };

/* Nettle leaves in iv what the next request continues from: the last
 * ciphertext block for cbc, the next counter block for ctr (a partial
 * block consumes a whole counter), as the kernel's skcipher API does. */
static int aes_mode_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv, const uint8_t *src,
			  uint8_t *dst, size_t len)
{
	const enum mode mode = (enum mode)(uintptr_t)tfm->alg->priv;

	if (mode != MODE_CTR && len % AES_BLOCK_SIZE)
		return -EINVAL;
	if (!len)
		return 0;
	switch (mode) {
	case MODE_ECB:
		(enc ? aes_encrypt_blocks : aes_decrypt_blocks)(tfm->ctx, len, dst, src);
		break;
	case MODE_CBC:
		if (enc)
			cbc_encrypt(tfm->ctx, aes_encrypt_blocks, AES_BLOCK_SIZE, iv, len, dst, src);
		else
			cbc_decrypt(tfm->ctx, aes_decrypt_blocks, AES_BLOCK_SIZE, iv, len, dst, src);
		break;
	case MODE_CTR:
		ctr_crypt(tfm->ctx, aes_encrypt_blocks, AES_BLOCK_SIZE, iv, len, dst, src);
		break;
	}
	return 0;
}

static int aes_mode_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst,
			    size_t len)
{
	return aes_mode_crypt(tfm, true, iv, src, dst, len);
}

static int aes_mode_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst,
			    size_t len)
{
	return aes_mode_crypt(tfm, false, iv, src, dst, len);
}

static int register_aes(void)
{
	const struct ualg_alg tmpl = {
		.blocksize = AES_BLOCK_SIZE,
		.ctxsize = sizeof(struct aes_key),
		.u.cipher = {
			.min_keysize = 16, .max_keysize = 32, .setkey = aes_setkey,
			.encrypt = aes_encrypt_one, .decrypt = aes_decrypt_one,
		},
	};

	return reg("aes", "aes-nettle", UALG_ALG_CIPHER, UALG_NETTLE_PRIO_PRIMITIVE, &tmpl);
}

static const struct {
	const char *name, *driver;
	enum mode mode;
	unsigned blocksize, ivsize;
} modes[] = {
	{ "ecb(aes)", "ecb-aes-nettle", MODE_ECB, 16, 0 },
	{ "cbc(aes)", "cbc-aes-nettle", MODE_CBC, 16, 16 },
	{ "ctr(aes)", "ctr-aes-nettle", MODE_CTR, 1, 16 },
};

static int register_mode(size_t i)
{
	const struct ualg_alg tmpl = {
		.blocksize = modes[i].blocksize,
		.ctxsize = sizeof(struct aes_key),
		.priv = (const void *)(uintptr_t)modes[i].mode,
		.u.skcipher = {
			.min_keysize = 16, .max_keysize = 32, .ivsize = modes[i].ivsize,
			.chunksize = AES_BLOCK_SIZE, .setkey = aes_setkey,
			.encrypt = aes_mode_encrypt, .decrypt = aes_mode_decrypt,
		},
	};

	return reg(modes[i].name, modes[i].driver, UALG_ALG_SKCIPHER, UALG_NETTLE_PRIO_WHOLE, &tmpl);
}

/* ---- gcm(aes) -------------------------------------------------------- */

struct aes_gcm {
	struct aes_key aes;	/* first: aes_setkey() works on the context */
	struct gcm_key hkey;
};

static int aes_gcm_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct aes_gcm *c = tfm->ctx;
	int r = aes_setkey(tfm, key, len);

	if (!r)
		gcm_set_key(&c->hkey, &c->aes, aes_encrypt_blocks);
	return r;
}

/* crypto_gcm_check_authsize(): 4, 8 or 12 to 16 bytes. */
static int aes_gcm_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	(void)tfm;
	return authsize == 4 || authsize == 8 || (authsize >= 12 && authsize <= 16) ? 0 : -EINVAL;
}

static void aes_gcm_begin(const struct aes_gcm *c, struct gcm_ctx *g, const struct ualg_aead_req *req)
{
	gcm_set_iv(g, &c->hkey, GCM_IV_SIZE, req->iv);
	gcm_update(g, &c->hkey, req->assoclen, req->aad);
}

static int aes_gcm_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	const struct aes_gcm *c = tfm->ctx;
	struct gcm_ctx g;

	aes_gcm_begin(c, &g, req);
	gcm_encrypt(&g, &c->hkey, &c->aes, aes_encrypt_blocks, req->cryptlen, req->text, req->text);
	gcm_digest(&g, &c->hkey, &c->aes, aes_encrypt_blocks, tfm->authsize, req->text + req->cryptlen);
	ualg_wipe(&g, sizeof(g));
	return 0;
}

/* The plaintext never outlives a tag mismatch. */
static int aes_gcm_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	const struct aes_gcm *c = tfm->ctx;
	const size_t textlen = req->cryptlen - tfm->authsize;
	uint8_t tag[GCM_DIGEST_SIZE];
	struct gcm_ctx g;

	aes_gcm_begin(c, &g, req);
	gcm_decrypt(&g, &c->hkey, &c->aes, aes_encrypt_blocks, textlen, req->text, req->text);
	gcm_digest(&g, &c->hkey, &c->aes, aes_encrypt_blocks, tfm->authsize, tag);
	ualg_wipe(&g, sizeof(g));
	const int bad = ualg_memneq(tag, req->text + textlen, tfm->authsize);
	if (bad)
		ualg_wipe(req->text, textlen);
	return bad ? -EBADMSG : 0;
}

static int register_gcm(void)
{
	const struct ualg_alg tmpl = {
		.blocksize = 1,
		.ctxsize = sizeof(struct aes_gcm),
		.u.aead = {
			.ivsize = GCM_IV_SIZE, .maxauthsize = GCM_DIGEST_SIZE,
			.setkey = aes_gcm_setkey, .setauthsize = aes_gcm_setauthsize,
			.encrypt = aes_gcm_encrypt, .decrypt = aes_gcm_decrypt,
		},
	};

	return reg("gcm(aes)", "gcm-aes-nettle", UALG_ALG_AEAD, UALG_NETTLE_PRIO_WHOLE, &tmpl);
}

int ualg_nettle_register(void)
{
	static const struct {
		const char *name;
		const struct nettle_hash *hash;
	} hashes[] = {
		{ "md5", &nettle_md5 }, { "sha1", &nettle_sha1 },
		{ "sha224", &nettle_sha224 }, { "sha256", &nettle_sha256 },
		{ "sha384", &nettle_sha384 }, { "sha512", &nettle_sha512 },
		/* Below OpenSSL's and Botan's, but with states that can move
		 * (the in-process engine's, docs/engines.md). */
		{ "sha3-224", &nettle_sha3_224 }, { "sha3-256", &nettle_sha3_256 },
		{ "sha3-384", &nettle_sha3_384 }, { "sha3-512", &nettle_sha3_512 },
		{ "md4", &nettle_md4 }, { "rmd160", &nettle_ripemd160 }, { "sm3", &nettle_sm3 },
		{ "streebog256", &nettle_streebog256 }, { "streebog512", &nettle_streebog512 },
	};
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(hashes) / sizeof(hashes[0]); i++)
		r = register_hash(hashes[i].name, hashes[i].hash);
	if (!r)
		r = register_aes();
	for (size_t i = 0; !r && i < sizeof(modes) / sizeof(modes[0]); i++)
		r = register_mode(i);
	if (!r)
		r = register_gcm();
	return r;
}
