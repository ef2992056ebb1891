/* Unit tests of the core crypto API, as TAP: registry, priorities, template
 * instantiation and caching, name errors, a cross-check of every
 * whole-mode driver against the generic template instance on random data,
 * the AEAD templates against their inner algorithms driven by hand,
 * drivers that fail their vectors being refused, and the kernel semantics
 * of the algorithms written here (fcrypt, michael_mic, ansi_cprng). */
#include "crypto.h"
#include "template.h"
#include "modes.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "tap.h"

static struct ualg_alg *lookup(enum ualg_alg_type t, const char *name, int *err)
{
	*err = 0;
	return ualg_alg_lookup(t, name, err);
}

static void test_registry(void)
{
	int all_passed = 1, count = 0, err;

	for (const struct ualg_alg *a = ualg_alg_next(NULL); a; a = ualg_alg_next(a), count++)
		if (a->selftest != UALG_SELFTEST_PASSED) {
			printf("# %s (%s) did not pass its self-test\n", a->name, a->driver);
			all_passed = 0;
		}
	ok(count >= 29, "registry holds the built-in drivers (%d)", count);
	ok(all_passed, "every built-in driver passes its self-test");

	struct ualg_alg *a = lookup(UALG_ALG_SKCIPHER, "cbc(aes)", &err);
	ok(a && !strcmp(a->driver, "cbc-aes-openssl"), "cbc(aes) picks the highest-priority driver");
	ualg_alg_put(a);
	a = lookup(UALG_ALG_SKCIPHER, "cbc(aes-openssl)", &err);
	ok(a && !strcmp(a->driver, "cbc(aes-openssl)") && a->priority == 300,
	   "cbc(aes-openssl) instantiates the template over the driver");
	struct ualg_alg *b = lookup(UALG_ALG_SKCIPHER, "cbc(aes-openssl)", &err);
	ok(a && a == b, "a second lookup finds the cached instance");
	ualg_alg_put(a);
	ualg_alg_put(b);
	a = lookup(UALG_ALG_SHASH, "sha256-generic", &err);
	ok(a && !strcmp(a->driver, "sha256-openssl"), "kernel driver names map to ours");
	ualg_alg_put(a);

	ok(!lookup(UALG_ALG_SKCIPHER, "foo(aes)", &err) && err == ENOENT, "unknown template: ENOENT");
	ok(!lookup(UALG_ALG_SKCIPHER, "cbc(sha256)", &err) && err == ENOENT, "template over the wrong type: ENOENT");
	ok(!lookup(UALG_ALG_SHASH, "hmac(hmac(sha256))", &err) && err == ENOENT, "hmac over a keyed hash: ENOENT");
	ok(!lookup(UALG_ALG_SHASH, "cbc(aes)", &err) && err == ENOENT, "a cipher looked up as a hash: ENOENT");
	ok(!lookup(UALG_ALG_SKCIPHER, "cbc(aes))", &err) && err == ENOENT, "trailing characters: ENOENT");
	ok(!lookup(UALG_ALG_SKCIPHER, "cbc(aes", &err) && err == ENOENT, "unbalanced parentheses: ENOENT");
	char longname[200];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	ok(!lookup(UALG_ALG_SHASH, longname, &err) && err == ENAMETOOLONG, "over-long name: ENAMETOOLONG");
}

/* The whole-mode drivers are checked against the generic templates; their
 * output IVs follow different kernel drivers (aesni vs generic) for xts
 * and cts, so only the data is compared there. */
static void cross_check_skcipher(const char *generic, const char *whole, size_t keylen,
				 size_t len, int compare_iv)
{
	int err;
	struct ualg_alg *ga = lookup(UALG_ALG_SKCIPHER, generic, &err);
	struct ualg_alg *wa = lookup(UALG_ALG_SKCIPHER, whole, &err);
	struct ualg_tfm *g = ga ? ualg_tfm_new(ga, &err) : NULL, *w = wa ? ualg_tfm_new(wa, &err) : NULL;
	uint8_t key[64], iv1[16], iv2[16], in[4096], o1[4096], o2[4096];
	int same = g && w;

	for (int round = 0; same && round < 20; round++) {
		RAND_bytes(key, sizeof(key));
		RAND_bytes(iv1, sizeof(iv1));
		RAND_bytes(in, sizeof(in));
		same = !ualg_tfm_setkey(g, key, keylen) && !ualg_tfm_setkey(w, key, keylen);
		for (int enc = 0; same && enc < 2; enc++) {
			/* Chaining modes carry the IV on; the others restart. */
			if (!compare_iv || !enc)
				memcpy(iv2, iv1, sizeof(iv1));
			same = !ualg_skcipher_crypt(g, enc, iv1, in, o1, len) &&
			       !ualg_skcipher_crypt(w, enc, iv2, in, o2, len) &&
			       !memcmp(o1, o2, len) && (!compare_iv || !memcmp(iv1, iv2, 16));
		}
	}
	ok(same, "%s and %s agree on random data (%zu-byte key, %zu bytes)", generic, whole, keylen, len);
	ualg_tfm_free(g);
	ualg_tfm_free(w);
	ualg_alg_put(ga);
	ualg_alg_put(wa);
}

/* The straightforward XTS tweak doubling (IEEE 1619), byte by byte, as
 * the reference for the word-wise ualg_xts_mul_xn(). */
static void ref_xts_double(uint8_t t[16])
{
	unsigned carry = 0;

	for (int i = 0; i < 16; i++) {
		unsigned next = t[i] >> 7;
		t[i] = (uint8_t)(t[i] << 1 | carry);
		carry = next;
	}
	if (carry)
		t[0] ^= 0x87;
}

static void test_xts_mul_xn(void)
{
	uint8_t t[16], ref[16];
	int same = 1;

	RAND_bytes(t, sizeof(t));
	memcpy(ref, t, sizeof(t));
	/* n = 0, 1, 2, ... 3000 on one running value, then big jumps. */
	for (uint64_t n = 0; same && n <= 3000; n++) {
		uint8_t fast[16];
		memcpy(fast, t, sizeof(t));
		ualg_xts_mul_xn(fast, n);
		same = !memcmp(fast, ref, 16);
		ref_xts_double(ref);
	}
	for (uint64_t n = 1; same && n <= (1u << 22); n = n * 3 + 1) {
		RAND_bytes(t, sizeof(t));
		memcpy(ref, t, sizeof(t));
		ualg_xts_mul_xn(t, n);
		for (uint64_t b = 0; b < n; b++)
			ref_xts_double(ref);
		same = !memcmp(t, ref, 16);
	}
	ok(same, "ualg_xts_mul_xn(n) equals n byte-wise doublings (n = 0..3000 and up to 2^22)");
}

/* xts-aes-openssl leaves the IV as xts-aes-aesni does: E(key2, IV) doubled
 * once per block, a partial last block counting as one.  Computed here the
 * slow way, for many lengths and each key size, the 48-byte one going
 * through the generic fallback. */
static int xts_iv_matches(struct ualg_tfm *w, const uint8_t *key, size_t keylen,
			  const uint8_t *in, uint8_t *out, size_t len, bool enc)
{
	static const char *const ecb[33] = { [16] = "AES-128-ECB", [24] = "AES-192-ECB", [32] = "AES-256-ECB" };
	uint8_t iv[16], ref[16];
	int outl;

	RAND_bytes(iv, sizeof(iv));
	EVP_CIPHER *aes = EVP_CIPHER_fetch(NULL, ecb[keylen / 2], NULL);
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int good = aes && c && EVP_EncryptInit_ex2(c, aes, key + keylen / 2, NULL, NULL) &&
		   EVP_EncryptUpdate(c, ref, &outl, iv, 16) && outl == 16;
	EVP_CIPHER_CTX_free(c);
	EVP_CIPHER_free(aes);
	for (size_t b = 0; b < (len + 15) / 16; b++)
		ref_xts_double(ref);
	return good && !ualg_skcipher_crypt(w, enc, iv, in, out, len) && !memcmp(iv, ref, 16);
}

