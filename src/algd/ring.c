/* The native ring service: shared-memory submission and completion queues
 * served by worker threads (see ring.h and src/lib/ualg_abi.h).
 *
 * Threads: the event loop owns the registry and every transform's life
 * (open, setkey, close); a ring's worker runs its requests.  The two meet
 * only in the ring's lock, which the worker holds for one batch and the
 * event loop for one control request, so a transform is never used by two
 * threads at once.  Rings are added to and removed from a worker through
 * its command queue; only the worker frees a ring's memory, after which
 * the event loop never touches it again. */
#include "ring.h"
#include "account.h"
#include "crypto.h"
#include "keystore.h"
#include "policy.h"
#include "proto.h"
#include "ualg_abi.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define POLL_US_MIN 2u
#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#endif
#define RING_BATCH 256u	/* requests per pass over a ring, so other rings get in */
#define GROUP_MAX 64u	/* requests per multi-buffer call */
/* Bytes one multi-buffer group may cover: the lock is held for one
 * request or one group, so that a control request waits for no more. */
#define GROUP_BYTES (1u << 20)
/* A ring whose completion queue is full is looked at again after this
 * long, doubling while it stays full: its worker sleeps meanwhile. */
#define CQ_FULL_WAIT_MIN_MS 1
#define CQ_FULL_WAIT_MAX_MS 64

struct ring_tfm {
	struct ualg_tfm *tfm;	/* NULL: slot free */
	enum ualg_alg_type type;
	unsigned digestsize, ivsize;
	struct ualg_hash_desc desc;	/* kept between requests: no allocation per hash */
};

struct worker;

struct ring {
	pthread_mutex_t lock;	/* tfms and closed: event loop vs worker */
	unsigned ctl_waiting;	/* the event loop wants the lock (atomic) */
	bool closed;		/* transforms gone: serve nothing more */
	struct ring_tfm tfms[UALG_RING_MAX_TFMS];

	/* Set up once by the event loop before the worker sees the ring. */
	uint8_t *map;
	size_t map_size;
	struct ualg_ring_shared *sh;
	struct ualg_sqe *sq;
	struct ualg_cqe *cq;
	uint8_t *buf;
	uint64_t bufsize;
	uint32_t entries;
	int memfd, sq_efd, cq_efd;
	struct worker *worker;
	struct account *acct;	/* charged map_size, 3 fds, a socket per transform */

	/* The worker's own: never read back from shared memory. */
	uint32_t sq_head, cq_tail;
	bool broken;
	bool cq_full;		/* requests wait for completion space */
	uint8_t *scratch;	/* AEAD decryption happens here, not in shared memory */
	size_t scratch_size;
	struct ualg_sqe batch[GROUP_MAX];	/* private copies of a group's requests */
	int32_t batch_res[GROUP_MAX];
	struct ring *next;	/* the worker's list of its rings */
	struct ring *cmd_next;	/* a command queue (written under cmd_lock) */
};

struct worker {
	pthread_t thread;
	int epfd, cmd_efd;
	pthread_mutex_t cmd_lock;
	struct ring *adds, *removes;	/* commands from the event loop */
	int pending;			/* commands queued (atomic) */
	bool stop;
	struct ring *rings;
	unsigned poll_us;		/* current busy-poll window */
	int cq_full_wait_ms;		/* sleep bound while a ring's CQ is full */
};

static unsigned n_workers_wanted;
static unsigned poll_us_max = 50;
static struct worker *workers;
static unsigned n_workers, next_worker;

void ring_set_workers(unsigned n)
{
	n_workers_wanted = n;
}

void ring_set_poll_us(unsigned us)
{
	poll_us_max = us;
}

unsigned ring_poll_us(void)
{
	return poll_us_max;
}

/* ---- the data path (worker threads) --------------------------------- */

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

