/* Control messages of sendmsg(), parsed exactly as the kernel does: first
 * ____sys_sendmsg() copies them in (ENOBUFS, EFAULT), then
 * af_alg_cmsg_send() walks them with the kernel's own CMSG_OK and
 * __cmsg_nxthdr rules, which differ from glibc's macros at the edges. */
#include "shim.h"

#include <errno.h>
#include <limits.h>
#include <linux/if_alg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
/* memcheck does not know that process_vm_writev() to our own pid defines
 * the bytes it writes; its client request says so (a no-op elsewhere). */
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void)(addr), (void)(len))
#endif

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define OPTMEM_MAX 20480u	/* net.core.optmem_max: sock_kmalloc's limit */

int copy_in(void *dst, const void *src, size_t len)
{
	struct iovec local = { dst, len }, remote = { (void *)src, len };

	if (!len)
		return 0;
	if (!src)
		return -EFAULT;
	/* Reading our own memory through the kernel reports a bad pointer
	 * as EFAULT instead of crashing the program, as a system call would. */
	ssize_t n = syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
		memcpy(dst, src, len);	/* no such call here: trust the pointer */
		return 0;
	}
	return -EFAULT;
}

int copy_out(void *dst, const void *src, size_t len)
{
	struct iovec local = { (void *)src, len }, remote = { dst, len };

	if (!len)
		return 0;
	if (!dst)
		return -EFAULT;
	ssize_t n = syscall(SYS_process_vm_writev, getpid(), &local, 1UL, &remote, 1UL, 0UL);
	if (n == (ssize_t)len) {
		(void)VALGRIND_MAKE_MEM_DEFINED(dst, len);
		return 0;
	}
	if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
		memcpy(dst, src, len);
		return 0;
	}
	return -EFAULT;
}

/* Writes the byte back as it was; a write-only mapping (PROT_WRITE alone,
 * as libkcapi maps its output file) cannot be read and gets a zero, which
 * the result overwrites. */
static int probe_byte(uint8_t *p)
{
	uint8_t b = 0;
	struct iovec local = { &b, 1 }, remote = { p, 1 };
	pid_t self = getpid();

	if (syscall(SYS_process_vm_readv, self, &local, 1UL, &remote, 1UL, 0UL) != 1)
		b = 0;
	if (syscall(SYS_process_vm_writev, self, &local, 1UL, &remote, 1UL, 0UL) != 1)
		return errno == ENOSYS || errno == EPERM ? 0 : -EFAULT;
	return 0;
}

int probe_out(void *buf, size_t len)
{
	if (!len)
		return 0;
	int r = probe_byte(buf);
	return r ? r : probe_byte((uint8_t *)buf + len - 1);
}

static size_t kcmsg_align(size_t len)
{
	return (len + sizeof(long) - 1) & ~(sizeof(long) - 1);
}

/* The kernel's CMSG_LEN on its own struct cmsghdr (same layout as ours). */
static size_t kcmsg_len(size_t len)
{
	return kcmsg_align(sizeof(struct cmsghdr)) + len;
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void walk(const uint8_t *buf, size_t size, struct shim_ctl *ctl)
{
	size_t off = 0;
	struct cmsghdr c;

	if (size < sizeof(c))
		return;		/* __CMSG_FIRSTHDR gives NULL: nothing to parse */
	for (;;) {
		memcpy(&c, buf + off, sizeof(c));
		if (c.cmsg_len < sizeof(c) || c.cmsg_len > size - off) {
			ctl->invalid = true;	/* !CMSG_OK */
			return;
		}
		const uint8_t *data = buf + off + kcmsg_align(sizeof(c));
		if (c.cmsg_level == SOL_ALG) {
			switch (c.cmsg_type) {
			case ALG_SET_IV:
				if (c.cmsg_len < kcmsg_len(sizeof(struct af_alg_iv))) {
					ctl->invalid = true;
					return;
				}
			{
				/* ctl->iv and ivlen change only together, and only
				 * for a valid IV (found by tests/fuzz/fuzz_cmsg.c). */
				const uint32_t ivlen = get_u32(data);
				if (c.cmsg_len < kcmsg_len((size_t)ivlen + sizeof(struct af_alg_iv))) {
					ctl->invalid = true;
					return;
				}
				/* Longer than any cipher's IV: the length check
				 * after parsing would reject it anyway. */
				if (ivlen > UALG_IV_MAX) {
					ctl->invalid = true;
					return;
				}
				ctl->ivlen = ivlen;
				ctl->has_iv = true;
				memcpy(ctl->iv, data + sizeof(struct af_alg_iv), ctl->ivlen);
				break;
			}
			case ALG_SET_OP:
			case ALG_SET_AEAD_ASSOCLEN:
				if (c.cmsg_len < kcmsg_len(sizeof(uint32_t))) {
					ctl->invalid = true;
					return;
				}
				if (c.cmsg_type == ALG_SET_OP) {
					ctl->op = get_u32(data);
					ctl->has_op = true;
				} else {
					ctl->assoclen = get_u32(data);
				}
				break;
			default:
				ctl->invalid = true;
				return;
			}
		}
		/* __cmsg_nxthdr: the next header must fit whole. */
		size_t next = off + kcmsg_align(c.cmsg_len);
		if (next < off || next + sizeof(c) > size)
			return;
		off = next;
	}
}

int cmsg_parse(const struct msghdr *msg, struct shim_ctl *ctl)
{
	memset(ctl, 0, sizeof(*ctl));
	size_t size = msg->msg_controllen;
	if (!size)
		return 0;
	if (size > INT_MAX || size > OPTMEM_MAX)
		return -ENOBUFS;
	uint8_t *buf = malloc(size);
	if (!buf)
		return -ENOBUFS;
	int r = copy_in(buf, msg->msg_control, size);
	if (!r) {
		ctl->present = true;
		walk(buf, size, ctl);
	}
	free(buf);
	return r;
}
