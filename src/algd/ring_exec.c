/* Running a ring's requests on its worker thread: hash, cipher and AEAD
 * requests read from the submission queue, alone or in multi-buffer
 * groups, and completed into the completion queue (see ring_impl.h). */
#include "ring_impl.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RING_BATCH 256u	/* requests per pass over a ring, so other rings get in */
/* Bytes one multi-buffer group may cover: the lock is held for one
 * request or one group, so that a control request waits for no more. */
#define GROUP_BYTES (1u << 20)
/* A group of decryptions is copied before it runs and its plaintext
 * after: kept small, its copies stay in the cache. */
#define GROUP_COPY_BYTES (16u << 10)

static bool range_ok(const struct ring *r, uint64_t off, uint64_t len)
{
	return off <= r->bufsize && len <= r->bufsize - off;
}

/* Input [a, a + alen) and output [b, b + blen) start at the same place or
 * are disjoint: what the drivers accept.  Offsets are already in range. */
static bool overlap_ok(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a == b || a + alen <= b || b + blen <= a;
}

static int32_t run_hash(struct ring *r, struct ring_tfm *t, const struct ualg_sqe *q)
{
	uint8_t digest[UALG_MAX_DIGESTSIZE];

	if (t->type != UALG_ALG_SHASH)
		return -EINVAL;
	if (!range_ok(r, q->src, q->len) || !range_ok(r, q->dst, t->digestsize))
		return -EFAULT;
	int err = ualg_hash_init(&t->desc, t->tfm);
	if (!err)
		err = ualg_hash_update(&t->desc, r->buf + q->src, q->len);
	if (!err)
		err = ualg_hash_final(&t->desc, digest);
	if (err)
		return err;
	memcpy(r->buf + q->dst, digest, t->digestsize);
	ualg_wipe(digest, sizeof(digest));
	return (int32_t)t->digestsize;
}

/* A skcipher request's checks, alone or in a group; its IV into iv, read
 * once (the client may rewrite it meanwhile). */
static int32_t cipher_check(const struct ring *r, const struct ring_tfm *t, const struct ualg_sqe *q,
			    uint8_t iv[UALG_MAX_IVSIZE])
{
	if (t->type != UALG_ALG_SKCIPHER || q->len > INT32_MAX)
		return -EINVAL;
	if (!range_ok(r, q->src, q->len) || !range_ok(r, q->dst, q->len) ||
	    (t->ivsize && !range_ok(r, q->iv, t->ivsize)))
		return -EFAULT;
	if (!overlap_ok(q->src, q->len, q->dst, q->len))
		return -EINVAL;
	if (t->ivsize)
		memcpy(iv, r->buf + q->iv, t->ivsize);
	return 0;
}

static int32_t run_cipher(struct ring *r, const struct ring_tfm *t, const struct ualg_sqe *q)
{
	uint8_t iv[UALG_MAX_IVSIZE];
	int32_t bad = cipher_check(r, t, q, iv);
	if (bad)
		return bad;
	int err = ualg_skcipher_crypt(t->tfm, q->opcode == UALG_OP_ENCRYPT, iv,
				      r->buf + q->src, r->buf + q->dst, q->len);
	return err ? err : (int32_t)q->len;
}

/* A private buffer, charged to the ring's owner; it is wiped after each
 * request and freed after each batch (ring_scratch_drop). */
static uint8_t *scratch(struct ring *r, size_t len)
{
	if (!len)
		len = 1;	/* an empty request still has a buffer to point at */
	if (len > r->scratch_size) {
		if (!ualg_budget_charge(&r->acct->mem, len - r->scratch_size))
			return NULL;
		uint8_t *p = malloc(len);
		if (!p) {
			ualg_budget_uncharge(&r->acct->mem, len - r->scratch_size);
			return NULL;
		}
		ualg_wipe(r->scratch, r->scratch_size);
		free(r->scratch);
		r->scratch = p;
		r->scratch_size = len;
	}
	return r->scratch;
}