static int32_t run_cipher(struct ring *r, const struct ring_tfm *t, const struct ualg_sqe *q)
{
	uint8_t iv[UALG_MAX_IVSIZE];

	if (t->type != UALG_ALG_SKCIPHER || q->len > INT32_MAX)
		return -EINVAL;
	if (!range_ok(r, q->src, q->len) || !range_ok(r, q->dst, q->len) ||
	    (t->ivsize && !range_ok(r, q->iv, t->ivsize)))
		return -EFAULT;
	if (!overlap_ok(q->src, q->len, q->dst, q->len))
		return -EINVAL;
	/* The IV is read once: the client may rewrite it meanwhile. */
	if (t->ivsize)
		memcpy(iv, r->buf + q->iv, t->ivsize);
	int err = ualg_skcipher_crypt(t->tfm, q->opcode == UALG_OP_ENCRYPT, iv,
				      r->buf + q->src, r->buf + q->dst, q->len);
	return err ? err : (int32_t)q->len;
}

/* A private buffer, charged to the ring's owner; it is wiped after each
 * request and freed after each batch (scratch_drop). */
static uint8_t *scratch(struct ring *r, size_t len)
{
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

static void scratch_drop(struct ring *r)
{
	if (!r->scratch)
		return;
	ualg_budget_uncharge(&r->acct->mem, r->scratch_size);
	ualg_wipe(r->scratch, r->scratch_size);
	free(r->scratch);
	r->scratch = NULL;
	r->scratch_size = 0;
}

/* Encryption in place (dst is the text, right after the associated
 * data, as AF_ALG lays it out) runs on shared memory: a client rewriting it
 * meanwhile only spoils its own ciphertext.  Otherwise the request is
 * laid out so in a private copy first (templates such as rfc4543 read the
 * associated data and the text as one). */
static int32_t aead_encrypt(struct ring *r, const struct ring_tfm *t, const struct ualg_sqe *q, uint8_t *iv)
{
	const size_t cryptlen = q->len - q->assoclen, authsize = t->tfm->authsize;
	const uint64_t text = q->src + q->assoclen;

	if (!range_ok(r, q->dst, cryptlen + authsize))
		return -EFAULT;
	if (!overlap_ok(text, cryptlen, q->dst, cryptlen + authsize))
		return -EINVAL;
	uint8_t *work = r->buf + q->src;
	if (q->dst != text) {
		if (!(work = scratch(r, q->len + authsize)))
			return -ENOMEM;
		memcpy(work, r->buf + q->src, q->len);
	}
	const struct ualg_aead_req req = { .aad = work, .assoclen = q->assoclen,
					   .text = work + q->assoclen, .cryptlen = cryptlen, .iv = iv };
	int err = ualg_aead_encrypt(t->tfm, &req);
	if (!err && q->dst != text)
		memcpy(r->buf + q->dst, work + q->assoclen, cryptlen + authsize);
	if (q->dst != text)
		ualg_wipe(work, q->len + authsize);
	return err ? err : (int32_t)(cryptlen + authsize);
}

/* Decryption works on a private copy of the whole input: the plaintext
 * is released only after the tag verified, over bytes the client can no
 * longer change. */
static int32_t aead_decrypt(struct ring *r, const struct ring_tfm *t, const struct ualg_sqe *q, uint8_t *iv)
{
	const size_t cryptlen = q->len - q->assoclen, authsize = t->tfm->authsize;

	if (cryptlen < authsize)
		return -EINVAL;
	if (!range_ok(r, q->dst, cryptlen - authsize))
		return -EFAULT;
	uint8_t *copy = scratch(r, q->len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, r->buf + q->src, q->len);
	const struct ualg_aead_req req = { .aad = copy, .assoclen = q->assoclen,
					   .text = copy + q->assoclen, .cryptlen = cryptlen, .iv = iv };
	int err = ualg_aead_decrypt(t->tfm, &req);
	if (!err)
		memcpy(r->buf + q->dst, copy + q->assoclen, cryptlen - authsize);
	ualg_wipe(copy, q->len);
	return err ? err : (int32_t)(cryptlen - authsize);
}

/* The IV is read once, into algd's memory, as for ciphers. */
static int32_t run_aead(struct ring *r, const struct ring_tfm *t, const struct ualg_sqe *q)
{
	uint8_t iv[UALG_MAX_IVSIZE];

	if (t->type != UALG_ALG_AEAD || q->assoclen > q->len || q->len > INT32_MAX)
		return -EINVAL;
	if (!range_ok(r, q->src, q->len) || (t->ivsize && !range_ok(r, q->iv, t->ivsize)))
		return -EFAULT;
	if (t->ivsize)
		memcpy(iv, r->buf + q->iv, t->ivsize);
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
 * Consecutive hashes, or AEAD encryptions in place, on one transform whose
 * driver runs several requests at once (ipsecmb.c) go to it as one group:
 * the checks of run_hash and run_aead first, then one _many call. */

struct group {
	unsigned n;			/* requests handed to the driver */
	uint32_t slot[GROUP_MAX];	/* their positions in this batch */
	struct ualg_digest_req hash[GROUP_MAX];
	struct ualg_aead_req aead[GROUP_MAX];
	uint8_t digest[GROUP_MAX][UALG_MAX_DIGESTSIZE];
	uint8_t iv[GROUP_MAX][UALG_MAX_IVSIZE];
	uint64_t dst[GROUP_MAX];
	int res[GROUP_MAX];
};

static bool groupable(const struct ring *r, const struct ualg_sqe *q)
{
	if (q->flags || q->reserved || q->tfm >= UALG_RING_MAX_TFMS || !r->tfms[q->tfm].tfm)
		return false;
	const struct ring_tfm *t = &r->tfms[q->tfm];
	if (q->opcode == UALG_OP_HASH)
		return !q->assoclen && t->type == UALG_ALG_SHASH && ualg_hash_has_many(t->tfm);
	return q->opcode == UALG_OP_AEAD_ENCRYPT && t->type == UALG_ALG_AEAD &&
	       ualg_aead_has_encrypt_many(t->tfm) && q->dst == q->src + q->assoclen;
}

/* Adds q to g, or returns the error it completes with at once. */
static int32_t group_add(struct ring *r, struct group *g, const struct ualg_sqe *q, uint32_t slot)
{
	const struct ring_tfm *t = &r->tfms[q->tfm];
	const unsigned i = g->n;

	if (q->opcode == UALG_OP_HASH) {
		if (!range_ok(r, q->src, q->len) || !range_ok(r, q->dst, t->digestsize))
			return -EFAULT;
		g->hash[i] = (struct ualg_digest_req){ .data = r->buf + q->src, .len = q->len, .out = g->digest[i] };
	} else {
		if (q->assoclen > q->len || q->len > INT32_MAX)
			return -EINVAL;
		const size_t cryptlen = q->len - q->assoclen, authsize = t->tfm->authsize;
		if (!range_ok(r, q->src, q->len) || (t->ivsize && !range_ok(r, q->iv, t->ivsize)) ||
		    !range_ok(r, q->dst, cryptlen + authsize))
			return -EFAULT;
		if (t->ivsize)
			memcpy(g->iv[i], r->buf + q->iv, t->ivsize);
		g->aead[i] = (struct ualg_aead_req){ .aad = r->buf + q->src, .assoclen = q->assoclen,
						     .text = r->buf + q->dst, .cryptlen = cryptlen, .iv = g->iv[i] };
	}
	g->dst[i] = q->dst;
	g->slot[g->n++] = slot;
	return 0;
}

static void group_complete(struct ring *r, struct group *g, const struct ring_tfm *t, bool hash, int32_t *res)
{
	int err = hash ? ualg_hash_digest_many(t->tfm, g->n, g->hash, g->res)
		       : ualg_aead_encrypt_many(t->tfm, g->n, g->aead, g->res);

	for (unsigned i = 0; i < g->n; i++) {
		int e = err ? err : g->res[i];
		if (hash && !e)
			memcpy(r->buf + g->dst[i], g->digest[i], t->digestsize);
		res[g->slot[i]] = e ? e : hash ? (int32_t)t->digestsize
					       : (int32_t)(g->aead[i].cryptlen + t->tfm->authsize);
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
			  bytes + q->len > GROUP_BYTES))
			break;
		bytes += q->len;
		int32_t e = group_add(r, &g, q, k);
		if (e)
			res[k] = e;
	}
	if (g.n)
		group_complete(r, &g, &r->tfms[q0->tfm], q0->opcode == UALG_OP_HASH, res);
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

/* Serves what is queued, bounded by completion space.  Returns how many
 * requests were completed. */
static unsigned ring_service(struct ring *r)
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
		/* A mutex is no queue: let a waiting control request in
		 * before taking the lock again. */
		while (__atomic_load_n(&r->ctl_waiting, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	ualg_secure_set_budget(NULL);
	scratch_drop(r);
	r->sq_head += n;
	r->cq_tail += n;
	__atomic_store_n(&r->sh->sq_head, r->sq_head, __ATOMIC_RELEASE);
	__atomic_store_n(&r->sh->cq_tail, r->cq_tail, __ATOMIC_RELEASE);
	wake_client(r);
	return n;
}

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void ring_free(struct ring *r)
{
	munmap(r->map, r->map_size);
	close(r->memfd);
	close(r->sq_efd);
	close(r->cq_efd);
	pthread_mutex_destroy(&r->lock);
	scratch_drop(r);
	free(r);
}

/* Under cmd_lock throughout: a ring just added may already be queued for
 * removal, which rewrites its cmd_next. */
static void worker_commands(struct worker *w)
{
	pthread_mutex_lock(&w->cmd_lock);
	for (struct ring *r = w->adds; r; r = r->cmd_next) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = r };
		epoll_ctl(w->epfd, EPOLL_CTL_ADD, r->sq_efd, &ev);
		r->next = w->rings;
		w->rings = r;
	}
	for (struct ring *r = w->removes, *next; r; r = next) {
		next = r->cmd_next;
		for (struct ring **p = &w->rings; *p; p = &(*p)->next)
			if (*p == r) {
				*p = r->next;
				break;
			}
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, r->sq_efd, NULL);
		ring_free(r);
	}
	w->adds = w->removes = NULL;
	__atomic_store_n(&w->pending, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&w->cmd_lock);
}