static void test_xts_output_iv(size_t keylen)
{
	static const size_t big[] = { 4096, 65535, 65536, 65536 + 17, 1u << 20, (1u << 20) + 1 };
	int err;
	struct ualg_alg *wa = lookup(UALG_ALG_SKCIPHER, "xts-aes-openssl", &err);
	struct ualg_tfm *w = wa ? ualg_tfm_new(wa, &err) : NULL;
	uint8_t key[64];
	uint8_t *in = malloc((1u << 20) + 1), *out = malloc((1u << 20) + 1);
	int same = w && in && out;

	RAND_bytes(key, sizeof(key));
	same = same && !ualg_tfm_setkey(w, key, keylen);
	if (same)
		RAND_bytes(in, (1u << 20) + 1);
	for (size_t len = 16; same && len <= 1100; len++)
		same = xts_iv_matches(w, key, keylen, in, out, len, len & 1);
	for (size_t i = 0; same && i < sizeof(big) / sizeof(big[0]); i++)
		same = xts_iv_matches(w, key, keylen, in, out, big[i], i & 1);
	ok(same, "xts-aes-openssl output IV equals E(key2, IV) doubled per block (%zu-byte key, 16..1100 bytes and up to 1 MiB)",
	   keylen);
	free(in);
	free(out);
	ualg_tfm_free(w);
	ualg_alg_put(wa);
}

/* A keyed hash's template instance against the whole-mode driver: random
 * keys of one length, messages of 0 to 999 bytes. */
static void cross_check_mac(const char *generic, const char *whole, size_t keylen)
{
	int err;
	struct ualg_alg *ga = lookup(UALG_ALG_SHASH, generic, &err);
	struct ualg_alg *wa = lookup(UALG_ALG_SHASH, whole, &err);
	struct ualg_tfm *g = ga ? ualg_tfm_new(ga, &err) : NULL, *w = wa ? ualg_tfm_new(wa, &err) : NULL;
	uint8_t key[64], msg[1000], d1[64], d2[64];
	int same = g && w && keylen <= sizeof(key);

	for (size_t len = 0; same && len < sizeof(msg); len += 37) {
		RAND_bytes(key, sizeof(key));
		RAND_bytes(msg, sizeof(msg));
		same = !ualg_tfm_setkey(g, key, keylen) && !ualg_tfm_setkey(w, key, keylen) &&
		       !ualg_hash_digest(g, msg, len, d1) && !ualg_hash_digest(w, msg, len, d2) &&
		       !memcmp(d1, d2, ualg_hash_digestsize(g));
	}
	ok(same, "%s and %s agree on random data (%zu-byte key)", generic, whole, keylen);
	ualg_tfm_free(g);
	ualg_tfm_free(w);
	ualg_alg_put(ga);
	ualg_alg_put(wa);
}

static void cross_check_hmac(const char *generic, const char *whole)
{
	int err;
	struct ualg_alg *ga = lookup(UALG_ALG_SHASH, generic, &err);
	struct ualg_alg *wa = lookup(UALG_ALG_SHASH, whole, &err);
	struct ualg_tfm *g = ga ? ualg_tfm_new(ga, &err) : NULL, *w = wa ? ualg_tfm_new(wa, &err) : NULL;
	uint8_t key[300], msg[1000], d1[64], d2[64];
	int same = g && w;

	for (size_t klen = 0; same && klen < sizeof(key); klen += 37) {
		RAND_bytes(key, sizeof(key));
		RAND_bytes(msg, sizeof(msg));
		same = !ualg_tfm_setkey(g, key, klen) && !ualg_tfm_setkey(w, key, klen) &&
		       !ualg_hash_digest(g, msg, klen * 3, d1) && !ualg_hash_digest(w, msg, klen * 3, d2) &&
		       !memcmp(d1, d2, ualg_hash_digestsize(g));
	}
	ok(same, "%s and %s agree for keys of 0..296 bytes", generic, whole);
	ualg_tfm_free(g);
	ualg_tfm_free(w);
	ualg_alg_put(ga);
	ualg_alg_put(wa);
}

static unsigned rand_below(unsigned n)
{
	unsigned r;
	RAND_bytes((uint8_t *)&r, sizeof(r));
	return r % n;
}

static struct ualg_tfm *aead_tfm(const char *name, struct ualg_alg **alg)
{
	int err;
	*alg = lookup(UALG_ALG_AEAD, name, &err);
	return *alg ? ualg_tfm_new(*alg, &err) : NULL;
}

static void aead_free(struct ualg_tfm *tfm, struct ualg_alg *alg)
{
	ualg_tfm_free(tfm);
	ualg_alg_put(alg);
}

/* One in-place request; iv is copied, as drivers may update it. */
static int aead_run(struct ualg_tfm *tfm, bool enc, const uint8_t *aad, size_t assoclen,
		    uint8_t *text, size_t cryptlen, const uint8_t *iv_in, size_t ivlen)
{
	uint8_t iv[UALG_MAX_IVSIZE];
	memcpy(iv, iv_in, ivlen);
	const struct ualg_aead_req req = { aad, assoclen, text, cryptlen, iv, NULL };
	return enc ? ualg_aead_encrypt(tfm, &req) : ualg_aead_decrypt(tfm, &req);
}

enum ipsec_kind { ESP_GCM, ESP_CCM, ESP_GMAC, ESP_CHACHA };

/* An IPsec wrapper against its inner algorithm called directly with what
 * the RFC builds: nonce = salt (the key's tail) || ESP IV, for CCM inside
 * the 16-byte IV with L = 4; associated data = assoc without the IV copy
 * at its end (for GMAC: all of assoc, then the text, nothing encrypted). */
static void cross_check_ipsec(enum ipsec_kind kind, const char *wrapper, const char *inner,
			      size_t keylen, unsigned authsize)
{
	struct ualg_alg *wa, *ia;
	struct ualg_tfm *w = aead_tfm(wrapper, &wa), *in = aead_tfm(inner, &ia);
	const size_t saltlen = kind == ESP_CCM ? 3 : 4;
	uint8_t key[36], iv8[8], niv[16] = { 0 }, plain[600], b1[600], b2[600];
	int same = w && in && !ualg_aead_setauthsize(w, authsize) && !ualg_aead_setauthsize(in, authsize);

	for (int round = 0; same && round < 20; round++) {
		const size_t assoclen = round % 2 ? 20 : 16, len = rand_below(512);
		const size_t off = kind == ESP_CCM;
		RAND_bytes(key, sizeof(key));
		RAND_bytes(iv8, sizeof(iv8));
		RAND_bytes(plain, sizeof(plain));
		memcpy(plain + assoclen - 8, iv8, 8);	/* ESP puts the IV there */
		niv[0] = 3;
		memcpy(niv + off, key + keylen, saltlen);
		memcpy(niv + off + saltlen, iv8, 8);
		memcpy(b1, plain, assoclen + len);
		memcpy(b2, plain, assoclen + len);
		same = !ualg_tfm_setkey(w, key, keylen + saltlen) && !ualg_tfm_setkey(in, key, keylen) &&
		       !aead_run(w, true, b1, assoclen, b1 + assoclen, len, iv8, 8);
		if (same && kind == ESP_GMAC)
			same = !aead_run(in, true, b2, assoclen + len, b2 + assoclen + len, 0, niv, 12);
		else if (same)
			same = !aead_run(in, true, b2, assoclen - 8, b2 + assoclen, len, niv,
					 in->alg->u.aead.ivsize);
		same = same && !memcmp(b1, b2, assoclen + len + authsize) &&
		       !aead_run(w, false, b1, assoclen, b1 + assoclen, len + authsize, iv8, 8) &&
		       !memcmp(b1, plain, assoclen + len);
	}
	ok(same, "%s agrees with %s driven by hand (%zu-byte key, %u-byte tag)", wrapper, inner,
	   keylen, authsize);
	aead_free(w, wa);
	aead_free(in, ia);
}

/* authenc/authencesn against the skcipher and the keyed hash used by
 * hand, each looked up under another driver's name than the instance
 * picks (the generic templates over the openssl drivers). */
