/* algd's request dispatch: parsing a frame and the handlers of the
 * control requests (see dispatch.h); the data path is transfer_serve.c's,
 * waiting wait.c's, the shared memory payload.c's. */
#include "dispatch.h"
#include "admin.h"
#include "algd_afalg.h"
#include "clock.h"
#include "engine_ctl.h"
#include "fast_serve.h"
#include "keystore.h"
#include "log.h"
#include "offload.h"
#include "policy.h"
#include "ring.h"
#include "transfer_serve.h"
#include "wait.h"
#include "kabi.h"
#include "msg.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SOCK_MIN_SNDBUF 4608u	/* 2 * (2048 + sizeof(struct sk_buff)) on 6.1 */

/* net.core.wmem_max, read once at start (its default when unreadable). */
void dispatcher_init(struct dispatcher *d, void (*dispose_fd)(int fd, void *account))
{
	FILE *f = fopen("/proc/sys/net/core/wmem_max", "re");
	unsigned long v;

	d->wmem_max = KABI_WMEM_MAX;
	d->owner_uid = (uid_t)-1;
	d->dispose_fd = dispose_fd;
	if (!f)
		return;
	if (fscanf(f, "%lu", &v) == 1 && v > 0 && v <= INT32_MAX / 2)
		d->wmem_max = (uint32_t)v;
	fclose(f);
}

uint8_t *dispatcher_recv_buffer(struct dispatcher *d, size_t n)
{
	if (n > d->recvbuf_cap) {
		uint8_t *b = malloc(n);
		if (!b)
			return NULL;
		free(d->recvbuf);
		d->recvbuf = b;
		d->recvbuf_cap = n;
	}
	return d->recvbuf;
}

/* ---- request handlers: each returns 0 to continue, -1 to drop ------- */

/* quiet (UALG_HDR_QUIET): a request sent ahead, answered only if it fails. */
static int on_hello(struct conn *c, const uint8_t *body, size_t len, bool quiet)
{
	struct ualg_hello h;

	if (c->greeted || ualg_decode_hello(body, len, &h))
		return -1;
	if (h.version != UALG_PROTO_VERSION) {
		conn_reply(c, UALG_MSG_HELLO, quiet ? UALG_HDR_QUIET : 0, -EPROTONOSUPPORT, NULL, 0, -1);
		return -1;
	}
	c->greeted = true;
	if (quiet)
		return 0;
	return conn_reply(c, UALG_MSG_HELLO, 0, UALG_PROTO_VERSION, NULL, 0, -1) ? -1 : 0;
}

static int on_bind(struct conn *c, const uint8_t *body, size_t len, bool quiet)
{
	struct ualg_bind_msg m;

	if (ualg_decode_bind(body, len, &m))
		return -1;
	const struct ualg_bind b = m.hdr;
	const char *name = m.name;
	const bool ruled = policy_has_alg_rules();
	int r = afalg_bind(c->sk, (const char *)b.type, b.feat, b.mask, name, ruled ? &c->who : NULL);
	log_verbose(2, "bind %s %s: %d", b.type, name, r);
	if (quiet && !r)
		return 0;
	return conn_reply(c, UALG_MSG_BIND, quiet ? UALG_HDR_QUIET : 0, r, NULL, 0, -1) ? -1 : 0;
}

static int on_setsockopt(struct conn *c, const uint8_t *body, size_t len, bool quiet)
{
	struct ualg_sockopt_msg m;

	if (ualg_decode_sockopt(body, len, &m))
		return -1;
	const struct ualg_sockopt o = m.hdr;
	const bool by_name = o.optname == UALG_SET_KEY_BY_NAME;
	const struct afalg_optval v = {
		.data = m.value, .len = o.vallen, .optlen = o.optlen,
		.too_big = o.flags & UALG_SOCKOPT_TOOBIG, .fault = o.flags & UALG_SOCKOPT_FAULT,
		.keyref_err = o.keyref_err,
		.caller = by_name ? &c->who : NULL,
	};
	int r = afalg_setsockopt(c->sk, o.level, o.optname, &v);
	if (quiet && r >= 0)
		return 0;
	const struct ualg_sockopt_reply rep = {
		.key_gen = c->sk->connected ? c->sk->parent->key_gen : c->sk->key_gen,
	};
	return conn_reply(c, UALG_MSG_SETSOCKOPT, quiet ? UALG_HDR_QUIET : 0, r, &rep,
			  r >= 0 ? sizeof(rep) : 0, -1) ? -1 : 0;
}

