/* AF_ALG sockets: bind() and accept() through algd, the calls AF_ALG's
 * proto_ops leave to sock_no_*, ioctl and poll, and the operation tables of
 * transform and op sockets, in the ordinary mode and RFC mode (rfc.c). */
#include "interpose.h"

#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

int alg_bind_parse(const struct sockaddr *addr, socklen_t len, struct shim_bind *out)
{
	uint8_t sa[KABI_SOCKADDR_MAX];
	struct kabi_alg_addr aa;
	int r = kabi_sockaddr_import(&shim_user_mem, (uintptr_t)addr, len, sa);
	if (!r)
		r = kabi_sockaddr_alg(sa, len, &aa);
	if (r)
		return r;
	_Static_assert(sizeof(out->type) == sizeof(aa.type), "salg_type");
	_Static_assert(sizeof(out->name) >= KABI_SOCKADDR_MAX, "salg_name fits");
	memset(out, 0, sizeof(*out));	/* compared whole (local.c) */
	memcpy(out->type, aa.type, sizeof(out->type));
	out->feat = aa.feat;
	out->mask = aa.mask;
	memcpy(out->name, aa.name, strlen(aa.name) + 1);
	return 0;
}

int alg_bind_xact(struct afd *a, int fd, const struct shim_bind *sb, bool ahead)
{
	struct ualg_bind b = { .feat = sb->feat, .mask = sb->mask };
	_Static_assert(sizeof(b.type) == sizeof(sb->type), "salg_type");
	memcpy(b.type, sb->type, sizeof(b.type));
	b.name_len = (uint32_t)strlen(sb->name) + 1;
	struct iovec parts[2] = { { &b, sizeof(b) }, { (void *)sb->name, b.name_len } };
	struct xact x = { .type = UALG_MSG_BIND, .parts = parts, .nparts = 2, .ahead = ahead };
	return client_xact(a, fd, &x);
}

/* alg_bind()'s checks here; algd makes the rest (the socket's state, the
 * algorithm). */
int alg_bind(int fd, struct afd *a, const struct sockaddr *addr, socklen_t len)
{
	struct shim_bind b;
	int r = alg_bind_parse(addr, len, &b);
	if (r)
		return fail(-r);
	uint32_t gen = 0;
	const bool gen_known = local_control(a, fd, &gen);	/* before algd decides */
	/* A socket's first bind, of an address algd bound under this
	 * generation, goes without waiting (client.c, "sending ahead"); it
	 * cannot meet EBUSY: no op socket was accepted from it yet. */
	const bool ahead = gen_known && a->type == ALG_TYPE_NONE && !a->op && a->gen == client_gen() &&
			   local_bind_known(&b, gen);
	r = alg_bind_xact(a, fd, &b, ahead);
	if (r < 0)
		return fail(-r);
	if (gen_known && !ahead)
		local_bind_learn(&b, gen);
	afd_set_type(a, b.type);
	inproc_bound(a, &b, gen_known, gen);
	return 0;
}

static int no_bind(int fd, struct afd *a, const struct sockaddr *addr, socklen_t len)
{
	(void)fd, (void)a, (void)addr, (void)len;
	return fail(EOPNOTSUPP);	/* sock_no_bind */
}

int alg_accept(int fd, struct afd *a, struct sockaddr *addr, socklen_t *alen, int flags)
{
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return fail(EINVAL);
	struct ualg_accept_reply rep;
	struct iovec body = { &rep, sizeof(rep) };
	struct xact x = { .type = UALG_MSG_ACCEPT, .want_fd = true,
			  .cloexec = flags & SOCK_CLOEXEC, .rbody = &body, .nrbody = 1 };
	const unsigned epoch = client_key_epoch();
	int r = client_xact(a, fd, &x);
	if (r < 0)
		return fail(-r);
	if (x.rfd < 0)
		return fail(EPROTO);
	if ((flags & SOCK_NONBLOCK) && real.fcntl(x.rfd, F_SETFL, O_NONBLOCK)) {
		real.close(x.rfd);
		return fail(errno);
	}
	/* __sys_accept4_file() asks the new socket for its name, which AF_ALG
	 * op sockets cannot give: the socket is dropped again. */
	if (addr) {
		(void)alen;
		real.close(x.rfd);
		return fail(ECONNABORTED);
	}
	struct afd *op = afd_track(x.rfd, a->rfc ? AFD_RFC_OP : AFD_OP);
	if (!op) {
		real.close(x.rfd);
		return fail(ENOMEM);
	}
	op->type = a->type;
	atomic_store(&op->nonblock, (flags & SOCK_NONBLOCK) != 0);	/* a file of its own */
	const bool replied = x.rlen == sizeof(rep);
	if (replied) {
		client_set_token(op, rep.token, client_self());
		client_accepted(op, epoch, &rep.engine);
	}
	inproc_accepted(a, op, replied ? &rep.engine : NULL);
	afd_put(op);
	return x.rfd;
}

