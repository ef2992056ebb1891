/* libualg against a running algd ($UALG_SOCKET): every hash and skcipher
 * vector of the core's standard tables (NIST CAVP, RFCs) through the ring,
 * one at a time and as one batch, hashes and AEAD encryptions and
 * decryptions repeated in a row on one transform (a driver's batches),
 * three decryptions with the middle one's tag spoilt; then a hostile
 * client: bogus offsets, ids and opcodes must complete with errors,
 * corrupted indexes must stop only that ring, and a thread rewriting
 * shared memory while algd works must not hurt algd.  Ends with "N
 * passed, N failed". */
#include "testvec.h"
#include "ualg.h"
#include "proto.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int n_pass, n_fail;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%sok - ", cond ? "" : "not ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	if (cond)
		n_pass++;
	else
		n_fail++;
}

static const char *const required[] = {
	"sha256", "hmac(sha256)", "cbc(aes)", "ctr(aes)", "xts(aes)", "gcm(aes)", "rfc7539(chacha20,poly1305)",
};

static int is_required(const char *alg)
{
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!strcmp(alg, required[i]))
			return 1;
	return 0;
}

static const char *type_of(const struct ualg_test_desc *d)
{
	switch (d->kind) {
	case UALG_TEST_HASH: return "hash";
	case UALG_TEST_SKCIPHER: return "skcipher";
	case UALG_TEST_AEAD: return "aead";
	default: return NULL;
	}
}

static int hash_vec(struct ualg_ring *ring, int tfm, const struct ualg_hash_testvec *v, unsigned ds)
{
	uint8_t out[64];

	if (v->ksize && ualg_ring_setkey(ring, tfm, v->key, v->ksize))
		return 0;
	return ualg_hash_oneshot(ring, tfm, v->plaintext, v->psize, out, sizeof(out)) == (int)ds &&
	       !memcmp(out, v->digest, ds);
}

static int cipher_vec(struct ualg_ring *ring, int tfm, const struct ualg_cipher_testvec *v)
{
	uint8_t out[4096];

	if (v->len > sizeof(out) || ualg_ring_setkey(ring, tfm, v->key, v->klen))
		return 0;
	int enc = ualg_cipher_oneshot(ring, tfm, 1, v->iv, v->ivlen, v->ptext, out, v->len);
	if (enc != (int)v->len || memcmp(out, v->ctext, v->len))
		return 0;
	int dec = ualg_cipher_oneshot(ring, tfm, 0, v->iv, v->ivlen, v->ctext, out, v->len);
	return dec == (int)v->len && !memcmp(out, v->ptext, v->len);
}

/* Input is AF_ALG's: associated data, then the text.  A novrfy vector
 * must be refused with EBADMSG and leave the output untouched. */
static int aead_vec(struct ualg_ring *ring, int tfm, const struct ualg_aead_testvec *v)
{
	uint8_t in[1024], out[1024];

	if (v->alen + v->clen > sizeof(in) || ualg_ring_setkey(ring, tfm, v->key, v->klen) ||
	    ualg_ring_setauthsize(ring, tfm, v->authsize))
		return 0;
	memcpy(in, v->assoc, v->alen);
	memcpy(in + v->alen, v->ctext, v->clen);
	memset(out, 0x5a, sizeof(out));
	int dec = ualg_aead_oneshot(ring, tfm, 0, v->iv, v->ivlen, in, v->alen, v->alen + v->clen, out, sizeof(out));
	if (v->novrfy) {
		uint8_t untouched[1024];
		memset(untouched, 0x5a, sizeof(untouched));
		return dec == -EBADMSG && !memcmp(out, untouched, sizeof(out));
	}
	if (dec != (int)v->plen || memcmp(out, v->ptext, v->plen))
		return 0;
	memcpy(in + v->alen, v->ptext, v->plen);
	int enc = ualg_aead_oneshot(ring, tfm, 1, v->iv, v->ivlen, in, v->alen, v->alen + v->plen, out, sizeof(out));
	return enc == (int)v->clen && !memcmp(out, v->ctext, v->clen);
}

static int run_vec(struct ualg_ring *ring, int tfm, const struct ualg_test_desc *d, size_t i, unsigned ds)
{
	switch (d->kind) {
	case UALG_TEST_HASH: return hash_vec(ring, tfm, &((const struct ualg_hash_testvec *)d->vecs)[i], ds);
	case UALG_TEST_SKCIPHER: return cipher_vec(ring, tfm, &((const struct ualg_cipher_testvec *)d->vecs)[i]);
	case UALG_TEST_AEAD: return aead_vec(ring, tfm, &((const struct ualg_aead_testvec *)d->vecs)[i]);
	default: return 0;
	}
}

