/* OpenSSL libcrypto drivers.
 *
 * Primitives: every message digest and block cipher the templates build on.
 * Whole-mode drivers: hmac(*) and the AES/3DES modes done by EVP in one call,
 * registered at a higher priority so that "cbc(aes)" picks them, as the
 * kernel picks cbc-aes-aesni over cbc(aes-generic). */
#include "openssl.h"
#include "../crypto.h"
#include "../modes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#define MODULE "openssl"

struct ualg_alg *ualg_openssl_alloc(const char *name, const char *driver,
				    enum ualg_alg_type type, int prio)
{
	struct ualg_alg *alg = calloc(1, sizeof(*alg));

	if (!alg)
		return NULL;
	snprintf(alg->name, sizeof(alg->name), "%s", name);
	snprintf(alg->driver, sizeof(alg->driver), "%s", driver);
	alg->type = type;
	alg->priority = prio;
	alg->module = MODULE;
	return alg;
}

/* ---- message digests ------------------------------------------------- */

struct md_state {
	EVP_MD_CTX *ctx;
};

static int md_init(struct ualg_hash_desc *desc)
{
	struct md_state *st = desc->state;

	st->ctx = EVP_MD_CTX_new();
	if (!st->ctx)
		return -ENOMEM;
	return EVP_DigestInit_ex(st->ctx, desc->tfm->alg->priv, NULL) ? 0 : -EINVAL;
}

static int md_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct md_state *st = desc->state;

	return EVP_DigestUpdate(st->ctx, data, len) ? 0 : -EINVAL;
}

static int md_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct md_state *st = desc->state;

	return EVP_DigestFinal_ex(st->ctx, out, NULL) ? 0 : -EINVAL;
}

static int md_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	struct md_state *d = dst->state;
	const struct md_state *s = src->state;

	d->ctx = EVP_MD_CTX_new();
	if (!d->ctx)
		return -ENOMEM;
	return EVP_MD_CTX_copy_ex(d->ctx, s->ctx) ? 0 : -EINVAL;
}

static void md_exit(struct ualg_hash_desc *desc)
{
	struct md_state *st = desc->state;

	EVP_MD_CTX_free(st->ctx);	/* cleanses the state */
	st->ctx = NULL;
}

/* ---- HMAC, whole-mode ------------------------------------------------ */

struct hmac_priv {
	EVP_MAC *mac;
	char digest[32];
};

struct hmac_ctx {
	EVP_MAC_CTX *keyed;	/* initialised with the key, never updated */
};

struct hmac_state {
	EVP_MAC_CTX *ctx;
};

static int hmac_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct hmac_priv *priv = tfm->alg->priv;
	struct hmac_ctx *c = tfm->ctx;
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)priv->digest, 0),
		OSSL_PARAM_construct_end(),
	};
	static const uint8_t empty[1];
	EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(priv->mac);

	if (!ctx)
		return -ENOMEM;
	/* HMAC with an empty key is valid (RFC 2104 pads it with zeros). */
	if (!EVP_MAC_init(ctx, len ? key : empty, len, params)) {
		EVP_MAC_CTX_free(ctx);
		return -EINVAL;
	}
	EVP_MAC_CTX_free(c->keyed);
	c->keyed = ctx;
	return 0;
}

static void hmac_exit_tfm(struct ualg_tfm *tfm)
{
	struct hmac_ctx *c = tfm->ctx;

	EVP_MAC_CTX_free(c->keyed);
}

static int hmac_init(struct ualg_hash_desc *desc)
{
	const struct hmac_ctx *c = desc->tfm->ctx;
	struct hmac_state *st = desc->state;

	st->ctx = EVP_MAC_CTX_dup(c->keyed);
	return st->ctx ? 0 : -ENOMEM;
}

static int hmac_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct hmac_state *st = desc->state;

	return EVP_MAC_update(st->ctx, data, len) ? 0 : -EINVAL;
}

