/* FIPS mode, as Linux 6.1 booted with fips=1 (or algd --fips).
 *
 * Which algorithms are approved comes from Linux 6.1's crypto/testmgr.c:
 * the names of alg_test_descs[] with .fips_allowed = 1 (approved), and the
 * names that have an entry without it (refused).  How a name is judged
 * follows 6.1's alg_test() and crypto_register_instance():
 *   - a name with a testmgr entry is approved iff the entry says so; a
 *     single-block cipher goes by its "ecb(NAME)" entry, as alg_test() does
 *     for CRYPTO_ALG_TYPE_CIPHER;
 *   - a name without an entry ("No test for") is approved unless it is a
 *     template instance built over an unapproved algorithm: the instance
 *     inherits CRYPTO_ALG_FIPS_INTERNAL from its spawns, and alg_test()'s
 *     notest path keeps it (authenc(hmac(sha224),cbc(aes)) and
 *     seqiv(rfc4106(gcm(aes))) are approved, pcbc(des3_ede) is not).
 * Our drivers that stand in for kernel template instances ("hmac(md4)" from
 * OpenSSL) are judged by the same rule on their name.
 *
 * An unapproved algorithm stays registered, marked as the kernel marks it
 * (CRYPTO_ALG_FIPS_INTERNAL: /proc/crypto's "fips : no"), and is usable only
 * as a spawn inside an approved instance (crypto_grab_spawn passes
 * CRYPTO_ALG_FIPS_INTERNAL); any other lookup fails with ENOENT
 * (crypto_alg_lookup: "Algorithm is disallowed in FIPS mode").
 *
 * Key checks 6.1 makes only in FIPS mode, for what AF_ALG reaches:
 *   - crypto/hmac.c hmac_setkey(): keys under 112 bits are refused with
 *     EINVAL (testmgr skips the vectors marked fips_skip, as we skip
 *     vectors with such keys);
 *   - include/crypto/xts.h xts_verify_key(): equal halves are refused with
 *     EINVAL.  (The 256/512-bit-only rule for XTS came in 6.3, not 6.1.)
 * des3_ede's extra FIPS key checks (lib/crypto/des.c) never apply here:
 * des3_ede is not approved.  rsa's and dh's FIPS key sizes (2048 bits and
 * more) are not applied to the akcipher and kpp types yet (docs/security.md). */
#include "crypto.h"
#include "template.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool fips_on;
/* Set when ualg_fips_check_key() refuses a key in this thread. */
static _Thread_local bool refused_key;

/* Linux 6.1 crypto/testmgr.c, alg_test_descs[] entries with
 * .fips_allowed = 1 (the s390 paes driver entries left out), sorted. */