/* Tells every ring's client to kick us, then checks once more that
 * nothing arrived meanwhile.  Returns true when it is safe to sleep. */
static bool worker_may_sleep(struct worker *w, bool sleeping)
{
	for (struct ring *r = w->rings; r; r = r->next) {
		if (sleeping)
			__atomic_fetch_or(&r->sh->algd_flags, UALG_RING_SQ_SLEEPING, __ATOMIC_SEQ_CST);
		else
			__atomic_fetch_and(&r->sh->algd_flags, ~UALG_RING_SQ_SLEEPING, __ATOMIC_SEQ_CST);
	}
	if (!sleeping)
		return false;
	for (struct ring *r = w->rings; r; r = r->next)
		if (!r->broken && !r->cq_full &&
		    __atomic_load_n(&r->sh->sq_tail, __ATOMIC_ACQUIRE) != r->sq_head)
			return false;
	return !__atomic_load_n(&w->pending, __ATOMIC_ACQUIRE);
}

static void worker_sleep(struct worker *w)
{
	struct epoll_event evs[64];

	bool full = false;
	for (struct ring *r = w->rings; r; r = r->next)
		full |= r->cq_full && !r->broken;
	if (!full)
		w->cq_full_wait_ms = CQ_FULL_WAIT_MIN_MS;
	if (worker_may_sleep(w, true)) {
		const uint64_t start = now_us();
		/* A full completion queue gets room when its client reaps,
		 * which kicks no one: look again after a while. */
		int n = epoll_wait(w->epfd, evs, 64, full ? w->cq_full_wait_ms : -1);
		if (full && w->cq_full_wait_ms < CQ_FULL_WAIT_MAX_MS)
			w->cq_full_wait_ms *= 2;
		for (int i = 0; i < n; i++) {
			uint64_t v;
			int fd = evs[i].data.ptr ? ((struct ring *)evs[i].data.ptr)->sq_efd : w->cmd_efd;
			(void)!read(fd, &v, sizeof(v));
		}
		/* Woken soon after giving up: polling longer would have
		 * caught it.  Woken late: poll less next time. */
		const uint64_t slept = now_us() - start;
		if (slept < poll_us_max)
			w->poll_us = w->poll_us * 2 < poll_us_max ? w->poll_us * 2 : poll_us_max;
		else if (w->poll_us / 2 >= POLL_US_MIN)
			w->poll_us /= 2;
	}
	worker_may_sleep(w, false);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t last_work = now_us();

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&w->pending, __ATOMIC_ACQUIRE))
			worker_commands(w);
		unsigned done = 0;
		for (struct ring *r = w->rings; r; r = r->next)
			done += ring_service(r);
		if (done) {
			last_work = now_us();
		} else if (now_us() - last_work >= w->poll_us) {
			worker_sleep(w);
			last_work = now_us();
		} else if (now_us() - last_work > POLL_US_MIN) {
			/* A client spinning on this core must get to run,
			 * or polling would only delay it. */
			sched_yield();
		} else {
			cpu_relax();
		}
	}
	worker_commands(w);
	return NULL;
}

