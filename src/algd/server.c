/* The daemon's transport side: one epoll loop serving every connection.
 *
 * A connection is an AF_ALG socket of some client (see proto.h).  Frames
 * are parsed strictly; anything malformed ends that connection only.  A
 * request the kernel would sleep on stays unanswered ("parked") and is
 * retried after each later request on the same connection, which is the
 * only place its state can change. */
#include "server.h"
#include "afalg.h"
#include "proto.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

struct conn {
	int fd;
	bool greeted;		/* HELLO seen (op connections are born greeted) */
	struct alg_sock *sk;
	uint8_t *parked;	/* a request waiting for state to change */
	size_t parked_len;
	struct conn *prev, *next;
};

static struct conn *conns;
static int epfd = -1;
static int verbose;
static _Alignas(8) uint8_t rxbuf[UALG_FRAME_MAX];	/* header, then body */
static uint8_t txdata[UALG_DATA_MAX];

static void logmsg(int level, const char *fmt, ...)
{
	if (level > verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("algd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static struct conn *conn_add(int fd, struct alg_sock *sk, bool greeted)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };

	if (!c)
		return NULL;
	c->fd = fd;
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

static void conn_close(struct conn *c)
{
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	afalg_sock_put(c->sk);
	if (c->parked) {
		ualg_wipe(c->parked, c->parked_len);
		free(c->parked);
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
}

static int reply(struct conn *c, uint16_t type, uint16_t flags, int32_t result,
		 const void *data, size_t len, int fd)
{
	struct iovec part = { (void *)data, len };

	return ualg_frame_send(c->fd, type, UALG_HDR_REPLY | flags, result, &part, len ? 1 : 0, fd);
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
	int r = afalg_bind(c->sk, (const char *)b.type, b.feat, b.mask, name);
	logmsg(2, "bind %s %s: %d", b.type, name, r);
	return reply(c, UALG_MSG_BIND, 0, r, NULL, 0, -1) ? -1 : 0;
}

static int on_setsockopt(struct conn *c, const uint8_t *body, size_t len)
{
	struct ualg_sockopt o;

	if (len < sizeof(o))
		return -1;
	memcpy(&o, body, sizeof(o));
	if (o.optlen > UALG_SOCKOPT_MAX || len != sizeof(o) + o.optlen)
		return -1;
	int r = afalg_setsockopt(c->sk, o.level, o.optname, body + sizeof(o), o.optlen);
	return reply(c, UALG_MSG_SETSOCKOPT, 0, r, NULL, 0, -1) ? -1 : 0;
}

static int on_accept(struct conn *c, size_t len)
{
	struct alg_sock *op = NULL;
	int sv[2];

	if (len != 0)
		return -1;
	int r = afalg_accept(c->sk, &op);
	if (r)
		return reply(c, UALG_MSG_ACCEPT, 0, r, NULL, 0, -1) ? -1 : 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		r = -errno;
		afalg_sock_put(op);
		return reply(c, UALG_MSG_ACCEPT, 0, r, NULL, 0, -1) ? -1 : 0;
	}
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	if (!conn_add(sv[0], op, true)) {
		close(sv[0]);
		close(sv[1]);
		afalg_sock_put(op);
		return reply(c, UALG_MSG_ACCEPT, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	}
	r = reply(c, UALG_MSG_ACCEPT, 0, 0, NULL, 0, sv[1]);
	close(sv[1]);
	return r ? -1 : 0;
}

/* Returns 1 when the request was parked. */
static int on_send(struct conn *c, const uint8_t *body, size_t len)
{
	struct ualg_send m;

	if (len < sizeof(m))
		return -1;
	memcpy(&m, body, sizeof(m));
	if ((m.flags & ~UALG_SEND_FLAGS_ALL) || m.ivlen > UALG_IV_MAX ||
	    len < sizeof(m) + m.ivlen || (!(m.flags & UALG_SEND_IV) && m.ivlen))
		return -1;
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
		.data = body + sizeof(m) + m.ivlen,
		.len = len - sizeof(m) - m.ivlen,
	};
	int r = afalg_send(c->sk, &s);
	if (r == AFALG_WAIT)
		return 1;
	return reply(c, UALG_MSG_SEND, 0, r, NULL, 0, -1) ? -1 : 0;
}

static int on_recv(struct conn *c, const uint8_t *body, size_t len)
{
	struct ualg_recv m;
	bool trunc = false;

	if (len != sizeof(m))
		return -1;
	memcpy(&m, body, sizeof(m));
	if ((m.flags & ~UALG_RECV_FLAGS_ALL) || m.len > UALG_DATA_MAX)
		return -1;
	int r = afalg_recv(c->sk, txdata, m.len, m.flags & UALG_RECV_DONTWAIT, &trunc);
	if (r == AFALG_WAIT)
		return 1;
	int s = reply(c, UALG_MSG_RECV, trunc ? UALG_HDR_TRUNC : 0, r, txdata, r > 0 ? (size_t)r : 0, -1);
	ualg_wipe(txdata, r > 0 ? (size_t)r : 0);
	return s ? -1 : 0;
}

/* Dispatches one frame; returns 0, 1 (parked) or -1 (drop connection). */
static int dispatch(struct conn *c, const uint8_t *frame, size_t len)
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
	case UALG_MSG_SEND: return on_send(c, body, blen);
	case UALG_MSG_RECV: return on_recv(c, body, blen);
	default: return -1;
	}
}

static void retry_parked(struct conn *c)
{
	uint8_t *frame = c->parked;
	size_t len = c->parked_len;

	c->parked = NULL;
	int r = dispatch(c, frame, len);
	if (r == 1) {
		c->parked = frame;
		return;
	}
	ualg_wipe(frame, len);
	free(frame);
	if (r < 0)
		conn_close(c);
}

static void on_readable(struct conn *c)
{
	struct iovec body = { rxbuf + sizeof(struct ualg_hdr), sizeof(rxbuf) - sizeof(struct ualg_hdr) };
	ssize_t n = ualg_frame_recv(c->fd, (struct ualg_hdr *)rxbuf, &body, 1, NULL, 1);

	if (n == -EAGAIN)
		return;
	if (n <= 0) {
		if (n < 0)
			logmsg(1, "connection %d: bad frame (%s), closing", c->fd, strerror((int)-n));
		conn_close(c);
		return;
	}
	int r = dispatch(c, rxbuf, (size_t)n);
	if (r < 0) {
		logmsg(1, "connection %d: invalid request, closing", c->fd);
		/* Tell the client why before the connection ends. */
		reply(c, ((struct ualg_hdr *)rxbuf)->type, 0, -EPROTO, NULL, 0, -1);
		conn_close(c);
	} else if (r == 1) {
		if (c->parked) {
			/* One waiter per socket; a second would wait forever. */
			reply(c, ((struct ualg_hdr *)rxbuf)->type, 0, -EAGAIN, NULL, 0, -1);
		} else if ((c->parked = malloc((size_t)n))) {
			memcpy(c->parked, rxbuf, (size_t)n);
			c->parked_len = (size_t)n;
		} else {
			conn_close(c);
		}
		ualg_wipe(rxbuf, (size_t)n);
	} else {
		ualg_wipe(rxbuf, (size_t)n);
		if (c->parked)
			retry_parked(c);
	}
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)];

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "algd: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	/* The directory is ours alone unless an administrator made it. */
	strcpy(dir, path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST) {
			fprintf(stderr, "algd: cannot create %s: %s\n", dir, strerror(errno));
			return -1;
		}
	}
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	/* A stale socket from a dead daemon is replaced; a live one is not. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		fprintf(stderr, "algd: another algd is serving %s\n", path);
		close(fd);
		return -1;
	}
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 128)) {
		fprintf(stderr, "algd: cannot listen on %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void on_listener(int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		struct alg_sock *sk = afalg_sock_new();
		if (!sk || !conn_add(fd, sk, false)) {
			afalg_sock_put(sk);
			close(fd);
		}
	}
}

int server_run(const struct server_opts *opts)
{
	static int listener_tag, signal_tag;
	sigset_t mask;

	verbose = opts->verbose;
	int lfd = listen_on(opts->socket_path);
	if (lfd < 0)
		return 1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || epfd < 0)
		return 1;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &listener_tag };
	epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.ptr = &signal_tag;
	epoll_ctl(epfd, EPOLL_CTL_ADD, sfd, &ev);

	if (opts->ready_fd >= 0) {
		(void)!write(opts->ready_fd, "1", 1);
		close(opts->ready_fd);
	}
	logmsg(1, "listening on %s", opts->socket_path);

	for (bool running = true; running;) {
		struct epoll_event evs[64];
		int n = epoll_wait(epfd, evs, 64, -1);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;
			if (tag == &listener_tag) {
				on_listener(lfd);
			} else if (tag == &signal_tag) {
				struct signalfd_siginfo si;
				while (read(sfd, &si, sizeof(si)) == sizeof(si))
					if (si.ssi_signo != SIGHUP)
						running = false;
			} else {
				struct conn *c = tag;
				if (evs[i].events & EPOLLIN)
					on_readable(c);
				else
					conn_close(c);	/* HUP or error with nothing to read */
			}
		}
	}
	while (conns)
		conn_close(conns);
	close(lfd);
	unlink(opts->socket_path);
	return 0;
}
