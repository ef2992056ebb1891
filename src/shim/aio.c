/* Linux AIO on emulated sockets.  libkcapi and OpenSSL's afalg engine call
 * io_setup/io_submit/io_getevents through syscall(), so syscall() is
 * interposed: every other call, and every iocb on an fd that is not ours,
 * goes to the real syscall() untouched.  An iocb on an op socket runs at
 * submission, as the kernel's does up to the point where it would queue the
 * cipher (af_alg_wait_for_data() sleeps inside io_submit there too); its
 * completion waits in a per-context list for io_getevents, and an eventfd
 * named by IOCB_FLAG_RESFD is signalled as aio_complete() does. */
#include "shim.h"
#include "kabi.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/aio_abi.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef long (*syscall_fn)(long, ...);
static syscall_fn real_syscall;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void resolve_syscall(void)
{
	real_syscall = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
}

struct done {
	aio_context_t ctx;
	struct io_event ev;
};

static struct done *dones;
static size_t ndones, capdones;
static pthread_mutex_t dones_lock = PTHREAD_MUTEX_INITIALIZER;

static int queue_done(aio_context_t ctx, const struct iocb *user, const struct iocb *cb, long res)
{
	pthread_mutex_lock(&dones_lock);
	if (ndones == capdones) {
		size_t cap = capdones ? capdones * 2 : 16;
		struct done *n = realloc(dones, cap * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&dones_lock);
			return -EAGAIN;
		}
		dones = n;
		capdones = cap;
	}
	dones[ndones++] = (struct done){ ctx, { cb->aio_data, (uint64_t)(uintptr_t)user, res, 0 } };
	pthread_mutex_unlock(&dones_lock);
	if (cb->aio_flags & IOCB_FLAG_RESFD) {
		uint64_t one = 1;
		real_syscall(SYS_write, (long)cb->aio_resfd, (long)&one, (long)sizeof(one));
	}
	return 0;
}

/* Takes up to max completions of ctx, oldest first. */
static long take_dones(aio_context_t ctx, struct io_event *out, long max)
{
	long k = 0;

	pthread_mutex_lock(&dones_lock);
	size_t keep = 0;
	for (size_t i = 0; i < ndones; i++) {
		if (dones[i].ctx == ctx && k < max)
			out[k++] = dones[i].ev;
		else
			dones[keep++] = dones[i];
	}
	ndones = keep;
	pthread_mutex_unlock(&dones_lock);
	return k;
}

static void forget_ctx(aio_context_t ctx)
{
	struct io_event ev;
	while (take_dones(ctx, &ev, 1) == 1)
		;
}

/* One iocb on an op socket; returns 0 once queued, or -errno (not submitted).
 * Its buffers are imported as aio_setup_rw() does: one range
 * (import_single_range) or an iovec array of aio_nbytes entries
 * (__import_iovec, which takes the count as an unsigned int). */
static int run_iocb(aio_context_t ctx, const struct iocb *user, const struct iocb *cb, struct afd *a)
{
	bool vec = cb->aio_lio_opcode == IOCB_CMD_PREADV || cb->aio_lio_opcode == IOCB_CMD_PWRITEV;
	bool rw = vec || cb->aio_lio_opcode == IOCB_CMD_PREAD || cb->aio_lio_opcode == IOCB_CMD_PWRITE;

	if (cb->aio_reserved2 || (cb->aio_flags & ~(unsigned)(IOCB_FLAG_RESFD | IOCB_FLAG_IOPRIO)))
		return -EINVAL;
	struct kabi_iov *iov = malloc(sizeof(*iov));
	if (!iov)
		return -EAGAIN;
	int r = 0;
	if (vec)
		r = kabi_iov_import(&shim_user_mem, cb->aio_buf, (unsigned)cb->aio_nbytes, KABI_IOV_RW, iov);
	else if (rw)
		r = kabi_iov_range(cb->aio_buf, cb->aio_nbytes, iov);
	if (r) {
		free(iov);
		return r;
	}
	ssize_t n;
	switch (cb->aio_lio_opcode) {
	case IOCB_CMD_PREAD:
	case IOCB_CMD_PREADV:
		n = shim_op_read((int)cb->aio_fildes, a, iov);
		break;
	case IOCB_CMD_PWRITE:
	case IOCB_CMD_PWRITEV:
		n = shim_op_write((int)cb->aio_fildes, a, iov);
		break;
	default:
		n = -1;
		errno = EINVAL;
	}
	int err = errno;
	free(iov);
	if (n < 0 && cb->aio_lio_opcode > IOCB_CMD_PWRITEV)
		return -EINVAL;
	return queue_done(ctx, user, cb, n < 0 ? -err : n);
}

