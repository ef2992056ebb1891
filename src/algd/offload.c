/* The offload worker: its queue of requests, the thread running them, and
 * their completion on the event loop (see offload.h). */
#include "offload.h"
#include "account.h"
#include "fast_serve.h"
#include "algd_afalg.h"
#include "kabi.h"
#include "log.h"
#include "ring.h"
#include "sandbox.h"
#include "wait.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* One request handed over: a fresh frame (charged bytes of its owner's
 * budget) or a parked request; then what the event loop must still do. */
struct job {
	struct conn *c;
	uint8_t *frame;
	size_t len, charged;
	struct parked *pk;
	struct alg_sock *tree;	/* the transform socket whose tree it uses (a reference), or NULL */
	bool ring_wait;		/* the frame is a ring control request (ring.h) */
	bool ring_close;	/* then the connection closes */
	enum settle outcome;
	struct job *next;
	struct job *in_prev, *in_next;	/* in inflight: the event loop's */
};

/* Jobs waiting for the worker, and jobs it finished, oldest first; both
 * under lock, as turns (the uids' accounts' offload_turn).  outstanding
 * (handed over, not yet completed) is the event loop's alone. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;
static struct job *todo, **todo_tail = &todo;
static struct job *done, **done_tail = &done;
static uint64_t turns;
static unsigned outstanding;
/* Also the event loop's alone: the jobs handed over and not completed, and
 * the transform connections paused until one of them completes. */
static struct job *inflight;
static struct conn **waiting;
static size_t nwaiting, waiting_cap;
static int efd = -1;
static bool stopped;	/* offload_drain() was called: nothing more is handed over */
static struct dispatcher *wd;	/* the worker's: its buffers see the keys */

static struct alg_sock *tree_of(const struct alg_sock *sk)
{
	return sk->connected ? sk->parent : (struct alg_sock *)sk;
}

bool offload_tree_busy(const struct conn *c)
{
	return c->sk && tree_of(c->sk)->host_busy;
}

/* An akcipher's or kpp's request whose operation has no small bound. */
static bool asym_wanted(const struct alg_sock *sk, const struct ualg_hdr *h, const uint8_t *frame,
			size_t len)
{
	struct ualg_sockopt o;

	switch (h->type) {
	case UALG_MSG_RECV:
	case UALG_MSG_RECV_SHM:
		return sk->connected;	/* the operation runs in the receive */
	case UALG_MSG_SETSOCKOPT:
		/* A key (DH: generated when empty) or DH parameters; never by a
		 * name, whose key store is the event loop's. */
		if (len < sizeof(*h) + sizeof(o))
			return false;
		memcpy(&o, frame + sizeof(*h), sizeof(o));
		if (o.level != KABI_SOL_ALG || o.keyref_err || o.flags)
			return false;
		if (sk->type == &afalg_type_akcipher)
			return o.optname == ALG_SET_KEY ||
			       afalg_akcipher_pubkey_opt((int)o.optname, o.optlen);
		return o.optname == ALG_SET_KEY || o.optname == ALG_SET_DH_PARAMETERS ||
		       o.optname == ALG_SET_ECDH_CURVE || o.optname == ALG_SET_ECDH_CURVE_KCAPI;
	default:
		return false;
	}
}

/* A data request: how many bytes its operation may run over (a receive's
 * whole buffer, a SEND_SHM's range; an inline SEND's data is a frame's at
 * most), or -1 for any other request or one that does not parse (refused
 * inline). */
static int64_t data_bytes(const struct ualg_hdr *h, const uint8_t *frame, size_t len)
{
	const uint8_t *body = frame + sizeof(*h);
	const size_t blen = len - sizeof(*h);
	struct ualg_recv rv;
	struct ualg_send sd;
	struct ualg_shm_ref ref;

	switch (h->type) {
	case UALG_MSG_SEND:
		return (int64_t)blen;
	case UALG_MSG_RECV:
	case UALG_MSG_RECV_SHM:
		if (blen < sizeof(rv))
			return -1;
		memcpy(&rv, body, sizeof(rv));
		return rv.total > rv.len ? rv.total : rv.len;
	case UALG_MSG_SEND_SHM:
		if (blen < sizeof(sd))
			return -1;
		memcpy(&sd, body, sizeof(sd));
		if (sd.ivlen > UALG_IV_MAX || blen != sizeof(sd) + sd.ivlen + sizeof(ref))
			return -1;
		memcpy(&ref, body + sizeof(sd) + sd.ivlen, sizeof(ref));
		return ref.len > INT64_MAX ? INT64_MAX : (int64_t)ref.len;
	default:
		return -1;
	}
}

