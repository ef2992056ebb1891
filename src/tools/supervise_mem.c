/* The supervised target's memory: process_vm_readv/writev on the
 * caller's pid, and the same as a struct kabi_mem for the kernel's
 * argument checks. */
#include "supervise_impl.h"

#include <errno.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

int tread(const struct call *c, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	if (!len)
		return 0;
	return syscall(SYS_process_vm_readv, c->pid, &l, 1UL, &r, 1UL, 0UL) == (ssize_t)len ? 0 : -EFAULT;
}

int twrite(const struct call *c, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len }, r = { (void *)(uintptr_t)addr, len };
	if (!len)
		return 0;
	if (!still_valid(c))
		return -ENOENT;
	return syscall(SYS_process_vm_writev, c->pid, &l, 1UL, &r, 1UL, 0UL) == (ssize_t)len ? 0 : -EFAULT;
}

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return tread(ctx, addr, buf, len);
}

static int mem_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	return twrite(ctx, addr, buf, len);
}

void call_mem_init(struct call *c)
{
	c->mem = (struct kabi_mem){ c, mem_read, mem_write };
}

int tiov_gather(const struct call *c, const struct kabi_iov *t, size_t off, void *buf, size_t len)
{
	static __thread struct iovec part[KABI_UIO_MAXIOV];
	struct iovec l = { buf, len };
	size_t k = kabi_iov_slice(t, off, len, part);
	if (!len)
		return 0;
	return syscall(SYS_process_vm_readv, c->pid, &l, 1UL, part, k, 0UL) == (ssize_t)len ? 0 : -EFAULT;
}

int tiov_scatter(const struct call *c, const struct kabi_iov *t, const void *buf, size_t len)
{
	static __thread struct iovec part[KABI_UIO_MAXIOV];
	struct iovec l = { (void *)buf, len };
	size_t k = kabi_iov_slice(t, 0, len, part);
	if (!len)
		return 0;
	if (!still_valid(c))
		return -ENOENT;
	return syscall(SYS_process_vm_writev, c->pid, &l, 1UL, part, k, 0UL) == (ssize_t)len ? 0 : -EFAULT;
}