static void cross_check_authenc(const char *name, const char *hash, const char *cbc, bool esn,
				unsigned authsize)
{
	int err;
	struct ualg_alg *aa, *ha = lookup(UALG_ALG_SHASH, hash, &err), *ca = lookup(UALG_ALG_SKCIPHER, cbc, &err);
	struct ualg_tfm *a = aead_tfm(name, &aa), *h = ha ? ualg_tfm_new(ha, &err) : NULL,
			*c = ca ? ualg_tfm_new(ca, &err) : NULL;
	uint8_t blob[8 + 64 + 32], iv[16], iv2[16], plain[600], buf[700], ct[600], tag[64];
	const uint16_t rta_len = 8, rta_type = 1;	/* CRYPTO_AUTHENC_KEYA_PARAM */
	int same = a && h && c && !ualg_aead_setauthsize(a, authsize);

	for (int round = 0; same && round < 20; round++) {
		const size_t authkeylen = rand_below(65), enckeylen = round % 2 ? 32 : 16;
		const size_t assoclen = 8 + rand_below(32), len = 16 * rand_below(33);
		struct ualg_hash_desc d = { 0 };
		memcpy(blob, &rta_len, 2);
		memcpy(blob + 2, &rta_type, 2);
		blob[4] = blob[5] = blob[6] = 0;
		blob[7] = (uint8_t)enckeylen;
		RAND_bytes(blob + 8, authkeylen + enckeylen);
		RAND_bytes(iv, sizeof(iv));
		RAND_bytes(plain, sizeof(plain));
		memcpy(buf, plain, assoclen + len);
		memcpy(iv2, iv, sizeof(iv));
		same = !ualg_tfm_setkey(a, blob, 8 + authkeylen + enckeylen) &&
		       !aead_run(a, true, buf, assoclen, buf + assoclen, len, iv, 16) &&
		       !ualg_tfm_setkey(h, blob + 8, authkeylen) &&
		       !ualg_tfm_setkey(c, blob + 8 + authkeylen, enckeylen) &&
		       !ualg_skcipher_crypt(c, true, iv2, plain + assoclen, ct, len) && !ualg_hash_init(&d, h);
		/* authencesn: SPI, the rest after seq_hi, the ciphertext, seq_hi. */
		if (same && esn)
			same = !ualg_hash_update(&d, plain, 4) &&
			       !ualg_hash_update(&d, plain + 8, assoclen - 8) &&
			       !ualg_hash_update(&d, ct, len) && !ualg_hash_update(&d, plain + 4, 4);
		else if (same)
			same = !ualg_hash_update(&d, plain, assoclen) && !ualg_hash_update(&d, ct, len);
		same = same && !ualg_hash_final(&d, tag) && !memcmp(buf, plain, assoclen) &&
		       !memcmp(buf + assoclen, ct, len) && !memcmp(buf + assoclen + len, tag, authsize) &&
		       !aead_run(a, false, buf, assoclen, buf + assoclen, len + authsize, iv, 16) &&
		       !memcmp(buf, plain, assoclen + len);
		ualg_hash_exit(&d);
		buf[rand_below((unsigned)(assoclen + len + authsize))] ^= 1;
		same = same && aead_run(a, false, buf, assoclen, buf + assoclen, len + authsize, iv, 16) == -EBADMSG;
	}
	ok(same, "%s agrees with %s and %s by hand and rejects a flipped bit", name, hash, cbc);
	aead_free(a, aa);
	ualg_tfm_free(h);
	ualg_tfm_free(c);
	ualg_alg_put(ha);
	ualg_alg_put(ca);
}

/* Drivers broken on purpose, wrapping gcm-aes-openssl: one spoils the
 * tag it writes, one accepts any tag (it passes every vector but the
 * novrfy ones).  Both must fail their self-test and never be handed out. */
enum breakage { SPOIL_TAG, ACCEPT_ANY_TAG };

static struct ualg_tfm *inner_of(struct ualg_tfm *tfm)
{
	return *(struct ualg_tfm **)tfm->ctx;
}

static int broken_init(struct ualg_tfm *tfm)
{
	struct ualg_alg *inner;
	int err = 0;
	if (!(inner = lookup(UALG_ALG_AEAD, "gcm-aes-openssl", &err)))
		return -err;
	*(struct ualg_tfm **)tfm->ctx = ualg_tfm_new(inner, &err);
	ualg_alg_put(inner);
	return inner_of(tfm) ? 0 : -err;
}

static void broken_exit(struct ualg_tfm *tfm)
{
	ualg_tfm_free(inner_of(tfm));
}

static int broken_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	return ualg_tfm_setkey(inner_of(tfm), key, len);
}

static int broken_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	return ualg_aead_setauthsize(inner_of(tfm), authsize);
}

static int broken_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	int r = ualg_aead_encrypt(inner_of(tfm), req);
	if (!r && *(const enum breakage *)tfm->alg->priv == SPOIL_TAG)
		req->text[req->cryptlen] ^= 0x80;
	return r;
}

static int broken_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	int r = ualg_aead_decrypt(inner_of(tfm), req);
	return r == -EBADMSG && *(const enum breakage *)tfm->alg->priv == ACCEPT_ANY_TAG ? 0 : r;
}

static void test_broken_aead(const char *driver, enum breakage how)
{
	static const enum breakage kinds[] = { SPOIL_TAG, ACCEPT_ANY_TAG };
	static struct ualg_alg algs[2];
	struct ualg_alg *alg = &algs[how];
	int err;

	snprintf(alg->name, sizeof(alg->name), "gcm(aes)");
	snprintf(alg->driver, sizeof(alg->driver), "%s", driver);
	alg->module = "test";
	alg->priority = 1000;
	alg->type = UALG_ALG_AEAD;
	alg->blocksize = 1;
	alg->ctxsize = sizeof(struct ualg_tfm *);
	alg->priv = &kinds[how];
	alg->init_tfm = broken_init;
	alg->exit_tfm = broken_exit;
	alg->u.aead = (struct ualg_aead_ops){
		.ivsize = 12,
		.maxauthsize = 16,
		.setkey = broken_setkey,
		.setauthsize = broken_setauthsize,
		.encrypt = broken_encrypt,
		.decrypt = broken_decrypt,
	};
	ok(!ualg_register(alg) && alg->selftest == UALG_SELFTEST_FAILED,
	   "%s fails its self-test", driver);
	ok(!lookup(UALG_ALG_AEAD, driver, &err) && err == ELIBBAD, "%s by name: ELIBBAD", driver);
	struct ualg_alg *best = lookup(UALG_ALG_AEAD, "gcm(aes)", &err);
	ok(best && !strcmp(best->driver, "gcm-aes-openssl"),
	   "gcm(aes) still picks gcm-aes-openssl over the higher-priority %s", driver);
	ualg_alg_put(best);
}

/* Every AEAD name with vectors is instantiated and passes them. */
static void test_aead_instances(void)
{
	static const char *const names[] = {
		"rfc4543(gcm(aes))", "rfc7539esp(chacha20,poly1305)",
		"authenc(hmac(sha1),cbc(aes))", "authenc(hmac(sha256),cbc(aes))",
		"authencesn(hmac(sha1),cbc(aes))", "authencesn(hmac(sha256),cbc(aes))",
		"rfc4106(gcm(aes))", "rfc4309(ccm(aes))",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int err;
		struct ualg_alg *a = lookup(UALG_ALG_AEAD, names[i], &err);
		ok(a && a->selftest == UALG_SELFTEST_PASSED, "%s instantiates and passes its self-test",
		   names[i]);
		ualg_alg_put(a);
	}
}

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2)
		sscanf(hex, "%2hhx", &out[n++]);
	return n;
}

/* McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", test
 * cases 2 and 4 (also in NIST's GCM validation vectors). */
static const struct {
	const char *key, *iv, *aad, *pt, *ct_tag;
} gcm_vectors[] = {
	{ "00000000000000000000000000000000", "000000000000000000000000", "",
	  "00000000000000000000000000000000",
	  "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf" },
	{ "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
	  "feedfacedeadbeeffeedfacedeadbeefabaddad2",
	  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
	  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
	  "5bc94fbc3221a5db94fae95ae7121a47" },
};

