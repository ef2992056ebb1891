/* Unit tests of the intel-ipsec-mb drivers (src/core/drivers/ipsecmb*.c), as
 * TAP: present and self-tested where the CPU has what the library needs,
 * and each one cross-checked against the OpenSSL driver of the same
 * algorithm on random data and lengths around block boundaries, one
 * request at a time, in split updates and clones, and in batches. */
#include "crypto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "tap.h"

static const size_t lengths[] = { 0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 4096,
				  65535, 65536, 65537, 200000 };
#define NLEN (sizeof(lengths) / sizeof(lengths[0]))
#define MAXLEN 200000

static const char *const hash_names[] = { "sha1", "sha224", "sha256", "sha384", "sha512" };
#define NHASH (sizeof(hash_names) / sizeof(hash_names[0]))

/* What the library needs (ipsecmb.c's mgr_usable): AES-NI and PCLMULQDQ. */
static bool cpu_supported(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul");
}

static struct ualg_tfm *tfm_of(enum ualg_alg_type type, const char *driver)
{
	int err = 0;
	struct ualg_alg *a = ualg_alg_lookup(type, driver, &err);

	if (!a)
		return NULL;
	struct ualg_tfm *t = ualg_tfm_new(a, &err);
	ualg_alg_put(a);	/* the transform holds its own reference */
	return t;
}

static void test_present(void)
{
	char drivers[2 * NHASH + 2][64];
	size_t n = 0;
	int err;

	for (size_t i = 0; i < NHASH; i++) {
		snprintf(drivers[n++], sizeof(drivers[0]), "%s-ipsecmb", hash_names[i]);
		snprintf(drivers[n++], sizeof(drivers[0]), "hmac-%s-ipsecmb", hash_names[i]);
	}
	snprintf(drivers[n++], sizeof(drivers[0]), "cbc-aes-ipsecmb");
	snprintf(drivers[n++], sizeof(drivers[0]), "gcm-aes-ipsecmb");
	const bool cpu = cpu_supported();
	for (size_t i = 0; i < n; i++) {
		enum ualg_alg_type t = !strncmp(drivers[i], "cbc", 3) ? UALG_ALG_SKCIPHER :
				       !strncmp(drivers[i], "gcm", 3) ? UALG_ALG_AEAD : UALG_ALG_SHASH;
		err = 0;
		struct ualg_alg *a = ualg_alg_lookup(t, drivers[i], &err);
		if (cpu)
			ok(a && !strcmp(a->driver, drivers[i]) && !strcmp(a->module, "ipsecmb") &&
			   a->selftest == UALG_SELFTEST_PASSED,
			   "%s is registered, bindable by driver name and passed its self-test", drivers[i]);
		else
			ok(!a && err == ENOENT, "%s is absent: this CPU lacks AES-NI or PCLMULQDQ", drivers[i]);
		ualg_alg_put(a);
	}
	/* Below OpenSSL: generic names still pick OpenSSL's drivers. */
	struct ualg_alg *a = ualg_alg_lookup(UALG_ALG_SHASH, "sha256", &err);
	struct ualg_alg *g = ualg_alg_lookup(UALG_ALG_AEAD, "gcm(aes)", &err);
	ok(a && g && !strcmp(a->driver, "sha256-openssl") && !strcmp(g->driver, "gcm-aes-openssl"),
	   "generic names still pick the OpenSSL drivers");
	ualg_alg_put(a);
	ualg_alg_put(g);
}

/* Digest of msg in up to three updates (split at thirds, cloning the
 * state at the second split and finishing the clone). */
