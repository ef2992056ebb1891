/* An op socket's requests on its shared page (proto.h, struct ualg_fast):
 * a SEND or RECV while no other request of the socket is in flight is
 * written into the page, and its reply read from it.  With algd
 * busy-polling, neither side makes a system call; otherwise one FAST_KICK
 * wakes it, and the reply is waited for on a futex.  A request that would
 * wait in algd comes back unserved and goes on the socket. */
#include "shim.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void fast_setup(struct afd *a, int fd)
{
	int none = NOTIFY_NONE;
	if (!atomic_compare_exchange_strong(&a->fast_state, &none, NOTIFY_BUSY))
		return;
	int result = 0;
	a->fast = client_page(a, fd, UALG_MSG_FAST_SETUP, UALG_FAST_SIZE, &result);
	atomic_store(&a->fast_state, a->fast ? NOTIFY_READY : NOTIFY_NEVER);
	/* The page's replies word is algd's reply counter where the
	 * connection had none: no NOTIFY_SETUP of its own then. */
	none = NOTIFY_NONE;
	if (a->fast && result == UALG_FAST_COUNTS &&
	    atomic_compare_exchange_strong(&a->notify_state, &none, NOTIFY_BUSY)) {
		a->notify_in_fast = true;
		a->notify = &a->fast->replies;
		atomic_store(&a->notify_state, NOTIFY_READY);
	}
}

void fast_forget(struct afd *a)
{
	if (atomic_load(&a->fast_state) == NOTIFY_READY)
		munmap(a->fast, UALG_FAST_SIZE);
	a->fast = NULL;
}

bool fast_usable(const struct afd *a, const struct xact *x)
{
	if (!a->fast)
		return false;
	size_t len = sizeof(struct ualg_hdr), cap = 0;
	for (int i = 0; i < x->nparts; i++)
		len += x->parts[i].iov_len;
	for (int i = 0; i < x->nrbody; i++)
		cap += x->rbody[i].iov_len;
	/* A reply carries at most the caller's buffer; a digest, at most the
	 * largest digest, whatever the buffer. */
	if (a->type == ALG_TYPE_HASH && cap > KABI_HASH_MAX_DIGESTSIZE)
		cap = KABI_HASH_MAX_DIGESTSIZE;
	return len <= UALG_FAST_FRAME_MAX && sizeof(struct ualg_hdr) + cap <= UALG_FAST_FRAME_MAX;
}

/* The request's frame into the page: -EFAULT when the caller's data
 * cannot be read (nothing was posted then). */
static int fill(uint8_t *req, const struct xact *x)
{
	struct ualg_hdr h = { .len = sizeof(h), .type = x->type };
	size_t off = sizeof(h);

	for (int i = 0; i < x->nparts; i++) {
		if (copy_in(req + off, x->parts[i].iov_base, x->parts[i].iov_len))
			return -EFAULT;
		off += x->parts[i].iov_len;
	}
	h.len = (uint32_t)off;
	memcpy(req, &h, sizeof(h));
	return 0;
}

/* Why no reply will come: the fd closed by another thread (EBADF, as a
 * receive on it would say), or algd's end of the connection. */
static int gone(int fd)
{
	struct pollfd p = { .fd = fd };
	return syscall(SYS_poll, &p, 1, 0) > 0 && (p.revents & POLLNVAL) ? -EBADF : -ECONNRESET;
}

/* Past the spin: sleeps on rep_seq until it holds seq, or algd says the
 * connection ended; looks at the socket now and then. */
static int sleep_reply(struct ualg_fast *f, uint32_t seq, int fd)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };

	for (;;) {
		atomic_store(&f->waiting, 1);
		atomic_thread_fence(memory_order_seq_cst);
		const uint32_t now = atomic_load_explicit(&f->rep_seq, memory_order_acquire);
		if (now == seq)
			return 0;
		if (atomic_load(&f->closed))
			return gone(fd);
		long r = syscall(SYS_futex, &f->rep_seq, FUTEX_WAIT, now, &tick, NULL, 0);
		if (r && errno == ETIMEDOUT) {
			struct pollfd p = { .fd = fd, .events = POLLRDHUP };
			if (syscall(SYS_poll, &p, 1, 0) > 0 &&
			    (p.revents & (POLLNVAL | POLLHUP | POLLRDHUP | POLLERR)))
				return gone(fd);
		}
	}
}

ssize_t fast_xact(struct afd *a, int fd, const struct xact *x, struct ualg_hdr *h)
{
	struct ualg_fast *f = a->fast;

	if (fill(f->req, x))
		return FAST_DECLINED;
	const uint32_t seq = ++a->fast_seq;
	atomic_store_explicit(&f->req_seq, seq, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&f->polling, memory_order_relaxed)) {
		int r = client_send(fd, UALG_MSG_FAST_KICK, NULL, 0);
		if (r)
			return r;
	}
	client_spin(&f->rep_seq, seq - 1, x->data_len);
	if (atomic_load_explicit(&f->rep_seq, memory_order_acquire) != seq) {
		int r = sleep_reply(f, seq, fd);
		if (r)
			return r;
	}
	memcpy(h, f->rep, sizeof(*h));
	if (h->len > sizeof(f->rep) || !ualg_frame_hdr_ok(h, h->len))
		return -EPROTO;
	if (h->flags & UALG_HDR_SOCKET)	/* it would wait: not served */
		return h->type == x->type && h->len == sizeof(*h) && !h->result ? FAST_DECLINED : -EPROTO;
	size_t left = h->len - sizeof(*h), off = sizeof(*h);
	for (int i = 0; i < x->nrbody && left; i++) {
		size_t n = x->rbody[i].iov_len < left ? x->rbody[i].iov_len : left;
		if (copy_out(x->rbody[i].iov_base, f->rep + off, n))
			return -EFAULT;	/* the reply is taken, as a recvmsg() that faults takes it */
		off += n;
		left -= n;
	}
	return left ? -EPROTO : (ssize_t)h->len;
}
