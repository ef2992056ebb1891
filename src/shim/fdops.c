/* The descriptor calls on emulated sockets: close, dup, dup2, dup3, fcntl
 * and ioctl keep the fd table in step with the kernel's, and O_NONBLOCK
 * as this process last set it. */
#include "interpose.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* O_NONBLOCK on the fd makes every call MSG_DONTWAIT, as sock_sendmsg()
 * and sock_recvmsg() do.  Asked of the kernel once per socket; fcntl()
 * and ioctl(FIONBIO) here keep the answer current.  (A process sharing
 * the socket that changes the flag is not seen.) */
bool shim_nonblocking(int fd, struct afd *a)
{
	int v = a ? atomic_load_explicit(&a->nonblock, memory_order_relaxed) : -1;
	if (v >= 0)
		return v;
	int fl = real.fcntl(fd, F_GETFL);
	v = fl >= 0 && (fl & O_NONBLOCK);
	if (a && fl >= 0)
		atomic_store_explicit(&a->nonblock, v, memory_order_relaxed);
	return v;
}

/* The fd leaves the table before the real close, so that a call starting
 * now finds it not ours; a call in progress keeps its reference, and the
 * socket is released when the last one ends. */
EXPORT int close(int fd)
{
	shim_resolve();
	epoll_forget(fd);	/* an emulated fd, or an epoll set */
	struct afd *a = afd_is_ours(fd) ? afd_get(fd) : NULL;
	if (a) {
		client_before_close(fd, a);
		pool_keep(fd, a);
		afd_put(a);
	}
	afd_untrack(fd);
	devcrypto_close(fd);
	return real.close(fd);
}

EXPORT int dup(int fd)
{
	shim_resolve();
	int n = real.dup(fd);
	struct afd *a = n >= 0 ? afd_get(fd) : NULL;
	if (a)
		afd_share(n, a);
	afd_put(a);
	if (n >= 0)
		devcrypto_dup(fd, n);
	return n;
}

static int dup_onto(int fd, int n, int r)
{
	if (r < 0 || fd == n)
		return r;
	epoll_forget(n);	/* the old n was closed */
	devcrypto_dup(fd, n);
	struct afd *a = afd_get(fd);
	if (a)
		afd_share(n, a);
	else
		afd_untrack(n);		/* the old n was closed by the dup */
	afd_put(a);
	return r;
}

EXPORT int dup2(int fd, int n)
{
	shim_resolve();
	return dup_onto(fd, n, real.dup2(fd, n));
}

EXPORT int dup3(int fd, int n, int flags)
{
	shim_resolve();
	return dup_onto(fd, n, real.dup3(fd, n, flags));
}

static int do_fcntl(int fd, int cmd, va_list ap)
{
	/* Every fcntl argument is an int or a pointer; pass it through as
	 * a pointer-sized value. */
	void *arg = va_arg(ap, void *);
	int r = real.fcntl(fd, cmd, arg);
	struct afd *a = r >= 0 ? afd_get(fd) : NULL;

	if (a && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		afd_share(r, a);
	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		devcrypto_dup(fd, r);
	if (a && cmd == F_SETFL)
		atomic_store(&a->nonblock, ((int)(intptr_t)arg & O_NONBLOCK) != 0);
	/* Other state of the open file (O_ASYNC, an owner, a lease) would
	 * stay with a connection kept for the next socket (pool.c). */
	if (a && cmd != F_GETFD && cmd != F_SETFD && cmd != F_GETFL && cmd != F_DUPFD &&
	    cmd != F_DUPFD_CLOEXEC && (cmd != F_SETFL || ((int)(intptr_t)arg & ~(O_NONBLOCK | O_ACCMODE))))
		a->poolable = false;
	afd_put(a);
	return r;
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	shim_resolve();
	va_list ap;
	va_start(ap, cmd);
	int r = do_fcntl(fd, cmd, ap);
	va_end(ap);
	return r;
}

/* Programs built with _FILE_OFFSET_BITS=64 call this name. */
EXPORT int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));

/* FIONBIO on every emulated fd (the answer kept for shim_nonblocking()),
 * the other commands as the socket's kind answers them. */
static int ioctl_afd(int fd, struct afd *a, unsigned long cmd, void *arg)
{
	if (cmd != FIONBIO) {
		a->poolable = false;	/* file state a kept connection would keep (pool.c) */
		return a->ops->ioctl(fd, a, cmd, arg);
	}
	int v;
	if (copy_in(&v, arg, sizeof(v)))
		return fail(EFAULT);
	int r = next.ioctl(fd, cmd, arg);
	if (!r)
		atomic_store(&a->nonblock, v != 0);
	return r;
}

EXPORT int ioctl(int fd, unsigned long cmd, ...)
{
	shim_resolve();
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int dr;
	if (devcrypto_ioctl(fd, cmd, arg, &dr))
		return dr;
	struct afd *a = afd_get(fd);
	if (!a)
		return next.ioctl(fd, cmd, arg);
	int r = ioctl_afd(fd, a, cmd, arg);
	afd_put(a);
	return r;
}