static int hmac_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct hmac_state *st = desc->state;
	size_t outl;

	return EVP_MAC_final(st->ctx, out, &outl, desc->tfm->alg->u.shash.digestsize) ? 0 : -EINVAL;
}

static int hmac_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	struct hmac_state *d = dst->state;
	const struct hmac_state *s = src->state;

	d->ctx = EVP_MAC_CTX_dup(s->ctx);
	return d->ctx ? 0 : -ENOMEM;
}

static void hmac_exit(struct ualg_hash_desc *desc)
{
	struct hmac_state *st = desc->state;

	EVP_MAC_CTX_free(st->ctx);
	st->ctx = NULL;
}

/* ---- CMAC, whole-mode -------------------------------------------------- */

/* Same transform and descriptor shapes as HMAC: a keyed EVP_MAC_CTX that
 * each descriptor duplicates; only the key set-up differs.  AES only: the
 * kernel's des3_ede key checks stay with the cmac template over it. */
static int cmac_aes_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	static const char *const cbc[33] = {
		[16] = "AES-128-CBC", [24] = "AES-192-CBC", [32] = "AES-256-CBC" };
	struct hmac_ctx *c = tfm->ctx;

	if (len >= sizeof(cbc) / sizeof(cbc[0]) || !cbc[len])
		return -EINVAL;
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, (char *)cbc[len], 0),
		OSSL_PARAM_construct_end(),
	};
	EVP_MAC_CTX *ctx = EVP_MAC_CTX_new((EVP_MAC *)tfm->alg->priv);

	if (!ctx)
		return -ENOMEM;
	if (!EVP_MAC_init(ctx, key, len, params)) {
		EVP_MAC_CTX_free(ctx);
		return -EINVAL;
	}
	EVP_MAC_CTX_free(c->keyed);
	c->keyed = ctx;
	return 0;
}

/* Fetched once and kept for the process lifetime, as the digests. */
static EVP_MAC *cmac_fetched;

static int register_cmac_aes(void)
{
	EVP_MAC *cmac = cmac_fetched = EVP_MAC_fetch(NULL, "CMAC", NULL);

	if (!cmac)
		return 0;	/* absent: the cmac template serves */
	struct ualg_alg *a = ualg_openssl_alloc("cmac(aes)", "cmac-aes-openssl", UALG_ALG_SHASH,
						UALG_OPENSSL_PRIO_WHOLE);
	if (!a)
		return -ENOMEM;
	a->blocksize = 16;
	a->priv = cmac;
	a->ctxsize = sizeof(struct hmac_ctx);
	a->exit_tfm = hmac_exit_tfm;
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = 16,
		.descsize = sizeof(struct hmac_state),
		.setkey = cmac_aes_setkey,
		.init = hmac_init, .update = hmac_update, .final = hmac_final,
		.clone = hmac_clone, .exit = hmac_exit,
	};
	return ualg_openssl_reg(a);
}

/* ---- block ciphers (single block) ------------------------------------ */

/* One cipher family: which EVP cipher serves each key length. */
struct evp_family {
	const char *by_keylen[65];	/* EVP names indexed by key length */
	const char *varlen;		/* or one EVP name for a range of lengths */
	unsigned varmin, varmax;
};

static const char *evp_name(const struct evp_family *fam, size_t len)
{
	if (fam->varlen)
		return len >= fam->varmin && len <= fam->varmax ? fam->varlen : NULL;
	return len < sizeof(fam->by_keylen) / sizeof(fam->by_keylen[0]) ? fam->by_keylen[len] : NULL;
}

static const struct evp_family aes_ecb = { .by_keylen = {
	[16] = "AES-128-ECB", [24] = "AES-192-ECB", [32] = "AES-256-ECB" } };
static const struct evp_family aes_cbc = { .by_keylen = {
	[16] = "AES-128-CBC", [24] = "AES-192-CBC", [32] = "AES-256-CBC" } };