bool offload_wanted(const struct conn *c, const uint8_t *frame, size_t len)
{
	const struct alg_sock *sk = c->sk;
	struct ualg_hdr h;

	if (!c->greeted || !sk || !sk->type || afalg_is_rfc(sk))
		return false;
	memcpy(&h, frame, sizeof(h));
	if (h.flags || h.result)
		return false;	/* malformed: refused inline */
	if (sk->type == &afalg_type_akcipher || sk->type == &afalg_type_kpp)
		return asym_wanted(sk, &h, frame, len);
	/* A ring's requests are its own (ring.h). */
	const int64_t bytes = sk->connected && !c->ring ? data_bytes(&h, frame, len) : -1;
	if (bytes < 0)
		return false;
	/* A hash's receive only finalises. */
	const bool recv = h.type == UALG_MSG_RECV || h.type == UALG_MSG_RECV_SHM;
	return tree_of(sk)->host_busy ||
	       (bytes > OFFLOAD_QUANTUM_BYTES && !(recv && sk->type == &afalg_type_hash));
}

static void job_free(struct job *j)
{
	if (j->tree) {
		j->tree->host_busy--;
		afalg_sock_put(j->tree);
	}
	if (j->frame) {
		ualg_wipe(j->frame, j->len);
		free(j->frame);
		ualg_budget_uncharge(&j->c->cl->acct->mem, j->charged);
	}
	free(j);
}

/* On the worker: the request, served as dispatch_readable() or
 * wait_retry() serves it, but for what only the event loop may do. */
static void run(struct job *j)
{
	struct conn *c = j->c;

	if (j->ring_wait) {
		ring_ctl_wait(c->ring);
		return;
	}
	if (j->pk) {
		/* wait_rerun() parks it again or frees it. */
		j->outcome = wait_rerun(wd, c, j->pk) ? SETTLE_CLOSE : SETTLE_DONE;
		j->pk = NULL;
		return;
	}
	struct request req = { 0 };
	memcpy(wd->rxbuf, j->frame, j->len);	/* where wait_park() looks */
	int r = dispatch(wd, c, wd->rxbuf, j->len, &req);
	j->outcome = dispatch_settle(wd, c, j->len, &req, r);
	ualg_wipe(wd->rxbuf, j->len);
}

/* Under lock, todo not empty: the oldest job of the uid served longest
 * ago.  The uids with jobs waiting take turns, however many connections
 * each keeps busy: one uid's long operations delay another's by one of
 * them, not by all it has queued.  The queue holds at most one job per
 * connection (its connection is paused meanwhile). */
static struct job *take(void)
{
	struct job **pick = &todo;
	for (struct job **p = &todo->next; *p; p = &(*p)->next)
		if ((*p)->c->cl->acct->offload_turn < (*pick)->c->cl->acct->offload_turn)
			pick = p;
	struct job *j = *pick;
	*pick = j->next;
	if (todo_tail == &j->next)
		todo_tail = pick;
	j->c->cl->acct->offload_turn = ++turns;
	return j;
}

static void *worker_main(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&lock);
		while (!todo)
			pthread_cond_wait(&queued, &lock);
		struct job *j = take();
		pthread_mutex_unlock(&lock);

		run(j);

		pthread_mutex_lock(&lock);
		j->next = NULL;
		*done_tail = j;
		done_tail = &j->next;
		pthread_mutex_unlock(&lock);
		uint64_t one = 1;
		if (write(efd, &one, sizeof(one)) != (ssize_t)sizeof(one))
			algd_log(LOG_ERR, "offload: eventfd write failed");
	}
	return NULL;
}

int offload_start(const struct dispatcher *proto)
{
	const size_t page = 4096, size = (sizeof(*wd) + page - 1) / page * page;
	pthread_t t;

	if (!(wd = aligned_alloc(page, size)))
		return -1;
	memset(wd, 0, size);
	wd->wmem_max = proto->wmem_max;
	wd->owner_uid = proto->owner_uid;
	wd->dispose_fd = proto->dispose_fd;
	wd->worker = true;
	sandbox_protect(wd, size);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0 || pthread_create(&t, NULL, worker_main, NULL))
		return -1;
	pthread_detach(t);
	return efd;
}

void offload_set_owner(uid_t uid)
{
	wd->owner_uid = uid;
}

static void enqueue(struct job *j)
{
	pthread_mutex_lock(&lock);
	j->next = NULL;
	*todo_tail = j;
	todo_tail = &j->next;
	pthread_cond_signal(&queued);
	pthread_mutex_unlock(&lock);
}

/* The job's connection waits, off the event loop, until the job is done. */
static void start(struct job *j)
{
	conn_pause(j->c);
	outstanding++;
	j->in_next = inflight;
	if (inflight)
		inflight->in_prev = j;
	inflight = j;
	enqueue(j);
}