void ring_scratch_drop(struct ring *r)
{
	if (!r->scratch)
		return;
	ualg_budget_uncharge(&r->acct->mem, r->scratch_size);
	ualg_wipe(r->scratch, r->scratch_size);
	free(r->scratch);
	r->scratch = NULL;
	r->scratch_size = 0;
}

/* An AEAD request's checks, alone or in a group: its input, IV and
 * output in range (a decryption's input ends with the tag, its output is
 * the plaintext), an encryption's output where the drivers take it; its IV
 * into iv, read once. */
static int32_t aead_check(const struct ring *r, const struct ring_tfm *t, const struct ualg_sqe *q,
			  uint8_t iv[UALG_MAX_IVSIZE])
{
	const bool dec = q->opcode == UALG_OP_AEAD_DECRYPT;

	if (t->type != UALG_ALG_AEAD || q->assoclen > q->len || q->len > INT32_MAX)
		return -EINVAL;
	if (!range_ok(r, q->src, q->len) || (t->ivsize && !range_ok(r, q->iv, t->ivsize)))
		return -EFAULT;
	const size_t cryptlen = q->len - q->assoclen, authsize = t->tfm->authsize;
	if (dec && cryptlen < authsize)
		return -EINVAL;
	if (!range_ok(r, q->dst, dec ? cryptlen - authsize : cryptlen + authsize))
		return -EFAULT;
	if (!dec && !overlap_ok(q->src + q->assoclen, cryptlen, q->dst, cryptlen + authsize))
		return -EINVAL;
	if (t->ivsize)
		memcpy(iv, r->buf + q->iv, t->ivsize);
	return 0;
}

/* q's request over a copy of its input at copy (associated data, then
 * the text), laid out as AF_ALG does. */
static struct ualg_aead_req aead_req(uint8_t *copy, const struct ualg_sqe *q, uint8_t *iv)
{
	return (struct ualg_aead_req){ .aad = copy, .assoclen = q->assoclen, .text = copy + q->assoclen,
				       .cryptlen = q->len - q->assoclen, .iv = iv };
}

/* Encryption in place (dst is the text, right after the associated
 * data, as AF_ALG lays it out) runs on shared memory: a client rewriting it
 * meanwhile only spoils its own ciphertext.  Otherwise the request is
 * laid out so in a private copy first (templates such as rfc4543 read the
 * associated data and the text as one). */
static int32_t aead_encrypt(struct ring *r, const struct ring_tfm *t, const struct ualg_sqe *q, uint8_t *iv)
{
	const size_t cryptlen = q->len - q->assoclen, authsize = t->tfm->authsize;
	const bool in_place = q->dst == q->src + q->assoclen;
	uint8_t *work = r->buf + q->src;

	if (!in_place) {
		if (!(work = scratch(r, q->len + authsize)))
			return -ENOMEM;
		memcpy(work, r->buf + q->src, q->len);
	}
	const struct ualg_aead_req req = aead_req(work, q, iv);
	int err = ualg_aead_encrypt(t->tfm, &req);
	if (!err && !in_place)
		memcpy(r->buf + q->dst, work + q->assoclen, cryptlen + authsize);
	if (!in_place)
		ualg_wipe(work, q->len + authsize);
	return err ? err : (int32_t)(cryptlen + authsize);
}

/* Decryption works on a private copy of the whole input: the plaintext
 * is released only after the tag verified, over bytes the client can no
 * longer change. */
static int32_t aead_decrypt(struct ring *r, const struct ring_tfm *t, const struct ualg_sqe *q, uint8_t *iv)
{
	uint8_t *copy = scratch(r, q->len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, r->buf + q->src, q->len);
	const struct ualg_aead_req req = aead_req(copy, q, iv);
	int err = ualg_aead_decrypt(t->tfm, &req);
	const size_t plainlen = req.cryptlen - t->tfm->authsize;
	if (!err)
		memcpy(r->buf + q->dst, req.text, plainlen);
	ualg_wipe(copy, q->len);
	return err ? err : (int32_t)plainlen;
}