static void test_gcm_vectors(const char *driver)
{
	struct ualg_alg *a;
	struct ualg_tfm *t = aead_tfm(driver, &a);

	for (size_t i = 0; i < sizeof(gcm_vectors) / sizeof(gcm_vectors[0]); i++) {
		uint8_t key[32], iv[12], aad[64], pt[64], want[96], buf[96];
		size_t kl = unhex(gcm_vectors[i].key, key), al = unhex(gcm_vectors[i].aad, aad);
		size_t pl = unhex(gcm_vectors[i].pt, pt), wl = unhex(gcm_vectors[i].ct_tag, want);
		unhex(gcm_vectors[i].iv, iv);
		memcpy(buf, pt, pl);
		int good = t && !ualg_tfm_setkey(t, key, kl) && !aead_run(t, 1, aad, al, buf, pl, iv, 12) &&
			   !memcmp(buf, want, wl);
		ok(good, "%s: GCM specification test case %d encrypts", driver, i ? 4 : 2);
		good = t && !aead_run(t, 0, aad, al, buf, wl, iv, 12) && !memcmp(buf, pt, pl);
		ok(good, "%s: test case %d decrypts", driver, i ? 4 : 2);
		memcpy(buf, want, wl);
		buf[wl - 1] ^= 1;
		good = t && aead_run(t, 0, aad, al, buf, wl, iv, 12) == -EBADMSG;
		ok(good, "%s: a flipped tag bit gives EBADMSG", driver);
		if (i)	/* case 2's plaintext is zeros, like a wiped buffer */
			ok(memcmp(buf, pt, pl), "%s: and leaves no plaintext", driver);
	}
	aead_free(t, a);
}

/* Two AEAD drivers on random keys, IVs, associated data and texts, with
 * each tag size: the same output, and each decrypts the other's. */
static void cross_check_gcm(const char *d1, const char *d2)
{
	struct ualg_alg *a1, *a2;
	struct ualg_tfm *t1 = aead_tfm(d1, &a1), *t2 = aead_tfm(d2, &a2);
	static const unsigned tags[] = { 16, 12, 8, 4 };
	uint8_t key[32], iv[12], aad[40], pt[1000], o1[1016], o2[1016];
	int same = t1 && t2;

	for (int round = 0; same && round < 40; round++) {
		const size_t kl = 16 + 8 * (size_t)(round % 3), al = (size_t)round % 41;
		const size_t pl = (size_t)round * 25 % 1001;
		const unsigned tag = tags[round % 4];
		RAND_bytes(key, sizeof(key));
		RAND_bytes(iv, sizeof(iv));
		RAND_bytes(aad, sizeof(aad));
		RAND_bytes(pt, sizeof(pt));
		memcpy(o1, pt, pl);
		memcpy(o2, pt, pl);
		same = !ualg_tfm_setkey(t1, key, kl) && !ualg_tfm_setkey(t2, key, kl) &&
		       !ualg_aead_setauthsize(t1, tag) && !ualg_aead_setauthsize(t2, tag) &&
		       !aead_run(t1, 1, aad, al, o1, pl, iv, 12) && !aead_run(t2, 1, aad, al, o2, pl, iv, 12) &&
		       !memcmp(o1, o2, pl + tag) &&
		       !aead_run(t1, 0, aad, al, o2, pl + tag, iv, 12) && !aead_run(t2, 0, aad, al, o1, pl + tag, iv, 12) &&
		       !memcmp(o1, pt, pl) && !memcmp(o2, pt, pl);
	}
	ok(same, "%s and %s agree on random data with every tag size", d1, d2);
	aead_free(t1, a1);
	aead_free(t2, a2);
}

/* Linux 6.1 with fips=1: an approved algorithm failing its self-test stops
 * the start (the kernel panics); unapproved names are ENOENT, as
 * crypto_alg_lookup() gives; hmac keys under 112 bits are EINVAL. */
static int fips_lookup(enum ualg_alg_type type, const char *name)
{
	int err = 0;
	struct ualg_alg *a = ualg_alg_lookup(type, name, &err);

	ualg_alg_put(a);
	return a ? 0 : err;
}

static void test_fips(void)
{
	static const uint8_t key[14] = "0123456789abcd";
	int err = 0;

	ualg_fips_enable();
	ualg_selftest_corrupt("hmac(sha256)");
	ok(ualg_core_init() == -ELIBBAD, "fips: a corrupted hmac(sha256) vector stops the start");
	ok(ualg_fips_failure() && !strcmp(ualg_fips_failure()->name, "hmac(sha256)"),
	   "fips: the failure names hmac(sha256)");
	ualg_core_exit();
	ualg_selftest_corrupt(NULL);
	ok(ualg_core_init() == 0 && !ualg_fips_failure(), "fips: the intact vectors pass");
	ok(fips_lookup(UALG_ALG_SHASH, "md5") == ENOENT, "fips: md5 is ENOENT");
	ok(fips_lookup(UALG_ALG_SHASH, "hmac(md5)") == ENOENT, "fips: hmac(md5) is ENOENT");
	ok(fips_lookup(UALG_ALG_SKCIPHER, "ecb(des3_ede)") == ENOENT, "fips: ecb(des3_ede) is ENOENT");
	ok(fips_lookup(UALG_ALG_SKCIPHER, "lrw(aes)") == ENOENT, "fips: lrw(aes) is ENOENT");
	ok(fips_lookup(UALG_ALG_AEAD, "rfc4543(gcm(aes))") == ENOENT, "fips: rfc4543(gcm(aes)) is ENOENT");
	ok(fips_lookup(UALG_ALG_SHASH, "sha256") == 0, "fips: sha256 is served");
	ok(fips_lookup(UALG_ALG_SKCIPHER, "cbc(aes)") == 0, "fips: cbc(aes) is served");
	ok(fips_lookup(UALG_ALG_AEAD, "rfc4106(gcm(aes))") == 0, "fips: rfc4106(gcm(aes)) is served");
	ok(fips_lookup(UALG_ALG_AEAD, "authenc(hmac(sha256),cbc(aes))") == 0,
	   "fips: authenc(hmac(sha256),cbc(aes)) is served");
	struct ualg_alg *h = ualg_alg_lookup(UALG_ALG_SHASH, "hmac(sha256)", &err);
	struct ualg_tfm *t = h ? ualg_tfm_new(h, &err) : NULL;
	ok(t && ualg_tfm_setkey(t, key, 13) == -EINVAL, "fips: a 104-bit hmac key is EINVAL");
	ok(t && ualg_tfm_setkey(t, key, 14) == 0, "fips: a 112-bit hmac key is taken");
	ualg_tfm_free(t);
	ualg_alg_put(h);
	ualg_core_exit();
}

/* Partial states (RFC mode): a state exported mid-message and imported
 * into a fresh desc continues to the one-shot digest; bytes export could
 * not have made are refused.  bad_at: an offset whose byte, set to bad,
 * makes the state invalid (a buffer index past the block). */
static void test_hash_export(const char *name, const char *driver, size_t keylen, size_t bad_at,
			     uint8_t bad)
{
	int err;
	uint8_t key[64], data[1000], one[UALG_MAX_DIGESTSIZE], split[UALG_MAX_DIGESTSIZE], st[512];
	struct ualg_alg *a = ualg_alg_lookup_exportable(UALG_ALG_SHASH, name, &err);
	struct ualg_tfm *t = a ? ualg_tfm_new(a, &err) : NULL;
	struct ualg_hash_desc d = { 0 }, e = { 0 };

	RAND_bytes(key, sizeof(key));
	RAND_bytes(data, sizeof(data));
	ok(a && !strcmp(a->driver, driver), "%s in RFC mode is %s", name, a ? a->driver : "nothing");
	if (!t) {
		ualg_alg_put(a);
		return;
	}
	const size_t n = ualg_hash_statesize(t);
	bool good = n && n <= sizeof(st) && (!keylen || !ualg_tfm_setkey(t, key, keylen)) &&
		    !ualg_hash_digest(t, data, sizeof(data), one) && !ualg_hash_init(&d, t) &&
		    !ualg_hash_update(&d, data, 333) && !ualg_hash_export(&d, st) &&
		    !ualg_hash_import(&e, t, st, n) && !ualg_hash_update(&e, data + 333, 667) &&
		    !ualg_hash_final(&e, split) && !memcmp(one, split, ualg_hash_digestsize(t));
	ok(good, "%s: exported after 333 bytes, imported, finished = one-shot digest", driver);
	ok(ualg_hash_import(&e, t, st, n - 1) == -EINVAL && ualg_hash_import(&e, t, st, n + 1) == -EINVAL,
	   "%s: a state one byte short or long is EINVAL", driver);
	memset(st + bad_at, 0, 4);
	st[bad_at] = bad;
	ok(ualg_hash_import(&e, t, st, n) == -EINVAL && !e.state, "%s: a buffer index of %u is EINVAL",
	   driver, bad);
	ualg_hash_exit(&d);
	ualg_hash_exit(&e);
	ualg_tfm_free(t);
	ualg_alg_put(a);
}

