/* The data calls: send, sendto, sendmsg, write, writev, recv, recvfrom,
 * recvmsg, read, readv (and their _FORTIFY_SOURCE names), sendmmsg and
 * recvmmsg.  Each takes in its arguments as the syscall does (kabi.h: the
 * kernel's checks in the kernel's order), then hands the imported iovecs
 * to the socket's send or recv operation. */
#include "interpose.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* MSG_HELD's pthread_cleanup_push() keeps its routine and argument in
 * locals set before glibc's sigsetjmp and never changed after, which a
 * longjmp leaves intact; gcc cannot tell, and without LTO warns that they
 * might be clobbered. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

/* An import of iovecs is 16 KiB (UIO_MAXIOV of them): the calls that take
 * an array or a message use the one their thread keeps (released when the
 * thread ends, also by cancellation inside the call: the emulated calls
 * are cancellation points); a call made by a signal handler while another
 * is using it takes one from the heap, released by a cleanup handler
 * (MSG_HELD).  A single buffer is one iovec on the stack. */
struct scratch {
	volatile sig_atomic_t busy;
	struct kabi_msg m;
};
static pthread_key_t scratch_key;
static bool scratch_ok;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static __thread struct scratch *scratch __attribute__((tls_model("initial-exec")));

static void scratch_free(void *p)
{
	struct scratch *s = p;
	if (s->busy)
		kabi_msg_release(&s->m);
	free(s);
	scratch = NULL;
}

static void scratch_init(void)
{
	scratch_ok = !pthread_key_create(&scratch_key, scratch_free);
}

static struct scratch *scratch_new(void)
{
	pthread_once(&scratch_once, scratch_init);
	struct scratch *s = scratch_ok ? calloc(1, sizeof(*s)) : NULL;
	if (s && pthread_setspecific(scratch_key, s)) {
		free(s);
		s = NULL;
	}
	return scratch = s;
}

static struct kabi_msg *msg_get(void)
{
	struct scratch *s = scratch ? scratch : scratch_new();
	if (s && !s->busy) {
		s->busy = 1;
		return &s->m;
	}
	return malloc(sizeof(struct kabi_msg));
}

static bool msg_is_scratch(const struct kabi_msg *m)
{
	return scratch && m == &scratch->m;
}

static void msg_put(void *p)
{
	int e = errno;
	struct kabi_msg *m = p;
	kabi_msg_release(m);
	if (msg_is_scratch(m))
		scratch->busy = 0;
	else
		free(m);
	errno = e;
}

/* r = call, then km put back (the thread's own is released when it ends). */
#define MSG_HELD(km, r, call) HELD_CALL(msg_is_scratch(km), msg_put, km, r, call)

/* ---- sending -------------------------------------------------------- */

/* copy_msghdr_from_user() and the control data's import (kabi), then
 * af_alg_cmsg_send()'s parse; *want: the bytes the message holds, as
 * imported. */
static ssize_t sendmsg_afd(int fd, struct afd *a, const struct msghdr *msg, int flags, size_t *want)
{
	struct kabi_msg *km = msg_get();
	if (!km)
		return sfail(ENOMEM);
	int r = kabi_msg_import(&shim_user_mem, (uintptr_t)msg, true, km);
	if (r) {
		msg_put(km);
		return sfail(-r);
	}
	struct shim_ctl ctl;
	cmsg_parse(km->ctl, km->ctllen, &ctl);
	*want = km->iov.total;
	ssize_t n;
	MSG_HELD(km, n, a->ops->send(fd, a, km->iov.v, km->iov.n, km->iov.total, &ctl, flags));
	return n;
}

static ssize_t sendmsg_want(int fd, const struct msghdr *msg, int flags, size_t *want)
{
	struct afd_hold h;
	struct afd *a = afd_enter(fd, &h);
	if (!a) {
		if (afd_any())
			shim_before_passing(msg);
		return next.sendmsg(fd, msg, flags);
	}
	ssize_t n;
	AFD_ENTERED(&h, n, sendmsg_afd(fd, a, msg, flags, want));
	return n;
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	shim_resolve();
	size_t want;
	return sendmsg_want(fd, msg, flags, &want);
}

/* One buffer through the held socket's send operation (then left):
 * write() imports it as vfs_write() (rw), send() and sendto() as
 * import_single_range(); sendto()'s address, if any, is then read as
 * move_addr_to_kernel() reads it (AF_ALG ignores it). */