/* The IV is read once, into algd's memory, as for ciphers. */
static int32_t run_aead(struct ring *r, const struct ring_tfm *t, const struct ualg_sqe *q)
{
	uint8_t iv[UALG_MAX_IVSIZE];
	int32_t bad = aead_check(r, t, q, iv);

	if (bad)
		return bad;
	return q->opcode == UALG_OP_AEAD_ENCRYPT ? aead_encrypt(r, t, q, iv) : aead_decrypt(r, t, q, iv);
}

/* q is algd's private copy: every field is checked here, once. */
static int32_t run_request(struct ring *r, const struct ualg_sqe *q)
{
	const bool aead = q->opcode == UALG_OP_AEAD_ENCRYPT || q->opcode == UALG_OP_AEAD_DECRYPT;

	if (q->flags || q->reserved || q->opcode >= UALG_OP_MAX || (q->assoclen && !aead))
		return -EINVAL;
	if (q->opcode == UALG_OP_NOP)
		return 0;
	if (q->tfm >= UALG_RING_MAX_TFMS || !r->tfms[q->tfm].tfm)
		return -EBADF;
	struct ring_tfm *t = &r->tfms[q->tfm];
	if (aead)
		return run_aead(r, t, q);
	return q->opcode == UALG_OP_HASH ? run_hash(r, t, q) : run_cipher(r, t, q);
}

/* ---- multi-buffer groups ------------------------------------------------
 *
 * Consecutive hashes, AEAD encryptions in place, AEAD decryptions, or
 * encryptions or decryptions of a skcipher, on one transform whose driver
 * runs several requests at once (ipsecmb.c; a DPDK device's bursts) go to
 * it as one group: the checks of run_hash, run_aead and run_cipher first,
 * then one _many call.  Decryptions run as aead_decrypt runs one: on
 * private copies, the plaintext of those whose tag verified copied out. */

struct group {
	unsigned n;			/* requests handed to the driver */
	uint32_t slot[GROUP_MAX];	/* their positions in this batch */
	struct ualg_digest_req hash[GROUP_MAX];
	struct ualg_aead_req aead[GROUP_MAX];
	struct ualg_skcipher_req sk[GROUP_MAX];
	uint8_t digest[GROUP_MAX][UALG_MAX_DIGESTSIZE];
	uint8_t iv[GROUP_MAX][UALG_MAX_IVSIZE];
	const struct ualg_sqe *q[GROUP_MAX];	/* algd's copies of the requests */
	int res[GROUP_MAX];
};

static bool groupable(const struct ring *r, const struct ualg_sqe *q)
{
	if (q->flags || q->reserved || q->tfm >= UALG_RING_MAX_TFMS || !r->tfms[q->tfm].tfm)
		return false;
	const struct ring_tfm *t = &r->tfms[q->tfm];
	if (q->opcode == UALG_OP_HASH)
		return !q->assoclen && t->type == UALG_ALG_SHASH && ualg_hash_has_many(t->tfm);
	if (q->opcode == UALG_OP_ENCRYPT || q->opcode == UALG_OP_DECRYPT)
		return !q->assoclen && t->type == UALG_ALG_SKCIPHER && ualg_skcipher_has_many(t->tfm);
	if (q->opcode == UALG_OP_AEAD_DECRYPT)
		return t->type == UALG_ALG_AEAD && ualg_aead_has_decrypt_many(t->tfm);
	return q->opcode == UALG_OP_AEAD_ENCRYPT && t->type == UALG_ALG_AEAD &&
	       ualg_aead_has_encrypt_many(t->tfm) && q->dst == q->src + q->assoclen;
}