/* Every vector of d, one synchronous request each. */
static void test_sync(struct ualg_ring *ring, const struct ualg_test_desc *d)
{
	struct ualg_tfm_info info;
	int tfm = ualg_ring_open_tfm(ring, type_of(d), d->alg, &info);

	if (tfm == -ENOENT && !is_required(d->alg)) {
		printf("# %s: not available in this algd\n", d->alg);
		return;
	}
	if (tfm < 0) {
		ok(0, "open %s: %s", d->alg, strerror(-tfm));
		return;
	}
	size_t good = 0;
	for (size_t i = 0; i < d->count; i++)
		good += run_vec(ring, tfm, d, i, info.digestsize);
	ok(good == d->count, "sync %s: %zu/%zu vectors (%s)", d->alg, good, d->count, d->source);
	ok(ualg_ring_close_tfm(ring, tfm) == 0, "close %s", d->alg);
}

/* A batch: one transform per vector (each with its key), all requests
 * submitted together, completions matched by user_data. */
struct batch {
	int tfm[UALG_RING_MAX_TFMS];
	size_t in_off[UALG_RING_MAX_TFMS], out_off[UALG_RING_MAX_TFMS];
	size_t n;
};

static int batch_prepare(struct ualg_ring *ring, const struct ualg_test_desc *d, struct batch *b)
{
	uint8_t *buf = ualg_ring_buf(ring);
	size_t at = 0;

	b->n = d->count < ring->entries ? d->count : ring->entries;
	for (size_t i = 0; i < b->n; i++) {
		const struct ualg_hash_testvec *hv = &((const struct ualg_hash_testvec *)d->vecs)[i];
		const struct ualg_cipher_testvec *cv = &((const struct ualg_cipher_testvec *)d->vecs)[i];
		const int hash = d->kind == UALG_TEST_HASH;
		const size_t len = hash ? hv->psize : cv->len;
		if (at + len + 2 * 64 + UALG_MAX_IV > ualg_ring_bufsize(ring))
			return -1;
		b->tfm[i] = ualg_ring_open_tfm(ring, type_of(d), d->alg, NULL);
		if (b->tfm[i] < 0)
			return -1;
		if ((hash ? hv->ksize : cv->klen) &&
		    ualg_ring_setkey(ring, b->tfm[i], hash ? hv->key : cv->key, hash ? hv->ksize : cv->klen))
			return -1;
		uint8_t *iv = buf + at, *in = iv + UALG_MAX_IV, *out = in + len + 64;
		if (!hash && cv->ivlen)
			memcpy(iv, cv->iv, cv->ivlen);
		memcpy(in, hash ? hv->plaintext : cv->ptext, len);
		struct ualg_sqe *sqe = ualg_get_sqe(ring);
		if (!sqe)
			return -1;
		if (hash)
			ualg_prep_hash(ring, sqe, b->tfm[i], in, len, out);
		else
			ualg_prep_encrypt(ring, sqe, b->tfm[i], in, out, len, iv);
		ualg_sqe_set_data64(sqe, i);
		b->in_off[i] = (size_t)(in - buf);
		b->out_off[i] = (size_t)(out - buf);
		at = (size_t)(out - buf) + len + 64;
	}
	return 0;
}

/* Submits the n requests prepared (user_data 0 to n - 1) and puts each
 * one's result in res[user_data]: 0 when all n came back. */
static int submit_collect(struct ualg_ring *ring, size_t n, int *res)
{
	size_t seen = 0;
	const int sub = ualg_submit_and_wait(ring, (unsigned)n);

	while (sub >= 0 && seen < n) {
		struct ualg_cqe *cqes[64];
		unsigned got = ualg_peek_batch_cqe(ring, cqes, 64);
		for (unsigned i = 0; i < got; i++)
			if (cqes[i]->user_data < n)
				res[cqes[i]->user_data] = cqes[i]->res;
		ualg_cq_advance(ring, got);
		seen += got;
		if (!got)
			break;
	}
	return sub == (int)n && seen == n ? 0 : -1;
}

static void test_batch(struct ualg_ring *ring, const struct ualg_test_desc *d)
{
	struct batch b;
	int res[UALG_RING_MAX_TFMS];
	size_t good = 0;

	if (batch_prepare(ring, d, &b)) {
		if (is_required(d->alg))
			ok(0, "batch %s: prepared", d->alg);
		ring->sqe_tail = __atomic_load_n(&ring->sh->sq_tail, __ATOMIC_RELAXED);
		return;
	}
	const int sub = submit_collect(ring, b.n, res);
	for (size_t k = 0; !sub && k < b.n; k++) {
		const uint8_t *out = ualg_ring_buf(ring) + b.out_off[k];
		if (d->kind == UALG_TEST_HASH) {
			const struct ualg_hash_testvec *v = &((const struct ualg_hash_testvec *)d->vecs)[k];
			good += res[k] > 0 && !memcmp(out, v->digest, (size_t)res[k]);
		} else {
			const struct ualg_cipher_testvec *v = &((const struct ualg_cipher_testvec *)d->vecs)[k];
			good += res[k] == (int)v->len && !memcmp(out, v->ctext, v->len);
		}
	}
	ok(!sub && good == b.n, "batch %s: %zu/%zu vectors in one submission", d->alg, good, b.n);
	for (size_t i = 0; i < b.n; i++)
		ualg_ring_close_tfm(ring, b.tfm[i]);
}

