/* One operation on a device (dpdk_impl.h).
 *
 * Requests run synchronously: a request's operation, or a batch's burst
 * of them (the native ring's, through crypt_many, encrypt_many,
 * decrypt_many and digest_many), is enqueued and the queue pair polled
 * until all are back.  Callers that come while the device is busy (algd's
 * event loop and its ring workers, serving different clients) queue their
 * jobs; the caller first in the queue once the device is free runs them
 * in order, those of several callers in one burst where they fit it, and
 * wakes each caller when its jobs are done (dpdk_run_jobs()).
 * A burst takes its operations and mbufs from the pools in one get each
 * and gives them back in one put (struct burst).
 * A device that reads the CPU's memory (a software device: not
 * RTE_CRYPTODEV_FF_HW_ACCELERATED) gets mbufs attached to the request's own buffers (external buffers:
 * nothing copied, nothing of the request left in DPDK's memory), but a
 * decryption's plaintext goes to one of DPDK's mbufs (out of place) and
 * is copied out only when its tag verified; a hardware device, whose DMA
 * needs DPDK's memory, gets the data copied into a chain of its mbufs and
 * the result copied out (a decryption's only when its tag verified), as
 * does a decryption a software device cannot run out of place; the mbufs
 * are wiped after.
 * The wait is bounded (DPDK_OP_TIMEOUT_MS): an operation not back by then
 * marks the device failed and its buffers are left to the device (a
 * software device works only inside the enqueue and dequeue calls, which
 * no one makes on a failed device, so the request's buffers are safe to
 * give back). */
#include "dpdk_impl.h"
#include "log.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_memory.h>
#include <rte_mempool.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* What a burst takes from the device's pools and gives back, in bulk
 * where it can: a get and a put per operation would cost small requests
 * a fifth of algd's time (the pools are rings: algd's threads, not
 * EAL's, have no per-lcore cache). */
struct burst {
	unsigned info;				/* d->ext_info records used */
	struct rte_mbuf *stash[DPDK_BURST_MAX];	/* d->ext_pool's, taken for the burst */
	unsigned nstash, taken;
	struct rte_mbuf *drop[2 * DPDK_BURST_MAX];	/* chains to free: a slot's m and mdst */
	unsigned ndrop;
	void *ops_back[DPDK_BURST_MAX];		/* operations to put back */
	unsigned nops_back;
};

static void chain_free(struct burst *b, struct rte_mbuf *m)
{
	if (m)
		b->drop[b->ndrop++] = m;
}

/* The job's input in a chain of mbufs; NULL when the pool is short. */
static struct rte_mbuf *chain_fill(struct dev *d, const struct job *j, size_t total)
{
	const unsigned nseg = total ? (unsigned)((total + SEG_DATA - 1) / SEG_DATA) : 1;
	struct rte_mbuf *segs[MAX_SEGS];

	if (nseg > MAX_SEGS || rte_pktmbuf_alloc_bulk(d->mbuf_pool, segs, nseg))
		return NULL;
	unsigned k = 0;
	size_t at = 0;
	for (unsigned s = 0; s < nseg; s++) {
		const size_t n = total - s * (size_t)SEG_DATA < SEG_DATA ? total - s * (size_t)SEG_DATA : SEG_DATA;
		uint8_t *p = (uint8_t *)rte_pktmbuf_append(segs[s], (uint16_t)n);
		for (size_t done = 0; done < n;) {
			const size_t left = j->in[k].len - at;
			const size_t c = left < n - done ? left : n - done;
			memcpy(p + done, j->in[k].p + at, c);
			done += c;
			at += c;
			if (at == j->in[k].len) {
				k++;
				at = 0;
			}
		}
		if (s && rte_pktmbuf_chain(segs[0], segs[s])) {
			for (unsigned t = s; t < nseg; t++)
				rte_pktmbuf_free(segs[t]);
			rte_pktmbuf_free(segs[0]);
			return NULL;
		}
	}
	return segs[0];
}

static void chain_copy_out(const struct rte_mbuf *m, size_t off, uint8_t *out, size_t len)
{
	for (; m && len; m = m->next) {
		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		const size_t c = m->data_len - off < len ? m->data_len - off : len;
		memcpy(out, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), c);
		out += c;
		len -= c;
		off = 0;
	}
}

