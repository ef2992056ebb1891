/* NETLINK_CRYPTO sockets: the program's end of an AF_UNIX datagram pair
 * whose other end (nl_peer) carries the answers netlink.c writes, and the
 * socket operations of that kind. */
#include "interpose.h"

#include <fcntl.h>
#include <linux/netlink.h>
#include <string.h>
#include <unistd.h>

int netlink_sock_create(int type)
{
	int sv[2];

	if ((type & 0xf) != SOCK_RAW && (type & 0xf) != SOCK_DGRAM)
		return fail(ESOCKTNOSUPPORT);
	if (socketpair(AF_UNIX, SOCK_DGRAM | (type & (SOCK_CLOEXEC | SOCK_NONBLOCK)), 0, sv))
		return -1;
	real.fcntl(sv[1], F_SETFD, FD_CLOEXEC);
	struct afd *a = afd_track(sv[0], AFD_NETLINK);
	if (!a) {
		real.close(sv[0]);
		real.close(sv[1]);
		return fail(ENOMEM);
	}
	a->nl_peer = sv[1];
	afd_put(a);
	return sv[0];
}

/* netlink_bind() */
static int nl_bind(int fd, struct afd *a, const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_nl nl;

	(void)fd, (void)a;
	if (len < sizeof(nl))
		return fail(EINVAL);
	if (copy_in(&nl, addr, sizeof(nl)))
		return fail(EFAULT);
	return nl.nl_family == AF_NETLINK ? 0 : fail(EINVAL);
}

/* __sys_accept4()'s check of flags, then sock_no_accept(). */
static int nl_accept(int fd, struct afd *a, struct sockaddr *addr, socklen_t *alen, int flags)
{
	(void)fd, (void)a, (void)addr, (void)alen;
	return fail((flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK)) ? EINVAL : EOPNOTSUPP);
}

static int nl_listen(int fd, struct afd *a, int backlog)
{
	(void)fd, (void)a, (void)backlog;
	return fail(EOPNOTSUPP);
}

static int nl_getsockname(int fd, struct afd *a, struct sockaddr *addr, socklen_t *len)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_pid = (uint32_t)getpid() };
	socklen_t have;

	(void)fd, (void)a;
	if (copy_in(&have, len, sizeof(have)))
		return fail(EFAULT);
	if ((int)have < 0)
		return fail(EINVAL);
	memcpy(addr, &nl, have < sizeof(nl) ? have : sizeof(nl));
	*len = sizeof(nl);
	return 0;
}

static int nl_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
			 socklen_t len)
{
	(void)a;
	return real.setsockopt(fd, level, optname, val, len);
}

/* Netlink requests come in one piece: gathered and answered. */
static ssize_t nl_send(int fd, struct afd *a, const struct iovec *iov, size_t niov, size_t total,
		       const struct shim_ctl *ctl, int flags)
{
	uint8_t buf[4096];
	size_t n = 0;

	(void)fd, (void)ctl, (void)flags;
	for (size_t i = 0; i < niov && n < sizeof(buf); i++) {
		size_t take = iov[i].iov_len < sizeof(buf) - n ? iov[i].iov_len : sizeof(buf) - n;
		if (copy_in(buf + n, iov[i].iov_base, take))
			return sfail(EFAULT);
		n += take;
	}
	ssize_t s = netlink_send(a, buf, n);
	return s < 0 ? sfail((int)-s) : (ssize_t)total;
}

/* The answers are queued on the real socket. */
static ssize_t nl_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov, int flags,
		       int *msg_flags)
{
	struct msghdr m = { .msg_iov = (struct iovec *)iov, .msg_iovlen = niov };

	(void)a;
	ssize_t n = next.recvmsg(fd, &m, flags);
	if (n >= 0 && msg_flags)
		*msg_flags = m.msg_flags;
	return n;
}

/* A reply's sender: the kernel (port 0). */
static socklen_t nl_recv_name(void *name, socklen_t len)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	if (!name || len < sizeof(nl))
		return 0;
	memcpy(name, &nl, sizeof(nl));
	return sizeof(nl);
}

static int nl_ioctl(int fd, struct afd *a, unsigned long cmd, void *arg)
{
	(void)a;
	return next.ioctl(fd, cmd, arg);
}

const struct afd_ops afd_netlink_ops = {
	.bind = nl_bind,
	.accept = nl_accept,
	.listen = nl_listen,
	.getsockname = nl_getsockname,
	.setsockopt = nl_setsockopt,
	.send = nl_send,
	.recv = nl_recv,
	.recv_name = nl_recv_name,
	.revents = NULL,	/* replies wait on the real socket */
	.ioctl = nl_ioctl,
};