static int submit(struct conn *c, const uint8_t *frame, size_t len, struct parked *pk, bool ring_wait)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j) {
		parked_free(pk);
		return -1;
	}
	j->c = c;
	j->pk = pk;
	j->ring_wait = ring_wait;
	if (!pk) {
		const uint16_t type = ((const struct ualg_hdr *)frame)->type;
		if (!ualg_budget_charge(&c->cl->acct->mem, len)) {
			free(j);
			return conn_reply(c, type, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
		}
		j->charged = len;
		j->len = len;
		if (!(j->frame = malloc(len))) {
			ualg_budget_uncharge(&c->cl->acct->mem, len);
			free(j);
			return -1;
		}
		memcpy(j->frame, frame, len);
	}
	if (!ring_wait && c->sk) {
		/* Its transform is the worker's until the job is done. */
		j->tree = tree_of(c->sk);
		j->tree->ref++;
		j->tree->host_busy++;
	}
	start(j);
	return 0;
}

int offload_submit(struct conn *c, const uint8_t *frame, size_t len, struct parked *pk)
{
	return submit(c, frame, len, pk, false);
}

int offload_ring_wait(struct conn *c, const uint8_t *frame, size_t len)
{
	return submit(c, frame, len, NULL, true);
}

bool offload_close_deferred(struct conn *c)
{
	if (efd < 0 || stopped || ring_ctl_held(c->ring) || ring_ctl_begin(c->ring, false))
		return false;	/* ring_release() lets go of the lock */
	struct job *j = calloc(1, sizeof(*j));
	if (!j)
		return false;	/* it waits on the event loop */
	j->c = c;
	j->ring_wait = j->ring_close = true;
	start(j);
	return true;
}

/* A ring control request whose worker stepped aside: run on the event
 * loop now, as dispatch_readable() runs it.  false: the worker had the
 * lock again; the job waits once more. */
static bool ring_redo(struct dispatcher *d, struct job *j)
{
	struct request req = { .ring_waited = true };

	memcpy(d->rxbuf, j->frame, j->len);
	int r = dispatch(d, j->c, d->rxbuf, j->len, &req);
	if (r != DISPATCH_RING_BUSY)
		j->outcome = dispatch_settle(d, j->c, j->len, &req, r);
	ualg_wipe(d->rxbuf, j->len);
	return r != DISPATCH_RING_BUSY;
}

void offload_complete(struct dispatcher *d)
{
	uint64_t n;

	(void)!read(efd, &n, sizeof(n));
	pthread_mutex_lock(&lock);
	struct job *list = done;
	done = NULL;
	done_tail = &done;
	pthread_mutex_unlock(&lock);
	while (list) {
		struct job *j = list;
		struct conn *c = j->c;
		list = j->next;
		if (j->ring_close && !ring_ctl_begin(c->ring, true)) {
			enqueue(j);
			continue;
		}
		if (j->ring_close)
			j->outcome = SETTLE_CLOSE;
		else if (j->ring_wait && !ring_redo(d, j)) {
			enqueue(j);
			continue;
		}
		outstanding--;
		if (j->in_prev)
			j->in_prev->in_next = j->in_next;
		else
			inflight = j->in_next;
		if (j->in_next)
			j->in_next->in_prev = j->in_prev;
		const enum settle outcome = j->outcome;
		job_free(j);
		if (outcome == SETTLE_CLOSE) {
			c->busy = false;
			conn_close(c);
			continue;
		}
		conn_resume(c);
		struct conn *chans = c->chan_next;
		if (outcome == SETTLE_RETRY && !c->closed && !c->busy && c->parked)
			wait_retry(d, c);	/* may hand it over again */
		wait_wake_channels(d, chans, c);
		/* A request its page got meanwhile (fast_serve.c left it there). */
		if (c->fast && !c->closed && !c->busy && fast_serve_request(d, c) < 0)
			conn_close(c);
	}
	/* They look again at their children. */
	while (nwaiting)
		conn_resume(waiting[--nwaiting]);
}

/* The client closes an op socket before its next request on the transform
 * socket, so the hang-up is there to see (conn_reap_closed_children()). */
bool offload_defer(struct conn *c)
{
	if (!c->sk || c->sk->connected || !c->sk->children)
		return false;
	for (const struct job *j = inflight; j; j = j->in_next) {
		const struct conn *o = j->c;
		char b;
		if (!o->sk || o->sk->parent != c->sk ||
		    recv(o->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) != 0)
			continue;
		if (nwaiting == waiting_cap) {
			size_t cap = waiting_cap ? 2 * waiting_cap : 16;
			struct conn **w = realloc(waiting, cap * sizeof(*w));
			if (!w)
				return false;
			waiting = w;
			waiting_cap = cap;
		}
		waiting[nwaiting++] = c;
		conn_pause(c);
		return true;
	}
	return false;
}

void offload_drain(struct dispatcher *d)
{
	while (outstanding) {
		struct pollfd p = { .fd = efd, .events = POLLIN };
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return;
		offload_complete(d);
	}
	stopped = true;
}