static void worker_command(struct worker *w, struct ring *r, bool add)
{
	pthread_mutex_lock(&w->cmd_lock);
	struct ring **list = add ? &w->adds : &w->removes;
	r->cmd_next = *list;
	*list = r;
	__atomic_store_n(&w->pending, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&w->cmd_lock);
	uint64_t one = 1;
	(void)!write(w->cmd_efd, &one, sizeof(one));
}

/* Lets the workers go at exit, so that every ring is freed (and leak
 * checkers stay quiet). */
static void workers_stop(void)
{
	for (unsigned i = 0; i < n_workers; i++) {
		struct worker *w = &workers[i];
		__atomic_store_n(&w->stop, true, __ATOMIC_RELEASE);
		uint64_t one = 1;
		(void)!write(w->cmd_efd, &one, sizeof(one));
		pthread_join(w->thread, NULL);
		close(w->epfd);
		close(w->cmd_efd);
	}
	free(workers);
}

static int workers_start(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = n_workers_wanted ? n_workers_wanted : cpus > 0 ? (unsigned)cpus : 1;

	workers = calloc(n, sizeof(*workers));
	if (!workers)
		return -ENOMEM;
	for (; n_workers < n; n_workers++) {
		struct worker *w = &workers[n_workers];
		w->poll_us = poll_us_max;
		w->cq_full_wait_ms = CQ_FULL_WAIT_MIN_MS;
		w->epfd = epoll_create1(EPOLL_CLOEXEC);
		w->cmd_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
		if (w->epfd < 0 || w->cmd_efd < 0 || epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->cmd_efd, &ev) ||
		    pthread_mutex_init(&w->cmd_lock, NULL) ||
		    pthread_create(&w->thread, NULL, worker_main, w)) {
			if (w->epfd >= 0)
				close(w->epfd);
			if (w->cmd_efd >= 0)
				close(w->cmd_efd);
			break;
		}
	}
	atexit(workers_stop);
	return n_workers ? 0 : -EAGAIN;
}

