/* libkcapi's own code paths against AF_ALG: hash, skcipher and aead through the
 * sync sendmsg, vmsplice/splice and AIO (io_submit) paths, one line per
 * call with its return value and output (hex, or SHA-256 of long output).
 * Run on the real kernel it gives tests/golden/kcapi-paths.txt; under
 * ualg-run it must print the same.  Inputs are deterministic; keys and IVs
 * are RFC 3602's and SP 800-38A's. */
#include <kcapi.h>
#include <openssl/evp.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

static const uint8_t KEY[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
				 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
static const uint8_t IV[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 8));
}

static void show(const char *what, ssize_t r, const uint8_t *out, size_t n)
{
	printf("%s ret=%zd ", what, r);
	if (r < 0 || !out) {
		printf("\n");
		return;
	}
	if (n > (size_t)r)
		n = (size_t)r;
	if (n <= 32) {
		for (size_t i = 0; i < n; i++)
			printf("%02x", out[i]);
	} else {
		uint8_t md[32];
		unsigned l = 0;
		EVP_Digest(out, n, md, &l, EVP_sha256(), NULL);
		printf("sha256:");
		for (unsigned i = 0; i < l; i++)
			printf("%02x", md[i]);
	}
	printf("\n");
}

static void hash_paths(const char *alg, const uint8_t *key, size_t keylen)
{
	static const size_t sizes[] = { 0, 3, 4096, 65536, 1 << 20 };
	struct kcapi_handle *h;
	uint8_t out[64], *in = malloc(1 << 20);
	char what[96];

	fill(in, 1 << 20, 1);
	memcpy(in, "abc", 3);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (kcapi_md_init(&h, alg, 0)) {
			printf("%s init failed\n", alg);
			break;
		}
		if (key)
			kcapi_md_setkey(h, key, (uint32_t)keylen);
		snprintf(what, sizeof(what), "md_digest %s %zu", alg, sizes[i]);
		ssize_t r = kcapi_md_digest(h, in, sizes[i], out, sizeof(out));
		show(what, r, out, sizeof(out));
		/* update/final: MSG_MORE sends, then the result */
		snprintf(what, sizeof(what), "md_update+final %s %zu", alg, sizes[i]);
		ssize_t u1 = kcapi_md_update(h, in, sizes[i] / 2);
		ssize_t u2 = kcapi_md_update(h, in + sizes[i] / 2, sizes[i] - sizes[i] / 2);
		r = kcapi_md_final(h, out, sizeof(out));
		printf("md_update %s %zu ret=%zd,%zd\n", alg, sizes[i], u1, u2);
		show(what, r, out, sizeof(out));
		kcapi_md_destroy(h);
	}
	free(in);
}

static void cipher_sync(const char *alg, size_t n, int access)
{
	struct kcapi_handle *h;
	uint8_t *in = malloc(n), *out = malloc(n), *back = malloc(n);
	char what[96];

	fill(in, n, 2);
	if (kcapi_cipher_init(&h, alg, 0) || kcapi_cipher_setkey(h, KEY, sizeof(KEY))) {
		printf("%s init failed\n", alg);
		goto out;
	}
	snprintf(what, sizeof(what), "cipher_encrypt %s %zu access=%d", alg, n, access);
	ssize_t r = kcapi_cipher_encrypt(h, in, n, IV, out, n, access);
	show(what, r, out, n);
	snprintf(what, sizeof(what), "cipher_decrypt %s %zu access=%d", alg, n, access);
	r = kcapi_cipher_decrypt(h, out, n, IV, back, n, access);
	printf("%s ret=%zd roundtrip=%s\n", what, r, r == (ssize_t)n && !memcmp(in, back, n) ? "ok" : "BAD");
	kcapi_cipher_destroy(h);
out:
	free(in);
	free(out);
	free(back);
}

static void cipher_aio(const char *alg, size_t chunk, size_t nchunks, int access)
{
	struct kcapi_handle *h;
	size_t n = chunk * nchunks;
	uint8_t *in = malloc(n), *out = malloc(n);
	struct iovec iniov[16], outiov[16];
	char what[96];

	fill(in, n, 3);
	memset(out, 0, n);
	for (size_t i = 0; i < nchunks; i++) {
		iniov[i] = (struct iovec){ in + i * chunk, chunk };
		outiov[i] = (struct iovec){ out + i * chunk, chunk };
	}
	if (kcapi_cipher_init(&h, alg, KCAPI_INIT_AIO) || kcapi_cipher_setkey(h, KEY, sizeof(KEY))) {
		printf("%s aio init failed\n", alg);
		goto out;
	}
	snprintf(what, sizeof(what), "cipher_encrypt_aio %s %zux%zu access=%d", alg, nchunks, chunk, access);
	ssize_t r = kcapi_cipher_encrypt_aio(h, iniov, outiov, nchunks, IV, access);
	show(what, r, out, n);
	kcapi_cipher_destroy(h);
out:
	free(in);
	free(out);
}

static void cipher_stream(const char *alg)
{
	struct kcapi_handle *h;
	uint8_t in[64], out[64];
	struct iovec iov = { in, 32 }, oiov = { out, sizeof(out) };

	fill(in, sizeof(in), 4);
	if (kcapi_cipher_init(&h, alg, 0) || kcapi_cipher_setkey(h, KEY, sizeof(KEY))) {
		printf("%s stream init failed\n", alg);
		return;
	}
	ssize_t a = kcapi_cipher_stream_init_enc(h, IV, NULL, 0);
	ssize_t b = kcapi_cipher_stream_update(h, &iov, 1);
	iov.iov_base = in + 32;
	ssize_t c = kcapi_cipher_stream_update_last(h, &iov, 1);
	ssize_t r = kcapi_cipher_stream_op(h, &oiov, 1);
	printf("cipher_stream %s init=%zd update=%zd last=%zd ", alg, a, b, c);
	show("op", r, out, sizeof(out));
	kcapi_cipher_destroy(h);
}