static int digest_split(struct ualg_tfm *t, const uint8_t *msg, size_t len, uint8_t *out, uint8_t *clone_out)
{
	struct ualg_hash_desc d = { 0 }, c = { 0 };
	const size_t a = len / 3, b = 2 * len / 3;
	int r = ualg_hash_init(&d, t);

	if (!r)
		r = ualg_hash_update(&d, msg, a);
	if (!r)
		r = ualg_hash_update(&d, msg + a, b - a);
	if (!r)
		r = ualg_hash_clone(&c, &d);
	if (!r)
		r = ualg_hash_update(&d, msg + b, len - b);
	if (!r)
		r = ualg_hash_update(&c, msg + b, len - b);
	if (!r)
		r = ualg_hash_final(&d, out);
	if (!r)
		r = ualg_hash_final(&c, clone_out);
	ualg_hash_exit(&d);
	ualg_hash_exit(&c);
	return r;
}

static void cross_check_hash(const char *name, bool hmac, uint8_t *msg)
{
	char mb[64], ossl[64];
	uint8_t key[300], d1[64], d2[64], d3[64];

	snprintf(mb, sizeof(mb), hmac ? "hmac-%s-ipsecmb" : "%s-ipsecmb", name);
	snprintf(ossl, sizeof(ossl), hmac ? "hmac-%s-openssl" : "%s-openssl", name);
	struct ualg_tfm *m = tfm_of(UALG_ALG_SHASH, mb), *o = tfm_of(UALG_ALG_SHASH, ossl);
	int same = m && o;
	unsigned ds = same ? ualg_hash_digestsize(o) : 0;

	for (size_t i = 0; same && i < NLEN; i++) {
		const size_t len = lengths[i], klen = hmac ? (i * 37) % sizeof(key) : 0;
		RAND_bytes(msg, (int)len);
		RAND_bytes(key, sizeof(key));
		if (hmac)
			same = !ualg_tfm_setkey(m, key, klen) && !ualg_tfm_setkey(o, key, klen);
		same = same && !ualg_hash_digest(o, msg, len, d1) && !ualg_hash_digest(m, msg, len, d2) &&
		       !memcmp(d1, d2, ds);
		same = same && !digest_split(m, msg, len, d2, d3) && !memcmp(d1, d2, ds) && !memcmp(d1, d3, ds);
		if (!same)
			printf("# %s differs at %zu bytes\n", mb, len);
	}
	ok(same, "%s equals %s on random data%s (lengths 0..200000, split and cloned)", mb, ossl,
	   hmac ? " and keys of 0..296 bytes" : "");

	/* A batch of every length at once, through the many-digest call. */
	struct ualg_digest_req reqs[NLEN];
	uint8_t outs[NLEN][64];
	int res[NLEN];
	for (size_t i = 0; same && i < NLEN; i++)
		reqs[i] = (struct ualg_digest_req){ .data = msg + i * 7, .len = lengths[i] > MAXLEN - 200 ? MAXLEN - 200 : lengths[i], .out = outs[i] };
	RAND_bytes(msg, MAXLEN);
	same = same && ualg_hash_has_many(m) && !ualg_hash_digest_many(m, NLEN, reqs, res);
	for (size_t i = 0; same && i < NLEN; i++)
		same = !res[i] && !ualg_hash_digest(o, reqs[i].data, reqs[i].len, d1) && !memcmp(d1, outs[i], ds);
	ok(same, "%s: a batch of %zu digests equals %s one by one", mb, NLEN, ossl);
	ualg_tfm_free(m);
	ualg_tfm_free(o);
}

