/* Self-tests at registration, as crypto/testmgr.c: every driver and every
 * template instance is checked against the vectors of its generic name
 * before a lookup may return it.  Besides the one-shot answer, each test
 * exercises the paths AF_ALG uses: split updates and state cloning for
 * hashes, in-place and chained requests for skciphers, in-place requests
 * with the associated data in front (algif_aead's layout) and rejection of
 * a bad tag for AEADs.  Deterministic rngs are found by driver name, as
 * testmgr finds ansi_cprng. */
#include "crypto.h"
#include "testvec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct ualg_test_desc *find_desc(const char *name)
{
	size_t lo = 0, hi = ualg_test_descs_count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(ualg_test_descs[mid].alg, name);
		if (!c)
			return &ualg_test_descs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const uint8_t *u8(const char *s)
{
	return (const uint8_t *)s;
}

/* Digest in two updates split at the middle, cloning the state there and
 * finishing both copies: all three answers must match the vector. */
static int test_hash_vec(struct ualg_tfm *tfm, const struct ualg_hash_testvec *v)
{
	const unsigned ds = ualg_hash_digestsize(tfm);
	const size_t half = v->psize / 2;
	struct ualg_hash_desc a = { 0 }, b = { 0 };
	uint8_t out[UALG_MAX_DIGESTSIZE];
	int bad = 1;

	/* An unkeyed vector of an optional-key hash runs on the default key:
	 * the generator puts those vectors first, before any key is set. */
	const bool keyed = v->key || !tfm->alg->u.shash.optional_key;
	if (keyed && ualg_tfm_has_setkey(tfm) && ualg_tfm_setkey(tfm, u8(v->key), v->ksize))
		return -1;
	if (ualg_hash_digest(tfm, u8(v->plaintext), v->psize, out) || memcmp(out, v->digest, ds))
		return -1;
	if (ualg_hash_init(&a, tfm) || ualg_hash_update(&a, u8(v->plaintext), half) ||
	    ualg_hash_clone(&b, &a))
		goto out;
	if (ualg_hash_update(&a, u8(v->plaintext) + half, v->psize - half) ||
	    ualg_hash_final(&a, out) || memcmp(out, v->digest, ds))
		goto out;
	if (ualg_hash_update(&b, u8(v->plaintext) + half, v->psize - half) ||
	    ualg_hash_final(&b, out) || memcmp(out, v->digest, ds))
		goto out;
	bad = 0;
out:
	ualg_hash_exit(&a);
	ualg_hash_exit(&b);
	return bad ? -1 : 0;
}

static int test_cipher_vec(struct ualg_tfm *tfm, const struct ualg_cipher_testvec *v)
{
	uint8_t out[UALG_MAX_BLOCKSIZE];

	if (v->len != tfm->alg->blocksize || ualg_tfm_setkey(tfm, u8(v->key), v->klen))
		return -1;
	ualg_cipher_encrypt_one(tfm, out, u8(v->ptext));
	if (memcmp(out, v->ctext, v->len))
		return -1;
	ualg_cipher_decrypt_one(tfm, out, u8(v->ctext));
	return memcmp(out, v->ptext, v->len) ? -1 : 0;
}

/* Modes whose output IV continues the stream, so that one request split
 * in two at a chunk boundary must give the same bytes. */
static bool chains(const char *name)
{
	return !strncmp(name, "ecb(", 4) || !strncmp(name, "cbc(", 4) || !strncmp(name, "ctr(", 4);
}

static int crypt_check(struct ualg_tfm *tfm, bool enc, const struct ualg_cipher_testvec *v,
		       size_t split, uint8_t *buf)
{
	const char *in = enc ? v->ptext : v->ctext, *want = enc ? v->ctext : v->ptext;
	uint8_t iv[UALG_MAX_IVSIZE] = { 0 };

	if (v->ivlen)
		memcpy(iv, v->iv, v->ivlen);
	memcpy(buf, in, v->len);	/* in place, as AF_ALG's RX buffer */
	if ((split && ualg_skcipher_crypt(tfm, enc, iv, buf, buf, split)) ||
	    ualg_skcipher_crypt(tfm, enc, iv, buf + split, buf + split, v->len - split))
		return -1;
	return memcmp(buf, want, v->len) ? -1 : 0;
}

static int test_skcipher_vec(struct ualg_tfm *tfm, const struct ualg_cipher_testvec *v)
{
	const unsigned chunk = tfm->alg->u.skcipher.chunksize;
	uint8_t *buf = malloc(v->len ? v->len : 1);
	int bad = !buf || v->ivlen != tfm->alg->u.skcipher.ivsize ||
		  ualg_tfm_setkey(tfm, u8(v->key), v->klen);

	for (int enc = 0; !bad && enc < 2; enc++) {
		bad = crypt_check(tfm, enc, v, 0, buf) != 0;
		if (!bad && chains(tfm->alg->name) && chunk && v->len > chunk)
			bad = crypt_check(tfm, enc, v, v->len / 2 / chunk * chunk, buf) != 0;
	}
	free(buf);
	return bad ? -1 : 0;
}

/* One request over buf laid out as algif_aead leaves its output buffer:
 * the associated data, then the text, processed in place. */
static int aead_crypt_vec(struct ualg_tfm *tfm, bool enc, const struct ualg_aead_testvec *v,
			  uint8_t *buf)
{
	uint8_t iv[UALG_MAX_IVSIZE];
	const struct ualg_aead_req req = {
		.aad = buf,
		.assoclen = v->alen,
		.text = buf + v->alen,
		.cryptlen = enc ? v->plen : v->clen,
		.iv = iv,
	};

	memcpy(iv, v->iv, v->ivlen);
	memcpy(buf, v->assoc, v->alen);
	memcpy(buf + v->alen, enc ? v->ptext : v->ctext, req.cryptlen);
	return enc ? ualg_aead_encrypt(tfm, &req) : ualg_aead_decrypt(tfm, &req);
}

/* Encryption must give ctext || tag, decryption the plaintext, both
 * leaving the associated data alone; a novrfy vector must be refused
 * with EBADMSG. */
static int test_aead_vec(struct ualg_tfm *tfm, const struct ualg_aead_testvec *v)
{
	uint8_t *buf = malloc(v->alen + v->clen + 1);
	int bad = !buf || v->ivlen != tfm->alg->u.aead.ivsize || v->ivlen > UALG_MAX_IVSIZE ||
		  v->clen != v->plen + v->authsize || ualg_tfm_setkey(tfm, u8(v->key), v->klen) ||
		  ualg_aead_setauthsize(tfm, v->authsize);

	if (!bad && !v->novrfy)
		bad = aead_crypt_vec(tfm, true, v, buf) || memcmp(buf, v->assoc, v->alen) ||
		      memcmp(buf + v->alen, v->ctext, v->clen);
	if (!bad && v->novrfy)
		bad = aead_crypt_vec(tfm, false, v, buf) != -EBADMSG;
	else if (!bad)
		bad = aead_crypt_vec(tfm, false, v, buf) || memcmp(buf, v->assoc, v->alen) ||
		      memcmp(buf + v->alen, v->ptext, v->plen);
	free(buf);
	return bad ? -1 : 0;
}

/* Seeds V || key || DT, then reads loops times: the last read must give
 * the vector's result (test_cprng()). */
static int test_cprng_vec(struct ualg_tfm *tfm, const struct ualg_cprng_testvec *v)
{
	const size_t slen = v->vlen + v->klen + v->dtlen;
	uint8_t seed[128], out[64];

	if (slen > sizeof(seed) || !v->rlen || v->rlen > sizeof(out) || !v->loops)
		return -1;
	memcpy(seed, v->v, v->vlen);
	memcpy(seed + v->vlen, v->key, v->klen);
	memcpy(seed + v->vlen + v->klen, v->dt, v->dtlen);
	int bad = ualg_rng_seed(tfm, seed, slen) != 0;
	for (unsigned i = 0; !bad && i < v->loops; i++)
		bad = ualg_rng_generate(tfm, out, v->rlen) != 0;
	bad = bad || memcmp(out, v->result, v->rlen);
	ualg_wipe(seed, sizeof(seed));
	return bad ? -1 : 0;
}

static bool kind_matches(enum ualg_test_kind kind, enum ualg_alg_type type)
{
	switch (kind) {
	case UALG_TEST_HASH: return type == UALG_ALG_SHASH;
	case UALG_TEST_CIPHER: return type == UALG_ALG_CIPHER;
	case UALG_TEST_SKCIPHER: return type == UALG_ALG_SKCIPHER;
	case UALG_TEST_AEAD: return type == UALG_ALG_AEAD;
	case UALG_TEST_CPRNG: return type == UALG_ALG_RNG;
	default: return false;	/* selftest_asym.c's kinds */
	}
}

/* ualg_selftest_corrupt()'s target: a generic name, or empty. */
static char corrupt_alg[UALG_MAX_ALG_NAME];

void ualg_selftest_corrupt(const char *alg)
{
	snprintf(corrupt_alg, sizeof(corrupt_alg), "%s", alg ? alg : "");
}

union any_testvec {
	struct ualg_hash_testvec hash;
	struct ualg_cipher_testvec cipher;
	struct ualg_aead_testvec aead;
	struct ualg_cprng_testvec cprng;
};

static const void *vec_at(const struct ualg_test_desc *d, size_t i)
{
	switch (d->kind) {
	case UALG_TEST_HASH: return &((const struct ualg_hash_testvec *)d->vecs)[i];
	case UALG_TEST_CIPHER:
	case UALG_TEST_SKCIPHER: return &((const struct ualg_cipher_testvec *)d->vecs)[i];
	case UALG_TEST_AEAD: return &((const struct ualg_aead_testvec *)d->vecs)[i];
	case UALG_TEST_CPRNG: return &((const struct ualg_cprng_testvec *)d->vecs)[i];
	default: break;
	}
	return NULL;
}

static char *flipped_copy(const char *s, size_t n)
{
	char *p = malloc(n);

	if (p) {
		memcpy(p, s, n);
		p[0] ^= 1;
	}
	return p;
}

/* Copies vec into *copy with the first byte of its expected output
 * flipped; returns the buffer to free, or NULL if vec has no output that
 * a flip would be noticed in (empty, or a tag that must be refused). */
static char *corrupt_vec(const struct ualg_alg *alg, enum ualg_test_kind kind, const void *vec,
			 union any_testvec *copy)
{
	char *p = NULL;

	switch (kind) {
	case UALG_TEST_HASH:
		copy->hash = *(const struct ualg_hash_testvec *)vec;
		if ((p = flipped_copy(copy->hash.digest, alg->u.shash.digestsize)))
			copy->hash.digest = p;
		break;
	case UALG_TEST_CIPHER:
	case UALG_TEST_SKCIPHER:
		copy->cipher = *(const struct ualg_cipher_testvec *)vec;
		if (copy->cipher.len && (p = flipped_copy(copy->cipher.ctext, copy->cipher.len)))
			copy->cipher.ctext = p;
		break;
	case UALG_TEST_AEAD:
		copy->aead = *(const struct ualg_aead_testvec *)vec;
		if (!copy->aead.novrfy && copy->aead.clen &&
		    (p = flipped_copy(copy->aead.ctext, copy->aead.clen)))
			copy->aead.ctext = p;
		break;
	case UALG_TEST_CPRNG:
		copy->cprng = *(const struct ualg_cprng_testvec *)vec;
		if (copy->cprng.rlen && (p = flipped_copy(copy->cprng.result, copy->cprng.rlen)))
			copy->cprng.result = p;
		break;
	default:	/* selftest_asym.c flips its own */
		break;
	}
	return p;
}

static int run_vec_kind(struct ualg_tfm *tfm, enum ualg_test_kind kind, const void *v)
{
	switch (kind) {
	case UALG_TEST_HASH: return test_hash_vec(tfm, v);
	case UALG_TEST_CIPHER: return test_cipher_vec(tfm, v);
	case UALG_TEST_SKCIPHER: return test_skcipher_vec(tfm, v);
	case UALG_TEST_AEAD: return test_aead_vec(tfm, v);
	case UALG_TEST_CPRNG: return test_cprng_vec(tfm, v);
	default: return -1;
	}
}

/* A vector whose key FIPS mode refuses (an hmac key under 112 bits, also
 * inside authenc's blob; xts halves equal) is skipped, as testmgr skips
 * the vectors it marks fips_skip. */
static int run_vec(struct ualg_tfm *tfm, enum ualg_test_kind kind, const void *v)
{
	ualg_fips_take_refusal();
	int bad = run_vec_kind(tfm, kind, v);
	return bad && ualg_fips_take_refusal() ? 0 : bad;
}

int ualg_selftest_run(struct ualg_alg *alg)
{
	const struct ualg_test_desc *d =
		find_desc(alg->type == UALG_ALG_RNG ? alg->driver : alg->name);
	int err = 0, bad = 0;
	bool corrupt = corrupt_alg[0] && !strcmp(corrupt_alg, alg->name);

	if (alg->type == UALG_ALG_AKCIPHER || alg->type == UALG_ALG_KPP || alg->type == UALG_ALG_COMP)
		return ualg_selftest_asym(alg, corrupt);
	if (!d)
		return 0;	/* testmgr's "No test for %s": usable, untested */
	if (!kind_matches(d->kind, alg->type))
		return -1;
	struct ualg_tfm *tfm = ualg_tfm_new(alg, &err);
	if (!tfm)
		return -1;
	for (size_t i = 0; !bad && i < d->count; i++) {
		const void *v = vec_at(d, i);
		union any_testvec copy;
		char *flip = corrupt ? corrupt_vec(alg, d->kind, v, &copy) : NULL;

		if (flip) {
			v = &copy;
			corrupt = false;	/* one vector is enough */
		}
		bad = run_vec(tfm, d->kind, v);
		free(flip);
	}
	ualg_tfm_free(tfm);
	return bad ? -1 : 0;
}
