/* algd's connection table and each client uid's share of it (see
 * conn.h). */
#include "conn.h"
#include "fast_serve.h"
#include "offload.h"
#include "payload.h"
#include "proto.h"
#include "ring.h"
#include "wait.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

char conn_listener_tag, conn_signal_tag, conn_offload_tag;

static int epfd = -1;
static struct conn *conns;
static struct client *clients;
/* Connections closed while handling a batch of events: later events of
 * the same batch may still point at them (a child reaped by its parent's
 * request), so they are freed only once the batch is done. */
static struct conn *closed_conns;

void conn_table_init(int fd)
{
	epfd = fd;
}

struct conn *conn_list(void)
{
	return conns;
}

/* The uids with readable connections, the one whose turn it is first. */
static struct client *turn_head, *turn_tail;

static void turn_append(struct client *cl)
{
	cl->turn_next = NULL;
	if (turn_tail)
		turn_tail->turn_next = cl;
	else
		turn_head = cl;
	turn_tail = cl;
	cl->in_turn = true;
}

/* Its connections all went (client_put()): out of the turns. */
static void turn_remove(struct client *cl)
{
	struct client *prev = NULL;

	if (!cl->in_turn)
		return;
	for (struct client *t = turn_head; t != cl; t = t->turn_next)
		prev = t;
	if (prev)
		prev->turn_next = cl->turn_next;
	else
		turn_head = cl->turn_next;
	if (turn_tail == cl)
		turn_tail = prev;
	cl->in_turn = false;
}

struct client *client_get(uid_t uid)
{
	struct client *cl;

	for (cl = clients; cl; cl = cl->next)
		if (cl->uid == uid)
			break;
	if (!cl) {
		if (!(cl = calloc(1, sizeof(*cl))))
			return NULL;
		if (!(cl->acct = account_get(uid))) {
			free(cl);
			return NULL;
		}
		cl->uid = uid;
		cl->next = clients;
		clients = cl;
	}
	cl->sockets++;
	cl->acct->sockets++;
	return cl;
}

void client_put(struct client *cl)
{
	cl->acct->sockets--;
	if (--cl->sockets)
		return;
	/* Its last socket went: so do the instances it built that nothing
	 * uses any more (as crypto_mod_put() frees an unused module). */
	ualg_instances_reclaim(cl->uid);
	turn_remove(cl);
	for (struct client **p = &clients; *p; p = &(*p)->next)
		if (*p == cl) {
			*p = cl->next;
			break;
		}
	free(cl);
}

bool client_full(const struct client *cl)
{
	return account_sockets_full(cl->acct);
}

struct conn *conn_add(int fd, struct client *cl, struct alg_sock *sk, bool greeted)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };

	if (!c)
		return NULL;
	c->fd = fd;
	c->cl = cl;
	c->sk = sk;
	c->greeted = greeted;
	ev.data.ptr = c;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)) {
		free(c);
		return NULL;
	}
	c->next = conns;
	if (conns)
		conns->prev = c;
	conns = c;
	return c;
}

void conn_rest_drop(struct conn *c)
{
	if (c->rest)
		ualg_budget_uncharge(&c->cl->acct->mem, c->rest_len);
	ualg_wipe(c->rest, c->rest_len);
	free(c->rest);
	c->rest = NULL;
	c->rest_len = c->rest_off = 0;
}

void conn_ready(struct conn *c)
{
	struct client *cl = c->cl;

	if (c->ready || c->closed)
		return;
	c->ready = true;
	c->ready_next = NULL;
	c->ready_prev = cl->ready_tail;
	if (cl->ready_tail)
		cl->ready_tail->ready_next = c;
	else
		cl->ready_head = c;
	cl->ready_tail = c;
	if (!cl->in_turn)
		turn_append(cl);
}

static void ready_unlink(struct conn *c)
{
	struct client *cl = c->cl;

	if (c->ready_prev)
		c->ready_prev->ready_next = c->ready_next;
	else
		cl->ready_head = c->ready_next;
	if (c->ready_next)
		c->ready_next->ready_prev = c->ready_prev;
	else
		cl->ready_tail = c->ready_prev;
	c->ready = false;
}

/* A uid whose list emptied out of turn leaves the turns when it comes up. */
struct conn *conn_next_ready(void)
{
	while (turn_head) {
		struct client *cl = turn_head;
		if (!(turn_head = cl->turn_next))
			turn_tail = NULL;
		cl->in_turn = false;
		struct conn *c = cl->ready_head;
		if (!c)
			continue;
		ready_unlink(c);
		if (cl->ready_head)
			turn_append(cl);	/* its next one, after the other uids' */
		return c;
	}
	return NULL;
}

bool conn_any_ready(void)
{
	for (const struct client *cl = turn_head; cl; cl = cl->turn_next)
		if (cl->ready_head)
			return true;
	return false;
}