static const struct evp_family aes_ctr = { .by_keylen = {
	[16] = "AES-128-CTR", [24] = "AES-192-CTR", [32] = "AES-256-CTR" } };
static const struct evp_family aes_xts = { .by_keylen = {
	[32] = "AES-128-XTS", [64] = "AES-256-XTS" } };
static const struct evp_family aes_cts = { .by_keylen = {
	[16] = "AES-128-CBC-CTS", [24] = "AES-192-CBC-CTS", [32] = "AES-256-CBC-CTS" } };
static const struct evp_family des3_ecb = { .by_keylen = { [24] = "DES-EDE3-ECB" } };
static const struct evp_family des_ecb = { .by_keylen = { [8] = "DES-ECB" } };
static const struct evp_family camellia_ecb = { .by_keylen = {
	[16] = "CAMELLIA-128-ECB", [24] = "CAMELLIA-192-ECB", [32] = "CAMELLIA-256-ECB" } };
static const struct evp_family sm4_ecb = { .by_keylen = { [16] = "SM4-ECB" } };
static const struct evp_family seed_ecb = { .by_keylen = { [16] = "SEED-ECB" } };
/* Variable key lengths, as the kernel's cast5 (5 to 16 bytes) and blowfish
 * (4 to 56 bytes): evp_ctx_key sets the length on the context. */
static const struct evp_family cast5_ecb = { .varlen = "CAST5-ECB", .varmin = 5, .varmax = 16 };
static const struct evp_family bf_ecb = { .varlen = "BF-ECB", .varmin = 4, .varmax = 56 };
static const struct evp_family des3_cbc = { .by_keylen = { [24] = "DES-EDE3-CBC" } };

struct evp_ctx {
	EVP_CIPHER_CTX *enc, *dec;
	struct ualg_tfm *fallback;	/* keys EVP refuses but the kernel takes */
	EVP_CIPHER_CTX *tweak;		/* XTS: key2 alone, for the output IV */
};

static int evp_ctx_key(struct evp_ctx *c, const struct evp_family *fam,
		       const uint8_t *key, size_t len, bool cts)
{
	const char *name = evp_name(fam, len);

	if (!name)
		return -EINVAL;
	EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, name, NULL);
	if (cipher && ualg_openssl_engine_routed(cipher)) {
		EVP_CIPHER_free(cipher);
		return -EBUSY;
	}
	EVP_CIPHER_CTX *enc = EVP_CIPHER_CTX_new(), *dec = EVP_CIPHER_CTX_new();
	/* The key length first, for the ciphers that take several. */
	int ok = cipher && enc && dec &&
		 EVP_EncryptInit_ex2(enc, cipher, NULL, NULL, NULL) &&
		 EVP_DecryptInit_ex2(dec, cipher, NULL, NULL, NULL) &&
		 EVP_CIPHER_CTX_set_key_length(enc, (int)len) &&
		 EVP_CIPHER_CTX_set_key_length(dec, (int)len) &&
		 EVP_EncryptInit_ex2(enc, NULL, key, NULL, NULL) &&
		 EVP_DecryptInit_ex2(dec, NULL, key, NULL, NULL);

	if (ok && cts) {
		/* CS3 is the Kerberos variant that the kernel's cts implements. */
		OSSL_PARAM p[] = {
			OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE, "CS3", 0),
			OSSL_PARAM_construct_end(),
		};
		ok = EVP_CIPHER_CTX_set_params(enc, p) && EVP_CIPHER_CTX_set_params(dec, p);
	}
	EVP_CIPHER_free(cipher);
	if (!ok) {
		EVP_CIPHER_CTX_free(enc);
		EVP_CIPHER_CTX_free(dec);
		return -EINVAL;	/* e.g. OpenSSL's XTS refusing equal key halves */
	}
	EVP_CIPHER_CTX_set_padding(enc, 0);
	EVP_CIPHER_CTX_set_padding(dec, 0);
	EVP_CIPHER_CTX_free(c->enc);
	EVP_CIPHER_CTX_free(c->dec);
	c->enc = enc;
	c->dec = dec;
	return 0;
}

