/* socket() of AF_ALG and NETLINK_CRYPTO, and the socket calls that set a
 * socket up (bind, accept, listen) or that AF_ALG leaves to sock_no_*
 * (connect, getsockname, getpeername, shutdown). */
#include "interpose.h"

#include <unistd.h>

#define NETLINK_CRYPTO_ 21

EXPORT int socket(int domain, int type, int protocol)
{
	shim_resolve();
	const bool crypto_user = domain == AF_NETLINK && protocol == NETLINK_CRYPTO_;
	/* System-wide, the kernel's own AF_ALG may serve (sysmode.c). */
	if ((domain != KABI_AF_ALG && !crypto_user) || !shim_active())
		return real.socket(domain, type, protocol);
	if (crypto_user)
		return netlink_sock_create(type);
	/* __sys_socket() and __sock_create(), then af_alg_create(). */
	if (type & ~(0xf | SOCK_CLOEXEC | SOCK_NONBLOCK))
		return fail(EINVAL);
	int base = type & 0xf;
	if (base > 10)		/* type >= SOCK_MAX */
		return fail(EINVAL);
	if (base == SOCK_STREAM && rfc_enabled())
		return rfc_socket(type, protocol);	/* RFC mode */
	if (base != SOCK_SEQPACKET)
		return fail(ESOCKTNOSUPPORT);
	if (protocol != 0)
		return fail(EPROTONOSUPPORT);
	int fd;
	if (local_socket(type, &fd))
		return fd < 0 ? fail(-fd) : fd;
	bool owed;
	fd = client_connect_ahead(type, &owed);
	if (fd < 0)
		return fail(-fd);
	struct afd *a = afd_track(fd, AFD_TFM);
	if (!a) {
		real.close(fd);
		return fail(ENOMEM);
	}
	atomic_store(&a->nonblock, (type & SOCK_NONBLOCK) != 0);	/* a file of its own */
	if (owed)
		client_owe_hello(a);
	afd_put(a);
	return fd;
}

EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return real.bind(fd, addr, len);
	int r;
	AFD_HELD(a, r, a->ops->bind(fd, a, addr, len));
	return r;
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *alen, int flags)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.accept4(fd, addr, alen, flags);
	int r;
	AFD_HELD(a, r, a->ops->accept(fd, a, addr, alen, flags));
	return r;
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *alen)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.accept(fd, addr, alen);
	int r;
	AFD_HELD(a, r, a->ops->accept(fd, a, addr, alen, 0));
	return r;
}

EXPORT int listen(int fd, int backlog)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.listen(fd, backlog);
	int r;
	AFD_HELD(a, r, a->ops->listen(fd, a, backlog));
	return r;
}

EXPORT int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.getsockname(fd, addr, len);
	int r = a->ops->getsockname(fd, a, addr, len);
	afd_put(a);
	return r;
}

/* AF_ALG's proto_ops leave these to the sock_no_* stubs. */
EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	shim_resolve();
	return afd_is_ours(fd) ? fail(EOPNOTSUPP) : next.connect(fd, addr, len);
}

EXPORT int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	shim_resolve();
	return afd_is_ours(fd) ? fail(EOPNOTSUPP) : next.getpeername(fd, addr, len);
}

EXPORT int shutdown(int fd, int how)
{
	shim_resolve();
	return afd_is_ours(fd) ? fail(EOPNOTSUPP) : next.shutdown(fd, how);
}