/* ---- control requests (event-loop thread) --------------------------- */

/* The ring's lock for the event loop: the worker, which holds it for one
 * request or group at a time, steps aside between two. */
static void ctl_lock(struct ring *r)
{
	__atomic_fetch_add(&r->ctl_waiting, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_lock(&r->lock);
}

static void ctl_unlock(struct ring *r)
{
	pthread_mutex_unlock(&r->lock);
	__atomic_fetch_sub(&r->ctl_waiting, 1, __ATOMIC_ACQ_REL);
}

static int reply(int fd, uint16_t type, int32_t result, const void *data, size_t len, int pass_fd)
{
	struct iovec part = { (void *)data, len };
	return ualg_frame_send(fd, type, UALG_HDR_REPLY, result, &part, len ? 1 : 0, pass_fd);
}

static size_t page_round(size_t n)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (n + page - 1) / page * page;
}

/* The memfd is sealed at its size before the client gets it: a client
 * that could shrink it would make algd's accesses fault. */
static int ring_map(struct ring *r, struct ualg_ring_setup_reply *rep)
{
	rep->entries = r->entries;
	rep->sq_off = page_round(sizeof(struct ualg_ring_shared));
	rep->cq_off = rep->sq_off + page_round(r->entries * sizeof(struct ualg_sqe));
	rep->buf_off = rep->cq_off + page_round(r->entries * sizeof(struct ualg_cqe));
	rep->bufsize = r->bufsize;
	rep->map_size = rep->buf_off + page_round(r->bufsize);
	r->map_size = rep->map_size;

	void *m;
	r->memfd = ualg_memfd_create("ualg-ring", r->map_size, &m);
	if (r->memfd < 0)
		return r->memfd;
	r->map = m;
	r->sh = m;
	r->sq = (struct ualg_sqe *)(r->map + rep->sq_off);
	r->cq = (struct ualg_cqe *)(r->map + rep->cq_off);
	r->buf = r->map + rep->buf_off;
	return 0;
}