static const char *const approved[] = {
	"authenc(hmac(sha1),cbc(aes))", "authenc(hmac(sha1),ctr(aes))",
	"authenc(hmac(sha1),rfc3686(ctr(aes)))", "authenc(hmac(sha256),cbc(aes))",
	"authenc(hmac(sha256),ctr(aes))", "authenc(hmac(sha256),rfc3686(ctr(aes)))",
	"authenc(hmac(sha384),cbc(aes))", "authenc(hmac(sha384),ctr(aes))",
	"authenc(hmac(sha384),rfc3686(ctr(aes)))", "authenc(hmac(sha512),cbc(aes))",
	"authenc(hmac(sha512),ctr(aes))", "authenc(hmac(sha512),rfc3686(ctr(aes)))",
	"cbc(aes)", "cbc(paes)", "cbcmac(aes)", "ccm(aes)", "cfb(aes)", "cmac(aes)",
	"crc32", "crc32c", "crc64-rocksoft", "crct10dif", "ctr(aes)", "ctr(paes)",
	"cts(cbc(aes))", "cts(cbc(paes))", "deflate",
	"drbg_nopr_ctr_aes128", "drbg_nopr_ctr_aes192", "drbg_nopr_ctr_aes256",
	"drbg_nopr_hmac_sha1", "drbg_nopr_hmac_sha256", "drbg_nopr_hmac_sha384",
	"drbg_nopr_hmac_sha512", "drbg_nopr_sha1", "drbg_nopr_sha256", "drbg_nopr_sha384",
	"drbg_nopr_sha512", "drbg_pr_ctr_aes128", "drbg_pr_ctr_aes192", "drbg_pr_ctr_aes256",
	"drbg_pr_hmac_sha1", "drbg_pr_hmac_sha256", "drbg_pr_hmac_sha384",
	"drbg_pr_hmac_sha512", "drbg_pr_sha1", "drbg_pr_sha256", "drbg_pr_sha384",
	"drbg_pr_sha512", "ecb(aes)", "ecb(cipher_null)", "ecb(paes)",
	"ecdh-nist-p256", "ecdh-nist-p384",
	"essiv(authenc(hmac(sha256),cbc(aes)),sha256)", "essiv(cbc(aes),sha256)",
	"ffdhe2048(dh)", "ffdhe3072(dh)", "ffdhe4096(dh)", "ffdhe6144(dh)", "ffdhe8192(dh)",
	"gcm(aes)", "ghash", "hmac(sha1)", "hmac(sha224)", "hmac(sha256)",
	"hmac(sha3-224)", "hmac(sha3-256)", "hmac(sha3-384)", "hmac(sha3-512)",
	"hmac(sha384)", "hmac(sha512)", "jitterentropy_rng", "kw(aes)",
	"lz4", "lz4hc", "lzo", "lzo-rle", "ofb(aes)", "ofb(paes)",
	"pkcs1pad(rsa,sha224)", "pkcs1pad(rsa,sha256)", "pkcs1pad(rsa,sha384)",
	"pkcs1pad(rsa,sha512)", "rfc3686(ctr(aes))", "rfc4106(gcm(aes))",
	"rfc4309(ccm(aes))", "rsa", "sha1", "sha224", "sha256", "sha3-224", "sha3-256",
	"sha3-384", "sha3-512", "sha384", "sha512", "xts(aes)", "xts(paes)",
	"xts4096(paes)", "xts512(paes)", "xxhash64", "zlib-deflate", "zstd",
};

