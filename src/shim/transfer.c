/* The data calls: send, sendto, sendmsg, write, writev, recv, recvfrom,
 * recvmsg, read, readv (and their _FORTIFY_SOURCE names), sendmmsg and
 * recvmmsg.  Each takes in its arguments as the syscall does, then hands
 * the iovecs to the socket's send or recv operation. */
#include "interpose.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int iov_total(const struct iovec *iov, size_t n, size_t *total)
{
	size_t t = 0;

	if (n > UIO_MAXIOV_)
		return -EMSGSIZE;
	for (size_t i = 0; i < n; i++) {
		if ((ssize_t)iov[i].iov_len < 0 || iov[i].iov_len > (size_t)SSIZE_MAX - t)
			return -EINVAL;
		t += iov[i].iov_len;
	}
	/* The kernel caps one call at MAX_RW_COUNT. */
	*total = t < (size_t)INT_MAX - 4095 ? t : (size_t)INT_MAX - 4095;
	return 0;
}

ssize_t afd_send(int fd, struct afd *a, const struct iovec *iov, size_t niov,
		 const struct shim_ctl *ctl, int flags)
{
	size_t total;
	int r = iov_total(iov, niov, &total);
	if (r)
		return sfail(-r);
	return a->ops->send(fd, a, iov, niov, total, ctl, flags);
}

/* The caller's iovec array, as copy_msghdr_from_user() takes it in: up
 * to UIO_FASTIOV into fast (on the caller's stack), more into memory of
 * its own, which iovecs_free() releases. */
static int copy_iovecs(const struct msghdr *m, struct iovec fast[UIO_FASTIOV_], struct iovec **out)
{
	if (m->msg_iovlen > UIO_MAXIOV_)
		return -EMSGSIZE;
	struct iovec *iov = m->msg_iovlen <= UIO_FASTIOV_ ? fast : malloc(m->msg_iovlen * sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	if (copy_in(iov, m->msg_iov, m->msg_iovlen * sizeof(*iov))) {
		if (iov != fast)
			free(iov);
		return -EFAULT;
	}
	*out = iov;
	return 0;
}

static void iovecs_free(struct iovec *iov, const struct iovec *fast)
{
	if (iov != fast)
		free(iov);
}

/* ---- sending -------------------------------------------------------- */

static ssize_t sendmsg_afd(int fd, struct afd *a, const struct msghdr *msg, int flags)
{
	struct msghdr m;
	struct shim_ctl ctl;
	if (copy_in(&m, msg, sizeof(m)))
		return sfail(EFAULT);
	if ((int)m.msg_namelen < 0)
		return sfail(EINVAL);
	struct iovec fast[UIO_FASTIOV_], *iov;
	int r = cmsg_parse(&m, &ctl);
	if (!r)
		r = copy_iovecs(&m, fast, &iov);
	if (r)
		return sfail(-r);
	ssize_t n = afd_send(fd, a, iov, m.msg_iovlen, &ctl, flags);
	iovecs_free(iov, fast);
	return n;
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.sendmsg(fd, msg, flags);
	ssize_t n;
	AFD_HELD(a, n, sendmsg_afd(fd, a, msg, flags));
	return n;
}

/* One buffer through a's send operation. */
static ssize_t send_one(int fd, struct afd *a, const void *buf, size_t len, int flags)
{
	struct iovec iov = { (void *)buf, len };
	ssize_t n;
	AFD_HELD(a, n, afd_send(fd, a, &iov, 1, NULL, flags));
	return n;
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *addr, socklen_t alen)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.sendto(fd, buf, len, flags, addr, alen);
	if (addr && alen > SOCKADDR_STORAGE) {
		afd_put(a);
		return sfail(EINVAL);
	}
	return send_one(fd, a, buf, len, flags);
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	return a ? send_one(fd, a, buf, len, flags) : next.send(fd, buf, len, flags);
}

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	return a ? send_one(fd, a, buf, len, 0) : next.write(fd, buf, len);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.writev(fd, iov, n);
	if (n < 0) {
		afd_put(a);
		return sfail(EINVAL);
	}
	ssize_t r;
	AFD_HELD(a, r, afd_send(fd, a, iov, (size_t)n, NULL, 0));
	return r;
}