/* The reply to an accept that made op socket oc (c itself for
 * ACCEPT_HERE), with the fd of its other end or -1: its token and how the
 * program may serve it.  None for a quiet ACCEPT_HERE (DESCRIBE gives the
 * token). */
static int accepted(struct conn *c, struct conn *oc, uint16_t type, int fd, bool quiet)
{
	struct ualg_accept_reply rep;
	/* OpenSSL's DRBG, seeded by the kernel: no system call per socket. */
	if (RAND_bytes(oc->token, sizeof(oc->token)) == 1) {
		oc->has_token = true;
		memcpy(rep.token, oc->token, sizeof(rep.token));
	} else {
		memset(rep.token, 0, sizeof(rep.token));	/* no channels: it stays one stream */
	}
	if (quiet)
		return 0;
	engine_ctl_info(oc->sk, &rep.engine);
	return conn_reply(c, type, 0, 0, &rep, sizeof(rep), fd) ? -1 : 0;
}

static int on_accept(struct conn *c, size_t len)
{
	struct alg_sock *op = NULL;
	int sv[2];

	if (ualg_decode_empty(len))
		return -1;
	/* Its fd table is full, as far as algd goes; or algd holds as many
	 * fds for the uid as it may. */
	if (client_full(c->cl) || account_fds(c->cl->acct, 1))
		return conn_reply(c, UALG_MSG_ACCEPT, 0, -EMFILE, NULL, 0, -1) ? -1 : 0;
	int r = afalg_accept(c->sk, &op);
	if (!r && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		r = -errno;
		afalg_sock_put(op);
	}
	if (r) {
		account_fds_put(c->cl->acct, 1);
		return conn_reply(c, UALG_MSG_ACCEPT, 0, r, NULL, 0, -1) ? -1 : 0;
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
		return conn_reply(c, UALG_MSG_ACCEPT, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	}
	oc->who = c->who;
	oc->admin = c->admin;
	oc->key_admin = c->key_admin;
	r = accepted(c, oc, UALG_MSG_ACCEPT, sv[1], false);
	close(sv[1]);
	return r;
}

/* The connection becomes the op socket accepted from its transform
 * (proto.h): one socket still, on the uid's budgets as before. */
static int on_accept_here(struct conn *c, size_t len, bool quiet)
{
	if (ualg_decode_empty(len))
		return -1;
	struct alg_sock *tfm = c->sk, *op = NULL;
	int r = -EINVAL;
	if (!c->has_token && !tfm->connected && !tfm->mode && !tfm->children && !c->ring && !c->shm &&
	    !c->fast && !c->parked)
		r = afalg_accept(tfm, &op);
	if (r)
		return conn_reply(c, UALG_MSG_ACCEPT_HERE, quiet ? UALG_HDR_QUIET : 0, r, NULL, 0, -1) ? -1 : 0;
	c->sk = op;
	afalg_sock_put(tfm);	/* op holds it */
	return accepted(c, c, UALG_MSG_ACCEPT_HERE, -1, quiet);
}

/* The connection's socket closes and a fresh one takes its place
 * (proto.h); no reply. */
static int on_reset(struct conn *c, size_t len)
{
	if (ualg_decode_empty(len) || !conn_resettable(c))
		return -1;
	struct alg_sock *sk = afalg_sock_new();
	if (!sk)
		return -1;
	conn_reset(c, sk);
	return 0;
}

/* A live op socket of the caller's uid named by its token, or NULL. */
static struct conn *op_of_token(const struct conn *c, const uint8_t token[UALG_TOKEN_BYTES])
{
	for (struct conn *op = conn_list(); op; op = op->next)
		if (op != c && op->has_token && !op->closed && op->who.uid == c->who.uid &&
		    !ualg_memneq(op->token, token, UALG_TOKEN_BYTES))
			return op;
	return NULL;
}

/* A connection that is nothing yet: no bind, mode, ring, shared memory. */
static bool fresh(const struct conn *c)
{
	const struct alg_sock *sk = c->sk;
	return !c->has_token && !sk->type && !sk->connected && !sk->mode && !sk->children &&
	       !c->ring && !c->shm && !c->fast && !c->parked;
}

/* Another channel to an op socket of the caller's uid (proto.h), on a
 * connection that is nothing yet. */
static int on_attach(struct conn *c, const uint8_t *body, size_t len)
{
	struct ualg_attach m;
	if (ualg_decode_attach(body, len, &m))
		return -1;
	struct conn *op = fresh(c) ? op_of_token(c, m.token) : NULL;
	int r = !fresh(c) ? -EINVAL : !op ? -ENOENT : conn_attach(c, op) ? 0 : -EMFILE;
	ualg_wipe(&m, sizeof(m));
	return conn_reply(c, UALG_MSG_ATTACH, 0, r, NULL, 0, -1) ? -1 : 0;
}

/* The transform of an op socket of the caller's uid, on a connection that
 * is nothing yet (proto.h): one more reference to it. */
static int on_attach_tfm(struct conn *c, const uint8_t *body, size_t len)
{
	struct ualg_attach m;
	if (ualg_decode_attach(body, len, &m))
		return -1;
	struct conn *op = fresh(c) ? op_of_token(c, m.token) : NULL;
	ualg_wipe(&m, sizeof(m));
	struct alg_sock *tfm = op && op->sk->connected ? op->sk->parent : NULL;
	int r = !fresh(c) ? -EINVAL : !tfm || tfm->mode ? -ENOENT : 0;
	if (!r) {
		afalg_sock_put(c->sk);
		c->sk = tfm;
		tfm->ref++;
	}
	return conn_reply(c, UALG_MSG_ATTACH_TFM, 0, r, NULL, 0, -1) ? -1 : 0;
}

static int on_poll(struct conn *c, size_t len)
{
	if (ualg_decode_empty(len))
		return -1;
	return conn_reply(c, UALG_MSG_POLL, 0, (int32_t)afalg_poll(c->sk), NULL, 0, -1) ? -1 : 0;
}

/* Algorithm administration and named keys share one shape: a handler
 * that fills a reply body, or says the frame was malformed.  Privilege was
 * decided when the client connected, as the kernel checks the netlink
 * socket's opener. */
typedef int admin_handler(uint16_t type, const uint8_t *body, size_t len, bool privileged,
			  uint8_t *out, size_t outsize, size_t *outlen);

static int serve_admin(struct dispatcher *d, struct conn *c, uint16_t type, const uint8_t *body,
		       size_t len, admin_handler *handler, bool privileged, int bad_frame)
{
	size_t outlen;
	int r = handler(type, body, len, privileged, d->admin_out, sizeof(d->admin_out), &outlen);

	if (r == bad_frame)
		return -1;
	log_verbose(2, "admin request %u: %d", type, r);
	return conn_reply(c, type, 0, r, d->admin_out, outlen, -1) ? -1 : 0;
}

/* For a program that inherited the fd across execve: what this socket is
 * (never its key or state). */
static int on_describe(struct conn *c, size_t len)
{
	struct ualg_describe d = { 0 };

	if (ualg_decode_empty(len))
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
	if (c->has_token)
		memcpy(d.token, c->token, sizeof(d.token));
	return conn_reply(c, UALG_MSG_DESCRIBE, 0, 0, &d, sizeof(d), -1) ? -1 : 0;
}

static int on_engine(struct conn *c, uint16_t type, const uint8_t *body, size_t len)
{
	struct ualg_engine_info info;
	if (type == UALG_MSG_ENGINE) {
		if (ualg_decode_empty(len))
			return -1;
		engine_ctl_info(c->sk, &info);
		return conn_reply(c, type, 0, 0, &info, sizeof(info), -1) ? -1 : 0;
	}
	int r = engine_ctl_adopt(c->sk, &c->who, body, len);
	return r == -1 || conn_reply(c, type, 0, r, NULL, 0, -1) ? -1 : 0;
}

static int on_sndbuf(const struct dispatcher *d, struct conn *c, const uint8_t *body, size_t len)
{
	struct ualg_sndbuf b;

	if (ualg_decode_sndbuf(body, len, &b))
		return -1;
	/* What sock_setsockopt() can have made of any value: at most twice
	 * net.core.wmem_max, at least SOCK_MIN_SNDBUF. */
	c->sk->sndbuf = b.bytes > 2 * d->wmem_max ? 2 * d->wmem_max
		      : b.bytes < SOCK_MIN_SNDBUF ? SOCK_MIN_SNDBUF : b.bytes;
	return conn_reply(c, UALG_MSG_SNDBUF, 0, 0, NULL, 0, -1) ? -1 : 0;
}

/* ---- RFC mode: never parked, see proto.h ---------------------------- */

static int on_rfc_mode(struct conn *c, uint16_t type, size_t len)
{
	if (ualg_decode_empty(len))
		return -1;
	int r = type == UALG_MSG_RFC_MODE ? afalg_rfc_mode(c->sk) : afalg_rfc_listen(c->sk);
	return conn_reply(c, type, 0, r, NULL, 0, -1) ? -1 : 0;
}

static int on_rfc_io(struct dispatcher *d, struct conn *c, uint16_t type, const uint8_t *body,
		     size_t len)
{
	struct ualg_rfc_io_msg io;

	if (ualg_decode_rfc_io(body, len, type, &io))
		return -1;
	const struct ualg_rfc_io m = io.hdr;
	if (type == UALG_MSG_RFC_WRITE) {
		int r = afalg_rfc_write(c->sk, io.data, m.len, m.flags & UALG_RFC_MORE,
					m.flags & UALG_RFC_OOB);
		return conn_reply(c, type, 0, r, NULL, 0, -1) ? -1 : 0;
	}
	uint8_t *out = m.len ? dispatcher_recv_buffer(d, m.len) : NULL;
	if (!m.len || !out)	/* a read of nothing is nothing */
		return conn_reply(c, type, 0, m.len ? -ENOMEM : 0, NULL, 0, -1) ? -1 : 0;
	int r = afalg_rfc_read(c->sk, out, m.len);
	r = conn_reply(c, type, 0, r, out, r > 0 ? (size_t)r : 0, -1);
	ualg_wipe(out, m.len);
	return r ? -1 : 0;
}

static int dispatch_frame(struct dispatcher *d, struct conn *c, const uint8_t *frame, size_t len,
			  struct request *req);

/* Never waiting for the ring's worker (ring.h): with the offload worker to
 * wait for it, a busy ring's request is run again once it steps aside. */
static int on_ring_control(const struct dispatcher *d, struct conn *c, uint16_t type,
			   const uint8_t *body, size_t len, const struct request *req)
{
	struct ring *r = c->ring;

	if (r && d->offload && !ring_ctl_begin(r, req->ring_waited))
		return DISPATCH_RING_BUSY;
	int ret = ring_request(&c->ring, c->fd, &c->who, c->cl->acct, type, body, len);
	if (r && d->offload)
		ring_ctl_end(r);
	return ret;
}

/* Instances a request builds are its client's (crypto.h's builder). */
int dispatch(struct dispatcher *d, struct conn *c, const uint8_t *frame, size_t len,
	     struct request *req)
{
	const uint16_t type = ((const struct ualg_hdr *)frame)->type;
	const bool keys = type == UALG_MSG_KEY_ADD || type == UALG_MSG_KEY_DEL || type == UALG_MSG_KEY_LIST;

	ualg_secure_set_budget(keys ? NULL : &c->cl->acct->keys);
	if (!d->worker)	/* the builder is global: the event loop's alone */
		ualg_set_builder(c->admin || c->who.uid == d->owner_uid ? UALG_BUILDER_NONE : c->who.uid);
	int r = dispatch_frame(d, c, frame, len, req);
	if (!d->worker)
		ualg_set_builder(UALG_BUILDER_NONE);
	ualg_secure_set_budget(NULL);
	return r;
}

static int dispatch_frame(struct dispatcher *d, struct conn *c, const uint8_t *frame, size_t len,
			  struct request *req)
{
	struct ualg_hdr h;

	memcpy(&h, frame, sizeof(h));
	const uint8_t *body = frame + sizeof(h);
	const size_t blen = len - sizeof(h);

	/* Requests carry no result, and no flag but the UALG_HDR_QUIET of a
	 * HELLO, BIND, SETSOCKOPT or ACCEPT_HERE. */
	const bool quiet = h.flags == UALG_HDR_QUIET &&
			   (h.type == UALG_MSG_HELLO || h.type == UALG_MSG_BIND ||
			    h.type == UALG_MSG_SETSOCKOPT || h.type == UALG_MSG_ACCEPT_HERE);
	if ((h.flags && !quiet) || h.result)
		return -1;
	/* The client's next request is likely on its way (a socket's set-up
	 * is a few requests in a row, data calls follow each other): the
	 * loop polls for it a while before it sleeps (server.c). */
	d->spin_until = now_us() + ring_poll_us();
	if (!c->greeted)
		return h.type == UALG_MSG_HELLO ? on_hello(c, body, blen, quiet) : -1;
	switch (h.type) {
	case UALG_MSG_BIND: return on_bind(c, body, blen, quiet);
	case UALG_MSG_SETSOCKOPT: return on_setsockopt(c, body, blen, quiet);
	case UALG_MSG_ACCEPT: return on_accept(c, blen);
	case UALG_MSG_ACCEPT_HERE: return on_accept_here(c, blen, quiet);
	case UALG_MSG_SEND:
		return transfer_serve_send(d, c, body, blen, false, req);
	case UALG_MSG_RECV:
		return transfer_serve_recv(d, c, body, blen, false, req);
	case UALG_MSG_SEND_SHM:
		return transfer_serve_send(d, c, body, blen, true, req);
	case UALG_MSG_RECV_SHM:
		return transfer_serve_recv(d, c, body, blen, true, req);
	case UALG_MSG_SHM_SETUP: return payload_setup(c, blen);
	case UALG_MSG_NOTIFY_SETUP: return notify_setup(c, blen);
	case UALG_MSG_CONTROL_SETUP: return control_setup(c, blen);
	case UALG_MSG_FAST_SETUP: return fast_serve_setup(c, blen);
	case UALG_MSG_FAST_KICK: return fast_serve_kick(c, blen);
	case UALG_MSG_POLL: return on_poll(c, blen);
	case UALG_MSG_CANCEL: return wait_cancel(c, blen);
	case UALG_MSG_ALG_GET:
	case UALG_MSG_ALG_DUMP:
	case UALG_MSG_ALG_UPDATE:
	case UALG_MSG_ALG_NEW:
	case UALG_MSG_ALG_DEL:
	case UALG_MSG_ALG_SAVE:
	case UALG_MSG_ALG_DISABLE:
	case UALG_MSG_ALG_CHECK_ADMIN:
	case UALG_MSG_ALG_ENGINE:
		return serve_admin(d, c, h.type, body, blen, admin_request, c->admin, ADMIN_BAD_FRAME);
	case UALG_MSG_KEY_ADD:
	case UALG_MSG_KEY_DEL:
	case UALG_MSG_KEY_LIST:
		return serve_admin(d, c, h.type, body, blen, keystore_request, c->key_admin,
				   KEYSTORE_BAD_FRAME);
	case UALG_MSG_DESCRIBE: return on_describe(c, blen);
	case UALG_MSG_ATTACH: return on_attach(c, body, blen);
	case UALG_MSG_ATTACH_TFM: return on_attach_tfm(c, body, blen);
	case UALG_MSG_RESET: return on_reset(c, blen);
	case UALG_MSG_SNDBUF: return on_sndbuf(d, c, body, blen);
	case UALG_MSG_ENGINE:
	case UALG_MSG_ADOPT: return on_engine(c, h.type, body, blen);
	case UALG_MSG_RING_SETUP:
		return ring_request(&c->ring, c->fd, &c->who, c->cl->acct, h.type, body, blen);
	case UALG_MSG_RING_OPEN:
	case UALG_MSG_RING_SETKEY:
	case UALG_MSG_RING_SETAUTHSIZE:
	case UALG_MSG_RING_SETKEY_NAMED:
	case UALG_MSG_RING_CLOSE:
		return on_ring_control(d, c, h.type, body, blen, req);
	case UALG_MSG_RFC_MODE:
	case UALG_MSG_RFC_LISTEN: return on_rfc_mode(c, h.type, blen);
	case UALG_MSG_RFC_WRITE:
	case UALG_MSG_RFC_READ:
		return on_rfc_io(d, c, h.type, body, blen);
	default: return -1;
	}
}

enum settle dispatch_settle(struct dispatcher *d, struct conn *c, size_t n, const struct request *req,
			   int r)
{
	const uint16_t type = ((struct ualg_hdr *)d->rxbuf)->type;

	if (r < 0 && c->hung_up)
		return SETTLE_CLOSE;	/* the client closed before its reply */
	if (r < 0) {
		log_verbose(1, "connection %d: invalid request, closing", c->fd);
		/* Tell the client why before the connection ends. */
		conn_reply(c, type, 0, -EPROTO, NULL, 0, -1);
		return SETTLE_CLOSE;
	}
	if (r == DISPATCH_PARKED) {
		/* One waiter per socket: a second gets EAGAIN. */
		if (c->parked)
			return conn_reply(c, type, 0, -EAGAIN, NULL, 0, -1) ? SETTLE_CLOSE : SETTLE_DONE;
		return wait_park(d, c, n, req) ? SETTLE_CLOSE : SETTLE_DONE;
	}
	return c->parked && type != UALG_MSG_CANCEL ? SETTLE_RETRY : SETTLE_DONE;
}

void dispatch_readable(struct dispatcher *d, struct conn *c)
{
	if (d->offload && offload_defer(c))
		return;
	struct iovec body = { d->rxbuf + sizeof(struct ualg_hdr), sizeof(d->rxbuf) - sizeof(struct ualg_hdr) };
	ssize_t n = ualg_frame_recv_nofd(c->fd, (struct ualg_hdr *)d->rxbuf, &body, 1, d->dispose_fd,
					  c->cl->acct);
	/* What the buffer may hold a key in: the whole of it when the frame
	 * was refused (its length is not known then), nothing at EOF. */
	size_t used = n > 0 ? (size_t)n : n < 0 ? sizeof(d->rxbuf) : 0;

	if (n == -EAGAIN)
		return;
	if (n <= 0) {
		if (n < 0)
			log_verbose(1, "connection %d: bad frame (%s), closing", c->fd, strerror((int)-n));
		conn_close(c);
		goto out;
	}
	conn_reap_closed_children(c);
	if (d->offload && offload_wanted(c, d->rxbuf, (size_t)n)) {
		if (offload_submit(c, d->rxbuf, (size_t)n, NULL))
			conn_close(c);
		goto out;
	}
	struct request req = { 0 };
	int r = dispatch(d, c, d->rxbuf, (size_t)n, &req);
	if (r == DISPATCH_RING_BUSY) {
		if (offload_ring_wait(c, d->rxbuf, (size_t)n))
			conn_close(c);
		goto out;
	}
	struct conn *chans = c->chan_next;	/* c may close */
	switch (dispatch_settle(d, c, (size_t)n, &req, r)) {
	case SETTLE_CLOSE: conn_close(c); break;
	case SETTLE_RETRY: wait_retry(d, c); break;
	case SETTLE_DONE: break;
	}
	wait_wake_channels(d, chans, c);
	if (c->fast_kicked && fast_serve_request(d, c) < 0)
		conn_close(c);
	/* The poll for the next request counts from the end of this one's
	 * work: a large one (64 KiB of a cipher) takes most of the window. */
	if (d->spin_until)
		d->spin_until = now_us() + ring_poll_us();
out:
	ualg_wipe(d->rxbuf, used);
}