/* Adds q to g, or returns the error it completes with at once. */
static int32_t group_add(struct ring *r, struct group *g, const struct ualg_sqe *q, uint32_t slot)
{
	const struct ring_tfm *t = &r->tfms[q->tfm];
	const unsigned i = g->n;
	int32_t bad = 0;

	if (q->opcode == UALG_OP_HASH) {
		if (!range_ok(r, q->src, q->len) || !range_ok(r, q->dst, t->digestsize))
			return -EFAULT;
		g->hash[i] = (struct ualg_digest_req){ .data = r->buf + q->src, .len = q->len, .out = g->digest[i] };
	} else if (q->opcode == UALG_OP_ENCRYPT || q->opcode == UALG_OP_DECRYPT) {
		if ((bad = cipher_check(r, t, q, g->iv[i])))
			return bad;
		g->sk[i] = (struct ualg_skcipher_req){ .iv = g->iv[i], .src = r->buf + q->src,
						       .dst = r->buf + q->dst, .len = q->len };
	} else {
		if ((bad = aead_check(r, t, q, g->iv[i])))
			return bad;
		/* In place for encryptions (groupable); a decryption's copy
		 * is made when the group runs (group_decrypt). */
		g->aead[i] = aead_req(r->buf + q->src, q, g->iv[i]);
	}
	g->q[i] = q;
	g->slot[g->n++] = slot;
	return 0;
}

/* The group's decryptions on private copies of their inputs, one after
 * the other in the ring's scratch buffer: the plaintext of each whose tag
 * verified is copied out. */
static int group_decrypt(struct ring *r, struct group *g, const struct ring_tfm *t)
{
	size_t total = 0;

	for (unsigned i = 0; i < g->n; i++)
		total += g->q[i]->len;
	uint8_t *copy = scratch(r, total);
	if (!copy)
		return -ENOMEM;
	for (size_t i = 0, at = 0; i < g->n; at += g->q[i++]->len) {
		memcpy(copy + at, r->buf + g->q[i]->src, g->q[i]->len);
		g->aead[i] = aead_req(copy + at, g->q[i], g->iv[i]);
	}
	int err = ualg_aead_decrypt_many(t->tfm, g->n, g->aead, g->res);
	for (unsigned i = 0; !err && i < g->n; i++)
		if (!g->res[i])
			memcpy(r->buf + g->q[i]->dst, g->aead[i].text, g->aead[i].cryptlen - t->tfm->authsize);
	ualg_wipe(copy, total);
	return err;
}

/* What request i of g completes with when it succeeded: the bytes it
 * wrote. */
static int32_t group_result(const struct group *g, const struct ring_tfm *t, unsigned i)
{
	switch (g->q[i]->opcode) {
	case UALG_OP_HASH: return (int32_t)t->digestsize;
	case UALG_OP_AEAD_ENCRYPT: return (int32_t)(g->aead[i].cryptlen + t->tfm->authsize);
	case UALG_OP_AEAD_DECRYPT: return (int32_t)(g->aead[i].cryptlen - t->tfm->authsize);
	default: return (int32_t)g->sk[i].len;
	}
}

static void group_complete(struct ring *r, struct group *g, const struct ring_tfm *t, uint8_t opcode,
			   int32_t *res)
{
	const bool hash = opcode == UALG_OP_HASH;
	int err = hash ? ualg_hash_digest_many(t->tfm, g->n, g->hash, g->res)
		  : opcode == UALG_OP_AEAD_ENCRYPT ? ualg_aead_encrypt_many(t->tfm, g->n, g->aead, g->res)
		  : opcode == UALG_OP_AEAD_DECRYPT ? group_decrypt(r, g, t)
		  : ualg_skcipher_crypt_many(t->tfm, opcode == UALG_OP_ENCRYPT, g->n, g->sk, g->res);

	for (unsigned i = 0; i < g->n; i++) {
		int e = err ? err : g->res[i];
		if (hash && !e)
			memcpy(r->buf + g->q[i]->dst, g->digest[i], t->digestsize);
		res[g->slot[i]] = e ? e : group_result(g, t, i);
	}
	if (hash)
		ualg_wipe(g->digest, g->n * sizeof(g->digest[0]));
}

/* Runs the group starting at sq[first] of the batch (at most avail
 * requests); returns how many it took, their results in res. */