/* Each vector of d (hashes; AEADs' encryptions, or their decryptions)
 * REPEAT times in a row on its own transform, all in one submission:
 * requests of one transform in a row are what a driver gets as one batch
 * (digest_many, encrypt_many, decrypt_many; a device's burst), and every
 * completion is checked.  AEADs run in place (associated data, then the
 * text), as a batch of encryptions requires; a decryption refused (a
 * novrfy vector: EBADMSG) leaves the ciphertext and tag as they were. */
#define REPEAT 3

struct expect {
	size_t off;		/* where the output is, in the ring's buffer */
	const void *bytes;	/* what it must be */
	size_t len;
	int res;		/* the completion's result */
};

/* Lays out a request of vector i on transform t at at and prepares it
 * (user data k); returns where the next may go. */
static size_t repeat_prep(struct ualg_ring *ring, const struct ualg_test_desc *d, size_t i, bool dec, int t,
			  unsigned digestsize, size_t at, uint64_t k, struct expect *e)
{
	const struct ualg_hash_testvec *hv = &((const struct ualg_hash_testvec *)d->vecs)[i];
	const struct ualg_aead_testvec *av = &((const struct ualg_aead_testvec *)d->vecs)[i];
	uint8_t *buf = ualg_ring_buf(ring), *iv = buf + at, *in = iv + UALG_MAX_IV;
	struct ualg_sqe *sqe = ualg_get_sqe(ring);

	ualg_sqe_set_data64(sqe, k);
	if (d->kind == UALG_TEST_HASH) {
		memcpy(in, hv->plaintext, hv->psize);
		ualg_prep_hash(ring, sqe, t, in, hv->psize, in + hv->psize + 64);
		*e = (struct expect){ (size_t)(in - buf) + hv->psize + 64, hv->digest, digestsize, (int)digestsize };
		return (size_t)(in - buf) + hv->psize + 128;
	}
	const size_t inlen = av->alen + (dec ? av->clen : av->plen);
	uint8_t *out = in + av->alen;
	memcpy(iv, av->iv, av->ivlen);
	memcpy(in, av->assoc, av->alen);
	memcpy(out, dec ? av->ctext : av->ptext, dec ? av->clen : av->plen);
	(dec ? ualg_prep_aead_decrypt : ualg_prep_aead_encrypt)(ring, sqe, t, in, av->alen, inlen, out, iv);
	const size_t off = (size_t)(out - buf);
	*e = !dec ? (struct expect){ off, av->ctext, av->clen, (int)av->clen }
	     : av->novrfy ? (struct expect){ off, av->ctext, av->clen, -EBADMSG }
			  : (struct expect){ off, av->ptext, av->plen, (int)av->plen };
	return off + av->clen + 64;
}

/* A transform of d's algorithm by name (or a driver's name) for vector i,
 * keyed (and its tag's size set). */
static int vec_tfm(struct ualg_ring *ring, const struct ualg_test_desc *d, const char *name, size_t i,
		   struct ualg_tfm_info *info)
{
	const bool hash = d->kind == UALG_TEST_HASH;
	const struct ualg_hash_testvec *hv = &((const struct ualg_hash_testvec *)d->vecs)[i];
	const struct ualg_aead_testvec *av = &((const struct ualg_aead_testvec *)d->vecs)[i];
	const int t = ualg_ring_open_tfm(ring, type_of(d), name, info);

	if (t < 0 || ((hash ? hv->ksize : av->klen) &&
		      ualg_ring_setkey(ring, t, hash ? hv->key : av->key, hash ? hv->ksize : av->klen)) ||
	    (!hash && ualg_ring_setauthsize(ring, t, av->authsize))) {
		if (t >= 0)
			ualg_ring_close_tfm(ring, t);
		return -1;
	}
	return t;
}