static void test_exportable_lookup(void)
{
	int err;
	struct ualg_alg *a = ualg_alg_lookup_exportable(UALG_ALG_SHASH, "vmac64(aes)", &err);
	ok(!a && err == ENOENT, "vmac64(aes) has no exporting driver: ENOENT");
	a = ualg_alg_lookup_exportable(UALG_ALG_SHASH, "sha256-openssl", &err);
	ok(!a && err == ENOENT, "sha256-openssl by driver name cannot export: ENOENT");
	/* Offsets of index: nettle's sha256_ctx (state[8], count) and
	 * sha512_ctx (state[8], count_low, count_high); cmac's buflen byte. */
	/* By generic name: the fastest exporting driver (OpenSSL's low-level
	 * contexts, then Nettle's); by driver name: that one. */
	test_hash_export("md5", "md5-nettle", 0, 24, 64);
	test_hash_export("sha1", "sha1-openssl-ll", 0, 92, 64);
	test_hash_export("sha1-nettle", "sha1-nettle", 0, 32, 64);
	test_hash_export("hmac(sha1)", "hmac(sha1-openssl-ll)", 20, 92, 65);
	test_hash_export("sha256", "sha256-openssl-ll", 0, 104, 64);
	test_hash_export("sha256-nettle", "sha256-nettle", 0, 40, 64);
	test_hash_export("sha384", "sha384-openssl-ll", 0, 208, 128);
	test_hash_export("sha512-nettle", "sha512-nettle", 0, 80, 128);
	test_hash_export("hmac(sha256-openssl-ll)", "hmac(sha256-openssl-ll)", 40, 104, 200);
	test_hash_export("hmac(sha384-nettle)", "hmac(sha384-nettle)", 64, 80, 128);
	test_hash_export("xcbc(aes)", "xcbc(aes-openssl)", 16, 32, 17);
	test_hash_export("cmac(aes)", "cmac(aes-openssl)", 32, 32, 255);
	/* States that move so that the program serves these: Nettle's
	 * contexts (index offsets as nettle's headers lay them out), xxHash's
	 * memsize, a CRC register wider than its width. */
	/* WHIRLPOOL_CTX's bitoff (offset 128) at 512 + its low byte. */
	test_hash_export("wp512", "wp512-openssl-ll", 0, 129, 2);
	test_hash_export("wp256", "wp256-openssl-ll", 0, 129, 2);
	/* poly1305's state: the key bytes so far counted at offset 32. */
	test_hash_export("poly1305", "poly1305-nettle", 0, 32, 33);
	test_hash_export("sha3-256", "sha3-256-nettle", 0, 200, 136);
	test_hash_export("sha3-512", "sha3-512-nettle", 0, 200, 72);
	test_hash_export("md4", "md4-nettle", 0, 24, 64);
	test_hash_export("rmd160", "rmd160-nettle", 0, 32, 64);
	test_hash_export("sm3", "sm3-nettle", 0, 40, 64);
	test_hash_export("streebog512", "streebog512-nettle", 0, 192, 64);
	test_hash_export("hmac(sha3-256)", "hmac(sha3-256-nettle)", 32, 200, 136);
	test_hash_export("xxhash64", "xxhash64-libxxhash", 8, 72, 32);
	test_hash_export("crc32c", "crc32c-isal", 4, 4, 1);
	test_hash_export("crct10dif", "crct10dif-isal", 0, 2, 1);
	test_hash_export("ghash", "ghash-nettle", 16, 80, 16);	/* buflen, after gcm_ctx and buf */
	a = lookup(UALG_ALG_SHASH, "hmac(sha256)", &err);
	ok(a && !strcmp(a->driver, "hmac-sha256-openssl"), "with exporting hmac(sha256) instances built, an ordinary lookup still picks OpenSSL's EVP driver");
	ualg_alg_put(a);
}

/* The kernel names added for coverage: each is served and passes its
 * standard vectors (testvec_data.c), and a corrupted vector makes it fail
 * its self-test (ELIBBAD), so each table is really run. */
static const struct {
	enum ualg_alg_type type;
	const char *name;
} vectored[] = {
	{ UALG_ALG_SHASH, "crct10dif" }, { UALG_ALG_SHASH, "streebog256" },
	{ UALG_ALG_SHASH, "streebog512" }, { UALG_ALG_SHASH, "hmac(streebog256)" },
	{ UALG_ALG_SHASH, "hmac(streebog512)" }, { UALG_ALG_SHASH, "wp256" }, { UALG_ALG_SHASH, "wp384" },
	{ UALG_ALG_SHASH, "wp512" }, { UALG_ALG_SHASH, "cbcmac(aes)" },
	{ UALG_ALG_SHASH, "cbcmac(camellia)" }, { UALG_ALG_SKCIPHER, "ecb(cast6)" },
	{ UALG_ALG_SKCIPHER, "rfc3686(ctr(aes))" }, { UALG_ALG_SKCIPHER, "kw(aes)" },
	{ UALG_ALG_AEAD, "authenc(hmac(sha1),rfc3686(ctr(aes)))" },
	{ UALG_ALG_AEAD, "authenc(hmac(sha256),rfc3686(ctr(aes)))" },
	{ UALG_ALG_AEAD, "authenc(hmac(sha384),rfc3686(ctr(aes)))" },
	{ UALG_ALG_AEAD, "authenc(hmac(sha512),rfc3686(ctr(aes)))" },
	{ UALG_ALG_AEAD, "authenc(hmac(md5),ecb(cipher_null))" },
	{ UALG_ALG_AEAD, "authenc(hmac(sha1),ecb(cipher_null))" },
	{ UALG_ALG_SHASH, "crc64-rocksoft" }, { UALG_ALG_SHASH, "vmac64(aes)" },
	{ UALG_ALG_SKCIPHER, "xchacha12" },
};

/* essiv(authenc(hmac(sha256),cbc(aes)),sha256) against authenc and aes by
 * hand: the IV encrypted under sha256(encryption key || authentication
 * key), standing in the last 16 bytes of the associated data. */
