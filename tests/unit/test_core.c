/* Unit tests of the core crypto API, as TAP: registry, priorities, template
 * instantiation and caching, name errors, and a cross-check of every
 * whole-mode driver against the generic template instance on random data. */
#include "crypto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

static int n_test, n_fail;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%sok %d - ", cond ? "" : "not ", ++n_test);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	n_fail += !cond;
}

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

int main(void)
{
	ok(ualg_core_init() == 0, "core initialises");
	test_registry();
	cross_check_skcipher("ecb(aes-openssl)", "ecb-aes-openssl", 32, 4096, 1);
	cross_check_skcipher("cbc(aes-openssl)", "cbc-aes-openssl", 16, 4096, 1);
	cross_check_skcipher("ctr(aes-openssl)", "ctr-aes-openssl", 24, 4093, 1);
	cross_check_skcipher("xts(aes-openssl)", "xts-aes-openssl", 64, 4090, 0);
	cross_check_skcipher("xts(aes-openssl)", "xts-aes-openssl", 48, 4096, 0);
	cross_check_skcipher("cts(cbc(aes-openssl))", "cts-cbc-aes-openssl", 16, 4001, 0);
	cross_check_skcipher("cbc(des3_ede-openssl)", "cbc-des3_ede-openssl", 24, 4096, 1);
	cross_check_hmac("hmac(sha1-openssl)", "hmac-sha1-openssl");
	cross_check_hmac("hmac(sha256-openssl)", "hmac-sha256-openssl");
	cross_check_hmac("hmac(sha512-openssl)", "hmac-sha512-openssl");
	cross_check_hmac("hmac(sha3-256-openssl)", "hmac-sha3-256-openssl");
	ualg_core_exit();
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