static void test_repeat(struct ualg_ring *ring, const struct ualg_test_desc *d, const char *name, bool dec)
{
	const bool hash = d->kind == UALG_TEST_HASH;
	size_t at = 0, n = 0, good = 0;
	int tfm[64], res[64 * REPEAT];
	struct expect want[64 * REPEAT];
	unsigned ntfm = 0;

	for (size_t i = 0; i < d->count && ntfm < 64 && n + REPEAT <= ring->entries; i++) {
		const struct ualg_hash_testvec *hv = &((const struct ualg_hash_testvec *)d->vecs)[i];
		const struct ualg_aead_testvec *av = &((const struct ualg_aead_testvec *)d->vecs)[i];
		if (!hash && !dec && av->novrfy)
			continue;
		const size_t room = hash ? hv->psize + 128 : av->alen + av->clen + 64;
		if (at + REPEAT * (room + UALG_MAX_IV) > ualg_ring_bufsize(ring))
			break;
		struct ualg_tfm_info info;
		const int t = vec_tfm(ring, d, name, i, &info);
		if (t < 0)
			continue;
		tfm[ntfm++] = t;
		for (unsigned r = 0; r < REPEAT; r++, n++)
			at = repeat_prep(ring, d, i, dec, t, info.digestsize, at, n, &want[n]);
	}
	if (!n)
		return;
	const int sub = submit_collect(ring, n, res);
	for (size_t k = 0; !sub && k < n; k++)
		good += res[k] == want[k].res && !memcmp(ualg_ring_buf(ring) + want[k].off, want[k].bytes, want[k].len);
	ok(!sub && good == n, "%s%s: %zu vectors %d times each in a row on one transform, one submission: %zu/%zu",
	   name, dec ? " decryptions" : "", n / REPEAT, REPEAT, good, n);
	for (unsigned i = 0; i < ntfm; i++)
		ualg_ring_close_tfm(ring, tfm[i]);
}

/* Three decryptions of one vector in one submission on one transform (a
 * driver's batch), each writing its plaintext apart from its input, the
 * middle one's tag spoilt: it alone is refused, its output and input left
 * exactly as they were. */
static void test_spoilt_tag(struct ualg_ring *ring, const struct ualg_test_desc *d, const char *name)
{
	const struct ualg_aead_testvec *vecs = d->vecs;
	size_t i = 0;

	while (i < d->count && (vecs[i].novrfy || !vecs[i].plen || vecs[i].alen + vecs[i].clen > 4096))
		i++;
	const int t = i < d->count ? vec_tfm(ring, d, name, i, NULL) : -1;
	if (t < 0)
		return;
	const struct ualg_aead_testvec *v = &vecs[i];
	const size_t inlen = v->alen + v->clen;
	uint8_t *buf = ualg_ring_buf(ring), before[2][4096];
	int res[REPEAT] = { 1, 1, 1 };
	for (unsigned r = 0; r < REPEAT; r++) {
		uint8_t *iv = buf + r * 3 * 4096, *in = iv + UALG_MAX_IV, *out = in + 4096;
		memcpy(iv, v->iv, v->ivlen);
		memcpy(in, v->assoc, v->alen);
		memcpy(in + v->alen, v->ctext, v->clen);
		in[inlen - 1] ^= r == 1 ? 0x80 : 0;
		memset(out, 0x5a, 4096);
		if (r == 1) {
			memcpy(before[0], in, inlen);
			memcpy(before[1], out, 4096);
		}
		struct ualg_sqe *sqe = ualg_get_sqe(ring);
		ualg_prep_aead_decrypt(ring, sqe, t, in, v->alen, inlen, out, iv);
		ualg_sqe_set_data64(sqe, r);
	}
	const int sub = submit_collect(ring, REPEAT, res);
	bool good = !sub;
	for (unsigned r = 0; good && r < REPEAT; r++) {
		const uint8_t *in = buf + r * 3 * 4096 + UALG_MAX_IV, *out = in + 4096;
		good = r == 1 ? res[r] == -EBADMSG && !memcmp(in, before[0], inlen) && !memcmp(out, before[1], 4096)
			      : res[r] == (int)v->plen && !memcmp(out, v->ptext, v->plen);
	}
	ok(good, "%s: three decryptions in one submission, the middle one's tag spoilt: it alone refused "
	   "(EBADMSG, its input and output as they were), the others' plaintext right (%d %d %d)",
	   name, res[0], res[1], res[2]);
	ualg_ring_close_tfm(ring, t);
}

/* d's decryptions through name: in a row, and with a tag spoilt. */
static void test_decrypt_batches(struct ualg_ring *ring, const struct ualg_test_desc *d, const char *name)
{
	if (strcmp(name, d->alg)) {
		const int t = ualg_ring_open_tfm(ring, type_of(d), name, NULL);
		if (t < 0) {
			printf("# %s: not available in this algd\n", name);
			return;
		}
		ualg_ring_close_tfm(ring, t);
	}
	test_repeat(ring, d, name, true);
	test_spoilt_tag(ring, d, name);
}

/* ---- a hostile client ------------------------------------------------ */

/* Submits one raw request and returns its completion's result. */
static int raw_request(struct ualg_ring *ring, const struct ualg_sqe *raw)
{
	struct ualg_sqe *sqe = ualg_get_sqe(ring);
	struct ualg_cqe *cqe;

	if (!sqe)
		return -9999;
	*sqe = *raw;
	if (ualg_submit_and_wait(ring, 1) < 0 || ualg_wait_cqe(ring, &cqe))
		return -9999;
	int r = cqe->res;
	ualg_cqe_seen(ring, cqe);
	return r;
}

