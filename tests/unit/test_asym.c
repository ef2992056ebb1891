/* The akcipher, kpp and compression types of the core: every algorithm
 * passes its self-test at registration, a corrupted vector makes it fail,
 * and malformed keys, secrets and streams are refused. */
#include "crypto.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const struct {
	enum ualg_alg_type type;
	const char *name;
} algs[] = {
	{ UALG_ALG_AKCIPHER, "rsa" }, { UALG_ALG_AKCIPHER, "pkcs1pad(rsa,sha256)" },
	{ UALG_ALG_AKCIPHER, "ecdsa-nist-p256" }, { UALG_ALG_KPP, "dh" },
	{ UALG_ALG_KPP, "ecdh-nist-p256" }, { UALG_ALG_KPP, "ecdh-nist-p384" },
	{ UALG_ALG_COMP, "deflate" }, { UALG_ALG_COMP, "lz4" }, { UALG_ALG_COMP, "lzo" },
	{ UALG_ALG_COMP, "zstd" },
};

static struct ualg_tfm *tfm_of(enum ualg_alg_type type, const char *name)
{
	int err = 0;
	struct ualg_alg *alg = ualg_alg_lookup(type, name, &err);
	struct ualg_tfm *tfm = alg ? ualg_tfm_new(alg, &err) : NULL;

	if (alg)
		ualg_alg_put(alg);
	return tfm;
}

static void test_selftests(void)
{
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		int err = 0;
		struct ualg_alg *alg = ualg_alg_lookup(algs[i].type, algs[i].name, &err);
		ok(alg && alg->selftest == UALG_SELFTEST_PASSED, "%s: registered, self-test passed",
		   algs[i].name);
		if (!alg)
			continue;
		ualg_selftest_corrupt(algs[i].name);
		ok(ualg_selftest_run(alg) == -1, "%s: a corrupted vector fails the self-test",
		   algs[i].name);
		ualg_selftest_corrupt(NULL);
		ok(ualg_selftest_run(alg) == 0, "%s: the intact vectors pass again", algs[i].name);
		ualg_alg_put(alg);
	}
}

static void test_bad_keys(void)
{
	static const uint8_t junk[] = { 0x30, 0x03, 0x02, 0x01, 0x00 };
	struct ualg_tfm *rsa = tfm_of(UALG_ALG_AKCIPHER, "rsa");
	ok(rsa && ualg_tfm_setkey(rsa, junk, sizeof(junk)) == -EINVAL, "rsa: a bad private key is EINVAL");
	ok(rsa && ualg_akcipher_set_pub_key(rsa, junk, 2) == -EBADMSG,
	   "rsa: a cut public key is EBADMSG (asn1_ber_decoder)");
	uint8_t out[64];
	size_t n = sizeof(out);
	ok(rsa && ualg_akcipher_run(rsa, UALG_AK_ENCRYPT, junk, 1, out, &n) == -EINVAL,
	   "rsa: no key, no operation (EINVAL)");
	ualg_tfm_free(rsa);

	struct ualg_tfm *ecdsa = tfm_of(UALG_ALG_AKCIPHER, "ecdsa-nist-p256");
	uint8_t point[65] = { 0x04 };
	ok(ecdsa && ualg_akcipher_set_pub_key(ecdsa, point, sizeof(point)) == -EINVAL,
	   "ecdsa: a point off the curve is EINVAL");
	ok(ecdsa && ualg_tfm_setkey(ecdsa, point, 32) == -ENOSYS, "ecdsa: no private key (ENOSYS)");
	ualg_tfm_free(ecdsa);

	struct ualg_tfm *ecdh = tfm_of(UALG_ALG_KPP, "ecdh-nist-p256");
	uint8_t sec[6 + 32] = { 2, 0, 38, 0, 32, 0 };
	ok(ecdh && ualg_tfm_setkey(ecdh, sec, sizeof(sec)) == -EINVAL, "ecdh: a zero private key is EINVAL");
	sec[2] = 37;
	ok(ecdh && ualg_tfm_setkey(ecdh, sec, sizeof(sec)) == -EINVAL, "ecdh: a wrong length field is EINVAL");
	uint8_t gen[6] = { 2, 0, 6, 0, 0, 0 };
	n = sizeof(out);
	ok(ecdh && !ualg_tfm_setkey(ecdh, gen, sizeof(gen)) && !ualg_kpp_gen_pubkey(ecdh, out, &n) &&
	   n == 64, "ecdh: no key generates one; its public key is X || Y");
	ualg_tfm_free(ecdh);

	struct ualg_tfm *dh = tfm_of(UALG_ALG_KPP, "dh");
	uint8_t dsec[16 + 1 + 8 + 1] = { 1, 0, 26, 0, 1, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 5,
					 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xc5, 2 };
	ok(dh && ualg_tfm_setkey(dh, dsec, sizeof(dsec)) == -EINVAL, "dh: a 64-bit p is EINVAL");
	dsec[8] = 200;
	ok(dh && ualg_tfm_setkey(dh, dsec, sizeof(dsec)) == -EINVAL, "dh: sizes past the buffer are EINVAL");
	ualg_tfm_free(dh);
}