static void cross_check_cbc(uint8_t *buf)
{
	static const size_t good[] = { 0, 16, 32, 48, 64, 1008, 4096, 32768, 32784, 65536 };
	static const size_t bad[] = { 1, 15, 17, 63, 1000 };
	struct ualg_tfm *m = tfm_of(UALG_ALG_SKCIPHER, "cbc-aes-ipsecmb"), *o = tfm_of(UALG_ALG_SKCIPHER, "cbc-aes-openssl");
	uint8_t key[32], iv1[16], iv2[16];
	uint8_t *o1 = buf + 65536, *o2 = buf + 2 * 65536;
	int same = m && o;

	for (size_t kl = 16; same && kl <= 32; kl += 8) {
		RAND_bytes(key, sizeof(key));
		same = !ualg_tfm_setkey(m, key, kl) && !ualg_tfm_setkey(o, key, kl);
		for (size_t i = 0; same && i < sizeof(good) / sizeof(good[0]); i++) {
			RAND_bytes(buf, 65536);
			RAND_bytes(iv1, 16);
			for (int enc = 1; same && enc >= 0; enc--) {
				memcpy(iv2, iv1, 16);
				same = !ualg_skcipher_crypt(o, enc, iv1, buf, o1, good[i]) &&
				       !ualg_skcipher_crypt(m, enc, iv2, buf, o2, good[i]) &&
				       !memcmp(o1, o2, good[i]) && !memcmp(iv1, iv2, 16);
				/* In place, from the same IV. */
				memcpy(o2, buf, good[i]);
				memcpy(iv2, iv1, 16);
				same = same && !ualg_skcipher_crypt(m, enc, iv2, o2, o2, good[i]);
			}
		}
		for (size_t i = 0; same && i < sizeof(bad) / sizeof(bad[0]); i++)
			same = ualg_skcipher_crypt(m, 1, iv1, buf, o2, bad[i]) == -EINVAL &&
			       ualg_skcipher_crypt(o, 1, iv1, buf, o1, bad[i]) == -EINVAL;
	}
	ok(same, "cbc-aes-ipsecmb equals cbc-aes-openssl (data and output IV, 16/24/32-byte keys, 0..65536 bytes, partial blocks refused)");
	ualg_tfm_free(m);
	ualg_tfm_free(o);
}

/* One AEAD request laid out as algif_aead does: aad || text || tag. */
static int aead_one(struct ualg_tfm *t, bool enc, uint8_t *buf, size_t al, size_t cl, uint8_t *iv)
{
	const struct ualg_aead_req req = { .aad = buf, .assoclen = al, .text = buf + al, .cryptlen = cl, .iv = iv };

	return enc ? ualg_aead_encrypt(t, &req) : ualg_aead_decrypt(t, &req);
}