static void test_bogus_requests(struct ualg_ring *ring)
{
	const int h = ualg_ring_open_tfm(ring, "hash", "sha256", NULL);
	const int c = ualg_ring_open_tfm(ring, "skcipher", "cbc(aes)", NULL);
	const int unkeyed = ualg_ring_open_tfm(ring, "skcipher", "cbc(aes)", NULL);
	const int g = ualg_ring_open_tfm(ring, "aead", "gcm(aes)", NULL);
	const uint64_t size = ualg_ring_bufsize(ring);
	static const uint8_t key[16];
	ok(ualg_ring_setkey(ring, c, key, 16) == 0 && ualg_ring_setkey(ring, g, key, 16) == 0,
	   "setkey before bogus requests");
	struct {
		const char *what;
		struct ualg_sqe q;
		int expect;
	} cases[] = {
		{ "src past the buffer area", { .opcode = UALG_OP_HASH, .tfm = (uint16_t)h, .len = 1, .src = size }, -EFAULT },
		{ "src + len wrapping around", { .opcode = UALG_OP_HASH, .tfm = (uint16_t)h, .len = 64, .src = UINT64_MAX - 8 }, -EFAULT },
		{ "len past the end", { .opcode = UALG_OP_HASH, .tfm = (uint16_t)h, .len = 4096, .src = size - 100 }, -EFAULT },
		{ "digest past the end", { .opcode = UALG_OP_HASH, .tfm = (uint16_t)h, .len = 1, .dst = size - 8 }, -EFAULT },
		{ "cipher dst past the end", { .opcode = UALG_OP_ENCRYPT, .tfm = (uint16_t)c, .len = 32, .dst = size - 16 }, -EFAULT },
		{ "iv past the end", { .opcode = UALG_OP_ENCRYPT, .tfm = (uint16_t)c, .len = 16, .dst = 64, .iv = size - 4 }, -EFAULT },
		{ "partly overlapping src and dst", { .opcode = UALG_OP_ENCRYPT, .tfm = (uint16_t)c, .len = 64, .src = 0, .dst = 16 }, -EINVAL },
		{ "cbc length not a block multiple", { .opcode = UALG_OP_ENCRYPT, .tfm = (uint16_t)c, .len = 17, .dst = 64 }, -EINVAL },
		{ "unopened transform id", { .opcode = UALG_OP_HASH, .tfm = 200, .len = 1 }, -EBADF },
		{ "transform id out of range", { .opcode = UALG_OP_HASH, .tfm = 65535, .len = 1 }, -EBADF },
		{ "unknown opcode", { .opcode = 200, .tfm = (uint16_t)h }, -EINVAL },
		{ "non-zero flags", { .opcode = UALG_OP_HASH, .flags = 1, .tfm = (uint16_t)h }, -EINVAL },
		{ "non-zero reserved", { .opcode = UALG_OP_HASH, .tfm = (uint16_t)h, .reserved = 1 }, -EINVAL },
		{ "hash on a cipher transform", { .opcode = UALG_OP_HASH, .tfm = (uint16_t)c, .len = 16, .dst = 64 }, -EINVAL },
		{ "aead tag past the end", { .opcode = UALG_OP_AEAD_ENCRYPT, .tfm = (uint16_t)g, .len = 32, .dst = size - 40 }, -EFAULT },
		{ "aead assoclen over len", { .opcode = UALG_OP_AEAD_ENCRYPT, .tfm = (uint16_t)g, .len = 16, .assoclen = 17, .dst = 64 }, -EINVAL },
		{ "aead decrypt shorter than the tag", { .opcode = UALG_OP_AEAD_DECRYPT, .tfm = (uint16_t)g, .len = 15, .dst = 64 }, -EINVAL },
		{ "aead decrypt with a wrong tag", { .opcode = UALG_OP_AEAD_DECRYPT, .tfm = (uint16_t)g, .len = 48, .dst = 64 }, -EBADMSG },
		{ "assoclen on a cipher request", { .opcode = UALG_OP_ENCRYPT, .tfm = (uint16_t)c, .len = 16, .assoclen = 1, .dst = 64 }, -EINVAL },
		{ "cipher request on an aead transform", { .opcode = UALG_OP_ENCRYPT, .tfm = (uint16_t)g, .len = 16, .dst = 64 }, -EINVAL },
		{ "cipher without a key", { .opcode = UALG_OP_ENCRYPT, .tfm = (uint16_t)unkeyed, .len = 16, .dst = 64 }, -ENOKEY },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = raw_request(ring, &cases[i].q);
		ok(r == cases[i].expect, "bogus request (%s): %d, expected %d", cases[i].what, r, cases[i].expect);
	}
	const struct ualg_sqe good = { .opcode = UALG_OP_ENCRYPT, .tfm = (uint16_t)c, .len = 16, .dst = 64 };
	ok(raw_request(ring, &good) == 16, "the ring still works after bogus requests");
	ok(ualg_ring_setkey(ring, 77, key, 16) == -EBADF, "setkey of an unopened id: EBADF");
	ok(ualg_ring_setkey(ring, h, key, 16) == -ENOPROTOOPT, "setkey of an unkeyed hash: ENOPROTOOPT");
	ok(ualg_ring_setkey(ring, c, key, 15) == -EINVAL, "aes key of 15 bytes: EINVAL");
	ok(ualg_ring_open_tfm(ring, "hash", "nosuch", NULL) == -ENOENT, "open an unknown algorithm: ENOENT");
	ok(ualg_ring_open_tfm(ring, "skcipher", "sha256", NULL) == -ENOENT, "open a hash as skcipher: ENOENT");
	ok(ualg_ring_open_tfm(ring, "aead", "sha256", NULL) == -ENOENT, "open with an unknown type: ENOENT");
	ok(ualg_ring_close_tfm(ring, 99) == -EBADF, "close an unopened id: EBADF");
	ok(ualg_ring_setauthsize(ring, g, 17) == -EINVAL, "gcm authsize 17: EINVAL");
	ok(ualg_ring_setauthsize(ring, h, 16) == -ENOPROTOOPT, "authsize on a hash: ENOPROTOOPT");
	/* An empty decryption of an AEAD without a tag (authenc over
	 * digest_null, whose authsize is 0): the kernel's answer is 0 bytes. */
	const int ae = ualg_ring_open_tfm(ring, "aead", "authenc(digest_null,cbc(aes))", NULL);
	uint8_t akey[8 + 16] = { 8, 0, 1, 0, 0, 0, 0, 16 };	/* rtattr, enckeylen 16 (be32) */
	const bool ae_ready = ae >= 0 && !ualg_ring_setkey(ring, ae, akey, sizeof(akey));
	const struct ualg_sqe empty = { .opcode = UALG_OP_AEAD_DECRYPT, .tfm = (uint16_t)ae, .iv = 128, .dst = 64 };
	const int er = ae_ready ? raw_request(ring, &empty) : -1;
	ok(ae_ready && er == 0, "an empty decryption of an AEAD without a tag: 0 bytes (%d)", er);
	if (ae >= 0)
		ualg_ring_close_tfm(ring, ae);
	ualg_ring_close_tfm(ring, h);
	ualg_ring_close_tfm(ring, c);
	ualg_ring_close_tfm(ring, unkeyed);
	ualg_ring_close_tfm(ring, g);
}