static ssize_t send_one(int fd, struct afd_hold *h, const void *buf, size_t len, int flags, bool rw,
			const struct sockaddr *addr, socklen_t alen)
{
	struct afd *a = h->a;
	struct iovec v;
	uint8_t sa[KABI_SOCKADDR_MAX];
	int r = rw ? kabi_range_rw((uintptr_t)buf, len, &v) : kabi_range_single((uintptr_t)buf, len, &v);
	if (!r && addr)
		r = kabi_sockaddr_import(&shim_user_mem, (uintptr_t)addr, alen, sa);
	if (r) {
		afd_leave(h);
		return sfail(-r);
	}
	ssize_t n;
	AFD_ENTERED(h, n, a->ops->send(fd, a, &v, 1, v.iov_len, NULL, flags));
	return n;
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *addr, socklen_t alen)
{
	shim_resolve();
	struct afd_hold h;
	if (!afd_enter(fd, &h))
		return next.sendto(fd, buf, len, flags, addr, alen);
	return send_one(fd, &h, buf, len, flags, false, addr, alen);
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	shim_resolve();
	struct afd_hold h;
	return afd_enter(fd, &h) ? send_one(fd, &h, buf, len, flags, false, NULL, 0)
				 : next.send(fd, buf, len, flags);
}

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	shim_resolve();
	struct afd_hold h;
	return afd_enter(fd, &h) ? send_one(fd, &h, buf, len, 0, true, NULL, 0) : next.write(fd, buf, len);
}

/* readv() and writev(): import_iovec().  glibc
 * passes the count sign-extended, so a negative one is past UIO_MAXIOV. */
static ssize_t vec_afd(int fd, struct afd *a, const struct iovec *iov, int n, bool is_write)
{
	struct kabi_msg *km = msg_get();
	if (!km)
		return sfail(ENOMEM);
	km->ctl = NULL;
	struct kabi_iov *t = &km->iov;
	int r = kabi_iov_import(&shim_user_mem, (uintptr_t)iov, (uint64_t)(int64_t)n, KABI_IOV_RW, t);
	if (r) {
		msg_put(km);
		return sfail(-r);
	}
	ssize_t out = 0;
	if (is_write)
		MSG_HELD(km, out, a->ops->send(fd, a, t->v, t->n, t->total, NULL, 0));
	else if (t->total)	/* an empty read: sock_read_iter() answers 0 */
		MSG_HELD(km, out, a->ops->recv(fd, a, t->v, t->n, 0, NULL));
	else
		msg_put(km);
	return out;
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
	shim_resolve();
	struct afd_hold h;
	struct afd *a = afd_enter(fd, &h);
	if (!a)
		return next.writev(fd, iov, n);
	ssize_t r;
	AFD_ENTERED(&h, r, vec_afd(fd, a, iov, n, true));
	return r;
}

/* ---- receiving ------------------------------------------------------ */

/* copy_msghdr_from_user() (kabi): the name and control data are only
 * room, msg_namelen cut to sizeof(struct sockaddr_storage). */
static ssize_t recvmsg_afd(int fd, struct afd *a, struct msghdr *msg, int flags)
{
	struct kabi_msg *km = msg_get();
	if (!km)
		return sfail(ENOMEM);
	int r = kabi_msg_import(&shim_user_mem, (uintptr_t)msg, false, km);
	if (r) {
		msg_put(km);
		return sfail(-r);
	}
	int mflags = 0;
	ssize_t n;
	void *name = km->h.msg_name;	/* as imported */
	const socklen_t namelen = (socklen_t)km->namelen;
	MSG_HELD(km, n, a->ops->recv(fd, a, km->iov.v, km->iov.n, flags, &mflags));
	if (n >= 0) {
		/* No control data; no address, except a netlink reply's sender. */
		msg->msg_namelen = a->ops->recv_name ? a->ops->recv_name(name, namelen) : 0;
		msg->msg_controllen = 0;
		msg->msg_flags = mflags;
	}
	return n;
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	shim_resolve();
	struct afd_hold h;
	struct afd *a = afd_enter(fd, &h);
	if (!a) {
		ssize_t r = next.recvmsg(fd, msg, flags);
		if (r >= 0)
			shim_adopt_passed(fd, msg);
		return r;
	}
	ssize_t n;
	AFD_ENTERED(&h, n, recvmsg_afd(fd, a, msg, flags));
	return n;
}

