/* The shared request page of an op socket (see fast_serve.h). */
#include "fast_serve.h"
#include "offload.h"
#include "log.h"
#include "msg.h"
#include "payload.h"
#include "wait.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FAST_HOT_MAX 64u

/* The pages watched while the loop spins; each has polling set. */
static struct conn *hot[FAST_HOT_MAX];
static unsigned nhot;

static void watch(struct conn *c)
{
	if (c->fast_hot || nhot == FAST_HOT_MAX)
		return;	/* a page not watched is kicked */
	c->fast_hot = true;
	hot[nhot++] = c;
	atomic_store(&c->fast->polling, 1);
}

/* After storing what the client waits for (rep_seq, closed): wakes it if
 * it sleeps on rep_seq. */
static void wake(struct ualg_fast *f)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_exchange(&f->waiting, 0))
		syscall(SYS_futex, &f->rep_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void unwatch_one(unsigned i)
{
	hot[i]->fast_hot = false;
	atomic_store(&hot[i]->fast->polling, 0);
	hot[i] = hot[--nhot];
}

int fast_serve_setup(struct conn *c, size_t len)
{
	void *map;

	if (ualg_decode_empty(len))
		return -1;
	/* No request of the page is ever parked: the type must say which
	 * would wait (fast_serve_decline()). */
	if (!afalg_knows_ready(c->sk) || afalg_mode_of(c->sk))
		return conn_reply(c, UALG_MSG_FAST_SETUP, 0, -EOPNOTSUPP, NULL, 0, -1) ? -1 : 0;
	if (c->fast)
		return conn_reply(c, UALG_MSG_FAST_SETUP, 0, -EBUSY, NULL, 0, -1) ? -1 : 0;
	int fd = payload_memfd(c, "ualg-fast", UALG_FAST_SIZE, &map);
	if (fd < 0)
		return conn_reply(c, UALG_MSG_FAST_SETUP, 0, fd, NULL, 0, -1) ? -1 : 0;
	/* One setup for both pages where the connection has no counter
	 * (proto.h): counting starts after this reply. */
	const bool counts = !c->notify;
	int r = conn_reply(c, UALG_MSG_FAST_SETUP, 0, counts ? UALG_FAST_COUNTS : 0, NULL, 0, fd);
	close(fd);
	c->fast = map;
	c->fast_seen = 0;
	if (counts)
		c->notify = &c->fast->replies;
	return r ? -1 : 0;
}

void fast_serve_drop(struct conn *c)
{
	if (!c->fast)
		return;
	for (unsigned i = 0; i < nhot; i++)
		if (hot[i] == c)
			unwatch_one(i);
	/* A client still waiting for a reply learns it will not come. */
	atomic_store(&c->fast->closed, 1);
	wake(c->fast);
	if (c->notify && !c->notify_own)
		c->notify = NULL;	/* it was the page's */
	munmap(c->fast, UALG_FAST_SIZE);
	ualg_budget_uncharge(&c->cl->acct->mem, UALG_FAST_SIZE);
	c->fast = NULL;
}

int fast_serve_kick(struct conn *c, size_t len)
{
	if (ualg_decode_empty(len) || !c->fast)
		return -1;
	c->fast_kicked = true;
	return 0;
}

/* No worker holds c (a request of c on the offload worker: the page's
 * waits, and is served when c comes back, offload_complete()).  A request
 * parked on c does not stop the page, as it does not stop the socket's
 * frames: the page's request may be what it waits for. */
static bool servable(const struct conn *c)
{
	return c->fast && !c->closed && !c->busy;
}

int fast_serve_request(struct dispatcher *d, struct conn *c)
{
	struct ualg_fast *f = c->fast;

	c->fast_kicked = false;
	if (!servable(c))
		return 0;
	const uint32_t seq = atomic_load_explicit(&f->req_seq, memory_order_acquire);
	if (seq == c->fast_seen)
		return 0;
	c->fast_seen = seq;
	/* One copy, read once: the client may be rewriting the page. */
	memcpy(d->fastbuf, f->req, sizeof(d->fastbuf));
	struct ualg_hdr h;
	memcpy(&h, d->fastbuf, sizeof(h));
	if (h.len > sizeof(d->fastbuf) || !ualg_frame_hdr_ok(&h, h.len) ||
	    (h.type != UALG_MSG_SEND && h.type != UALG_MSG_RECV)) {
		log_verbose(1, "connection %d: bad request on its shared page, closing", c->fd);
		return -1;
	}
	struct request req = { 0 };
	c->fast_serving = true;
	c->fast_answered = false;
	/* The worker has the transform: the client sends it on the socket,
	 * where it joins the worker's queue (offload_wanted()). */
	int r = offload_tree_busy(c) ? fast_serve_decline(c, h.type) : dispatch(d, c, d->fastbuf, h.len, &req);
	c->fast_serving = false;
	ualg_wipe(d->fastbuf, h.len);
	/* Neither waits (declined before) nor goes unanswered (no
	 * UALG_SEND_QUIET). */
	if (r || !c->fast_answered) {
		log_verbose(1, "connection %d: request on its shared page not answered there, closing", c->fd);
		return -1;
	}
	struct conn *chans = c->chan_next;
	if (c->parked)
		wait_retry(d, c);	/* as after a frame (dispatch_settle()) */
	wait_wake_channels(d, chans, c);
	if (c->fast)
		watch(c);	/* not when the retry ended c */
	return 1;
}

int fast_serve_decline(struct conn *c, uint16_t type)
{
	return conn_reply(c, type, UALG_HDR_SOCKET, 0, NULL, 0, -1) ? -1 : 0;
}

int fast_serve_reply(struct conn *c, uint16_t type, uint16_t flags, int32_t result, const void *data,
		     size_t len, int fd)
{
	struct ualg_fast *f = c->fast;
	struct ualg_hdr h = { .len = (uint32_t)(sizeof(h) + len), .type = type,
			      .flags = UALG_HDR_REPLY | flags, .result = result };

	if (fd >= 0 || c->fast_answered || len > sizeof(f->rep) - sizeof(h))
		return -EPROTO;
	memcpy(f->rep, &h, sizeof(h));
	if (len)
		memcpy(f->rep + sizeof(h), data, len);
	c->fast_answered = true;
	atomic_store_explicit(&f->rep_seq, c->fast_seen, memory_order_release);
	wake(f);
	return 0;
}

unsigned fast_serve_poll(struct dispatcher *d)
{
	unsigned served = 0;

	for (unsigned i = 0; i < nhot; i++) {
		struct conn *c = hot[i];
		if (atomic_load_explicit(&c->fast->req_seq, memory_order_relaxed) == c->fast_seen)
			continue;
		const int r = fast_serve_request(d, c);
		if (r < 0)
			conn_close(c);	/* takes it off the list: look at slot i again */
		i -= !c->fast;
		served += r != 0;
	}
	return served;
}

bool fast_serve_unwatch(void)
{
	for (unsigned i = 0; i < nhot; i++)
		atomic_store(&hot[i]->fast->polling, 0);
	atomic_thread_fence(memory_order_seq_cst);
	bool pending = false;
	for (unsigned i = 0; i < nhot; i++)
		pending |= servable(hot[i]) && atomic_load(&hot[i]->fast->req_seq) != hot[i]->fast_seen;
	if (pending) {
		for (unsigned i = 0; i < nhot; i++)
			atomic_store(&hot[i]->fast->polling, 1);
		return true;
	}
	while (nhot)
		unwatch_one(nhot - 1);
	return false;
}