static uint32_t run_group(struct ring *r, const struct ualg_sqe *sq, uint32_t avail, int32_t *res)
{
	static __thread struct group g;
	const struct ualg_sqe *q0 = &sq[0];
	uint32_t k = 0;

	uint64_t bytes = 0;

	g.n = 0;
	for (; k < avail && g.n < GROUP_MAX; k++) {
		const struct ualg_sqe *q = &sq[k];
		if (k && (q->tfm != q0->tfm || q->opcode != q0->opcode || !groupable(r, q) ||
			  bytes + q->len > (q->opcode == UALG_OP_AEAD_DECRYPT ? GROUP_COPY_BYTES : GROUP_BYTES)))
			break;
		bytes += q->len;
		int32_t e = group_add(r, &g, q, k);
		if (e)
			res[k] = e;
	}
	if (g.n)
		group_complete(r, &g, &r->tfms[q0->tfm], q0->opcode, res);
	return k;
}

/* Indexes that cannot be right: the ring stops for good and says why;
 * the connection stays, so the client can still close cleanly. */
static void ring_break(struct ring *r)
{
	r->broken = true;
	__atomic_fetch_or(&r->sh->algd_flags, UALG_RING_BROKEN, __ATOMIC_SEQ_CST);
	uint64_t one = 1;
	(void)!write(r->cq_efd, &one, sizeof(one));
}

static void wake_client(struct ring *r)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->sh->client_flags, __ATOMIC_RELAXED) & UALG_RING_CQ_WAITING) {
		uint64_t one = 1;
		(void)!write(r->cq_efd, &one, sizeof(one));
	}
}

unsigned ring_service(struct ring *r)
{
	if (r->broken)
		return 0;
	const uint32_t tail = __atomic_load_n(&r->sh->sq_tail, __ATOMIC_ACQUIRE);
	const uint32_t cq_head = __atomic_load_n(&r->sh->cq_head, __ATOMIC_ACQUIRE);
	const uint32_t queued = tail - r->sq_head, used = r->cq_tail - cq_head;

	if (queued == 0)
		return 0;
	if (queued > r->entries || used > r->entries) {
		ring_break(r);
		return 0;
	}
	uint32_t n = queued < r->entries - used ? queued : r->entries - used;
	if (n > RING_BATCH)
		n = RING_BATCH;
	r->cq_full = n == 0;
	if (n == 0)
		return 0;	/* the client has not reaped yet */
	/* Key memory the requests allocate (keyed hash states) is the
	 * owner's, as on the event loop. */
	ualg_secure_set_budget(&r->acct->keys);
	for (uint32_t i = 0; i < n;) {
		uint32_t k = 1;
		/* A mutex is no queue: let a waiting control request in
		 * before taking the lock. */
		while (__atomic_load_n(&r->ctl_waiting, __ATOMIC_ACQUIRE))
			sched_yield();
		/* Held for one request or one group, never a whole batch:
		 * the event loop takes it for control requests and at close. */
		pthread_mutex_lock(&r->lock);
		if (r->closed) {
			pthread_mutex_unlock(&r->lock);
			n = i;
			break;
		}
		memcpy(&r->batch[0], &r->sq[(r->sq_head + i) & (r->entries - 1)], sizeof(r->batch[0]));
		if (groupable(r, &r->batch[0])) {
			/* algd's private copies of the requests that may join. */
			for (; k < n - i && k < GROUP_MAX; k++)
				memcpy(&r->batch[k], &r->sq[(r->sq_head + i + k) & (r->entries - 1)],
				       sizeof(r->batch[0]));
			k = run_group(r, r->batch, k, r->batch_res);
		} else {
			r->batch_res[0] = run_request(r, &r->batch[0]);
		}
		for (uint32_t j = 0; j < k; j++) {
			const struct ualg_cqe c = { .user_data = r->batch[j].user_data, .res = r->batch_res[j] };
			memcpy(&r->cq[(r->cq_tail + i + j) & (r->entries - 1)], &c, sizeof(c));
		}
		pthread_mutex_unlock(&r->lock);
		i += k;
	}
	ualg_secure_set_budget(NULL);
	ring_scratch_drop(r);
	r->sq_head += n;
	r->cq_tail += n;
	__atomic_store_n(&r->sh->sq_head, r->sq_head, __ATOMIC_RELEASE);
	__atomic_store_n(&r->sh->cq_tail, r->cq_tail, __ATOMIC_RELEASE);
	wake_client(r);
	return n;
}