static void ext_free_cb(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

/* The IOVA of memory outside DPDK's: its address when IOVAs are virtual
 * addresses; RTE_BAD_IOVA otherwise (a physical address of pages that
 * may move is none a device could use, and only devices that never DMA
 * get these buffers). */
static rte_iova_t ext_iova(const struct dev *d, const void *p)
{
	return d->iova_va ? (rte_iova_t)(uintptr_t)p : RTE_BAD_IOVA;
}

/* A chain of data-less mbufs attached to the len bytes at p, SEG_DATA
 * each (one from the burst's stash where it has one), whose
 * external-buffer records come from d->ext_info[b->info..]; NULL when the
 * pool is short. */
static struct rte_mbuf *ext_chain(struct dev *d, uint8_t *p, size_t len, struct burst *b)
{
	const unsigned nseg = (unsigned)((len + SEG_DATA - 1) / SEG_DATA);
	struct rte_mbuf *segs[MAX_SEGS];
	unsigned *info = &b->info;

	if (!nseg || nseg > MAX_SEGS || *info + nseg > MAX_SEGS + 1)
		return NULL;
	if (nseg == 1 && b->taken < b->nstash)
		segs[0] = b->stash[b->taken++];
	else if (rte_pktmbuf_alloc_bulk(d->ext_pool, segs, nseg))
		return NULL;
	for (unsigned s = 0; s < nseg; s++) {
		const size_t at = s * (size_t)SEG_DATA;
		const uint16_t n = (uint16_t)(len - at < SEG_DATA ? len - at : SEG_DATA);
		struct rte_mbuf_ext_shared_info *x = &d->ext_info[(*info)++];
		x->free_cb = ext_free_cb;
		x->fcb_opaque = NULL;
		rte_mbuf_ext_refcnt_set(x, 1);
		rte_pktmbuf_attach_extbuf(segs[s], p + at, ext_iova(d, p + at), n, x);
		segs[s]->data_len = n;
		segs[s]->pkt_len = n;
		if (s)
			rte_pktmbuf_chain(segs[0], segs[s]);	/* nseg is far below its limit */
	}
	return segs[0];
}

/* One of DPDK's mbufs holding len bytes (at most SEG_DATA): where a
 * decryption's output waits for its tag; NULL when the pool is short. */
static struct rte_mbuf *held_mbuf(struct dev *d, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->mbuf_pool);

	if (m && !rte_pktmbuf_append(m, (uint16_t)len)) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/* The job's mbufs over its own buffers, where d and the job allow it:
 * *src, and *dst when out of place (ext_chain()); false otherwise (or
 * pools short).  A job that
 * verifies a tag and has output (a decryption) runs out of place into one
 * of DPDK's mbufs (*held): the devices write the plaintext before they
 * check the tag, and it reaches the job's output only once the tag
 * verified. */
static bool ext_attach(struct dev *d, const struct job *j, size_t total, struct rte_mbuf **src,
		       struct rte_mbuf **dst, struct burst *b, bool *held)
{
	*src = *dst = NULL;
	*held = false;
	if (!d->direct || j->nin != 1 || !total)
		return false;
	uint8_t *in = (uint8_t *)(uintptr_t)j->in[0].p;	/* a hash's: read only */
	const bool hold = j->verify && j->out_len;
	const bool oop = hold || (j->out_len && j->out != in);
	if (j->out_len && (j->out_off || j->out_len != total))
		return false;
	if (oop ? !d->oop || total > SEG_DATA : total > SEG_DATA && !d->sgl)
		return false;
	if (!(*src = ext_chain(d, in, total, b)))
		return false;
	if (oop && !(*dst = hold ? held_mbuf(d, total) : ext_chain(d, j->out, total, b))) {
		rte_pktmbuf_free(*src);
		*src = NULL;
		return false;
	}
	*held = hold;
	return true;
}

static void chain_wipe(struct rte_mbuf *m)
{
	for (; m; m = m->next)
		ualg_wipe(rte_pktmbuf_mtod(m, void *), m->data_len);
}

/* One operation of a burst, with its part of the scratch area. */
struct slot {
	struct rte_crypto_op *op;
	struct rte_mbuf *m, *mdst;
	uint8_t *scratch;
	rte_iova_t scratch_iova;
	bool ext;	/* on the request's buffers */
	bool held;	/* its output in mdst, DPDK's, until it succeeded */
	int r;
};

static size_t job_total(const struct job *j)
{
	size_t total = 0;
	for (unsigned i = 0; i < j->nin; i++)
		total += j->in[i].len;
	return total;
}

/* The operation for j in s, op (or, NULL, one from the pool), with the
 * scratch area from at: 0, or -ENOMEM when the pools are short. */
static int slot_fill(struct dev *d, const struct job *j, struct slot *s, struct burst *b, size_t at,
		     struct rte_crypto_op *op)
{
	const size_t total = job_total(j);

	*s = (struct slot){ .r = -ENOMEM, .scratch = d->scratch + at, .scratch_iova = d->scratch_iova + at };
	if (!(s->op = op ? op : rte_crypto_op_alloc(d->op_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC)))
		return -ENOMEM;
	s->ext = ext_attach(d, j, total, &s->m, &s->mdst, b, &s->held);
	if (!s->ext && !(s->m = chain_fill(d, j, total)))
		return -ENOMEM;
	struct rte_crypto_sym_op *sym = s->op->sym;
	sym->m_src = s->m;
	sym->m_dst = s->mdst;
	if (j->ivlen)
		memcpy(rte_crypto_op_ctod_offset(s->op, uint8_t *, IV_OFF), j->iv, j->ivlen);
	/* The digest and AAD: the request's own on a device that reads the
	 * CPU's memory, else in the slot's scratch area; a tag to verify is
	 * always copied there. */
	const bool own_dig = s->ext && !j->verify;
	uint8_t *dig = own_dig ? j->digest : s->scratch;
	const rte_iova_t dig_iova = own_dig ? ext_iova(d, dig) : s->scratch_iova;
	uint8_t *aad = s->ext ? (uint8_t *)(uintptr_t)j->aad : s->scratch + 64;
	const rte_iova_t aad_iova = s->ext ? ext_iova(d, aad) : s->scratch_iova + 64;
	if (j->verify)
		memcpy(dig, j->digest, j->digestlen);
	switch (j->kind) {
	case JOB_CIPHER:
		sym->cipher.data.offset = j->data_off;
		sym->cipher.data.length = j->data_len;
		break;
	case JOB_AUTH:
		sym->auth.data.offset = j->data_off;
		sym->auth.data.length = j->data_len;
		sym->auth.digest.data = dig;
		sym->auth.digest.phys_addr = dig_iova;
		break;
	case JOB_AEAD:
		if (!s->ext && j->aadlen)
			memcpy(aad, j->aad, j->aadlen);
		sym->aead.data.offset = j->data_off;
		sym->aead.data.length = j->data_len;
		sym->aead.digest.data = dig;
		sym->aead.digest.phys_addr = dig_iova;
		sym->aead.aad.data = aad;
		sym->aead.aad.phys_addr = aad_iova;
		break;
	}
	rte_crypto_op_attach_sym_session(s->op, j->sess);
	s->r = -EIO;
	return 0;
}

/* The result of s's operation, back from the device as done: copied out
 * (from DPDK's memory), and the slot's buffers wiped and given to b to
 * free. */
static void slot_finish(const struct job *j, struct slot *s, const struct rte_crypto_op *done,
			struct burst *b)
{
	if (done) {
		switch (done->status) {
		case RTE_CRYPTO_OP_STATUS_SUCCESS:
			s->r = 0;
			break;
		case RTE_CRYPTO_OP_STATUS_AUTH_FAILED:
			s->r = -EBADMSG;
			break;
		default:
			s->r = -EINVAL;
			break;
		}
	}
	if (!s->r && j->out_len && (!s->ext || s->held))
		chain_copy_out(s->held ? s->mdst : s->m, j->out_off, j->out, j->out_len);
	if (!s->r && !j->verify && j->digestlen && !s->ext)
		memcpy(j->digest, s->scratch, j->digestlen);
	if (s->m && !s->ext)
		chain_wipe(s->m);
	if (s->held)
		chain_wipe(s->mdst);
	if ((!s->ext || j->verify) && j->kind != JOB_CIPHER)
		ualg_wipe(s->scratch, j->kind == JOB_AEAD && !s->ext ? 64 + j->aadlen : 64);
	chain_free(b, s->m);
	chain_free(b, s->mdst);
	if (s->op)
		b->ops_back[b->nops_back++] = s->op;
}

/* What the burst took and did not give the device goes back. */
static void burst_end(struct dev *d, struct burst *b)
{
	if (b->taken < b->nstash)
		rte_pktmbuf_free_bulk(b->stash + b->taken, b->nstash - b->taken);
	b->taken = b->nstash;
	if (b->ndrop)
		rte_pktmbuf_free_bulk(b->drop, b->ndrop);
	b->ndrop = 0;
	if (b->nops_back)
		rte_mempool_put_bulk(d->op_pool, b->ops_back, b->nops_back);
	b->nops_back = 0;
}

/* A caller's jobs in the device's queue. */
struct waiter {
	unsigned n;
	const struct job *j;
	int *res;
	int err;		/* the burst's own failure, for all of them */
	bool done;
	struct waiter *next;
};

/* Whether w's jobs may share a burst with other callers': each of them
 * fits a burst's slot. */
static bool shareable(const struct waiter *w)
{
	for (unsigned i = 0; i < w->n; i++)
		if (job_total(&w->j[i]) > SEG_DATA ||
		    (w->j[i].kind == JOB_AEAD && w->j[i].aadlen > BURST_AAD_MAX))
			return false;
	return true;
}

/* The queue's first waiter and those after it that fit one burst with
 * it, taken off the queue (under d->lock); how many jobs in all. */
static unsigned take_burst(struct dev *d, struct waiter **out, unsigned *nw)
{
	struct waiter *w = d->head;
	unsigned njobs = w->n, k = 1;

	out[0] = w;
	if (shareable(w))
		for (w = w->next; w && njobs + w->n <= DPDK_BURST_MAX && shareable(w); w = w->next) {
			out[k++] = w;
			njobs += w->n;
		}
	d->head = w == out[0] ? w->next : w;
	if (!d->head)
		d->tail = &d->head;
	*nw = k;
	return njobs;
}

/* Runs the jobs of the waiters w[0..nw) as one burst of njobs: 0, with
 * each job's result in its waiter's res, or -EIO when the device failed
 * (its buffers are left to it). */
static int run_burst(struct dev *d, struct waiter *const *w, unsigned nw, unsigned njobs)
{
	struct slot slots[DPDK_BURST_MAX];
	const struct job *jobs[DPDK_BURST_MAX];
	int *res[DPDK_BURST_MAX];
	struct rte_crypto_op *ops[DPDK_BURST_MAX], *done[DPDK_BURST_MAX], *fresh[DPDK_BURST_MAX];
	unsigned slot_of[DPDK_BURST_MAX];	/* ops[k] is slots[slot_of[k]]'s */
	struct burst b = { 0 };
	unsigned n = 0;

	for (unsigned k = 0; k < nw; k++)
		for (unsigned i = 0; i < w[k]->n; i++) {
			jobs[n] = &w[k]->j[i];
			res[n++] = &w[k]->res[i];
		}
	/* The operations, and a mbuf each over the requests' buffers, in
	 * one get from each pool (one by one where that fails). */
	const bool bulk = n > 1 && rte_crypto_op_bulk_alloc(d->op_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC, fresh, n) == n;
	if (n > 1 && d->direct && !rte_pktmbuf_alloc_bulk(d->ext_pool, b.stash, n))
		b.nstash = n;
	unsigned nops = 0;
	for (unsigned i = 0; i < n; i++)
		if (!slot_fill(d, jobs[i], &slots[i], &b, njobs > 1 ? i * (size_t)BURST_SCRATCH : 0,
			       bulk ? fresh[i] : NULL)) {
			slot_of[nops] = i;
			ops[nops++] = slots[i].op;
		}
	/* Every operation made is enqueued (as many per call as the queue
	 * pair takes) and polled for; they come back in any order. */
	/* The clock is read only once polls come back empty: per poll, it
	 * would cost small requests a fourteenth of algd's time. */
	uint64_t deadline = 0;
	unsigned queued = 0, back = 0, next = 0, empty = 0;
	while (back < nops) {
		if (queued < nops)
			queued += rte_cryptodev_enqueue_burst(d->id, 0, ops + queued, (uint16_t)(nops - queued));
		const uint16_t got = rte_cryptodev_dequeue_burst(d->id, 0, done, (uint16_t)(queued - back));
		for (uint16_t g = 0; g < got; g++) {
			/* They come back in the order they went, as a rule. */
			unsigned k = next < nops && ops[next] == done[g] ? next : 0;
			while (k < nops && ops[k] != done[g])
				k++;
			if (k == nops)
				continue;	/* not ours: cannot happen */
			next = k + 1;
			const unsigned i = slot_of[k];
			slot_finish(jobs[i], &slots[i], done[g], &b);
			slots[i].op = NULL;
			*res[i] = slots[i].r;
		}
		back += got;
		if (got || back == nops || ++empty % 64)
			continue;
		if (!deadline)
			deadline = now_ms() + DPDK_OP_TIMEOUT_MS;
		else if (now_ms() >= deadline) {
			/* The device may still write those not back: they
			 * stay its. */
			burst_end(d, &b);
			return -EIO;
		}
	}
	/* Those that never went: the pools were short. */
	for (unsigned i = 0; i < n; i++)
		if (slots[i].r == -ENOMEM) {
			slot_finish(jobs[i], &slots[i], NULL, &b);
			*res[i] = -ENOMEM;
		}
	burst_end(d, &b);
	return 0;
}

/* The caller whose jobs are first in the queue when the device is free
 * runs bursts until its own jobs are done, each burst taking the jobs of
 * the callers queued next that fit it; the device is then free for the
 * next caller still waiting.  Callers are served in the order they came. */
int dpdk_run_jobs(struct dev *d, unsigned n, const struct job *j, int *res)
{
	if (!n || n > DPDK_BURST_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		const bool aead = j[i].kind == JOB_AEAD;
		if (job_total(&j[i]) > d->max_op || (aead && j[i].aadlen > SCRATCH_SIZE - 64))
			return -EINVAL;
		/* In a burst each has its part of the scratch area; the
		 * ext_info records hold 2 mbufs each (dpdk_impl.h). */
		if (n > 1 && (job_total(&j[i]) > SEG_DATA || (aead && j[i].aadlen > BURST_AAD_MAX) ||
			      (aead && j[i].sess != j[0].sess)))
			return -EINVAL;
	}
	if (atomic_load(&d->failed))
		return -EIO;
	struct waiter me = { .n = n, .j = j, .res = res };
	pthread_mutex_lock(&d->lock);
	*d->tail = &me;
	d->tail = &me.next;
	while (d->busy && !me.done)
		pthread_cond_wait(&d->cond, &d->lock);
	if (!me.done) {
		d->busy = true;
		while (!me.done) {
			struct waiter *w[DPDK_BURST_MAX];
			unsigned nw;
			const unsigned njobs = take_burst(d, w, &nw);
			pthread_mutex_unlock(&d->lock);
			if (nw > 1 && !atomic_exchange(&d->shared_burst, true))
				log_verbose(1, "dpdk: device %s: a burst of %u operations from %u callers",
					    d->name, njobs, nw);
			const int err = atomic_load(&d->failed) ? -EIO : run_burst(d, w, nw, njobs);
			if (err == -EIO)
				dpdk_device_failed(d);
			pthread_mutex_lock(&d->lock);
			for (unsigned k = 0; k < nw; k++) {
				w[k]->err = err;
				w[k]->done = true;
			}
			pthread_cond_broadcast(&d->cond);
		}
		d->busy = false;
		pthread_cond_broadcast(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
	return me.err;
}

void dpdk_run_burst(struct dev *d, unsigned n, const struct job *j, const unsigned *idx, int *res)
{
	int r[DPDK_BURST_MAX];
	const int e = dpdk_run_jobs(d, n, j, r);
	for (unsigned t = 0; t < n; t++)
		res[idx[t]] = e ? e : r[t];
}

int dpdk_run_job(struct dev *d, const struct job *j)
{
	int r;
	const int e = dpdk_run_jobs(d, 1, j, &r);
	return e ? e : r;
}