static void cross_check_essiv_aead(void)
{
	int err;
	struct ualg_alg *ea, *aa, *ca = lookup(UALG_ALG_CIPHER, "aes", &err);
	struct ualg_alg *sa = lookup(UALG_ALG_SHASH, "sha256", &err);
	struct ualg_tfm *e = aead_tfm("essiv(authenc(hmac(sha256),cbc(aes)),sha256)", &ea),
			*a = aead_tfm("authenc(hmac(sha256),cbc(aes))", &aa),
			*c = ca ? ualg_tfm_new(ca, &err) : NULL, *sh = sa ? ualg_tfm_new(sa, &err) : NULL;
	uint8_t blob[8 + 32 + 32], salt[32], iv[16], iv2[16], plain[600], b1[700], b2[700];
	const uint16_t rta_len = 8, rta_type = 1;
	int same = e && a && c && sh;

	for (int round = 0; same && round < 20; round++) {
		const size_t enckeylen = round % 2 ? 32 : 16, assoclen = 16 + rand_below(32);
		const size_t len = 16 * rand_below(33);
		struct ualg_hash_desc d = { 0 };
		memcpy(blob, &rta_len, 2);
		memcpy(blob + 2, &rta_type, 2);
		blob[4] = blob[5] = blob[6] = 0;
		blob[7] = (uint8_t)enckeylen;
		RAND_bytes(blob + 8, 32 + enckeylen);
		RAND_bytes(iv, sizeof(iv));
		RAND_bytes(plain, sizeof(plain));
		memcpy(b1, plain, assoclen + len);
		memcpy(iv2, iv, 16);
		same = !ualg_tfm_setkey(e, blob, 8 + 32 + enckeylen) &&
		       !ualg_tfm_setkey(a, blob, 8 + 32 + enckeylen) &&
		       !ualg_hash_init(&d, sh) && !ualg_hash_update(&d, blob + 8 + 32, enckeylen) &&
		       !ualg_hash_update(&d, blob + 8, 32) && !ualg_hash_final(&d, salt) &&
		       !ualg_tfm_setkey(c, salt, 32) &&
		       !aead_run(e, true, b1, assoclen, b1 + assoclen, len, iv, 16);
		ualg_hash_exit(&d);
		ualg_cipher_encrypt_one(c, iv2, iv2);
		memcpy(b2, plain, assoclen + len);
		memcpy(b2 + assoclen - 16, iv2, 16);
		same = same && !aead_run(a, true, b2, assoclen, b2 + assoclen, len, iv2, 16) &&
		       !memcmp(b1 + assoclen, b2 + assoclen, len + 32);
		/* Decryption, with the IV's slot in the associated data
		 * changed: the IV stands there, what was sent is not used. */
		memcpy(b2, b1, assoclen + len + 32);
		same = same && !aead_run(e, false, b1, assoclen, b1 + assoclen, len + 32, iv, 16) &&
		       !memcmp(b1 + assoclen, plain + assoclen, len);
		b2[assoclen - 1] ^= 1;
		memcpy(b1, b2, assoclen + len + 32);
		same = same && !aead_run(e, false, b1, assoclen, b1 + assoclen, len + 32, iv, 16);
		memcpy(b1, b2, assoclen + len + 32);
		iv[0] ^= 1;
		same = same && aead_run(e, false, b1, assoclen, b1 + assoclen, len + 32, iv, 16) == -EBADMSG;
	}
	ok(same, "essiv(authenc(hmac(sha256),cbc(aes)),sha256) agrees with authenc and aes by hand");
	uint8_t small[15 + 32] = { 0 };
	memset(iv, 0, sizeof(iv));
	ok(e && aead_run(e, true, small, 15, small + 15, 0, iv, 16) == -EINVAL,
	   "essiv aead: associated data shorter than the IV is EINVAL");
	aead_free(e, ea);
	aead_free(a, aa);
	ualg_tfm_free(c);
	ualg_tfm_free(sh);
	ualg_alg_put(ca);
	ualg_alg_put(sa);
}

/* kw(aes) unwrapping what does not unwrap to the default IV: NIST SP
 * 800-38F CAVS KW_AD_128.txt COUNT 1 is marked FAIL; EBADMSG, as
 * crypto/keywrap.c.  And the kernel's length rules. */
static void test_kw_failures(void)
{
	int err;
	struct ualg_alg *a = lookup(UALG_ALG_SKCIPHER, "kw(aes)", &err);
	struct ualg_tfm *t = a ? ualg_tfm_new(a, &err) : NULL;
	uint8_t key[16], c[24], out[16], iv[8];

	unhex("5d4899ee66beff1bda1fc717a1ad4c50", key);
	unhex("bb7fd0bce778bd775e4e88d904d26a7134364c53a6c493a0", c);
	memcpy(iv, c, 8);
	ok(t && !ualg_tfm_setkey(t, key, 16) &&
	   ualg_skcipher_crypt(t, false, iv, c + 8, out, 16) == -EBADMSG,
	   "kw(aes): KW_AD_128 COUNT 1 (FAIL) does not unwrap: EBADMSG");
	ok(t && ualg_skcipher_crypt(t, true, iv, c + 8, out, 8) == -EINVAL,
	   "kw(aes): 8 bytes (under two semiblocks) is EINVAL");
	ok(t && ualg_skcipher_crypt(t, true, iv, c, out, 20) == -EINVAL,
	   "kw(aes): 20 bytes (not whole semiblocks) is EINVAL");
	ualg_tfm_free(t);
	ualg_alg_put(a);
}

static void test_kernel_names(void)
{
	static const struct {
		enum ualg_alg_type type;
		const char *name;
	} unvectored[] = {
		{ UALG_ALG_SHASH, "digest_null" }, { UALG_ALG_SKCIPHER, "ecb(cipher_null)" },
		{ UALG_ALG_RNG, "jitterentropy_rng" },
		{ UALG_ALG_SHASH, "hmac(wp256)" }, { UALG_ALG_SHASH, "cbcmac(des3_ede)" },
		{ UALG_ALG_SHASH, "cbcmac(serpent)" }, { UALG_ALG_SHASH, "cbcmac(twofish)" },
		{ UALG_ALG_SKCIPHER, "cbc(cast6)" }, { UALG_ALG_SKCIPHER, "ctr(cast6)" },
		{ UALG_ALG_SKCIPHER, "xts(cast6)" }, { UALG_ALG_SKCIPHER, "lrw(cast6)" },
		{ UALG_ALG_AEAD, "gcm(camellia)" }, { UALG_ALG_AEAD, "gcm(serpent)" },
		{ UALG_ALG_AEAD, "gcm(twofish)" }, { UALG_ALG_AEAD, "gcm(cast6)" },
	};
	int err;

	for (size_t i = 0; i < sizeof(vectored) / sizeof(vectored[0]); i++) {
		ok(ualg_core_init() == 0, "init for %s", vectored[i].name);
		ok(fips_lookup(vectored[i].type, vectored[i].name) == 0, "%s is served", vectored[i].name);
		ualg_core_exit();
		ualg_selftest_corrupt(vectored[i].name);
		ok(ualg_core_init() == 0, "init with %s's vector corrupted", vectored[i].name);
		err = fips_lookup(vectored[i].type, vectored[i].name);
		ok(err == ELIBBAD, "%s: a corrupted vector fails its self-test (%d)", vectored[i].name, err);
		ualg_core_exit();
		ualg_selftest_corrupt(NULL);
	}
	ok(ualg_core_init() == 0, "init");
	for (size_t i = 0; i < sizeof(unvectored) / sizeof(unvectored[0]); i++)
		ok(fips_lookup(unvectored[i].type, unvectored[i].name) == 0, "%s is served", unvectored[i].name);
	/* The gcm template (Nettle's GCM over the child cipher) on the GCM
	 * specification's vectors and against the whole-mode driver. */
	const char *aes = "aes";
	struct ualg_alg *g = ualg_tmpl_find("gcm")->create(&aes, 1, &err);
	ok(g && ualg_register(g) == 0 && g->selftest == UALG_SELFTEST_PASSED,
	   "the gcm template over aes passes gcm(aes)'s vectors");
	test_gcm_vectors(g ? g->driver : "gcm(aes-openssl)");
	cross_check_gcm(g ? g->driver : "gcm(aes-openssl)", "gcm-aes-openssl");
	cross_check_essiv_aead();
	test_kw_failures();
	ok(fips_lookup(UALG_ALG_AEAD, "gcm(camellia-openssl)") == ENOENT,
	   "gcm over a driver name is ENOENT, as the kernel's");
	ualg_core_exit();
}

/* fcrypt, michael_mic and ansi_cprng (drivers/fcrypt.c, michael_mic.c,
 * ansi_cprng.c): each table of testmgr.h's vectors is really run (a
 * corrupted one fails the self-test), and what the kernel's versions do
 * beyond their vectors. */
static void test_legacy_vectors(void)
{
	static const struct {
		enum ualg_alg_type type;
		const char *name, *corrupt;
	} algs[] = {
		{ UALG_ALG_CIPHER, "fcrypt", "fcrypt" },
		{ UALG_ALG_SKCIPHER, "ecb(fcrypt)", "ecb(fcrypt)" },
		{ UALG_ALG_SKCIPHER, "pcbc(fcrypt)", "pcbc(fcrypt)" },
		{ UALG_ALG_SHASH, "michael_mic", "michael_mic" },
		{ UALG_ALG_RNG, "ansi_cprng", "stdrng" },	/* corrupts by generic name */
	};

	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		ok(ualg_core_init() == 0 && fips_lookup(algs[i].type, algs[i].name) == 0,
		   "%s is served", algs[i].name);
		ualg_core_exit();
		ualg_selftest_corrupt(algs[i].corrupt);
		int err = ualg_core_init() ? -1 : fips_lookup(algs[i].type, algs[i].name);
		ok(err == ELIBBAD, "%s: a corrupted vector fails its self-test (%d)", algs[i].name, err);
		ualg_core_exit();
		ualg_selftest_corrupt(NULL);
	}
}

