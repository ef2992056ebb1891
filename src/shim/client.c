/* Talking to algd: connecting a transform socket, and one request/reply
 * transaction at a time per socket. */
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void debug(const char *fmt, const char *arg, int err)
{
	if (secure_getenv("UALG_DEBUG"))	/* never in set-user-ID programs */
		fprintf(stderr, "ualg: %s%s: %s\n", fmt, arg, strerror(err));
}

int client_connect(int type_flags)
{
	const char *path = shim_socket_path();
	char why[256];
	int fd = ualg_connect(path, why, sizeof(why));
	if (fd == -EPERM) {
		/* Not an algd this user can trust: said always, as refused. */
		fprintf(stderr, "ualg: refusing algd at %s: %s\n", path, why);
		return -EACCES;
	}
	if (fd < 0) {
		/* No daemon: to the program this is a kernel without AF_ALG. */
		debug("cannot reach algd at ", path, -fd);
		return -EAFNOSUPPORT;
	}
	if (!(type_flags & SOCK_CLOEXEC))
		real.fcntl(fd, F_SETFD, 0);
	int r = ualg_hello(fd);
	if (r && r != -EACCES && r != -EMFILE)
		r = -EAFNOSUPPORT;	/* not an algd we can talk to */
	if (!r && (type_flags & SOCK_NONBLOCK))
		r = real.fcntl(fd, F_SETFL, O_NONBLOCK) ? -errno : 0;
	if (r) {
		debug("algd handshake failed at ", path, -r);
		real.close(fd);
		return r;
	}
	return fd;
}

/* Waits for algd's answer.  A signal handler running meanwhile returns
 * -EINTR, as the kernel's sleep in af_alg_wait_for_data() would. */
static int wait_readable(int fd, bool interruptible)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		int n = (int)syscall(SYS_poll, &p, 1, -1);
		if (n > 0)
			return 0;
		if (n < 0 && (errno != EINTR || interruptible))
			return -errno;
	}
}

/* How long a data transaction (send, receive) polls for its reply before
 * sleeping ($UALG_POLL_US, as for libualg).  Off by default: each poll is
 * a system call, and on a machine whose cores are busy the sleep costs
 * less than the polling (algd itself still polls for the next request). */
#define SHIM_POLL_US_DEFAULT 0u

static unsigned poll_us(void)
{
	static atomic_int cached = -1;
	int v = atomic_load(&cached);
	if (v < 0) {
		const char *e = getenv("UALG_POLL_US");
		v = e && *e ? atoi(e) : (int)SHIM_POLL_US_DEFAULT;
		v = v < 0 ? 0 : v > 10000 ? 10000 : v;
		atomic_store(&cached, v);
	}
	return (unsigned)v;
}

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Busy-polls (yielding the core) until the reply is there or the window
 * passed; then recv_reply() sleeps as before. */
static void poll_reply(int fd, size_t data_len)
{
	/* Plus the time the slowest common algorithms (about 500 MB/s) take
	 * over the data, so that the reply is still polled for. */
	const uint64_t window = poll_us() ? poll_us() + data_len / 512 : 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (!window)
		return;
	for (const uint64_t start = now_us(); now_us() - start < window;) {
		if (syscall(SYS_poll, &p, 1, 0) > 0)
			return;
		sched_yield();
	}
}

static ssize_t recv_reply(int fd, struct xact *x, struct ualg_hdr *h, bool interruptible)
{
	for (;;) {
		ssize_t n = ualg_frame_recv(fd, h, x->rbody, x->nrbody, x->want_fd ? &x->rfd : NULL,
					    x->cloexec);
		if (n == -EINTR && !interruptible)
			continue;
		if (n != -EAGAIN)
			return n;
		int r = wait_readable(fd, interruptible);
		if (r)
			return r;
	}
}

/* After an interrupted wait: algd answers the request (with what it had
 * done, or EINTR), then the cancel; the connection stays in step. */