/* kcapi_aead_encrypt/decrypt: in = AAD || text, out = AAD || CT || tag
 * (encryption), AAD || PT (decryption), with each access method; then a
 * flipped tag bit, which must fail with EBADMSG. */
static void aead_sync(const char *alg, size_t keylen, size_t ivlen, size_t aadlen, size_t n,
		      size_t taglen, int access)
{
	struct kcapi_handle *h;
	uint8_t key[32], iv[16];
	size_t inlen = aadlen + n, outlen = aadlen + n + taglen;
	uint8_t *in = malloc(inlen + 1), *out = malloc(outlen), *back = malloc(outlen);
	char what[128];

	fill(key, sizeof(key), 5);
	fill(iv, sizeof(iv), 6);
	iv[0] = ivlen == 16 ? 3 : iv[0];	/* ccm: iv[0] is L - 1 */
	fill(in, inlen + 1, 7);
	if (kcapi_aead_init(&h, alg, 0) || kcapi_aead_setkey(h, key, (uint32_t)keylen) ||
	    kcapi_aead_settaglen(h, (uint32_t)taglen)) {
		printf("%s aead init failed\n", alg);
		goto out;
	}
	kcapi_aead_setassoclen(h, aadlen);
	snprintf(what, sizeof(what), "aead_encrypt %s aad=%zu n=%zu tag=%zu access=%d", alg, aadlen, n,
		 taglen, access);
	ssize_t r = kcapi_aead_encrypt(h, in, inlen, iv, out, outlen, access);
	show(what, r, out, outlen);
	snprintf(what, sizeof(what), "aead_decrypt %s aad=%zu n=%zu tag=%zu access=%d", alg, aadlen, n,
		 taglen, access);
	r = kcapi_aead_decrypt(h, out, outlen, iv, back, aadlen + n, access);
	printf("%s ret=%zd roundtrip=%s\n", what, r,
	       r == (ssize_t)(aadlen + n) && !memcmp(in, back, aadlen + n) ? "ok" : "BAD");
	out[outlen - 1] ^= 1;
	r = kcapi_aead_decrypt(h, out, outlen, iv, back, aadlen + n, access);
	printf("aead_decrypt_badtag %s access=%d ret=%zd\n", alg, access, r);
	kcapi_aead_destroy(h);
out:
	free(in);
	free(out);
	free(back);
}

/* kcapi_aead_encrypt_aio: one AEAD operation per iovec. */
static void aead_aio(const char *alg, size_t n, size_t count, int access)
{
	struct kcapi_handle *h;
	const size_t aadlen = 16, taglen = 16, each = aadlen + n + taglen;
	uint8_t key[16], iv[12], *in = malloc(each * count), *out = malloc(each * count);
	struct iovec iniov[8], outiov[8];
	char what[128];

	fill(key, sizeof(key), 8);
	fill(iv, sizeof(iv), 9);
	fill(in, each * count, 10);
	memset(out, 0, each * count);
	for (size_t i = 0; i < count; i++) {
		iniov[i] = (struct iovec){ in + i * each, aadlen + n };
		outiov[i] = (struct iovec){ out + i * each, each };
	}
	if (kcapi_aead_init(&h, alg, KCAPI_INIT_AIO) || kcapi_aead_setkey(h, key, sizeof(key)) ||
	    kcapi_aead_settaglen(h, (uint32_t)taglen)) {
		printf("%s aead aio init failed\n", alg);
		goto out;
	}
	kcapi_aead_setassoclen(h, aadlen);
	snprintf(what, sizeof(what), "aead_encrypt_aio %s %zux%zu access=%d", alg, count, n, access);
	ssize_t r = kcapi_aead_encrypt_aio(h, iniov, outiov, count, iv, access);
	show(what, r, out, each * count);
	kcapi_aead_destroy(h);
out:
	free(in);
	free(out);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	hash_paths("sha256", NULL, 0);
	hash_paths("hmac(sha256)", KEY, sizeof(KEY));
	static const size_t sizes[] = { 16, 4096, 65536, 1 << 20 };
	static const int access[] = { KCAPI_ACCESS_HEURISTIC, KCAPI_ACCESS_VMSPLICE, KCAPI_ACCESS_SENDMSG };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t j = 0; j < 3; j++)
			cipher_sync("cbc(aes)", sizes[i], access[j]);
	cipher_sync("ctr(aes)", 1000, KCAPI_ACCESS_HEURISTIC);
	for (size_t j = 0; j < 3; j++) {
		cipher_aio("cbc(aes)", 4096, 4, access[j]);
		cipher_aio("ctr(aes)", 16, 16, access[j]);
	}
	cipher_stream("cbc(aes)");
	for (size_t j = 0; j < 3; j++) {
		aead_sync("gcm(aes)", 16, 12, 20, 60, 16, access[j]);
		aead_sync("gcm(aes)", 32, 12, 0, 4096, 12, access[j]);
		aead_sync("gcm(aes)", 16, 12, 16, 65536, 16, access[j]);
		aead_sync("ccm(aes)", 16, 16, 8, 100, 8, access[j]);
		aead_sync("rfc4106(gcm(aes))", 20, 8, 16, 64, 16, access[j]);
		aead_sync("rfc7539(chacha20,poly1305)", 32, 12, 12, 114, 16, access[j]);
		aead_aio("gcm(aes)", 64, 4, access[j]);
	}
	return 0;
}