static void evp_exit_tfm(struct ualg_tfm *tfm)
{
	struct evp_ctx *c = tfm->ctx;

	EVP_CIPHER_CTX_free(c->enc);
	EVP_CIPHER_CTX_free(c->dec);
	ualg_tfm_free(c->fallback);
	EVP_CIPHER_CTX_free(c->tweak);
}

static int block_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	return evp_ctx_key(tfm->ctx, tfm->alg->priv, key, len, false);
}

static void block_encrypt(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	struct evp_ctx *c = tfm->ctx;
	int outl;

	EVP_EncryptUpdate(c->enc, dst, &outl, src, (int)tfm->alg->blocksize);
}

static void block_decrypt(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	struct evp_ctx *c = tfm->ctx;
	int outl;

	EVP_DecryptUpdate(c->dec, dst, &outl, src, (int)tfm->alg->blocksize);
}

/* ---- whole-mode skciphers -------------------------------------------- */

enum evp_mode { MODE_ECB, MODE_CBC, MODE_CTR, MODE_XTS, MODE_CTS };

struct mode_priv {
	const struct evp_family *fam;
	enum evp_mode mode;
};

/* OpenSSL has no XTS-AES-192 and refuses equal key halves; the kernel takes
 * both (outside FIPS mode).  Such keys go to the generic xts template over
 * our AES, as kernel drivers hand what they cannot do to a fallback. */
static int xts_fallback_setkey(struct evp_ctx *c, const uint8_t *key, size_t len)
{
	int err = 0;

	if (!c->fallback) {
		struct ualg_alg *alg = ualg_alg_lookup(UALG_ALG_SKCIPHER, "xts(aes-openssl)", &err);
		if (!alg)
			return -err;
		c->fallback = ualg_tfm_new(alg, &err);
		ualg_alg_put(alg);
		if (!c->fallback)
			return -err;
	}
	return ualg_tfm_setkey(c->fallback, key, len);
}

static int mode_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct mode_priv *p = tfm->alg->priv;
	struct evp_ctx *c = tfm->ctx;
	int r = evp_ctx_key(c, p->fam, key, len, p->mode == MODE_CTS);

	if (p->mode != MODE_XTS)
		return r;
	if (len % 2)
		return -EINVAL;
	if (!r) {
		ualg_tfm_free(c->fallback);
		c->fallback = NULL;
	} else if ((r = xts_fallback_setkey(c, key, len))) {
		return r;
	}
	/* The tweak key alone, to leave the IV as xts-aes-aesni does. */
	EVP_CIPHER *ecb = EVP_CIPHER_fetch(NULL, aes_ecb.by_keylen[len / 2], NULL);
	EVP_CIPHER_CTX *t = EVP_CIPHER_CTX_new();
	if (!ecb || !t || !EVP_EncryptInit_ex2(t, ecb, key + len / 2, NULL, NULL)) {
		EVP_CIPHER_free(ecb);
		EVP_CIPHER_CTX_free(t);
		return -EINVAL;
	}
	EVP_CIPHER_free(ecb);
	EVP_CIPHER_CTX_set_padding(t, 0);
	EVP_CIPHER_CTX_free(c->tweak);
	c->tweak = t;
	return 0;
}

/* As xts-aes-aesni: the encrypted tweak, advanced past every block, is
 * left in the IV. */
static void xts_aesni_iv(struct evp_ctx *c, uint8_t *iv, size_t len)
{
	int outl;

	EVP_EncryptUpdate(c->tweak, iv, &outl, iv, 16);
	ualg_xts_mul_xn(iv, (len + 15) / 16);
}