/* ---- receiving ------------------------------------------------------ */

static ssize_t recvmsg_afd(int fd, struct afd *a, struct msghdr *msg, int flags)
{
	struct msghdr m;
	struct iovec fast[UIO_FASTIOV_], *iov;
	if (copy_in(&m, msg, sizeof(m)))
		return sfail(EFAULT);
	int r = copy_iovecs(&m, fast, &iov);
	if (r)
		return sfail(-r);
	int mflags = 0;
	ssize_t n = a->ops->recv(fd, a, iov, m.msg_iovlen, flags, &mflags);
	iovecs_free(iov, fast);
	if (n < 0)
		return n;
	/* No control data; no address, except a netlink reply's sender. */
	msg->msg_namelen = a->ops->recv_name ? a->ops->recv_name(m.msg_name, m.msg_namelen) : 0;
	msg->msg_controllen = 0;
	msg->msg_flags = mflags;
	return n;
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.recvmsg(fd, msg, flags);
	ssize_t n;
	AFD_HELD(a, n, recvmsg_afd(fd, a, msg, flags));
	return n;
}

/* One buffer through a's recv operation. */
static ssize_t recv_one(int fd, struct afd *a, void *buf, size_t len, int flags)
{
	struct iovec iov = { buf, len };
	ssize_t n;
	AFD_HELD(a, n, a->ops->recv(fd, a, &iov, 1, flags, NULL));
	return n;
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr, socklen_t *alen)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.recvfrom(fd, buf, len, flags, addr, alen);
	ssize_t n = recv_one(fd, a, buf, len, flags);
	if (n >= 0 && addr && alen)
		*alen = 0;
	return n;
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	return a ? recv_one(fd, a, buf, len, flags) : next.recv(fd, buf, len, flags);
}

EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.read(fd, buf, len);
	if (!len) {
		afd_put(a);
		return 0;	/* sock_read_iter() answers an empty read itself */
	}
	return recv_one(fd, a, buf, len, 0);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.readv(fd, iov, n);
	size_t total;
	if (n < 0 || (!iov_total(iov, (size_t)n, &total) && !total)) {
		afd_put(a);
		return n < 0 ? sfail(EINVAL) : 0;
	}
	ssize_t r;
	AFD_HELD(a, r, a->ops->recv(fd, a, iov, (size_t)n, 0, NULL));
	return r;
}

/* The plain read and write of an op socket, for AIO (aio.c): what
 * sock_read_iter() and sock_write_iter() do for an iocb. */
ssize_t shim_op_read(int fd, struct afd *a, const struct iovec *iov, size_t niov)
{
	size_t total;
	int r = iov_total(iov, niov, &total);
	if (r)
		return sfail(-r);
	return total ? a->ops->recv(fd, a, iov, niov, 0, NULL) : 0;
}

ssize_t shim_op_write(int fd, struct afd *a, const struct iovec *iov, size_t niov)
{
	return afd_send(fd, a, iov, niov, NULL, 0);
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

/* sendmmsg() and recvmmsg(): __sys_sendmmsg() and __sys_recvmmsg() are
 * loops of the single-message calls, stopping at the first error (which is
 * returned only when no message went through) or, for sends, a short one. */
#define MMSG_MAX 1024	/* UIO_MAXIOV */

EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned n, int flags)
{
	shim_resolve();
	if (!afd_is_ours(fd))
		return next.sendmmsg(fd, vec, n, flags);
	unsigned done = 0;
	ssize_t r = 0;
	if (n > MMSG_MAX)
		n = MMSG_MAX;
	while (done < n) {
		r = sendmsg(fd, &vec[done].msg_hdr, flags);
		if (r < 0)
			break;
		size_t want = 0;	/* readable and valid: sendmsg() took it */
		iov_total(vec[done].msg_hdr.msg_iov, vec[done].msg_hdr.msg_iovlen, &want);
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
	if (n > MMSG_MAX)
		n = MMSG_MAX;
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