bool conn_attach(struct conn *c, struct conn *op)
{
	unsigned n = 1;
	for (const struct conn *s = op->chan_next; s && s != op; s = s->chan_next)
		n++;
	if (n >= CONN_CHANNELS_MAX)
		return false;
	afalg_sock_put(c->sk);
	c->sk = op->sk;
	c->sk->ref++;
	c->has_token = true;
	memcpy(c->token, op->token, sizeof(c->token));
	c->who = op->who;
	c->admin = op->admin;
	c->key_admin = op->key_admin;
	if (!op->chan_next)
		op->chan_next = op->chan_prev = op;
	c->chan_next = op->chan_next;
	c->chan_prev = op;
	op->chan_next->chan_prev = c;
	op->chan_next = c;
	return true;
}

static void chan_unlink(struct conn *c)
{
	if (!c->chan_next)
		return;
	struct conn *n = c->chan_next, *p = c->chan_prev;
	n->chan_prev = p;
	p->chan_next = n;
	if (n == p)	/* one left: alone again */
		n->chan_next = n->chan_prev = NULL;
	c->chan_next = c->chan_prev = NULL;
}

void conn_close(struct conn *c)
{
	if (c->ring && offload_close_deferred(c))
		return;
	if (c->ready)
		ready_unlink(c);
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	afalg_sock_put(c->sk);
	ring_release(c->ring);
	payload_drop(c);
	notify_drop(c);
	fast_serve_drop(c);
	parked_free(c->parked);
	c->parked = NULL;
	chan_unlink(c);
	conn_rest_drop(c);
	account_fds_put(c->cl->acct, 1);
	client_put(c->cl);
	if (c->prev)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->closed = true;
	c->fd = -1;
	c->sk = NULL;
	c->next = closed_conns;
	closed_conns = c;
}

bool conn_resettable(const struct conn *c)
{
	return c->greeted && !c->ring && !c->parked && !c->chan_next && !c->busy;
}

void conn_reset(struct conn *c, struct alg_sock *sk)
{
	afalg_sock_put(c->sk);
	payload_drop(c);
	notify_drop(c);
	fast_serve_drop(c);
	conn_rest_drop(c);
	c->sk = sk;
	c->sending = false;
	c->has_token = false;
	ualg_wipe(c->token, sizeof(c->token));
	c->fast_seen = 0;
	c->fast_serving = c->fast_answered = c->fast_kicked = c->fast_hot = false;
}

void conn_pause(struct conn *c)
{
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
	c->busy = true;
}

void conn_resume(struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };

	c->busy = false;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev))
		conn_close(c);	/* never seen again: end it */
}

void conn_free_closed(void)
{
	while (closed_conns) {
		struct conn *c = closed_conns;
		closed_conns = c->next;
		free(c);
	}
}

int conn_reply(struct conn *c, uint16_t type, uint16_t flags, int32_t result,
	       const void *data, size_t len, int fd)
{
	struct iovec part = { (void *)data, len };

	control_publish();
	if (c->fast_serving)
		return fast_serve_reply(c, type, flags, result, data, len, fd);
	int r = ualg_frame_send(c->fd, type, UALG_HDR_REPLY | flags, result, &part, len ? 1 : 0, fd);
	if (r == -EPIPE || r == -ECONNRESET)
		c->hung_up = true;
	if (c->notify)	/* after the send: a client that sees it finds the reply */
		atomic_fetch_add_explicit(c->notify, 1, memory_order_release);
	return r;
}

/* The client's close has completed before it sends the request, so the
 * hang-up is already in epoll's ready list even if the loop has not
 * reached it: only the ready connections are looked at, never every
 * child (a uid may hold thousands).  Events not acted on here stay
 * ready (level-triggered) for the loop. */
void conn_reap_closed_children(const struct conn *c)
{
	static struct epoll_event *evs;
	static int evs_cap;

	if (!c->sk || c->sk->connected || !c->sk->children)
		return;
	int want = 0;
	for (struct client *cl = clients; cl; cl = cl->next)
		want += (int)cl->sockets;
	if (want > evs_cap) {
		struct epoll_event *e = realloc(evs, (size_t)want * sizeof(*e));
		if (!e)
			return;
		evs = e;
		evs_cap = want;
	}
	int n = epoll_wait(epfd, evs, evs_cap, 0);
	for (int i = 0; i < n; i++) {
		struct conn *o = evs[i].data.ptr;
		if (o == (void *)&conn_listener_tag || o == (void *)&conn_signal_tag ||
		    o == (void *)&conn_offload_tag)
			continue;
		if (!(evs[i].events & (EPOLLHUP | EPOLLRDHUP)) || o->closed || !o->sk ||
		    o->sk->parent != c->sk)
			continue;
		char b;
		/* Hung up with nothing left to read (EOF is also POLLIN). */
		if (recv(o->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
			conn_close(o);
	}
}