static int mode_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv,
		      const uint8_t *src, uint8_t *dst, size_t len)
{
	const struct mode_priv *p = tfm->alg->priv;
	struct evp_ctx *c = tfm->ctx;
	EVP_CIPHER_CTX *ctx = enc ? c->enc : c->dec;
	const unsigned bs = tfm->alg->blocksize;
	const unsigned ivsize = tfm->alg->u.skcipher.ivsize;
	uint8_t next_iv[UALG_MAX_IVSIZE];
	int outl;

	if (c->fallback) {
		int r = ualg_skcipher_crypt(c->fallback, enc, iv, src, dst, len);
		if (!r)
			xts_aesni_iv(c, iv, len);
		return r;
	}
	/* As the kernel: XTS and CTS need a whole block, even for an empty
	 * request; the other modes accept one and do nothing. */
	if ((p->mode == MODE_XTS || p->mode == MODE_CTS) && len < bs)
		return -EINVAL;
	if (!len)
		return 0;
	if ((p->mode == MODE_ECB || p->mode == MODE_CBC) && len % bs)
		return -EINVAL;
	if (len > INT32_MAX)
		return -EINVAL;
	/* The chaining value for the next request, taken before an in-place
	 * operation overwrites the input. */
	if (p->mode == MODE_CBC && !enc)
		memcpy(next_iv, src + len - bs, bs);
	const long cts_iv = p->mode == MODE_CTS ? ualg_cts_aesni_iv_offset(len, bs) : -1;
	if (cts_iv >= 0 && !enc)
		memcpy(next_iv, src + cts_iv, bs);
	if (!EVP_CipherInit_ex2(ctx, NULL, NULL, ivsize ? iv : NULL, enc, NULL) ||
	    !EVP_CipherUpdate(ctx, dst, &outl, src, (int)len) || (size_t)outl != len)
		return -EINVAL;
	switch (p->mode) {
	case MODE_CBC:
		memcpy(iv, enc ? dst + len - bs : next_iv, bs);
		break;
	case MODE_CTR:
		ualg_ctr_add(iv, ivsize, (len + ivsize - 1) / ivsize);
		break;
	case MODE_CTS:
		if (cts_iv >= 0)
			memcpy(iv, enc ? dst + cts_iv : next_iv, bs);
		break;
	case MODE_XTS:
		xts_aesni_iv(c, iv, len);
		break;
	default:
		break;
	}
	return 0;
}

static int mode_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return mode_crypt(tfm, true, iv, src, dst, len);
}

static int mode_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return mode_crypt(tfm, false, iv, src, dst, len);
}

/* ---- registration ---------------------------------------------------- */

static void driver_destroy(struct ualg_alg *alg)
{
	free(alg);
}

int ualg_openssl_reg(struct ualg_alg *alg)
{
	if (!alg)
		return -ENOMEM;
	alg->destroy = driver_destroy;
	int r = ualg_register(alg);
	if (r)
		free(alg);
	return r;
}

static const struct {
	const char *name, *evp;
} digests[] = {
	{ "md5", "MD5" }, { "sha1", "SHA1" },
	{ "sha224", "SHA2-224" }, { "sha256", "SHA2-256" },
	{ "sha384", "SHA2-384" }, { "sha512", "SHA2-512" },
	{ "sha3-224", "SHA3-224" }, { "sha3-256", "SHA3-256" },
	{ "sha3-384", "SHA3-384" }, { "sha3-512", "SHA3-512" },
	{ "md4", "MD4" }, { "rmd160", "RIPEMD160" }, { "sm3", "SM3" },
};

/* Fetched once and kept until ualg_openssl_unregister(): OpenSSL's own
 * cleanup at exit does not drop the references a fetch holds. */
static EVP_MD *md_fetched[sizeof(digests) / sizeof(digests[0])];
static struct hmac_priv hmac_privs[sizeof(digests) / sizeof(digests[0])];