static struct ualg_tfm *tfm_of(enum ualg_alg_type type, const char *name)
{
	int err;
	struct ualg_alg *a = lookup(type, name, &err);
	struct ualg_tfm *t = a ? ualg_tfm_new(a, &err) : NULL;

	ualg_alg_put(a);
	return t;
}

static void test_fcrypt(void)
{
	struct ualg_tfm *c = tfm_of(UALG_ALG_CIPHER, "fcrypt");
	uint8_t key[8], key2[8], in[8], a[8], b[8];

	RAND_bytes(key, sizeof(key));
	RAND_bytes(in, sizeof(in));
	for (int i = 0; i < 8; i++)
		key2[i] = key[i] ^ 1;
	ok(c && ualg_tfm_setkey(c, key, 7) == -EINVAL && ualg_tfm_setkey(c, key, 9) == -EINVAL,
	   "fcrypt: keys of 7 and 9 bytes are EINVAL");
	bool same = c && !ualg_tfm_setkey(c, key, 8);
	if (same) {
		ualg_cipher_encrypt_one(c, a, in);
		ualg_cipher_decrypt_one(c, b, a);
		same = !memcmp(b, in, 8);
	}
	ok(same, "fcrypt: decryption inverts encryption");
	same = c && !ualg_tfm_setkey(c, key2, 8);
	if (same) {
		ualg_cipher_encrypt_one(c, b, in);
		same = !memcmp(a, b, 8);
	}
	ok(same, "fcrypt: the key bytes' low (parity) bits are ignored");
	ualg_tfm_free(c);
	/* Every mode over the 8-byte block, round trip on 37 or 40 bytes. */
	static const char *const modes[] = { "cbc(fcrypt)", "ctr(fcrypt)", "cfb(fcrypt)",
					     "ofb(fcrypt)", "pcbc(fcrypt)", "cts(cbc(fcrypt))" };
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct ualg_tfm *t = tfm_of(UALG_ALG_SKCIPHER, modes[i]);
		const size_t len = strncmp(modes[i], "cbc", 3) && strncmp(modes[i], "pcbc", 4) ? 37 : 40;
		uint8_t p[40], x[40], iv[8], iv0[8];
		RAND_bytes(p, sizeof(p));
		RAND_bytes(iv0, sizeof(iv0));
		memcpy(iv, iv0, 8);
		same = t && t->alg->u.skcipher.ivsize == 8 && !ualg_tfm_setkey(t, key, 8) &&
		       !ualg_skcipher_crypt(t, true, iv, p, x, len) && memcmp(p, x, len);
		memcpy(iv, iv0, 8);
		same = same && !ualg_skcipher_crypt(t, false, iv, x, x, len) && !memcmp(p, x, len);
		ok(same, "%s: 8-byte IV, %zu bytes round trip", modes[i], len);
		ualg_tfm_free(t);
	}
}

static void test_michael_mic(void)
{
	struct ualg_tfm *t = tfm_of(UALG_ALG_SHASH, "michael_mic");
	struct ualg_hash_desc d = { 0 }, e = { 0 };
	uint8_t key[8], msg[23], one[8], out[8], state[64];

	RAND_bytes(key, sizeof(key));
	RAND_bytes(msg, sizeof(msg));
	ok(t && ualg_tfm_setkey(t, key, 7) == -EINVAL && ualg_tfm_setkey(t, key, 16) == -EINVAL,
	   "michael_mic: keys other than 8 bytes are EINVAL");
	bool same = t && !ualg_tfm_setkey(t, key, 8) && !ualg_hash_digest(t, msg, sizeof(msg), one);
	/* Byte by byte, exporting and importing the state after each. */
	same = same && ualg_hash_statesize(t) <= sizeof(state) && !ualg_hash_init(&d, t);
	for (size_t i = 0; same && i < sizeof(msg); i++) {
		same = !ualg_hash_update(&d, msg + i, 1) && !ualg_hash_export(&d, state);
		ualg_hash_exit(&e);
		memset(&e, 0, sizeof(e));
		same = same && !ualg_hash_import(&e, t, state, ualg_hash_statesize(t));
		ualg_hash_exit(&d);
		d = e;
		memset(&e, 0, sizeof(e));
	}
	same = same && !ualg_hash_final(&d, out) && !memcmp(one, out, 8);
	ok(same, "michael_mic: byte-wise updates through export/import give the one-shot MIC");
	ualg_hash_exit(&d);
	memset(&d, 0, sizeof(d));
	if (t && !ualg_hash_init(&d, t) && !ualg_hash_export(&d, state)) {
		state[12] = 4;	/* four pending bytes: never a valid state */
		ok(ualg_hash_import(&e, t, state, ualg_hash_statesize(t)) == -EINVAL,
		   "michael_mic: a state with 4 pending bytes is refused");
		ualg_hash_exit(&e);
	} else {
		ok(0, "michael_mic: a state with 4 pending bytes is refused");
	}
	ualg_hash_exit(&d);
	ualg_tfm_free(t);
}

/* AES-128 of one block by OpenSSL, for the X9.31 construction by hand. */
static void aes128(bool enc, const uint8_t *key, const uint8_t *in, uint8_t *out)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n;

	EVP_CipherInit_ex(c, EVP_aes_128_ecb(), NULL, key, NULL, enc);
	EVP_CIPHER_CTX_set_padding(c, 0);
	EVP_CipherUpdate(c, out, &n, in, 16);
	EVP_CIPHER_CTX_free(c);
}

static void test_ansi_cprng(void)
{
	struct ualg_tfm *t = tfm_of(UALG_ALG_RNG, "ansi_cprng");
	uint8_t seed[64], a[80], b[80], i[16], x[16];

	RAND_bytes(seed, sizeof(seed));
	ok(t && ualg_rng_generate(t, a, 16) == -EINVAL, "ansi_cprng: unseeded, a read is EINVAL");
	ok(t && ualg_rng_seed(t, seed, 31) == -EINVAL && ualg_rng_generate(t, a, 16) == -EINVAL,
	   "ansi_cprng: a 31-byte seed is EINVAL and seeds nothing");
	/* X9.31 by hand: I = E(DT), R = E(I ^ V), V' = E(R ^ I), DT + 1. */
	bool same = t && !ualg_rng_seed(t, seed, 48) && !ualg_rng_generate(t, a, 32);
	uint8_t v[16], dt[16];
	memcpy(v, seed, 16);
	memcpy(dt, seed + 32, 16);
	for (int blk = 0; same && blk < 2; blk++) {
		aes128(true, seed + 16, dt, i);
		ualg_xor(x, i, v, 16);
		aes128(true, seed + 16, x, b + 16 * blk);
		ualg_xor(x, b + 16 * blk, i, 16);
		aes128(true, seed + 16, x, v);
		ualg_ctr_add(dt, 16, 1);
	}
	ok(same && !memcmp(a, b, 32), "ansi_cprng: two blocks as X9.31 A.2.4 makes them");
	/* A 32-byte seed has DT zero; bytes past 48 are ignored. */
	memset(seed + 32, 0, 16);
	same = t && !ualg_rng_seed(t, seed, 32) && !ualg_rng_generate(t, a, 48) &&
	       !ualg_rng_seed(t, seed, 64) && !ualg_rng_generate(t, b, 48) && !memcmp(a, b, 48);
	ok(same, "ansi_cprng: a 32-byte seed is V || key with DT zero; a 64-byte one uses 48");
	/* The output is one byte stream, whatever the reads' sizes. */
	same = t && !ualg_rng_seed(t, seed, 48) && !ualg_rng_generate(t, b, 5) &&
	       !ualg_rng_generate(t, b + 5, 11) && !ualg_rng_generate(t, b + 16, 1) &&
	       !ualg_rng_generate(t, b + 17, 31) && !memcmp(a, b, 48);
	ok(same, "ansi_cprng: reads of 5, 11, 1 and 31 bytes give the 48 of one read");
	/* The continuity test: V chosen so that the first block is 16 zero
	 * bytes, the kernel's initial "previous block". */
	aes128(true, seed + 16, seed + 32, i);
	memset(x, 0, 16);
	aes128(false, seed + 16, x, x);
	ualg_xor(seed, x, i, 16);
	same = t && !ualg_rng_seed(t, seed, 48) && ualg_rng_generate(t, a, 3) == -EINVAL &&
	       ualg_rng_generate(t, a, 16) == -EINVAL;
	ok(same, "ansi_cprng: a block repeating the previous one is EINVAL, and so is every read after");
	seed[0] ^= 1;
	ok(t && !ualg_rng_seed(t, seed, 48) && !ualg_rng_generate(t, a, 16),
	   "ansi_cprng: seeding again clears the failure");
	ualg_tfm_free(t);
}