static int no_listen(int fd, struct afd *a, int backlog)
{
	(void)fd, (void)a, (void)backlog;
	return fail(EOPNOTSUPP);
}

static int rfc_sock_listen(int fd, struct afd *a, int backlog)
{
	(void)backlog;
	return rfc_listen(fd, a);
}

static int no_getsockname(int fd, struct afd *a, struct sockaddr *addr, socklen_t *len)
{
	(void)fd, (void)a, (void)addr, (void)len;
	return fail(EOPNOTSUPP);
}

static ssize_t rfc_sock_send(int fd, struct afd *a, const struct iovec *iov, size_t niov,
			     size_t total, const struct shim_ctl *ctl, int flags)
{
	(void)total;
	return rfc_send(fd, a, iov, niov, ctl, flags);
}

static ssize_t rfc_sock_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov,
			     int flags, int *msg_flags)
{
	if (msg_flags)
		*msg_flags = 0;
	return rfc_recv(fd, a, iov, niov, flags);
}

/* ioctl() on an AF_ALG fd: the commands do_vfs_ioctl() and sock_ioctl()
 * answer themselves act on the real fd as they would on the AF_ALG file;
 * the others get AF_ALG's errno (kabi_alg_ioctl_class()).  The kernel
 * takes the command's low 32 bits. */
static int alg_ioctl(int fd, struct afd *a, unsigned long cmd, void *arg)
{
	(void)a;
	int e = kabi_alg_ioctl_errno((uint32_t)cmd);
	return e ? fail(e) : next.ioctl(fd, cmd, arg);
}

/* The mask sock_poll() gives an AF_ALG socket: algd knows its state. */
short shim_alg_revents(int fd, struct afd *a, short events)
{
	if (a->ipo) {
		int m = inproc_revents(a, events);
		if (m >= 0)
			return (short)m;
	}
	struct xact x = { .type = UALG_MSG_POLL };
	int r = client_xact(a, fd, &x);

	if (r < 0)
		return POLLERR;
	return (short)(r & (events | POLLERR | POLLHUP));
}

const struct afd_ops afd_tfm_ops = {
	.bind = alg_bind,
	.accept = alg_accept,
	.listen = no_listen,
	.getsockname = no_getsockname,
	.setsockopt = alg_tfm_setsockopt,
	.send = alg_send,	/* algd answers as the kernel's sock_no_sendmsg */
	.recv = alg_recv,
	.revents = shim_alg_revents,
	.ioctl = alg_ioctl,
};

const struct afd_ops afd_op_ops = {
	.bind = no_bind,
	.accept = alg_accept,	/* a hash's clone */
	.listen = no_listen,
	.getsockname = no_getsockname,
	.setsockopt = alg_op_setsockopt,
	.send = alg_send,
	.recv = alg_recv,
	.revents = shim_alg_revents,
	.ioctl = alg_ioctl,
};

/* Sockets algd has not seen (local.c): real fds of SOCK_DGRAM standing in
 * for AF_ALG's SOCK_SEQPACKET. */
const struct afd_ops afd_local_tfm_ops = {
	.bind = local_tfm_bind,
	.accept = local_tfm_accept,
	.listen = no_listen,
	.getsockname = no_getsockname,
	.setsockopt = local_tfm_setsockopt,
	.send = local_tfm_send,
	.recv = local_tfm_recv,
	.revents = local_tfm_revents,
	.ioctl = alg_ioctl,
	.so_type = SOCK_SEQPACKET,
};

const struct afd_ops afd_local_op_ops = {
	.bind = no_bind,
	.accept = local_op_accept,
	.listen = no_listen,
	.getsockname = no_getsockname,
	.setsockopt = local_op_setsockopt,
	.send = alg_send,	/* served here (inproc.c) */
	.recv = alg_recv,
	.revents = shim_alg_revents,
	.ioctl = alg_ioctl,
	.so_type = SOCK_SEQPACKET,
};

/* RFC mode: the socket is a stream, listen() opens it to op sockets. */
const struct afd_ops afd_rfc_tfm_ops = {
	.bind = alg_bind,
	.accept = alg_accept,
	.listen = rfc_sock_listen,
	.getsockname = no_getsockname,
	.setsockopt = alg_rfc_setsockopt,
	.send = rfc_sock_send,
	.recv = rfc_sock_recv,
	.revents = shim_alg_revents,
	.ioctl = alg_ioctl,
	.so_type = SOCK_STREAM,
};

const struct afd_ops afd_rfc_op_ops = {
	.bind = no_bind,
	.accept = alg_accept,
	.listen = rfc_sock_listen,	/* EOPNOTSUPP, from rfc.c */
	.getsockname = no_getsockname,
	.setsockopt = alg_rfc_setsockopt,
	.send = rfc_sock_send,
	.recv = rfc_sock_recv,
	.revents = shim_alg_revents,
	.ioctl = alg_ioctl,
	.so_type = SOCK_STREAM,
};