static struct ring *ring_new(const struct ualg_ring_setup *s, struct ualg_ring_setup_reply *rep, int *err)
{
	struct ring *r = calloc(1, sizeof(*r));

	if (!r) {
		*err = -ENOMEM;
		return NULL;
	}
	r->memfd = r->sq_efd = r->cq_efd = -1;
	r->entries = s->entries;
	r->bufsize = s->bufsize;
	pthread_mutex_init(&r->lock, NULL);
	*err = ring_map(r, rep);
	if (!*err) {
		r->sq_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		r->cq_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (r->sq_efd < 0 || r->cq_efd < 0)
			*err = -errno;
	}
	if (*err) {
		if (r->map)
			munmap(r->map, r->map_size);
		if (r->memfd >= 0)
			close(r->memfd);
		if (r->sq_efd >= 0)
			close(r->sq_efd);
		if (r->cq_efd >= 0)
			close(r->cq_efd);
		pthread_mutex_destroy(&r->lock);
		free(r);
		return NULL;
	}
	return r;
}

/* Three replies, each passing one fd: the memfd (with the layout), then
 * the submission and the completion eventfd. */
static int on_setup(struct ring **ringp, int fd, struct account *acct, const uint8_t *body,
		    size_t len)
{
	struct ualg_ring_setup s;
	struct ualg_ring_setup_reply rep = { 0 };
	int err = 0;

	if (len != sizeof(s))
		return -1;
	memcpy(&s, body, sizeof(s));
	if (s.reserved)
		return -1;
	if (*ringp)
		return reply(fd, UALG_MSG_RING_SETUP, -EBUSY, NULL, 0, -1) ? -1 : 0;
	if (s.entries == 0 || s.entries > UALG_RING_MAX_ENTRIES || (s.entries & (s.entries - 1)) ||
	    s.bufsize == 0 || s.bufsize > UALG_RING_MAX_BUF)
		return reply(fd, UALG_MSG_RING_SETUP, -EINVAL, NULL, 0, -1) ? -1 : 0;
	if (!workers && (err = workers_start()))
		return reply(fd, UALG_MSG_RING_SETUP, err, NULL, 0, -1) ? -1 : 0;
	/* Its memfd and two eventfds stay open in algd, and its memory is
	 * the uid's (as io_uring's rings count against the caller's
	 * RLIMIT_MEMLOCK). */
	if ((err = account_fds(acct, 3)))
		return reply(fd, UALG_MSG_RING_SETUP, err, NULL, 0, -1) ? -1 : 0;
	struct ring *r = ring_new(&s, &rep, &err);
	if (r && !ualg_budget_charge(&acct->mem, r->map_size)) {
		err = -ENOMEM;
		ring_free(r);
		r = NULL;
	}
	if (!r) {
		account_fds_put(acct, 3);
		return reply(fd, UALG_MSG_RING_SETUP, err, NULL, 0, -1) ? -1 : 0;
	}
	r->acct = acct;
	r->worker = &workers[next_worker++ % n_workers];
	*ringp = r;
	worker_command(r->worker, r, true);
	if (reply(fd, UALG_MSG_RING_SETUP, 0, &rep, sizeof(rep), r->memfd) ||
	    reply(fd, UALG_MSG_RING_SETUP, 0, NULL, 0, r->sq_efd) ||
	    reply(fd, UALG_MSG_RING_SETUP, 0, NULL, 0, r->cq_efd))
		return -1;
	return 0;
}