static void test_legacy_algs(void)
{
	test_legacy_vectors();
	ok(ualg_core_init() == 0, "init");
	test_fcrypt();
	test_michael_mic();
	test_ansi_cprng();
	ualg_core_exit();
}

/* An AEAD that takes its plaintext from elsewhere (req.src) writes what
 * in-place encryption writes; templates over it stay in place. */
static void test_aead_out_of_place(const char *name, const char *driver)
{
	int err;
	uint8_t key[16], iv[12], iv2[12], aad[20], pt[1000], a[1016], b[1016];
	RAND_bytes(key, sizeof(key));
	RAND_bytes(iv, sizeof(iv));
	RAND_bytes(aad, sizeof(aad));
	RAND_bytes(pt, sizeof(pt));
	memcpy(iv2, iv, sizeof(iv));
	struct ualg_alg *alg = ualg_alg_lookup(UALG_ALG_AEAD, name, &err);
	struct ualg_tfm *t = alg ? ualg_tfm_new(alg, &err) : NULL;
	bool good = t && !strcmp(alg->driver, driver) && ualg_aead_takes_src(t) &&
		    !ualg_tfm_setkey(t, key, sizeof(key));
	memcpy(a, pt, sizeof(pt));
	const struct ualg_aead_req in_place = { aad, sizeof(aad), a, sizeof(pt), iv, NULL };
	const struct ualg_aead_req apart = { aad, sizeof(aad), b, sizeof(pt), iv2, pt };
	good = good && !ualg_aead_encrypt(t, &in_place) && !ualg_aead_encrypt(t, &apart) &&
	       !memcmp(a, b, sizeof(a)) && memcmp(a, pt, sizeof(pt));
	ok(good, "%s: encryption from a separate plaintext (req.src) = in place, tag included", driver);
	ualg_tfm_free(t);
	ualg_alg_put(alg);
	alg = ualg_alg_lookup(UALG_ALG_AEAD, "rfc4106(gcm(aes))", &err);
	t = alg ? ualg_tfm_new(alg, &err) : NULL;
	ok(t && !ualg_aead_takes_src(t), "rfc4106(gcm(aes)), a template, encrypts in place only");
	ualg_tfm_free(t);
	ualg_alg_put(alg);
}

int main(void)
{
	ok(ualg_core_init() == 0, "core initialises");
	test_aead_out_of_place("gcm(aes)", "gcm-aes-openssl");
	test_registry();
	cross_check_skcipher("ecb(aes-openssl)", "ecb-aes-openssl", 32, 4096, 1);
	cross_check_skcipher("cbc(aes-openssl)", "cbc-aes-openssl", 16, 4096, 1);
	cross_check_skcipher("ctr(aes-openssl)", "ctr-aes-openssl", 24, 4093, 1);
	cross_check_skcipher("xts(aes-openssl)", "xts-aes-openssl", 64, 4090, 0);
	cross_check_skcipher("xts(aes-openssl)", "xts-aes-openssl", 48, 4096, 0);
	test_xts_mul_xn();
	test_xts_output_iv(32);
	test_xts_output_iv(48);
	test_xts_output_iv(64);
	cross_check_skcipher("cts(cbc(aes-openssl))", "cts-cbc-aes-openssl", 16, 4001, 0);
	cross_check_skcipher("cbc(des3_ede-openssl)", "cbc-des3_ede-openssl", 24, 4096, 1);
	/* Nettle's drivers against OpenSSL's: two independent libraries. */
	cross_check_skcipher("ecb-aes-nettle", "ecb-aes-openssl", 32, 4096, 1);
	cross_check_skcipher("cbc-aes-nettle", "cbc-aes-openssl", 24, 4096, 1);
	cross_check_skcipher("ctr-aes-nettle", "ctr-aes-openssl", 16, 4093, 1);
	cross_check_skcipher("cbc(aes-nettle)", "cbc-aes-openssl", 16, 4096, 1);
	test_gcm_vectors("gcm-aes-openssl");
	test_gcm_vectors("gcm-aes-nettle");
	cross_check_gcm("gcm-aes-nettle", "gcm-aes-openssl");
	cross_check_hmac("hmac(sha224-nettle)", "hmac-sha224-openssl");
	cross_check_hmac("hmac(sha256-nettle)", "hmac-sha256-openssl");
	cross_check_hmac("hmac(sha384-nettle)", "hmac-sha384-openssl");
	cross_check_hmac("hmac(sha512-nettle)", "hmac-sha512-openssl");
	cross_check_hmac("hmac(sha1-openssl)", "hmac-sha1-openssl");
	cross_check_hmac("hmac(sha256-openssl)", "hmac-sha256-openssl");
	cross_check_hmac("hmac(sha512-openssl)", "hmac-sha512-openssl");
	cross_check_hmac("hmac(sha3-256-openssl)", "hmac-sha3-256-openssl");
	cross_check_hmac("hmac(md4-openssl)", "hmac-md4-openssl");
	cross_check_mac("cmac(aes-openssl)", "cmac-aes-openssl", 16);
	cross_check_mac("cmac(aes-openssl)", "cmac-aes-openssl", 24);
	cross_check_mac("cmac(aes-openssl)", "cmac-aes-openssl", 32);
	test_aead_instances();
	cross_check_ipsec(ESP_GCM, "rfc4106(gcm-aes-openssl)", "gcm-aes-openssl", 16, 16);
	cross_check_ipsec(ESP_GCM, "rfc4106(gcm-aes-openssl)", "gcm-aes-openssl", 32, 8);
	cross_check_ipsec(ESP_CCM, "rfc4309(ccm-aes-openssl)", "ccm-aes-openssl", 24, 12);
	cross_check_ipsec(ESP_CCM, "rfc4309(ccm-aes-openssl)", "ccm-aes-openssl", 16, 16);
	cross_check_ipsec(ESP_GMAC, "rfc4543(gcm-aes-openssl)", "gcm-aes-openssl", 32, 16);
	cross_check_ipsec(ESP_CHACHA, "rfc7539esp(chacha20,poly1305)", "rfc7539(chacha20,poly1305)", 32, 16);
	cross_check_authenc("authenc(hmac(sha256),cbc(aes))", "hmac(sha256-openssl)", "cbc(aes-openssl)", false, 32);
	cross_check_authenc("authenc(hmac(sha1),cbc(aes))", "hmac(sha1-openssl)", "cbc(aes-openssl)", false, 12);
	cross_check_authenc("authencesn(hmac(sha256),cbc(aes))", "hmac(sha256-openssl)", "cbc(aes-openssl)", true, 16);
	cross_check_authenc("authencesn(hmac(sha512),cbc(aes))", "hmac(sha512-openssl)", "cbc(aes-openssl)", true, 64);
	test_broken_aead("gcm-aes-spoiltag", SPOIL_TAG);
	test_broken_aead("gcm-aes-anytag", ACCEPT_ANY_TAG);
	test_exportable_lookup();
	ualg_core_exit();
	test_kernel_names();
	test_legacy_algs();
	test_fips();	/* last: FIPS mode cannot be left */
	return tap_done();
}