/* Indexes algd cannot trust: the ring stops with BROKEN, nothing else. */
static void test_corrupt_index(const char *sock, int which)
{
	struct ualg_ring ring;
	struct ualg_cqe *cqe;

	if (ualg_ring_init_at(&ring, 8, 4096, sock)) {
		ok(0, "ring for corrupt-index test");
		return;
	}
	if (which == 0) {
		__atomic_store_n(&ring.sh->sq_tail, 1000, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&ring.sh->cq_head, 0x80000000u, __ATOMIC_RELEASE);
		struct ualg_sqe *sqe = ualg_get_sqe(&ring);
		ualg_prep_nop(sqe);
	}
	uint64_t one = 1;
	if (which)
		ualg_submit(&ring);
	(void)!write(ring.sq_efd, &one, sizeof(one));
	int r = ualg_wait_cqe(&ring, &cqe);
	ok(r == -EIO, "%s: the ring stops (%d)", which ? "cq_head ahead of cq_tail" : "sq_tail past sq_head + entries", r);
	ualg_ring_exit(&ring);
}

struct scribble {
	struct ualg_ring *ring;
	volatile int stop;
};

static void *scribbler(void *arg)
{
	struct scribble *s = arg;
	uint32_t x = 12345;

	for (unsigned i = 1; !s->stop; i++) {
		/* Under valgrind, which runs one thread at a time and switches
		 * at system calls, the ring's own thread would hardly run. */
		if (!(i & 63))
			sched_yield();
		x = x * 1103515245u + 12345u;
		uint8_t *sq = (uint8_t *)s->ring->sq;
		size_t n = s->ring->entries * sizeof(struct ualg_sqe);
		sq[x % n] = (uint8_t)(x >> 24);
		s->ring->buf[(x >> 8) % s->ring->bufsize] ^= (uint8_t)x;
	}
	return NULL;
}

/* Requests rewritten while algd reads them: any result is fine, as long
 * as algd serves and survives.  The test gives up waiting after a while,
 * since a rewritten index may legitimately stop the ring. */