static int alg_type_of(const char *name, enum ualg_alg_type *type)
{
	if (!strcmp(name, "hash"))
		*type = UALG_ALG_SHASH;
	else if (!strcmp(name, "skcipher"))
		*type = UALG_ALG_SKCIPHER;
	else if (!strcmp(name, "aead"))
		*type = UALG_ALG_AEAD;
	else
		return -ENOENT;
	return 0;
}

static int open_tfm(struct ring *r, const struct key_caller *who, const char *typename,
		    const char *name, struct ualg_ring_tfm_info *info)
{
	enum ualg_alg_type type;
	int err = alg_type_of(typename, &type);

	if (err)
		return err;
	unsigned id = 0;
	while (id < UALG_RING_MAX_TFMS && r->tfms[id].tfm)
		id++;
	if (id == UALG_RING_MAX_TFMS || account_sockets_full(r->acct))
		return -EMFILE;
	struct ualg_alg *alg = ualg_alg_lookup(type, name, &err);
	if (!alg)
		return -err;
	if (policy_has_alg_rules() &&
	    !policy_alg_allowed(alg, who->uid, who->gid, who->groups, who->ngroups)) {
		ualg_alg_put(alg);
		return -EACCES;
	}
	struct ualg_tfm *tfm = ualg_tfm_new(alg, &err);
	ualg_alg_put(alg);
	if (!tfm)
		return -err;
	struct ring_tfm t = { .tfm = tfm, .type = type };
	info->blocksize = alg->blocksize;
	if (type == UALG_ALG_SHASH) {
		t.digestsize = info->digestsize = alg->u.shash.digestsize;
	} else if (type == UALG_ALG_AEAD) {
		t.ivsize = info->ivsize = alg->u.aead.ivsize;
		info->digestsize = tfm->authsize;
	} else {
		t.ivsize = info->ivsize = alg->u.skcipher.ivsize;
		info->chunksize = alg->u.skcipher.chunksize;
	}
	ctl_lock(r);
	r->tfms[id] = t;
	ctl_unlock(r);
	r->acct->sockets++;
	return (int)id;
}

static int on_open(struct ring *r, int fd, const struct key_caller *who, const uint8_t *body,
		   size_t len)
{
	struct ualg_ring_open o;
	struct ualg_ring_tfm_info info = { 0 };

	if (len < sizeof(o))
		return -1;
	memcpy(&o, body, sizeof(o));
	const char *name = (const char *)body + sizeof(o);
	if (o.reserved || o.name_len == 0 || o.name_len > UALG_BIND_NAME_MAX ||
	    len != sizeof(o) + o.name_len || !memchr(o.type, 0, sizeof(o.type)) ||
	    strnlen(name, o.name_len) != o.name_len - 1)
		return -1;
	int id = r ? open_tfm(r, who, (const char *)o.type, name, &info) : -ENXIO;
	return reply(fd, UALG_MSG_RING_OPEN, id, &info, id >= 0 ? sizeof(info) : 0, -1) ? -1 : 0;
}

/* A control request's transform id: 0 when it names an open transform. */
static int tfm_id_check(const struct ring *r, uint32_t id)
{
	if (!r)
		return -ENXIO;
	return id < UALG_RING_MAX_TFMS && r->tfms[id].tfm ? 0 : -EBADF;
}

static int on_setkey(struct ring *r, int fd, const uint8_t *body, size_t len)
{
	struct ualg_ring_setkey k;
	int err;

	if (len < sizeof(k))
		return -1;
	memcpy(&k, body, sizeof(k));
	if (k.keylen > UALG_MAX_KEYSIZE || len != sizeof(k) + k.keylen)
		return -1;
	err = tfm_id_check(r, k.tfm);
	if (!err && !ualg_tfm_has_setkey(r->tfms[k.tfm].tfm))
		err = -ENOPROTOOPT;
	if (!err) {
		ctl_lock(r);
		err = ualg_tfm_setkey(r->tfms[k.tfm].tfm, body + sizeof(k), k.keylen);
		ctl_unlock(r);
	}
	return reply(fd, UALG_MSG_RING_SETKEY, err, NULL, 0, -1) ? -1 : 0;
}

