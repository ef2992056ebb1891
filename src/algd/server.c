/* The daemon's transport side: one epoll loop serving every connection.
 *
 * A connection is an AF_ALG socket of some client (see proto.h).  Frames
 * are parsed strictly; anything malformed ends that connection only.  A
 * request the kernel would sleep on stays unanswered ("parked") and is
 * retried after each later request on the same connection, which is the
 * only place its state can change. */
#include "server.h"
#include "account.h"
#include "admin.h"
#include "algd_afalg.h"
#include "config.h"
#include "engine_ctl.h"
#include "keystore.h"
#include "proto.h"
#include "sandbox.h"
#include "ring.h"
#include "listener.h"
#include "log.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* A request the kernel would sleep in, kept with how far it got. */
/* The request being served: a fresh one, or a parked one run again
 * (dispatch() hands it to the data handlers; park() keeps it). */
struct request {
	struct afalg_progress progress;	/* how far the call has come */
	uint8_t *recv_out;	/* a parked receive's output so far (recv_len bytes), or NULL */
	size_t recv_len;	/* on_recv: the size of the receive */
	bool recv_private;	/* on_recv: its output is in recvbuf, so parking copies it */
};

struct parked {
	uint8_t *frame;
	size_t len;
	struct request req;
	struct ualg_budget *mem;	/* the owner's, charged what park() took */
	size_t charged;
};

/* One client uid's share of algd: every socket it holds counts, op
 * sockets included, wherever their fds went. */
struct client {
	uid_t uid;
	unsigned sockets;
	struct account *acct;	/* the uid's budgets (account.h) */
	struct client *next;
};

struct conn {
	int fd;
	struct client *cl;
	bool greeted;		/* HELLO seen (op connections are born greeted) */
	struct alg_sock *sk;
	struct parked *parked;	/* at most one waiter per socket */
	bool sending;		/* a sendmsg() whose LAST frame has not come */
	uint8_t *rest;		/* an answer's bytes beyond its first frame */
	size_t rest_len, rest_off;
	/* Who opened the connection tree: recorded when the listener accepted
	 * it and inherited by every op socket accepted from it, so that an
	 * op socket (a socketpair whose SO_PEERCRED is algd itself) carries
	 * its client's identity, as a kernel socket carries its opener's
	 * credentials.  Every identity decision reads these. */
	struct key_caller who;
	bool admin;		/* the opener may change algorithms */
	bool key_admin;		/* the opener may add and delete named keys */
	bool closed;		/* freed after the current batch of events */
	struct ring *ring;	/* native ring API, once set up */
	uint8_t *shm;		/* the shim's payload area (SHM_SETUP), or NULL */
	_Atomic uint32_t *notify;	/* NOTIFY_SETUP's counter, or NULL */
	size_t shm_size;
	struct conn *prev, *next;
};

static uid_t self_uid;	/* after the privilege drop */
/* The user whose private algd this is: algd's uid when it was started by
 * that user (no --user), else nobody ((uid_t)-1).  Sharing the uid an algd
 * started as root drops to (--user nobody) gives no rights. */
static uid_t owner_uid = (uid_t)-1;
static struct conn *conns;
static struct client *clients;
/* Connections closed while handling a batch of events: later events of
 * the same batch may still point at them (a child reaped by its parent's
 * request), so they are freed only once the batch is done. */
static struct conn *closed_conns;
static int epfd = -1;
static int verbose;
static unsigned max_sockets = SERVER_MAX_SOCKETS_DEFAULT;
static _Alignas(8) uint8_t rxbuf[UALG_FRAME_MAX];	/* header, then body */
static uint8_t *recvbuf;	/* output of the receive being served */
static size_t recvbuf_cap;
static uint8_t *shm_copy;	/* private copy of a payload area's input */
static size_t shm_copy_cap;