static int register_digest(size_t i, EVP_MAC *mac)
{
	char driver[UALG_MAX_ALG_NAME], hname[UALG_MAX_ALG_NAME];
	EVP_MD *md = EVP_MD_fetch(NULL, digests[i].evp, NULL);

	if (!md)
		return 0;	/* not in this OpenSSL build: simply absent */
	md_fetched[i] = md;

	snprintf(driver, sizeof(driver), "%s-openssl", digests[i].name);
	struct ualg_alg *a = ualg_openssl_alloc(digests[i].name, driver, UALG_ALG_SHASH,
					  UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->blocksize = (unsigned)EVP_MD_get_block_size(md);
	a->priv = md;
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = (unsigned)EVP_MD_get_size(md),
		.descsize = sizeof(struct md_state),
		.init = md_init, .update = md_update, .final = md_final,
		.clone = md_clone, .exit = md_exit,
	};
	int r = ualg_openssl_reg(a);
	if (r || !mac)
		return r;

	snprintf(hname, sizeof(hname), "hmac(%s)", digests[i].name);
	snprintf(driver, sizeof(driver), "hmac-%s-openssl", digests[i].name);
	hmac_privs[i].mac = mac;
	snprintf(hmac_privs[i].digest, sizeof(hmac_privs[i].digest), "%s", digests[i].evp);
	a = ualg_openssl_alloc(hname, driver, UALG_ALG_SHASH, UALG_OPENSSL_PRIO_WHOLE);
	if (!a)
		return -ENOMEM;
	a->blocksize = (unsigned)EVP_MD_get_block_size(md);
	a->priv = &hmac_privs[i];
	a->ctxsize = sizeof(struct hmac_ctx);
	a->exit_tfm = hmac_exit_tfm;
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = (unsigned)EVP_MD_get_size(md),
		.descsize = sizeof(struct hmac_state),
		.setkey = hmac_setkey,
		.init = hmac_init, .update = hmac_update, .final = hmac_final,
		.clone = hmac_clone, .exit = hmac_exit,
	};
	return ualg_openssl_reg(a);
}

static int register_cipher(const char *name, const struct evp_family *fam,
			   unsigned bs, unsigned minkey, unsigned maxkey)
{
	char driver[UALG_MAX_ALG_NAME];

	snprintf(driver, sizeof(driver), "%s-openssl", name);
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, UALG_ALG_CIPHER, UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->blocksize = bs;
	a->priv = fam;
	a->ctxsize = sizeof(struct evp_ctx);
	a->exit_tfm = evp_exit_tfm;
	a->u.cipher = (struct ualg_cipher_ops){
		.min_keysize = minkey, .max_keysize = maxkey,
		.setkey = block_setkey, .encrypt = block_encrypt, .decrypt = block_decrypt,
	};
	return ualg_openssl_reg(a);
}

static const struct whole_mode {
	const char *name, *driver;
	struct mode_priv priv;
	unsigned bs, minkey, maxkey, ivsize, chunk;
} whole_modes[] = {
	{ "ecb(aes)", "ecb-aes-openssl", { &aes_ecb, MODE_ECB }, 16, 16, 32, 0, 16 },
	{ "cbc(aes)", "cbc-aes-openssl", { &aes_cbc, MODE_CBC }, 16, 16, 32, 16, 16 },
	{ "ctr(aes)", "ctr-aes-openssl", { &aes_ctr, MODE_CTR }, 1, 16, 32, 16, 16 },
	{ "xts(aes)", "xts-aes-openssl", { &aes_xts, MODE_XTS }, 16, 32, 64, 16, 16 },
	{ "cts(cbc(aes))", "cts-cbc-aes-openssl", { &aes_cts, MODE_CTS }, 16, 16, 32, 16, 16 },
	{ "ecb(des3_ede)", "ecb-des3_ede-openssl", { &des3_ecb, MODE_ECB }, 8, 24, 24, 0, 8 },
	{ "cbc(des3_ede)", "cbc-des3_ede-openssl", { &des3_cbc, MODE_CBC }, 8, 24, 24, 8, 8 },
};