static ssize_t cancel_wait(int fd, struct xact *x, struct ualg_hdr *h)
{
	struct ualg_hdr ack;
	int r = ualg_frame_send(fd, UALG_MSG_CANCEL, 0, 0, NULL, 0, -1);
	if (r)
		return r;
	ssize_t n = recv_reply(fd, x, h, false);
	if (n <= 0)
		return n;
	struct xact none = { .type = UALG_MSG_CANCEL };
	ssize_t m = recv_reply(fd, &none, &ack, false);
	if (m <= 0 || ack.type != UALG_MSG_CANCEL)
		return m < 0 ? m : -EPROTO;
	return n;
}

/* Replies are validated as strictly as requests: a confused or foreign
 * peer must not make the shim write past the caller's buffers. */
static int reply_ok(const struct xact *x, const struct ualg_hdr *h, ssize_t n, size_t cap)
{
	size_t data = (size_t)n - sizeof(*h);

	if (h->type != x->type || !(h->flags & UALG_HDR_REPLY) || data > cap)
		return 0;
	if (x->type == UALG_MSG_SHM_SETUP)
		return h->result < 0 ? data == 0 : data == sizeof(struct ualg_shm_setup_reply);
	if (x->type == UALG_MSG_ENGINE)
		return h->result < 0 ? data == 0 : data == sizeof(struct ualg_engine_info);
	if (x->type == UALG_MSG_DESCRIBE)
		return h->result < 0 ? data == 0 : data == sizeof(struct ualg_describe);
	if (x->type == UALG_MSG_RFC_READ)
		return h->result < 0 ? data == 0 : (size_t)h->result == data;
	if (x->type == UALG_MSG_RECV)
		/* An AEAD answer longer than a frame fills it; the rest
		 * follows on request (UALG_RECV_REST). */
		return h->result < 0 ? data == 0
				     : (size_t)h->result == data || (data == cap && (size_t)h->result > data);
	return data == 0;
}

int client_xact(struct afd *a, int fd, struct xact *x)
{
	struct ualg_hdr h;
	size_t cap = 0;
	int r;

	for (int i = 0; i < x->nrbody; i++)
		cap += x->rbody[i].iov_len;
	x->rfd = -1;
	x->rflags = 0;
	x->rlen = 0;
	pthread_mutex_lock(&a->lock);
	/* Send waits for room even on a non-blocking socket: the frame is
	 * small and algd drains it at once. */
	for (;;) {
		r = ualg_frame_send(fd, x->type, 0, 0, x->parts, x->nparts, -1);
		if (r != -EAGAIN)
			break;
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		syscall(SYS_poll, &p, 1, -1);
	}
	if (r) {
		pthread_mutex_unlock(&a->lock);
		return r == -EPIPE || r == -ECONNREFUSED ? -ECONNRESET : r;
	}
	if (x->type == UALG_MSG_SEND_SHM || x->type == UALG_MSG_RECV_SHM ||
	    x->type == UALG_MSG_SEND || x->type == UALG_MSG_RECV ||
	    x->type == UALG_MSG_RFC_WRITE || x->type == UALG_MSG_RFC_READ)
		poll_reply(fd, x->data_len);
	ssize_t n = recv_reply(fd, x, &h, true);
	if (n == -EINTR)
		n = cancel_wait(fd, x, &h);
	pthread_mutex_unlock(&a->lock);
	if (n == 0)
		return -ECONNRESET;	/* algd went away */
	if (n == -EPIPE || n == -ECONNRESET || n == -ENOTCONN)
		return -ECONNRESET;	/* algd died with our request unread */
	if (n < 0)
		return n == -EFAULT ? -EFAULT : -EPROTO;
	if (!reply_ok(x, &h, n, cap)) {
		if (x->rfd >= 0)
			real.close(x->rfd);
		x->rfd = -1;
		return -EPROTO;
	}
	x->rlen = (size_t)n - sizeof(h);
	x->rflags = h.flags;
	return h.result;
}