/* As on_setkey with a named key's bytes; the caller is the client that
 * opened the connection tree, as for UALG_SET_KEY_BY_NAME. */
static int on_setkey_named(struct ring *r, int fd, const struct key_caller *who,
			   const uint8_t *body, size_t len)
{
	struct ualg_ring_setkey_named k;

	if (len < sizeof(k))
		return -1;
	memcpy(&k, body, sizeof(k));
	if (k.name_len > UALG_KEY_NAME_MAX || len != sizeof(k) + k.name_len)
		return -1;
	int err = tfm_id_check(r, k.tfm);
	struct key *key = NULL;
	if (!err)
		key = keystore_find((const char *)body + sizeof(k), k.name_len, who, &err);
	if (key && !ualg_tfm_has_setkey(r->tfms[k.tfm].tfm))
		err = -ENOPROTOOPT;
	else if (key) {
		ctl_lock(r);
		err = keystore_setkey(r->tfms[k.tfm].tfm, key);
		ctl_unlock(r);
	}
	return reply(fd, UALG_MSG_RING_SETKEY_NAMED, err, NULL, 0, -1) ? -1 : 0;
}

static void close_tfm(struct ring *r, unsigned id)
{
	ctl_lock(r);
	struct ualg_tfm *tfm = r->tfms[id].tfm;
	ualg_hash_exit(&r->tfms[id].desc);
	memset(&r->tfms[id], 0, sizeof(r->tfms[id]));
	ctl_unlock(r);
	ualg_tfm_free(tfm);
	r->acct->sockets--;
}

static int on_close(struct ring *r, int fd, const uint8_t *body, size_t len)
{
	struct ualg_ring_close c;
	if (len != sizeof(c))
		return -1;
	memcpy(&c, body, sizeof(c));
	int err = tfm_id_check(r, c.tfm);
	if (!err)
		close_tfm(r, c.tfm);
	return reply(fd, UALG_MSG_RING_CLOSE, err, NULL, 0, -1) ? -1 : 0;
}

static int on_setauthsize(struct ring *r, int fd, const uint8_t *body, size_t len)
{
	struct ualg_ring_setauthsize a;
	int err;

	if (len != sizeof(a))
		return -1;
	memcpy(&a, body, sizeof(a));
	err = tfm_id_check(r, a.tfm);
	if (!err && r->tfms[a.tfm].type != UALG_ALG_AEAD)
		err = -ENOPROTOOPT;
	if (!err) {
		ctl_lock(r);
		err = ualg_aead_setauthsize(r->tfms[a.tfm].tfm, a.authsize);
		ctl_unlock(r);
	}
	return reply(fd, UALG_MSG_RING_SETAUTHSIZE, err, NULL, 0, -1) ? -1 : 0;
}

int ring_request(struct ring **ringp, int fd, const struct key_caller *who, struct account *acct,
		 uint16_t type, const uint8_t *body, size_t len)
{
	switch (type) {
	case UALG_MSG_RING_SETUP: return on_setup(ringp, fd, acct, body, len);
	case UALG_MSG_RING_OPEN: return on_open(*ringp, fd, who, body, len);
	case UALG_MSG_RING_SETKEY: return on_setkey(*ringp, fd, body, len);
	case UALG_MSG_RING_SETKEY_NAMED: return on_setkey_named(*ringp, fd, who, body, len);
	case UALG_MSG_RING_CLOSE: return on_close(*ringp, fd, body, len);
	case UALG_MSG_RING_SETAUTHSIZE: return on_setauthsize(*ringp, fd, body, len);
	default: return -1;
	}
}

void ring_release(struct ring *r)
{
	if (!r)
		return;
	ctl_lock(r);
	r->closed = true;
	ctl_unlock(r);
	for (unsigned id = 0; id < UALG_RING_MAX_TFMS; id++)
		if (r->tfms[id].tfm)
			close_tfm(r, id);
	/* The worker frees the memory and fds soon after this. */
	ualg_budget_uncharge(&r->acct->mem, r->map_size);
	account_fds_put(r->acct, 3);
	worker_command(r->worker, r, false);
}