static void test_concurrent_rewrite(const char *sock)
{
	struct ualg_ring ring;
	pthread_t th;

	if (ualg_ring_init_at(&ring, 64, 64 * 1024, sock)) {
		ok(0, "ring for concurrent-rewrite test");
		return;
	}
	int h = ualg_ring_open_tfm(&ring, "hash", "sha256", NULL);
	int c = ualg_ring_open_tfm(&ring, "skcipher", "ctr(aes)", NULL);
	static const uint8_t key[16];
	ualg_ring_setkey(&ring, c, key, 16);
	struct scribble s = { &ring, 0 };
	pthread_create(&th, NULL, scribbler, &s);
	unsigned done = 0;
	for (unsigned round = 0; round < 200; round++) {
		for (unsigned i = 0; i < 32; i++) {
			struct ualg_sqe *sqe = ualg_get_sqe(&ring);
			if (!sqe)
				break;
			if (i & 1)
				ualg_prep_hash(&ring, sqe, h, ring.buf + i * 512, 512, ring.buf + 40000 + i * 64);
			else
				ualg_prep_encrypt(&ring, sqe, c, ring.buf + i * 512, ring.buf + i * 512, 512, ring.buf + 60000);
		}
		if (ualg_submit_and_wait(&ring, 32) < 0)
			break;
		struct ualg_cqe *cqes[64];
		unsigned got = ualg_peek_batch_cqe(&ring, cqes, 64);
		ualg_cq_advance(&ring, got);
		done += got;
	}
	s.stop = 1;
	pthread_join(th, NULL);
	ualg_ring_exit(&ring);
	printf("# %u requests completed while their ring was being rewritten\n", done);
	ok(done > 0, "requests complete while another thread rewrites the ring");
}

/* Set-up requests algd must refuse; the memfd it hands out is sealed. */
static void test_raw_setup(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path)) {
		ok(0, "socket path fits sockaddr_un");
		return;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) || ualg_hello(fd)) {
		ok(0, "raw connection to algd");
		return;
	}
	struct ualg_hdr hdr;
	struct ualg_ring_setup_reply rep;
	struct iovec body = { &rep, sizeof(rep) };
	const uint32_t bad_entries[] = { 0, 3, UALG_RING_MAX_ENTRIES * 2 };
	for (size_t i = 0; i < 3; i++) {
		struct ualg_ring_setup s = { .entries = bad_entries[i], .bufsize = 4096 };
		struct iovec p = { &s, sizeof(s) };
		ualg_frame_send(fd, UALG_MSG_RING_SETUP, 0, 0, &p, 1, -1);
		ualg_frame_recv(fd, &hdr, &body, 1, NULL, 1);
		ok(hdr.result == -EINVAL, "setup with %u entries: EINVAL", bad_entries[i]);
	}
	struct ualg_ring_setup big = { .entries = 8, .bufsize = (uint64_t)UALG_RING_MAX_BUF + 1 };
	struct iovec p = { &big, sizeof(big) };
	ualg_frame_send(fd, UALG_MSG_RING_SETUP, 0, 0, &p, 1, -1);
	ualg_frame_recv(fd, &hdr, &body, 1, NULL, 1);
	ok(hdr.result == -EINVAL, "setup with a buffer area over the limit: EINVAL");

	struct ualg_ring_setkey k = { .tfm = 0, .keylen = 0 };
	p = (struct iovec){ &k, sizeof(k) };
	ualg_frame_send(fd, UALG_MSG_RING_SETKEY, 0, 0, &p, 1, -1);
	ualg_frame_recv(fd, &hdr, NULL, 0, NULL, 1);
	ok(hdr.result == -ENXIO, "setkey before setup: ENXIO");

	struct ualg_ring_setup s = { .entries = 8, .bufsize = 4096 };
	p = (struct iovec){ &s, sizeof(s) };
	int memfd = -1, efd1 = -1, efd2 = -1;
	ualg_frame_send(fd, UALG_MSG_RING_SETUP, 0, 0, &p, 1, -1);
	ualg_frame_recv(fd, &hdr, &body, 1, &memfd, 1);
	ualg_frame_recv(fd, &hdr, NULL, 0, &efd1, 1);
	ualg_frame_recv(fd, &hdr, NULL, 0, &efd2, 1);
	ok(memfd >= 0 && efd1 >= 0 && efd2 >= 0, "setup passes the memfd and two eventfds");
	ok(memfd >= 0 && ftruncate(memfd, 0) < 0 && errno == EPERM, "the memfd cannot be shrunk (sealed)");
	ok(memfd >= 0 && ftruncate(memfd, 1 << 30) < 0 && errno == EPERM, "the memfd cannot be grown (sealed)");
	ok(memfd >= 0 && (fcntl(memfd, F_GET_SEALS) & F_SEAL_SEAL), "the seals cannot be changed");
	ualg_frame_send(fd, UALG_MSG_RING_SETUP, 0, 0, &p, 1, -1);
	ualg_frame_recv(fd, &hdr, &body, 1, NULL, 1);
	ok(hdr.result == -EBUSY, "a second setup on one connection: EBUSY");

	/* A malformed control frame ends this connection only. */
	uint8_t junk[3] = { 1, 2, 3 };
	p = (struct iovec){ junk, sizeof(junk) };
	ualg_frame_send(fd, UALG_MSG_RING_CLOSE, 0, 0, &p, 1, -1);
	ssize_t n = ualg_frame_recv(fd, &hdr, NULL, 0, NULL, 1);
	ok(n > 0 && hdr.result == -EPROTO, "a short RING_CLOSE frame: EPROTO");
	n = ualg_frame_recv(fd, &hdr, NULL, 0, NULL, 1);
	ok(n == 0, "and the connection ends");
	close(memfd);
	close(efd1);
	close(efd2);
	close(fd);
}