static int register_whole_mode(const struct whole_mode *m)
{
	struct ualg_alg *a = ualg_openssl_alloc(m->name, m->driver, UALG_ALG_SKCIPHER, UALG_OPENSSL_PRIO_WHOLE);

	if (!a)
		return -ENOMEM;
	a->blocksize = m->bs;
	a->priv = &m->priv;
	a->ctxsize = sizeof(struct evp_ctx);
	a->exit_tfm = evp_exit_tfm;
	a->u.skcipher = (struct ualg_skcipher_ops){
		.min_keysize = m->minkey, .max_keysize = m->maxkey,
		.ivsize = m->ivsize, .chunksize = m->chunk,
		.setkey = mode_setkey, .encrypt = mode_encrypt, .decrypt = mode_decrypt,
	};
	return ualg_openssl_reg(a);
}

/* Single-block ciphers beside aes and des3_ede (generic name, EVP names by
 * key length, block size, key sizes), all in the kernel's 6.1 tree. */
static const struct {
	const char *name;
	const struct evp_family *fam;
	unsigned bs, minkey, maxkey;
} more_ciphers[] = {
	{ "des", &des_ecb, 8, 8, 8 },
	{ "camellia", &camellia_ecb, 16, 16, 32 },
	{ "cast5", &cast5_ecb, 8, 5, 16 },
	{ "blowfish", &bf_ecb, 8, 4, 56 },
	{ "sm4", &sm4_ecb, 16, 16, 16 },
	{ "seed", &seed_ecb, 16, 16, 16 },
};

/* md4, des, cast5, blowfish and seed are in OpenSSL's legacy provider
 * (Debian's libssl3 ships it).  try_load with retain_fallbacks keeps the
 * default provider loading implicitly, as before.  Without the legacy
 * provider those algorithms are simply absent. */
static OSSL_PROVIDER *legacy_provider;

static void load_providers(void)
{
	legacy_provider = OSSL_PROVIDER_try_load(NULL, "legacy", 1);
}

static int register_more_ciphers(void)
{
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(more_ciphers) / sizeof(more_ciphers[0]); i++) {
		EVP_CIPHER *probe = EVP_CIPHER_fetch(NULL, evp_name(more_ciphers[i].fam, more_ciphers[i].maxkey), NULL);
		if (!probe)
			continue;	/* not in this OpenSSL: absent */
		EVP_CIPHER_free(probe);
		r = register_cipher(more_ciphers[i].name, more_ciphers[i].fam, more_ciphers[i].bs,
				    more_ciphers[i].minkey, more_ciphers[i].maxkey);
	}
	return r;
}

static EVP_MAC *hmac_fetched;

int ualg_openssl_register(void)
{
	load_providers();
	EVP_MAC *mac = hmac_fetched = EVP_MAC_fetch(NULL, "HMAC", NULL);
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(digests) / sizeof(digests[0]); i++)
		r = register_digest(i, mac);
	if (!r)
		r = register_cipher("aes", &aes_ecb, 16, 16, 32);
	if (!r)
		r = register_cipher("des3_ede", &des3_ecb, 8, 24, 24);
	if (!r)
		r = register_more_ciphers();
	for (size_t i = 0; !r && i < sizeof(whole_modes) / sizeof(whole_modes[0]); i++)
		r = register_whole_mode(&whole_modes[i]);
	if (!r)
		r = register_cmac_aes();
	if (!r)
		r = ualg_openssl_register_stream();
	if (!r)
		r = ualg_openssl_register_aead();
	if (!r)
		r = ualg_openssl_register_rng();
	return r;
}

void ualg_openssl_unregister(void)
{
	for (size_t i = 0; i < sizeof(md_fetched) / sizeof(md_fetched[0]); i++) {
		EVP_MD_free(md_fetched[i]);
		md_fetched[i] = NULL;
	}
	EVP_MAC_free(hmac_fetched);
	EVP_MAC_free(cmac_fetched);
	hmac_fetched = cmac_fetched = NULL;
	ualg_openssl_unregister_stream();
	if (legacy_provider)
		OSSL_PROVIDER_unload(legacy_provider);
	legacy_provider = NULL;
}