/* One buffer through the held socket's recv operation (then left): read()
 * imports it as vfs_read() (rw; an empty read is sock_read_iter()'s 0),
 * recv() and recvfrom() as import_single_range(). */
static ssize_t recv_one(int fd, struct afd_hold *h, void *buf, size_t len, int flags, bool rw)
{
	struct afd *a = h->a;
	struct iovec v;
	int r = rw ? kabi_range_rw((uintptr_t)buf, len, &v) : kabi_range_single((uintptr_t)buf, len, &v);
	if (r || (rw && !v.iov_len)) {
		afd_leave(h);
		return r ? sfail(-r) : 0;
	}
	ssize_t n;
	AFD_ENTERED(h, n, a->ops->recv(fd, a, &v, 1, flags, NULL));
	return n;
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr, socklen_t *alen)
{
	shim_resolve();
	struct afd_hold h;
	if (!afd_enter(fd, &h))
		return next.recvfrom(fd, buf, len, flags, addr, alen);
	ssize_t n = recv_one(fd, &h, buf, len, flags, false);
	if (n >= 0 && addr && alen)
		*alen = 0;
	return n;
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	shim_resolve();
	struct afd_hold h;
	return afd_enter(fd, &h) ? recv_one(fd, &h, buf, len, flags, false) : next.recv(fd, buf, len, flags);
}

EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	shim_resolve();
	struct afd_hold h;
	return afd_enter(fd, &h) ? recv_one(fd, &h, buf, len, 0, true) : next.read(fd, buf, len);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
	shim_resolve();
	struct afd_hold h;
	struct afd *a = afd_enter(fd, &h);
	if (!a)
		return next.readv(fd, iov, n);
	ssize_t r;
	AFD_ENTERED(&h, r, vec_afd(fd, a, iov, n, false));
	return r;
}

/* The plain read and write of an op socket, for AIO (aio.c): what
 * sock_read_iter() and sock_write_iter() do for an iocb. */
ssize_t shim_op_read(int fd, struct afd *a, const struct kabi_iov *t)
{
	return t->total ? a->ops->recv(fd, a, t->v, t->n, 0, NULL) : 0;
}

ssize_t shim_op_write(int fd, struct afd *a, const struct kabi_iov *t)
{
	return a->ops->send(fd, a, t->v, t->n, t->total, NULL, 0);
}

/* _FORTIFY_SOURCE builds call these instead. */
EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		abort();
	return read(fd, buf, len);
}

EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags)
{
	if (len > buflen)
		abort();
	return recv(fd, buf, len, flags);
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
			      struct sockaddr *addr, socklen_t *alen)
{
	if (len > buflen)
		abort();
	return recvfrom(fd, buf, len, flags, addr, alen);
}

/* sendmmsg() and recvmmsg(): __sys_sendmmsg() and do_recvmmsg() are
 * loops of the single-message calls, stopping at the first error (which is
 * returned only when no message went through) or, for sends, a short one;
 * kabi_mmsg_vlen() says how many messages a call handles. */
EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned n, int flags)
{
	shim_resolve();
	if (!afd_is_ours(fd))
		return next.sendmmsg(fd, vec, n, flags);
	unsigned done = 0;
	ssize_t r = 0;
	n = kabi_mmsg_vlen(n, true);
	while (done < n) {
		size_t want = 0;
		r = sendmsg_want(fd, &vec[done].msg_hdr, flags, &want);
		if (r < 0)
			break;
		vec[done++].msg_len = (unsigned)r;
		if ((size_t)r < want)
			break;
	}
	return done ? (int)done : (int)r;
}

EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned n, int flags, struct timespec *ts)
{
	shim_resolve();
	if (!afd_is_ours(fd))
		return next.recvmmsg(fd, vec, n, flags, ts);
	unsigned done = 0;
	ssize_t r = 0;
	n = kabi_mmsg_vlen(n, false);
	while (done < n) {
		r = recvmsg(fd, &vec[done].msg_hdr, flags);
		if (r < 0)
			break;
		vec[done++].msg_len = (unsigned)r;
		if (flags & MSG_WAITFORONE)
			flags |= MSG_DONTWAIT;
	}
	if (done)
		return (int)done;
	return (int)r;
}