/* The same table's entries without .fips_allowed, sorted. */
static const char *const refused[] = {
	"adiantum(xchacha12,aes)", "adiantum(xchacha20,aes)", "aegis128", "ansi_cprng",
	"authenc(hmac(md5),ecb(cipher_null))", "authenc(hmac(sha1),cbc(des))",
	"authenc(hmac(sha1),cbc(des3_ede))", "authenc(hmac(sha1),ecb(cipher_null))",
	"authenc(hmac(sha224),cbc(des))", "authenc(hmac(sha224),cbc(des3_ede))",
	"authenc(hmac(sha256),cbc(des))", "authenc(hmac(sha256),cbc(des3_ede))",
	"authenc(hmac(sha384),cbc(des))", "authenc(hmac(sha384),cbc(des3_ede))",
	"authenc(hmac(sha512),cbc(des))", "authenc(hmac(sha512),cbc(des3_ede))",
	"blake2b-160", "blake2b-256", "blake2b-384", "blake2b-512",
	"cbc(anubis)", "cbc(aria)", "cbc(blowfish)", "cbc(camellia)", "cbc(cast5)",
	"cbc(cast6)", "cbc(des)", "cbc(des3_ede)", "cbc(psm4)", "cbc(serpent)", "cbc(sm4)",
	"cbc(twofish)", "cbcmac(sm4)", "ccm(sm4)", "cfb(aria)", "cfb(sm4)", "chacha20",
	"cmac(des3_ede)", "cmac(sm4)", "compress_null", "ctr(aria)", "ctr(blowfish)",
	"ctr(camellia)", "ctr(cast5)", "ctr(cast6)", "ctr(des)", "ctr(des3_ede)",
	"ctr(psm4)", "ctr(serpent)", "ctr(sm4)", "ctr(twofish)", "curve25519", "dh",
	"digest_null", "ecb(anubis)", "ecb(arc4)", "ecb(aria)", "ecb(blowfish)",
	"ecb(camellia)", "ecb(cast5)", "ecb(cast6)", "ecb(des)", "ecb(des3_ede)",
	"ecb(fcrypt)", "ecb(khazad)", "ecb(seed)", "ecb(serpent)", "ecb(sm4)", "ecb(tea)",
	"ecb(twofish)", "ecb(xeta)", "ecb(xtea)", "ecdh-nist-p192", "ecdsa-nist-p192",
	"ecdsa-nist-p256", "ecdsa-nist-p384", "ecrdsa", "gcm(aria)", "gcm(sm4)",
	"hctr2(aes)", "hmac(md5)", "hmac(rmd160)", "hmac(sm3)", "hmac(streebog256)",
	"hmac(streebog512)", "lrw(aes)", "lrw(camellia)", "lrw(cast6)", "lrw(serpent)",
	"lrw(twofish)", "md4", "md5", "michael_mic", "nhpoly1305", "ofb(sm4)",
	"pcbc(fcrypt)", "poly1305", "polyval", "rfc3686(ctr(sm4))", "rfc4543(gcm(aes))",
	"rfc7539(chacha20,poly1305)", "rfc7539esp(chacha20,poly1305)", "rmd160", "sm2",
	"sm3", "streebog256", "streebog512", "vmac64(aes)", "wp256", "wp384", "wp512",
	"xcbc(aes)", "xchacha12", "xchacha20", "xctr(aes)", "xts(camellia)", "xts(cast6)",
	"xts(serpent)", "xts(twofish)",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

void ualg_fips_enable(void)
{
	fips_on = true;
}

bool ualg_fips_enabled(void)
{
	return fips_on;
}

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

static bool listed(const char *name, const char *const *table, size_t n)
{
	return bsearch(name, table, n, sizeof(*table), cmp_name) != NULL;
}

/* 1 approved, 0 refused, -1 no entry. */
static int entry(const char *name)
{
	if (listed(name, approved, COUNT(approved)))
		return 1;
	return listed(name, refused, COUNT(refused)) ? 0 : -1;
}

#define MAX_DEPTH 8	/* names nest far less; deeper ones are refused */

static bool name_approved(const char *name, unsigned depth)
{
	char ecb[UALG_MAX_ALG_NAME + 8], tmpl[UALG_MAX_ALG_NAME];
	char args[UALG_TMPL_MAX_ARGS][UALG_MAX_ALG_NAME];
	unsigned nargs;
	int e = entry(name);

	if (e >= 0)
		return e;
	snprintf(ecb, sizeof(ecb), "ecb(%s)", name);
	if ((e = entry(ecb)) >= 0)	/* a single-block cipher */
		return e;
	if (ualg_tmpl_parse(name, tmpl, sizeof(tmpl), args, &nargs))
		return true;		/* no test and no spawns: testmgr lets it be */
	if (depth >= MAX_DEPTH)
		return false;
	for (unsigned i = 0; i < nargs; i++)
		if (!name_approved(args[i], depth + 1))
			return false;
	return true;
}

bool ualg_fips_alg_approved(const struct ualg_alg *alg)
{
	/* alg_test()'s driver-name entry (our DRBGs carry the kernel's
	 * driver names), then the generic name. */
	if (entry(alg->driver) == 0)
		return false;
	if (entry(alg->driver) == 1)
		return true;
	return name_approved(alg->name, 0);
}

size_t ualg_fips_approved_names(const char *const **names)
{
	*names = approved;
	return COUNT(approved);
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool key_refused(const struct ualg_alg *alg, const uint8_t *key, size_t len)
{
	if (alg->type == UALG_ALG_SHASH && has_prefix(alg->name, "hmac("))
		return len < 112 / 8;
	if (alg->type == UALG_ALG_SKCIPHER && has_prefix(alg->name, "xts("))
		return len % 2 == 0 && !ualg_memneq(key, key + len / 2, len / 2);
	return false;
}

int ualg_fips_check_key(const struct ualg_alg *alg, const uint8_t *key, size_t len)
{
	if (!fips_on || !key_refused(alg, key, len))
		return 0;
	refused_key = true;
	return -1;
}

bool ualg_fips_take_refusal(void)
{
	const bool r = refused_key;

	refused_key = false;
	return r;
}