/* io_submit(): iocbs in order, each ours run here, each other one handed
 * to the kernel alone (keeping the order).  Returns the number submitted,
 * or the first one's error. */
static bool any_ours(long nr, struct iocb **list)
{
	for (long i = 0; i < nr; i++) {
		struct iocb *user, cb;
		if (copy_in(&user, &list[i], sizeof(user)) || copy_in(&cb, user, sizeof(cb)))
			return false;	/* the kernel reports it */
		if (cb.aio_fildes <= INT32_MAX && afd_is_ours((int)cb.aio_fildes))
			return true;
	}
	return false;
}

static long submit(aio_context_t ctx, long nr, struct iocb **list)
{
	long done = 0;

	if (nr <= 0 || !any_ours(nr, list)) {
		long r = real_syscall(SYS_io_submit, (long)ctx, nr, (long)list);
		return r < 0 ? -errno : r;
	}
	for (; done < nr; done++) {
		struct iocb *user, cb;
		if (copy_in(&user, &list[done], sizeof(user)) || copy_in(&cb, user, sizeof(cb))) {
			if (!done)
				return -EFAULT;
			break;
		}
		struct afd *a = cb.aio_fildes <= INT32_MAX ? afd_get((int)cb.aio_fildes) : NULL;
		long r = a && a->nl_peer < 0 ? run_iocb(ctx, user, &cb, a)
					     : real_syscall(SYS_io_submit, (long)ctx, 1L, (long)&list[done]);
		if (!a || a->nl_peer >= 0)
			r = r == 1 ? 0 : (r < 0 ? -errno : -EAGAIN);
		afd_put(a);
		if (r < 0) {
			if (!done)
				return r;
			break;
		}
	}
	return done;
}

static bool ctx_has_dones(aio_context_t ctx)
{
	bool any = false;
	pthread_mutex_lock(&dones_lock);
	for (size_t i = 0; i < ndones && !any; i++)
		any = dones[i].ctx == ctx;
	pthread_mutex_unlock(&dones_lock);
	return any;
}

/* io_getevents()/io_pgetevents(): our completions first; the kernel's are
 * then collected without waiting, or waited for when there were none. */
static long getevents(long n, aio_context_t ctx, long min, long max, struct io_event *ev, long a5, long a6)
{
	if (!ctx_has_dones(ctx)) {
		long r = real_syscall(n, (long)ctx, min, max, (long)ev, a5, a6);
		return r < 0 ? -errno : r;
	}
	if (min < 0 || max < min)
		return -EINVAL;
	long k = take_dones(ctx, ev, max);
	struct timespec zero = { 0, 0 };
	if (k >= max)
		return k;
	long r = real_syscall(n, (long)ctx, 0L, max - k, (long)(ev + k), (long)&zero, a6);
	return r > 0 ? k + r : k;
}

static long as_result(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* Every argument is read, as glibc's syscall() does, whatever the caller
 * passed: the sixth comes off the caller's stack even when it passed
 * fewer, which is harmless and which ASan would call an overflow. */
__attribute__((no_sanitize("address")))
EXPORT long syscall(long n, ...)
{
	va_list ap;
	va_start(ap, n);
	long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long);
	long a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
	va_end(ap);
	pthread_once(&once, resolve_syscall);
	switch (n) {
	case SYS_io_submit:
		return as_result(submit((aio_context_t)a1, a2, (struct iocb **)a3));
	case SYS_io_getevents:
#ifdef SYS_io_pgetevents
	case SYS_io_pgetevents:
#endif
		return as_result(getevents(n, (aio_context_t)a1, a2, a3, (struct io_event *)a4, a5, a6));
	case SYS_io_destroy:
		forget_ctx((aio_context_t)a1);
		break;
	default:
		break;
	}
	return real_syscall(n, a1, a2, a3, a4, a5, a6);
}