/* Two rings used by two threads at once (algd serves them on different
 * workers when it has more than one). */
struct parallel {
	const char *sock;
	int good;
};

static void *parallel_main(void *arg)
{
	struct parallel *p = arg;
	struct ualg_ring ring;
	const struct ualg_test_desc *d = NULL;

	for (size_t i = 0; i < ualg_test_descs_count; i++)
		if (!strcmp(ualg_test_descs[i].alg, "sha256"))
			d = &ualg_test_descs[i];
	if (!d || ualg_ring_init_at(&ring, 16, 1 << 16, p->sock))
		return NULL;
	int tfm = ualg_ring_open_tfm(&ring, "hash", "sha256", NULL);
	p->good = tfm >= 0;
	for (int round = 0; round < 50 && p->good; round++)
		for (size_t i = 0; i < d->count && p->good; i++)
			p->good = hash_vec(&ring, tfm, &((const struct ualg_hash_testvec *)d->vecs)[i], 32);
	ualg_ring_exit(&ring);
	return NULL;
}

static void test_parallel(const char *sock)
{
	struct parallel p[2] = { { sock, 0 }, { sock, 0 } };
	pthread_t th[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, parallel_main, &p[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ok(p[0].good && p[1].good, "two rings in two threads: every sha256 vector, 50 rounds each");
}

/* --only NAME...: those algorithms' vectors, one at a time and in a row
 * (test_repeat, test_spoilt_tag), and nothing else: for an algd whose drivers for them are
 * chosen (a device's, tests/ctl/dpdk.sh). */
static bool chosen(char **only, const char *alg)
{
	if (!only)
		return true;
	for (; *only; only++)
		if (!strcmp(*only, alg))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	char sock[256];
	struct ualg_ring ring;
	char **only = argc > 2 && !strcmp(argv[1], "--only") ? argv + 2 : NULL;

	if (ualg_default_socket_path(sock, sizeof(sock)) || ualg_ring_init_at(&ring, 256, 1 << 20, sock)) {
		ok(0, "ring set up with algd at %s", sock);
		printf("%d passed, %d failed\n", n_pass, n_fail);
		return 1;
	}
	ok(1, "ring set up with algd at %s", sock);
	for (size_t i = 0; i < ualg_test_descs_count; i++)
		if (type_of(&ualg_test_descs[i]) && chosen(only, ualg_test_descs[i].alg))
			test_sync(&ring, &ualg_test_descs[i]);
	for (size_t i = 0; i < ualg_test_descs_count; i++)
		if (type_of(&ualg_test_descs[i]) && ualg_test_descs[i].kind != UALG_TEST_SKCIPHER &&
		    chosen(only, ualg_test_descs[i].alg))
			test_repeat(&ring, &ualg_test_descs[i], ualg_test_descs[i].alg, false);
	for (size_t i = 0; i < ualg_test_descs_count; i++)
		if (ualg_test_descs[i].kind == UALG_TEST_AEAD && chosen(only, ualg_test_descs[i].alg))
			test_decrypt_batches(&ring, &ualg_test_descs[i], ualg_test_descs[i].alg);
	/* The core's own batching AEAD driver, below the generic name's. */
	for (size_t i = 0; !only && i < ualg_test_descs_count; i++)
		if (!strcmp(ualg_test_descs[i].alg, "gcm(aes)"))
			test_decrypt_batches(&ring, &ualg_test_descs[i], "gcm-aes-ipsecmb");
	if (only) {
		ualg_ring_exit(&ring);
		printf("%d passed, %d failed\n", n_pass, n_fail);
		return n_fail != 0;
	}
	for (size_t i = 0; i < ualg_test_descs_count; i++)
		if (type_of(&ualg_test_descs[i]) && ualg_test_descs[i].kind != UALG_TEST_AEAD)
			test_batch(&ring, &ualg_test_descs[i]);
	test_bogus_requests(&ring);
	ualg_ring_exit(&ring);
	test_corrupt_index(sock, 0);
	test_corrupt_index(sock, 1);
	test_concurrent_rewrite(sock);
	test_raw_setup(sock);
	test_parallel(sock);
	struct ualg_ring again;
	int r = ualg_ring_init_at(&again, 4, 4096, sock);
	int h = r ? r : ualg_ring_open_tfm(&again, "hash", "sha256", NULL);
	uint8_t d[32];
	/* FIPS 180-2 B.1: SHA-256("abc"). */
	static const uint8_t abc[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	ok(h >= 0 && ualg_hash_oneshot(&again, h, "abc", 3, d, sizeof(d)) == 32 && !memcmp(d, abc, 32),
	   "algd still serves new rings after the hostile ones (SHA-256(\"abc\"))");
	if (!r)
		ualg_ring_exit(&again);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