static void cross_check_gcm(uint8_t *buf)
{
	static const unsigned tags[] = { 16, 12, 8, 4, 13 };
	static const size_t aads[] = { 0, 1, 13, 16, 20 };
	struct ualg_tfm *m = tfm_of(UALG_ALG_AEAD, "gcm-aes-ipsecmb"), *o = tfm_of(UALG_ALG_AEAD, "gcm-aes-openssl");
	uint8_t key[32], iv[12];
	uint8_t *b1 = buf, *b2 = buf + 70000, *pt = buf + 140000;
	int same = m && o;

	for (size_t i = 0; same && i < NLEN && lengths[i] <= 65536; i++) {
		const size_t kl = 16 + 8 * (i % 3), al = aads[i % 5], pl = lengths[i];
		const unsigned tag = tags[i % 5];
		RAND_bytes(key, sizeof(key));
		RAND_bytes(iv, sizeof(iv));
		RAND_bytes(pt, (int)(al + pl));
		memcpy(b1, pt, al + pl);
		memcpy(b2, pt, al + pl);
		same = !ualg_tfm_setkey(m, key, kl) && !ualg_tfm_setkey(o, key, kl) &&
		       !ualg_aead_setauthsize(m, tag) && !ualg_aead_setauthsize(o, tag) &&
		       !aead_one(o, true, b1, al, pl, iv) && !aead_one(m, true, b2, al, pl, iv) &&
		       !memcmp(b1, b2, al + pl + tag) &&
		       !aead_one(m, false, b2, al, pl + tag, iv) && !memcmp(b2, pt, al + pl);
		/* A spoilt tag: refused, and the text does not stand. */
		b1[al + pl] ^= 1;
		same = same && aead_one(m, false, b1, al, pl + tag, iv) == -EBADMSG;
		if (!same)
			printf("# gcm-aes-ipsecmb differs at %zu bytes, %zu of aad, tag %u\n", pl, al, tag);
	}
	ok(same, "gcm-aes-ipsecmb equals gcm-aes-openssl (every key and tag size, text 0..65536 bytes, aad 0..20) and refuses a bad tag");

	/* A batch of encryptions, each against OpenSSL's one by one. */
	enum { N = 12, SLOT = 1100 };
	struct ualg_aead_req reqs[N];
	uint8_t ivs[N][12];
	int res[N];
	RAND_bytes(key, sizeof(key));
	RAND_bytes(buf, N * SLOT);
	RAND_bytes(&ivs[0][0], sizeof(ivs));
	memcpy(b2, buf, N * SLOT);
	same = same && !ualg_tfm_setkey(m, key, 16) && !ualg_tfm_setkey(o, key, 16) &&
	       !ualg_aead_setauthsize(m, 16) && !ualg_aead_setauthsize(o, 16);
	for (unsigned i = 0; i < N; i++)
		reqs[i] = (struct ualg_aead_req){ .aad = buf + i * SLOT, .assoclen = aads[i % 5],
						  .text = buf + i * SLOT + aads[i % 5],
						  .cryptlen = lengths[i] > 1000 ? 1000 : lengths[i], .iv = ivs[i] };
	same = same && ualg_aead_has_encrypt_many(m) && !ualg_aead_encrypt_many(m, N, reqs, res);
	for (unsigned i = 0; same && i < N; i++)
		same = !res[i] && !aead_one(o, true, b2 + i * SLOT, reqs[i].assoclen, reqs[i].cryptlen, ivs[i]) &&
		       !memcmp(b2 + i * SLOT, buf + i * SLOT, reqs[i].assoclen + reqs[i].cryptlen + 16);
	ok(same, "gcm-aes-ipsecmb: a batch of %d encryptions equals gcm-aes-openssl one by one", N);

	/* Those decrypted as a batch, every third tag spoilt: a spoilt one
	 * is refused and keeps its text as it was, byte for byte; the others
	 * equal OpenSSL's plaintext. */
	for (unsigned i = 1; i < N; i += 3)
		buf[i * SLOT + reqs[i].assoclen + reqs[i].cryptlen] ^= 1;
	memcpy(b2, buf, N * SLOT);
	for (unsigned i = 0; i < N; i++)
		reqs[i].cryptlen += 16;
	same = same && ualg_aead_has_decrypt_many(m) && !ualg_aead_decrypt_many(m, N, reqs, res);
	for (unsigned i = 0; same && i < N; i++) {
		uint8_t *mine = buf + i * SLOT, *theirs = b2 + i * SLOT;
		const size_t al = reqs[i].assoclen, cl = reqs[i].cryptlen;
		same = i % 3 == 1 ? res[i] == -EBADMSG && !memcmp(mine, theirs, al + cl)
				  : !res[i] && !aead_one(o, false, theirs, al, cl, ivs[i]) && !memcmp(mine, theirs, al + cl - 16);
	}
	ok(same, "gcm-aes-ipsecmb: a batch of %d decryptions equals gcm-aes-openssl one by one; "
	   "one with a spoilt tag is refused and keeps its ciphertext", N);
	reqs[N - 1].cryptlen = 15;
	ok(ualg_aead_decrypt_many(m, N, reqs, res) == -EINVAL && !ualg_aead_has_decrypt_many(o),
	   "a batch with a decryption shorter than the tag: EINVAL; gcm-aes-openssl has no decrypt_many");
	ualg_tfm_free(m);
	ualg_tfm_free(o);
}

int main(void)
{
	uint8_t *buf = malloc(4 * 70000 > MAXLEN ? 4 * 70000 : MAXLEN);

	ok(buf && ualg_core_init() == 0, "core initialises");
	test_present();
	if (cpu_supported()) {
		for (size_t i = 0; i < NHASH; i++) {
			cross_check_hash(hash_names[i], false, buf);
			cross_check_hash(hash_names[i], true, buf);
		}
		cross_check_cbc(buf);
		cross_check_gcm(buf);
	}
	ualg_core_exit();
	free(buf);
	return tap_done();
}