/* Verbosity 0: notices; -v: info; -vv: debug (log.h). */
static void logmsg(int level, const char *fmt, ...)
{
	if (level > verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	algd_vlog(level == 0 ? LOG_NOTICE : level == 1 ? LOG_INFO : LOG_DEBUG, fmt, ap);
	va_end(ap);
}

static struct client *client_get(uid_t uid)
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

static void client_put(struct client *cl)
{
	cl->acct->sockets--;
	if (--cl->sockets)
		return;
	/* Its last socket went: so do the instances it built that nothing
	 * uses any more (as crypto_mod_put() frees an unused module). */
	ualg_instances_reclaim(cl->uid);
	for (struct client **p = &clients; *p; p = &(*p)->next)
		if (*p == cl) {
			*p = cl->next;
			break;
		}
	free(cl);
}

/* Ring transforms count too (account.h). */
static bool client_full(const struct client *cl)
{
	return account_sockets_full(cl->acct);
}

/* The new connection holds a reference on cl. */
static struct conn *conn_add(int fd, struct client *cl, struct alg_sock *sk, bool greeted)
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

static void parked_free(struct parked *pk)
{
	if (!pk)
		return;
	if (pk->mem)
		ualg_budget_uncharge(pk->mem, pk->charged);
	ualg_wipe(pk->frame, pk->len);
	free(pk->frame);
	ualg_wipe(pk->req.recv_out, pk->req.recv_len);
	free(pk->req.recv_out);
	free(pk);
}

static void rest_drop(struct conn *c)
{
	if (c->rest)
		ualg_budget_uncharge(&c->cl->acct->mem, c->rest_len);
	ualg_wipe(c->rest, c->rest_len);
	free(c->rest);
	c->rest = NULL;
	c->rest_len = c->rest_off = 0;
}

/* The receive buffer, grown on demand (wiped after every answer). */
static uint8_t *recv_buffer(size_t n)
{
	if (n > recvbuf_cap) {
		uint8_t *b = malloc(n);
		if (!b)
			return NULL;
		free(recvbuf);
		recvbuf = b;
		recvbuf_cap = n;
	}
	return recvbuf;
}

static void notify_drop(struct conn *c);

static void conn_close(struct conn *c)
{
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	afalg_sock_put(c->sk);
	ring_release(c->ring);
	if (c->shm) {
		munmap(c->shm, c->shm_size);
		ualg_budget_uncharge(&c->cl->acct->mem, c->shm_size);
	}
	c->shm = NULL;
	notify_drop(c);
	parked_free(c->parked);
	rest_drop(c);
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

static void free_closed_conns(void)
{
	while (closed_conns) {
		struct conn *c = closed_conns;
		closed_conns = c->next;
		free(c);
	}
}

static int reply(struct conn *c, uint16_t type, uint16_t flags, int32_t result,
		 const void *data, size_t len, int fd)
{
	struct iovec part = { (void *)data, len };

	int r = ualg_frame_send(c->fd, type, UALG_HDR_REPLY | flags, result, &part, len ? 1 : 0, fd);
	if (c->notify)	/* after the send: a client that sees it finds the reply */
		atomic_fetch_add_explicit(c->notify, 1, memory_order_release);
	return r;
}

static void notify_drop(struct conn *c)
{
	if (!c->notify)
		return;
	munmap((void *)c->notify, UALG_NOTIFY_SIZE);
	ualg_budget_uncharge(&c->cl->acct->mem, UALG_NOTIFY_SIZE);
	c->notify = NULL;
}

static int on_notify_setup(struct conn *c, size_t len)
{
	void *map;

	if (len)
		return -1;
	if (!ualg_budget_charge(&c->cl->acct->mem, UALG_NOTIFY_SIZE))
		return reply(c, UALG_MSG_NOTIFY_SETUP, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	int fd = ualg_memfd_create("ualg-notify", UALG_NOTIFY_SIZE, &map);
	if (fd < 0) {
		ualg_budget_uncharge(&c->cl->acct->mem, UALG_NOTIFY_SIZE);
		return reply(c, UALG_MSG_NOTIFY_SETUP, 0, fd, NULL, 0, -1) ? -1 : 0;
	}
	notify_drop(c);	/* a program after execve sets up its own */
	int r = reply(c, UALG_MSG_NOTIFY_SETUP, 0, 0, NULL, 0, fd);
	c->notify = map;
	close(fd);
	return r ? -1 : 0;
}

/* ---- request handlers: each returns 0 to continue, -1 to drop ------- */

static int on_hello(struct conn *c, const uint8_t *body, size_t len)
{
	struct ualg_hello h;

	if (c->greeted || len != sizeof(h))
		return -1;
	memcpy(&h, body, sizeof(h));
	if (h.magic != UALG_PROTO_MAGIC || h.role != UALG_ROLE_AFALG)
		return -1;
	if (h.version != UALG_PROTO_VERSION) {
		reply(c, UALG_MSG_HELLO, 0, -EPROTONOSUPPORT, NULL, 0, -1);
		return -1;
	}
	c->greeted = true;
	return reply(c, UALG_MSG_HELLO, 0, UALG_PROTO_VERSION, NULL, 0, -1) ? -1 : 0;
}

static int on_bind(struct conn *c, const uint8_t *body, size_t len)
{
	struct ualg_bind b;

	if (len < sizeof(b))
		return -1;
	memcpy(&b, body, sizeof(b));
	const char *name = (const char *)body + sizeof(b);
	if (b.reserved || b.name_len == 0 || b.name_len > UALG_BIND_NAME_MAX ||
	    len != sizeof(b) + b.name_len || memchr(b.type, 0, sizeof(b.type)) == NULL ||
	    strnlen(name, b.name_len) != b.name_len - 1)
		return -1;
	const bool ruled = policy_has_alg_rules();
	int r = afalg_bind(c->sk, (const char *)b.type, b.feat, b.mask, name, ruled ? &c->who : NULL);
	logmsg(2, "bind %s %s: %d", b.type, name, r);
	return reply(c, UALG_MSG_BIND, 0, r, NULL, 0, -1) ? -1 : 0;
}

static int on_setsockopt(struct conn *c, const uint8_t *body, size_t len)
{
	struct ualg_sockopt o;

	if (len < sizeof(o))
		return -1;
	memcpy(&o, body, sizeof(o));
	if (o.vallen >= UALG_SOCKOPT_MAX || len != sizeof(o) + o.vallen || o.keyref_err > 4095 ||
	    (o.keyref_err && (o.vallen || o.optname != ALG_SET_KEY_BY_KEY_SERIAL)) ||
	    (o.flags & ~UALG_SOCKOPT_FLAGS_ALL) || (o.flags && o.vallen) ||
	    (o.vallen && o.vallen != o.optlen && o.optname != ALG_SET_KEY_BY_KEY_SERIAL))
		return -1;
	const bool by_name = o.optname == UALG_SET_KEY_BY_NAME;
	const struct afalg_optval v = {
		.data = body + sizeof(o), .len = o.vallen, .optlen = o.optlen,
		.too_big = o.flags & UALG_SOCKOPT_TOOBIG, .fault = o.flags & UALG_SOCKOPT_FAULT,
		.keyref_err = o.keyref_err,
		.caller = by_name ? &c->who : NULL,
	};
	int r = afalg_setsockopt(c->sk, o.level, o.optname, &v);
	return reply(c, UALG_MSG_SETSOCKOPT, 0, r, NULL, 0, -1) ? -1 : 0;
}

static int on_accept(struct conn *c, size_t len)
{
	struct alg_sock *op = NULL;
	int sv[2];

	if (len != 0)
		return -1;
	/* Its fd table is full, as far as algd goes; or algd holds as many
	 * fds for the uid as it may. */
	if (client_full(c->cl) || account_fds(c->cl->acct, 1))
		return reply(c, UALG_MSG_ACCEPT, 0, -EMFILE, NULL, 0, -1) ? -1 : 0;
	int r = afalg_accept(c->sk, &op);
	if (!r && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		r = -errno;
		afalg_sock_put(op);
	}
	if (r) {
		account_fds_put(c->cl->acct, 1);
		return reply(c, UALG_MSG_ACCEPT, 0, r, NULL, 0, -1) ? -1 : 0;
	}
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	c->cl->sockets++;
	c->cl->acct->sockets++;
	struct conn *oc = conn_add(sv[0], c->cl, op, true);
	if (!oc) {
		account_fds_put(c->cl->acct, 1);
		client_put(c->cl);
		close(sv[0]);
		close(sv[1]);
		afalg_sock_put(op);
		return reply(c, UALG_MSG_ACCEPT, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	}
	oc->who = c->who;
	oc->admin = c->admin;
	oc->key_admin = c->key_admin;
	r = reply(c, UALG_MSG_ACCEPT, 0, 0, NULL, 0, sv[1]);
	close(sv[1]);
	return r ? -1 : 0;
}

/* The bytes of the payload area that ref names, or NULL when the
 * connection has none or ref leaves it (overflow-safe: off is checked
 * first, then len against what is left). */
static uint8_t *shm_range(const struct conn *c, const struct ualg_shm_ref *ref)
{
	if (!c->shm || ref->off > c->shm_size || ref->len > c->shm_size - ref->off)
		return NULL;
	return c->shm + ref->off;
}

/* Input in the client's area: a type whose send() only copies it into its
 * queue reads it there (each byte once); any other gets it from a private
 * copy, so that nothing it computes depends on memory the client may be
 * rewriting meanwhile. */
static const uint8_t *shm_input(const struct conn *c, const uint8_t *in, size_t len)
{
	if (c->sk->type->send_copies || !len)
		return in;
	if (len > shm_copy_cap) {
		uint8_t *b = malloc(len);
		if (!b)
			return NULL;
		ualg_wipe(shm_copy, shm_copy_cap);
		free(shm_copy);
		shm_copy = b;
		shm_copy_cap = len;
	}
	memcpy(shm_copy, in, len);
	return shm_copy;
}

/* SEND, or SEND_SHM (shm) with the data in the payload area.  Returns 1
 * when the request was parked. */
static int on_send(struct conn *c, const uint8_t *body, size_t len, bool shm, struct request *req)
{
	struct ualg_send m;
	struct ualg_shm_ref ref;

	if (len < sizeof(m))
		return -1;
	memcpy(&m, body, sizeof(m));
	if ((m.flags & ~UALG_SEND_FLAGS_ALL) || m.ivlen > UALG_IV_MAX ||
	    len < sizeof(m) + m.ivlen || (!(m.flags & UALG_SEND_IV) && m.ivlen))
		return -1;
	const uint8_t *data = body + sizeof(m) + m.ivlen;
	size_t dlen = len - sizeof(m) - m.ivlen;
	if (shm) {
		if (dlen != sizeof(ref))
			return -1;
		memcpy(&ref, data, sizeof(ref));
		const uint8_t *in = shm_range(c, &ref);
		if (!in || ref.len > INT32_MAX)
			return -1;
		dlen = (size_t)ref.len;
		if (!(data = shm_input(c, in, dlen)))
			return reply(c, UALG_MSG_SEND_SHM, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	}
	const struct afalg_send s = {
		.ctl = {
			.present = m.flags & UALG_SEND_CTL,
			.invalid = m.flags & UALG_SEND_CTL_BAD,
			.op = m.op,
			.has_iv = m.flags & UALG_SEND_IV,
			.ivlen = m.ivlen,
			.iv = body + sizeof(m),
			.assoclen = m.assoclen,
		},
		.first = m.flags & UALG_SEND_FIRST,
		.last = m.flags & UALG_SEND_LAST,
		.more = m.flags & UALG_SEND_MORE,
		.dontwait = m.flags & UALG_SEND_DONTWAIT,
		.fault = m.flags & UALG_SEND_FAULT,
		.data = data,
		.len = dlen,
	};
	if (s.fault && s.len)
		return -1;
	/* Only a call's first frame may start one: the types' send() rely
	 * on it (a hash without its state; found by tests/fuzz). */
	if (!s.first && !c->sending)
		return -1;
	int r = afalg_send(c->sk, &s, &req->progress);
	if (data == shm_copy)
		ualg_wipe(shm_copy, dlen);
	if (r == AFALG_WAIT)
		return 1;
	c->sending = r >= 0 && !s.last;
	return reply(c, shm ? UALG_MSG_SEND_SHM : UALG_MSG_SEND, 0, r, NULL, 0, -1) ? -1 : 0;
}

/* Where a receive's answer goes: inline in the reply frame, or (RECV_SHM)
 * into the named range of the payload area, the reply carrying no data. */
struct recv_dest {
	uint16_t type;		/* UALG_MSG_RECV or UALG_MSG_RECV_SHM */
	uint8_t *area;		/* RECV_SHM: the output range */
};

static int send_answer(struct conn *c, const struct recv_dest *d, uint16_t flags, int32_t result,
		       const uint8_t *data, size_t len)
{
	if (!d->area)
		return reply(c, d->type, flags, result, data, len, -1);
	if (len && data != d->area)
		memcpy(d->area, data, len);
	return reply(c, d->type, flags, result, NULL, 0, -1);
}

/* Answers a receive of n bytes: the first part (up to the caller's part
 * size) now, the rest kept for UALG_RECV_REST requests.  out is algd's
 * buffer, or the area itself when the type wrote there directly. */
static int answer_recv(struct conn *c, const struct recv_dest *d, uint16_t flags, int32_t result,
		       uint8_t *out, size_t part)
{
	const size_t n = result > 0 ? (size_t)result : 0;
	const size_t first = n < part ? n : part;
	const bool private = out != d->area;

	if (n > first) {
		const bool charged = ualg_budget_charge(&c->cl->acct->mem, n - first);
		if (!charged || !(c->rest = malloc(n - first))) {
			if (charged)
				ualg_budget_uncharge(&c->cl->acct->mem, n - first);
			if (private)
				ualg_wipe(out, n);
			return reply(c, d->type, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
		}
		memcpy(c->rest, out + first, n - first);
		c->rest_len = n - first;
	}
	int s = send_answer(c, d, flags, result, out, first);
	if (private)
		ualg_wipe(out, n);
	return s ? -1 : 0;
}

static int send_rest(struct conn *c, const struct recv_dest *d, size_t len)
{
	if (!c->rest)	/* another process on the same socket took it */
		return reply(c, d->type, 0, -EPROTO, NULL, 0, -1) ? -1 : 0;
	size_t n = c->rest_len - c->rest_off < len ? c->rest_len - c->rest_off : len;
	int s = send_answer(c, d, 0, (int32_t)n, c->rest + c->rest_off, n);
	c->rest_off += n;
	if (c->rest_off == c->rest_len)
		rest_drop(c);
	return s ? -1 : 0;
}

/* A receive's request and where its answer goes; false if malformed. */
static bool parse_recv(const struct conn *c, const uint8_t *body, size_t len, bool shm,
		       struct ualg_recv *m, struct recv_dest *d)
{
	struct ualg_shm_ref ref;

	*d = (struct recv_dest){ shm ? UALG_MSG_RECV_SHM : UALG_MSG_RECV, NULL };
	if (len != sizeof(*m) + (shm ? sizeof(ref) : 0))
		return false;
	memcpy(m, body, sizeof(*m));
	if ((m->flags & ~UALG_RECV_FLAGS_ALL) || m->total < m->len || m->reserved)
		return false;
	if (!shm)
		return m->len <= UALG_DATA_MAX;
	memcpy(&ref, body + sizeof(*m), sizeof(ref));
	d->area = shm_range(c, &ref);
	return d->area && ref.len == m->len;
}

/* RECV, or RECV_SHM (shm) into the payload area. */
static int on_recv(struct conn *c, const uint8_t *body, size_t len, bool shm, struct request *req)
{
	struct ualg_recv m;
	struct recv_dest d;
	bool trunc = false;

	if (!parse_recv(c, body, len, shm, &m, &d))
		return -1;
	if (m.flags & UALG_RECV_REST)
		return send_rest(c, &d, m.len);
	rest_drop(c);
	req->recv_len = m.len;
	const bool whole = afalg_recv_whole(c->sk);
	if (whole)
		req->recv_len = m.total < AFALG_RECV_MAX ? m.total : AFALG_RECV_MAX;
	/* Whole-buffer types (AEAD) compute in algd's memory, so that
	 * nothing but the released result reaches the area; the others
	 * write their output range directly (never reading it back as
	 * input). */
	req->recv_private = !d.area || whole;
	uint8_t *out = !req->recv_private ? d.area
		     : req->recv_out     ? req->recv_out
					 : recv_buffer(req->recv_len);
	if (!out)
		return reply(c, d.type, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	int r = afalg_recv(c->sk, out, req->recv_len, m.flags & UALG_RECV_DONTWAIT, &trunc,
			   &req->progress);
	if (r == AFALG_WAIT)
		return 1;
	return answer_recv(c, &d, trunc ? UALG_HDR_TRUNC : 0, r, out, m.len);
}

/* SHM_SETUP: the op socket's payload area, created sealed, mapped here and
 * passed to the client; algd keeps only the mapping. */
static int on_shm_setup(struct conn *c, size_t len)
{
	struct ualg_shm_setup_reply rep = { UALG_SHM_SIZE };
	void *map;

	if (len)
		return -1;
	if (!c->sk->connected)
		return reply(c, UALG_MSG_SHM_SETUP, 0, -EOPNOTSUPP, NULL, 0, -1) ? -1 : 0;
	if (c->shm)
		return reply(c, UALG_MSG_SHM_SETUP, 0, -EBUSY, NULL, 0, -1) ? -1 : 0;
	if (!ualg_budget_charge(&c->cl->acct->mem, UALG_SHM_SIZE))
		return reply(c, UALG_MSG_SHM_SETUP, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	int fd = ualg_memfd_create("ualg-shm", UALG_SHM_SIZE, &map);
	if (fd < 0) {
		ualg_budget_uncharge(&c->cl->acct->mem, UALG_SHM_SIZE);
		return reply(c, UALG_MSG_SHM_SETUP, 0, fd, NULL, 0, -1) ? -1 : 0;
	}
	c->shm = map;
	c->shm_size = UALG_SHM_SIZE;
	int r = reply(c, UALG_MSG_SHM_SETUP, 0, 0, &rep, sizeof(rep), fd);
	close(fd);
	return r ? -1 : 0;
}

static int on_poll(struct conn *c, size_t len)
{
	if (len)
		return -1;
	return reply(c, UALG_MSG_POLL, 0, (int32_t)afalg_poll(c->sk), NULL, 0, -1) ? -1 : 0;
}

/* A signal ended the client's wait: the parked request is answered with
 * what it had done, or EINTR, as the kernel's interrupted sleep returns;
 * then the cancel itself.  Without a parked request the earlier reply is
 * already on its way and only the cancel is answered. */
static int on_cancel(struct conn *c, size_t len)
{
	if (len)
		return -1;
	struct parked *pk = c->parked;
	c->sending = false;	/* the interrupted call has ended */
	if (pk) {
		c->parked = NULL;
		const struct ualg_hdr *h = (const struct ualg_hdr *)pk->frame;
		const size_t done = pk->req.progress.done;
		int32_t result = done ? (int32_t)done : -EINTR;
		int r;
		if (h->type == UALG_MSG_RECV || h->type == UALG_MSG_RECV_SHM) {
			struct ualg_recv m;
			struct recv_dest d;
			/* Parsed when it parked: the area has not changed since. */
			parse_recv(c, pk->frame + sizeof(*h), pk->len - sizeof(*h),
				   h->type == UALG_MSG_RECV_SHM, &m, &d);
			r = answer_recv(c, &d, 0, result, pk->req.recv_out ? pk->req.recv_out : d.area,
					m.len);
		} else {
			r = reply(c, h->type, 0, result, NULL, 0, -1);
		}
		parked_free(pk);
		if (r)
			return -1;
	}
	return reply(c, UALG_MSG_CANCEL, 0, 0, NULL, 0, -1) ? -1 : 0;
}

/* Algorithm administration and named keys share one shape: a handler
 * that fills a reply body, or says the frame was malformed.  Privilege was
 * decided when the client connected, as the kernel checks the netlink
 * socket's opener. */
typedef int admin_handler(uint16_t type, const uint8_t *body, size_t len, bool privileged,
			  uint8_t *out, size_t outsize, size_t *outlen);

static int serve_admin(struct conn *c, uint16_t type, const uint8_t *body, size_t len,
		       admin_handler *handler, bool privileged, int bad_frame)
{
	static uint8_t out[UALG_DATA_MAX];
	size_t outlen;
	int r = handler(type, body, len, privileged, out, sizeof(out), &outlen);

	if (r == bad_frame)
		return -1;
	logmsg(2, "admin request %u: %d", type, r);
	return reply(c, type, 0, r, out, outlen, -1) ? -1 : 0;
}

/* For a program that inherited the fd across execve: what this socket is
 * (never its key or state). */
static int on_describe(struct conn *c, size_t len)
{
	struct ualg_describe d = { 0 };

	if (len)
		return -1;
	if (c->sk->connected)
		d.flags |= UALG_DESCRIBE_OP;
	if (afalg_is_rfc(c->sk))
		d.flags |= UALG_DESCRIBE_RFC;
	if (c->sk->type) {
		d.flags |= UALG_DESCRIBE_BOUND;
		strncpy((char *)d.type, c->sk->type->name, sizeof(d.type) - 1);
	}
	d.sndbuf = c->sk->sndbuf;
	return reply(c, UALG_MSG_DESCRIBE, 0, 0, &d, sizeof(d), -1) ? -1 : 0;
}

static int on_engine(struct conn *c, uint16_t type, const uint8_t *body, size_t len)
{
	struct ualg_engine_info info;
	if (type == UALG_MSG_ENGINE) {
		if (len)
			return -1;
		engine_ctl_info(c->sk, &info);
		return reply(c, type, 0, 0, &info, sizeof(info), -1) ? -1 : 0;
	}
	int r = engine_ctl_adopt(c->sk, body, len);
	return r == -1 || reply(c, type, 0, r, NULL, 0, -1) ? -1 : 0;
}

/* net.core.wmem_max, read once at start (its default when unreadable). */
static uint32_t wmem_max = 212992;
#define SOCK_MIN_SNDBUF 4608u	/* 2 * (2048 + sizeof(struct sk_buff)) on 6.1 */

static void read_wmem_max(void)
{
	FILE *f = fopen("/proc/sys/net/core/wmem_max", "re");
	unsigned long v;

	if (!f)
		return;
	if (fscanf(f, "%lu", &v) == 1 && v > 0 && v <= INT32_MAX / 2)
		wmem_max = (uint32_t)v;
	fclose(f);
}

static int on_sndbuf(struct conn *c, const uint8_t *body, size_t len)
{
	struct ualg_sndbuf b;

	if (len != sizeof(b))
		return -1;
	memcpy(&b, body, sizeof(b));
	/* What sock_setsockopt() can have made of any value: at most twice
	 * net.core.wmem_max, at least SOCK_MIN_SNDBUF. */
	c->sk->sndbuf = b.bytes > 2 * wmem_max ? 2 * wmem_max
		      : b.bytes < SOCK_MIN_SNDBUF ? SOCK_MIN_SNDBUF : b.bytes;
	return reply(c, UALG_MSG_SNDBUF, 0, 0, NULL, 0, -1) ? -1 : 0;
}

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* After a data request (send, receive) the loop busy-polls for the next
 * one for --poll-us, as the ring workers do: a client streaming data sends
 * again within microseconds, and waking a sleeping (halted) core costs
 * more than that.  After anything else it sleeps at once. */
static uint64_t spin_until;

/* ---- RFC mode (issue 9): never parked, see proto.h ------------------ */

static int on_rfc_mode(struct conn *c, uint16_t type, size_t len)
{
	if (len)
		return -1;
	int r = type == UALG_MSG_RFC_MODE ? afalg_rfc_mode(c->sk) : afalg_rfc_listen(c->sk);
	return reply(c, type, 0, r, NULL, 0, -1) ? -1 : 0;
}

static int on_rfc_io(struct conn *c, uint16_t type, const uint8_t *body, size_t len)
{
	struct ualg_rfc_io m;

	if (len < sizeof(m))
		return -1;
	memcpy(&m, body, sizeof(m));
	if (m.len > UALG_DATA_MAX || (m.flags & ~UALG_RFC_FLAGS_ALL) ||
	    (type == UALG_MSG_RFC_READ ? m.flags || len != sizeof(m) : len != sizeof(m) + m.len))
		return -1;
	if (type == UALG_MSG_RFC_WRITE) {
		int r = afalg_rfc_write(c->sk, body + sizeof(m), m.len, m.flags & UALG_RFC_MORE,
					m.flags & UALG_RFC_OOB);
		return reply(c, type, 0, r, NULL, 0, -1) ? -1 : 0;
	}
	uint8_t *out = m.len ? recv_buffer(m.len) : NULL;
	if (!m.len || !out)	/* a read of nothing is nothing */
		return reply(c, type, 0, m.len ? -ENOMEM : 0, NULL, 0, -1) ? -1 : 0;
	int r = afalg_rfc_read(c->sk, out, m.len);
	r = reply(c, type, 0, r, out, r > 0 ? (size_t)r : 0, -1);
	ualg_wipe(out, m.len);
	return r ? -1 : 0;
}

static int dispatch_frame(struct conn *c, const uint8_t *frame, size_t len, struct request *req);

/* Dispatches one frame; returns 0, 1 (parked) or -1 (drop connection).
 * Key memory it allocates is charged to the client's uid (account.h);
 * named keys, which outlive their administrator's connection, are not. */
static int dispatch(struct conn *c, const uint8_t *frame, size_t len, struct request *req)
{
	const uint16_t type = ((const struct ualg_hdr *)frame)->type;
	const bool keys = type == UALG_MSG_KEY_ADD || type == UALG_MSG_KEY_DEL || type == UALG_MSG_KEY_LIST;

	ualg_secure_set_budget(keys ? NULL : &c->cl->acct->keys);
	ualg_set_builder(c->admin || c->who.uid == owner_uid ? UALG_BUILDER_NONE : c->who.uid);
	int r = dispatch_frame(c, frame, len, req);
	ualg_set_builder(UALG_BUILDER_NONE);
	ualg_secure_set_budget(NULL);
	return r;
}

static int dispatch_frame(struct conn *c, const uint8_t *frame, size_t len, struct request *req)
{
	struct ualg_hdr h;

	memcpy(&h, frame, sizeof(h));
	const uint8_t *body = frame + sizeof(h);
	const size_t blen = len - sizeof(h);

	if (h.flags || h.result)
		return -1;	/* requests carry neither */
	if (!c->greeted)
		return h.type == UALG_MSG_HELLO ? on_hello(c, body, blen) : -1;
	switch (h.type) {
	case UALG_MSG_BIND: return on_bind(c, body, blen);
	case UALG_MSG_SETSOCKOPT: return on_setsockopt(c, body, blen);
	case UALG_MSG_ACCEPT: return on_accept(c, blen);
	case UALG_MSG_SEND:
		spin_until = now_us() + ring_poll_us();
		return on_send(c, body, blen, false, req);
	case UALG_MSG_RECV:
		spin_until = now_us() + ring_poll_us();
		return on_recv(c, body, blen, false, req);
	case UALG_MSG_SEND_SHM:
		spin_until = now_us() + ring_poll_us();
		return on_send(c, body, blen, true, req);
	case UALG_MSG_RECV_SHM:
		spin_until = now_us() + ring_poll_us();
		return on_recv(c, body, blen, true, req);
	case UALG_MSG_SHM_SETUP: return on_shm_setup(c, blen);
	case UALG_MSG_NOTIFY_SETUP: return on_notify_setup(c, blen);
	case UALG_MSG_POLL: return on_poll(c, blen);
	case UALG_MSG_CANCEL: return on_cancel(c, blen);
	case UALG_MSG_ALG_GET:
	case UALG_MSG_ALG_DUMP:
	case UALG_MSG_ALG_UPDATE:
	case UALG_MSG_ALG_NEW:
	case UALG_MSG_ALG_DEL:
	case UALG_MSG_ALG_SAVE:
	case UALG_MSG_ALG_DISABLE:
	case UALG_MSG_ALG_CHECK_ADMIN:
	case UALG_MSG_ALG_ENGINE:
		return serve_admin(c, h.type, body, blen, admin_request, c->admin, ADMIN_BAD_FRAME);
	case UALG_MSG_KEY_ADD:
	case UALG_MSG_KEY_DEL:
	case UALG_MSG_KEY_LIST:
		return serve_admin(c, h.type, body, blen, keystore_request, c->key_admin,
				   KEYSTORE_BAD_FRAME);
	case UALG_MSG_DESCRIBE: return on_describe(c, blen);
	case UALG_MSG_SNDBUF: return on_sndbuf(c, body, blen);
	case UALG_MSG_ENGINE:
	case UALG_MSG_ADOPT: return on_engine(c, h.type, body, blen);
	case UALG_MSG_RING_SETUP:
	case UALG_MSG_RING_OPEN:
	case UALG_MSG_RING_SETKEY:
	case UALG_MSG_RING_SETAUTHSIZE:
	case UALG_MSG_RING_SETKEY_NAMED:
	case UALG_MSG_RING_CLOSE:
		return ring_request(&c->ring, c->fd, &c->who, c->cl->acct, h.type, body, blen);
	case UALG_MSG_RFC_MODE:
	case UALG_MSG_RFC_LISTEN: return on_rfc_mode(c, h.type, blen);
	case UALG_MSG_RFC_WRITE:
	case UALG_MSG_RFC_READ:
		spin_until = now_us() + ring_poll_us();	/* a data request, as SEND */
		return on_rfc_io(c, h.type, body, blen);
	default: return -1;
	}
}

/* Instances a request builds are its client's (crypto.h's builder). */
/* Runs the parked request again with its saved progress. */
static void retry_parked(struct conn *c)
{
	struct parked *pk = c->parked;

	c->parked = NULL;
	int r = dispatch(c, pk->frame, pk->len, &pk->req);
	if (r == 1) {
		c->parked = pk;
		return;
	}
	parked_free(pk);
	if (r < 0)
		conn_close(c);
}

/* Keeps the request that would wait: its frame, its progress and, for a
 * receive into recvbuf, the output so far (recvbuf serves the next one).
 * Past the uid's memory budget the request gets ENOMEM instead. */
static int park(struct conn *c, size_t n, const struct request *req)
{
	const uint16_t type = ((struct ualg_hdr *)rxbuf)->type;
	const bool keep_out = (type == UALG_MSG_RECV || type == UALG_MSG_RECV_SHM) && req->recv_private;
	const size_t charge = n + (keep_out ? req->recv_len : 0);
	if (!ualg_budget_charge(&c->cl->acct->mem, charge))
		return reply(c, type, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	struct parked *pk = calloc(1, sizeof(*pk));

	if (!pk || !(pk->frame = malloc(n))) {
		ualg_budget_uncharge(&c->cl->acct->mem, charge);
		free(pk);
		return -1;
	}
	pk->mem = &c->cl->acct->mem;
	pk->charged = charge;
	memcpy(pk->frame, rxbuf, n);
	pk->len = n;
	pk->req = (struct request){ .progress = req->progress };
	if (keep_out) {
		pk->req.recv_len = req->recv_len;
		if (!(pk->req.recv_out = malloc(req->recv_len ? req->recv_len : 1))) {
			parked_free(pk);
			return -1;
		}
		memcpy(pk->req.recv_out, recvbuf, req->progress.done);
	}
	c->parked = pk;
	return 0;
}

/* Operation sockets closed by the client are released before a request on
 * their transform socket is served, as the kernel releases them within
 * close(): otherwise "close(op); setsockopt(tfm, KEY)" could see EBUSY.
 * The client's close has completed before it sends the request, so the
 * hang-up is already in epoll's ready list even if the loop has not
 * reached it: only the ready connections are looked at, never every
 * child (a uid may hold thousands).  Events not acted on here stay
 * ready (level-triggered) for the loop. */
static int listener_tag, signal_tag;	/* epoll data of the two fds that are no connection */

static void reap_closed_children(const struct conn *c)
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
		if (o == (void *)&listener_tag || o == (void *)&signal_tag)
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

/* Descriptors a client attached to a request (none is ever expected) are
 * closed on a thread of their own: the last close of a socket lingering
 * over unsent data, of a FUSE file or of a tty may sleep, and the event
 * loop must not.  Should that thread be stuck, later ones stay open. */
static int closer_pipe[2] = { -1, -1 };

static void *closer_main(void *arg)
{
	int fd;

	(void)arg;
	for (;;) {
		ssize_t n = read(closer_pipe[0], &fd, sizeof(fd));
		if (n == (ssize_t)sizeof(fd))
			close(fd);
		else if (n >= 0 || errno != EINTR)
			return NULL;
	}
}

static int closer_start(void)
{
	pthread_t t;

	if (pipe2(closer_pipe, O_CLOEXEC) || fcntl(closer_pipe[1], F_SETFL, O_NONBLOCK) ||
	    pthread_create(&t, NULL, closer_main, NULL))
		return -1;
	pthread_detach(t);
	return 0;
}

static void dispose_fd(int fd)
{
	if (write(closer_pipe[1], &fd, sizeof(fd)) != (ssize_t)sizeof(fd))
		logmsg(0, "a client's descriptor left open: its closer is busy");
}

static void on_readable(struct conn *c)
{
	struct iovec body = { rxbuf + sizeof(struct ualg_hdr), sizeof(rxbuf) - sizeof(struct ualg_hdr) };
	ssize_t n = ualg_frame_recv_nofd(c->fd, (struct ualg_hdr *)rxbuf, &body, 1, dispose_fd);
	/* What the buffer may hold a key in: the whole of it when the frame
	 * was refused (its length is not known then), nothing at EOF. */
	size_t used = n > 0 ? (size_t)n : n < 0 ? sizeof(rxbuf) : 0;

	if (n == -EAGAIN)
		return;
	if (n <= 0) {
		if (n < 0)
			logmsg(1, "connection %d: bad frame (%s), closing", c->fd, strerror((int)-n));
		conn_close(c);
		goto out;
	}
	const uint16_t type = ((struct ualg_hdr *)rxbuf)->type;
	reap_closed_children(c);
	struct request req = { 0 };
	int r = dispatch(c, rxbuf, (size_t)n, &req);
	if (r < 0) {
		logmsg(1, "connection %d: invalid request, closing", c->fd);
		/* Tell the client why before the connection ends. */
		reply(c, type, 0, -EPROTO, NULL, 0, -1);
		conn_close(c);
		goto out;
	}
	if (r == 1) {
		if (c->parked) {
			/* One waiter per socket: a second gets EAGAIN. */
			if (reply(c, type, 0, -EAGAIN, NULL, 0, -1))
				conn_close(c);
		} else if (park(c, (size_t)n, &req)) {
			conn_close(c);
		}
	} else if (c->parked && type != UALG_MSG_CANCEL) {
		retry_parked(c);
	}
out:
	ualg_wipe(rxbuf, used);
}

/* Root, or a member of the configured admin group (SO_PEERGROUPS gives
 * the peer's supplementary groups as they were at connect()). */
static bool peer_is_admin(const struct key_caller *who)
{
	const struct algd_config *cfg = config_get();

	if (who->uid == 0)
		return true;
	if (!cfg->has_admin_gid)
		return false;
	if (who->gid == cfg->admin_gid)
		return true;
	for (size_t i = 0; i < who->ngroups; i++)
		if (who->groups[i] == cfg->admin_gid)
			return true;
	return false;
}

static const struct policy *policy;
static int spare_fd = -1;	/* given up to refuse a client when out of fds */

/* Answers the client's HELLO in advance with why it is refused, and hangs
 * up: its socket() fails with that errno. */
static void refuse(int fd, int err)
{
	ualg_frame_send(fd, UALG_MSG_HELLO, UALG_HDR_REPLY, -err, NULL, 0, -1);
	close(fd);
}

/* Out of fds, the pending connection would keep the listener readable
 * forever: free a spare fd to take it and refuse it. */
static void refuse_one_pending(int lfd)
{
	if (spare_fd < 0)
		return;
	close(spare_fd);
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd >= 0)
		refuse(fd, EMFILE);
	spare_fd = dup(lfd);
}

static void on_connection(int fd)
{
	struct key_caller who;

	if (keystore_caller(fd, &who)) {
		close(fd);
		return;
	}
	if (!policy_allows(policy, who.uid, who.gid, self_uid)) {
		logmsg(1, "refused uid %u gid %u", who.uid, who.gid);
		refuse(fd, EACCES);
		return;
	}
	struct client *cl = client_get(who.uid);
	if (!cl) {
		refuse(fd, ENOMEM);
		return;
	}
	if (client_full(cl) || account_fds(cl->acct, 1)) {
		client_put(cl);
		refuse(fd, EMFILE);
		return;
	}
	struct alg_sock *sk = afalg_sock_new();
	if (sk)
		sk->mem = &cl->acct->mem;
	struct conn *c = sk ? conn_add(fd, cl, sk, false) : NULL;
	if (!c) {
		account_fds_put(cl->acct, 1);
		afalg_sock_put(sk);
		client_put(cl);
		refuse(fd, ENOMEM);
		return;
	}
	c->who = who;
	c->admin = peer_is_admin(&who);
	/* Keys: crypto_user's administrators, and the user whose private
	 * algd this is (never whoever shares the uid algd dropped to). */
	c->key_admin = c->admin || who.uid == owner_uid;
}

static void on_listener(int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				refuse_one_pending(lfd);
			return;
		}
		on_connection(fd);
	}
}

/* Once listening: the buffer that sees keys in transit is locked and kept
 * out of cores; then privileges go and the syscall filter comes. */
static int confine(const struct server_opts *opts)
{
	mlock(rxbuf, sizeof(rxbuf));
	madvise(rxbuf, sizeof(rxbuf), MADV_DONTDUMP);
	if (opts->drop && sandbox_drop_privileges(opts->uid, opts->gid))
		return -1;
	self_uid = geteuid();
	owner_uid = opts->drop || self_uid == 0 ? (uid_t)-1 : self_uid;
	keystore_set_self(owner_uid);
	if (opts->no_seccomp) {
		algd_log(LOG_WARNING, "running without the seccomp filter");
		return 0;
	}
	return sandbox_seccomp();
}


static int next_events(struct epoll_event *evs, int max)
{
	while (spin_until) {
		int n = epoll_wait(epfd, evs, max, 0);
		if (n != 0)
			return n;
		if (now_us() >= spin_until)
			spin_until = 0;
		else
			sched_yield();
	}
	return epoll_wait(epfd, evs, max, -1);
}

int server_run(const struct server_opts *opts)
{
	sigset_t mask;

	verbose = opts->verbose;
	policy = &opts->policy;
	if (opts->max_sockets)
		max_sockets = opts->max_sockets;
	ualg_instances_cap(SERVER_INSTANCES_PER_UID);
	account_set_max_sockets(max_sockets);
	read_wmem_max();
	sandbox_limits();
	struct rlimit nofile;
	unsigned fd_max = opts->uid_fd_max;
	/* Default: a quarter of algd's own limit, so that three uids at
	 * theirs leave a quarter for everyone else. */
	if (!fd_max && !getrlimit(RLIMIT_NOFILE, &nofile))
		fd_max = nofile.rlim_cur / 4 < UINT32_MAX ? (unsigned)(nofile.rlim_cur / 4) : UINT32_MAX;
	account_set_limits(opts->uid_mem_max, opts->uid_key_heap, fd_max);
	char lpath[128];
	int lfd = listener_open(opts, lpath, sizeof(lpath));
	if (lfd < 0)
		return 1;
	spare_fd = dup(lfd);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (closer_start())
		return 1;
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || epfd < 0)
		return 1;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &listener_tag };
	epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.ptr = &signal_tag;
	epoll_ctl(epfd, EPOLL_CTL_ADD, sfd, &ev);
	if (confine(opts))
		return 1;

	if (opts->ready_fd >= 0) {
		(void)!write(opts->ready_fd, "1", 1);
		close(opts->ready_fd);
	}
	logmsg(1, "listening on %s", lpath);

	for (bool running = true; running;) {
		struct epoll_event evs[64];
		int n = next_events(evs, 64);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;
			if (tag == &listener_tag) {
				on_listener(lfd);
			} else if (tag == &signal_tag) {
				struct signalfd_siginfo si;
				while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					if (si.ssi_signo != SIGHUP)
						running = false;
					else if (config_reload())
						algd_log(LOG_WARNING, "configuration not reloaded; old settings kept");
					else
						logmsg(0, "configuration reloaded");
				}
			} else {
				struct conn *c = tag;
				if (c->closed)
					continue;
				if (evs[i].events & EPOLLIN)
					on_readable(c);
				else
					conn_close(c);	/* HUP or error with nothing to read */
			}
		}
		free_closed_conns();
	}
	while (conns)
		conn_close(conns);
	free_closed_conns();
	keystore_clear();
	listener_close(lfd, opts);
	return 0;
}