/* The kernel's BER reading (asym_keys.c), as lib/asn1_decoder.c answers:
 * what each engine's akcipher and kpp sockets get from the core. */
static void test_key_formats(void)
{
	struct ualg_rsa_raw_key k;
	/* SEQUENCE { version 7, n 0x00c5, e 3, d 9 }, the CRT fields missing:
	 * matches past the end are skipped. */
	static const uint8_t short_priv[] = { 0x30, 0x0d, 0x02, 0x01, 0x07, 0x02, 0x02, 0x00, 0xc5,
					      0x02, 0x01, 0x03, 0x02, 0x01, 0x09 };
	ok(!ualg_rsa_parse_key(short_priv, sizeof(short_priv), true, &k) && k.n_len == 2 &&
	   k.n[1] == 0xc5 && k.e_len == 1 && k.e[0] == 3 && k.d_len == 1 && k.d[0] == 9,
	   "rsa key: n, e, d found; missing CRT fields skipped");
	ok(ualg_rsa_parse_key(short_priv, 0, true, &k) == -EBADMSG, "rsa key: nothing is EBADMSG");
	static uint8_t big[65536];
	ok(ualg_rsa_parse_key(big, sizeof(big), false, &k) == -EMSGSIZE, "rsa key: 64 KiB is EMSGSIZE");
	static const uint8_t long_tag[] = { 0x30, 0x04, 0x1f, 0x02, 0x01, 0x05 };
	ok(ualg_rsa_parse_key(long_tag, sizeof(long_tag), false, &k) == -EBADMSG,
	   "rsa key: a long tag is EBADMSG");
	static const uint8_t len3[] = { 0x30, 0x83, 0x00, 0x00, 0x03, 0x02, 0x01, 0x05 };
	ok(ualg_rsa_parse_key(len3, sizeof(len3), false, &k) == -EBADMSG,
	   "rsa key: a 3-byte length is EBADMSG");
	static const uint8_t indef_int[] = { 0x30, 0x06, 0x02, 0x80, 0x05, 0x00, 0x00, 0x00 };
	ok(ualg_rsa_parse_key(indef_int, sizeof(indef_int), false, &k) == -EBADMSG,
	   "rsa key: an indefinite-length INTEGER is EBADMSG");
	static const uint8_t empty_n[] = { 0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x03 };
	ok(ualg_rsa_parse_key(empty_n, sizeof(empty_n), false, &k) == -EINVAL,
	   "rsa key: an empty n is EINVAL (rsa_get_n)");

	uint8_t p[UALG_DH_MAX_BYTES], g[UALG_DH_MAX_BYTES], der[300] = { 0x30, 0x82, 0x01, 0x0b,
									  0x02, 0x82, 0x01, 0x01 };
	size_t plen = 0, glen = 0;
	/* p: 64 zero octets, then 193 of 0xff (1544 bits), g = 2, then a
	 * privateValueLength; an OCTET STRING in its place is refused. */
	memset(der + 8 + 64, 0xff, 193);
	memcpy(der + 265, (const uint8_t[]){ 0x02, 0x01, 0x02, 0x02, 0x01, 0xe0 }, 6);
	ok(!ualg_dh_decode_params(der, 4 + 0x10b, p, &plen, g, &glen) && plen == 193 && glen == 1 &&
	   g[0] == 2, "dh PKCS#3: p without its zeros, g, privateValueLength ignored");
	der[268] = 0x04;
	ok(ualg_dh_decode_params(der, 4 + 0x10b, p, &plen, g, &glen) == -EBADMSG,
	   "dh PKCS#3: an OCTET STRING after g is EBADMSG");
}

/* 64 MiB of zeros deflated: 64 KiB of stream that must not be decoded
 * past the room given. */
static void test_bomb(void)
{
	const size_t big = 64u << 20;
	uint8_t *zeros = calloc(1, big), *stream = malloc(big / 256), *out = malloc(1 << 20);
	z_stream s = { 0 };
	size_t n = 1 << 20;

	deflateInit2(&s, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY);
	s.next_in = zeros;
	s.avail_in = (uInt)big;
	s.next_out = stream;
	s.avail_out = (uInt)(big / 256);
	int zr = deflate(&s, Z_FINISH);
	const size_t slen = s.total_out;
	deflateEnd(&s);
	struct ualg_tfm *tfm = tfm_of(UALG_ALG_COMP, "deflate");
	ok(zr == Z_STREAM_END && tfm && ualg_comp_run(tfm, false, stream, slen, out, &n) == -ENOSPC,
	   "deflate: %zu bytes that expand to 64 MiB stop at the 1 MiB given (ENOSPC)", slen);
	n = 1 << 20;
	stream[slen / 2] ^= 0x55;
	int r = tfm ? ualg_comp_run(tfm, false, stream, slen, out, &n) : 0;
	ok(r == -EBADMSG || r == -ENOSPC, "deflate: a damaged stream fails (%d)", r);
	ualg_tfm_free(tfm);
	free(zeros);
	free(stream);
	free(out);
}

int main(void)
{
	ok(ualg_core_init() == 0, "core init");
	test_selftests();
	test_bad_keys();
	test_key_formats();
	test_bomb();
	ualg_core_exit();
	return tap_done();
}
