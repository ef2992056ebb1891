/* The kernel's argument checks for AF_ALG's system calls: memory access,
 * iovec imports, socket addresses, message headers (see kabi.h). */
#include "kabi.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- memory ----------------------------------------------------------- */

static int self_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	(void)ctx;
	return syscall(SYS_process_vm_readv, getpid(), &l, 1UL, &r, 1UL, 0UL) == (long)len ? 0 : -EFAULT;
}

static int self_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len }, r = { (void *)(uintptr_t)addr, len };
	(void)ctx;
	return syscall(SYS_process_vm_writev, getpid(), &l, 1UL, &r, 1UL, 0UL) == (long)len ? 0 : -EFAULT;
}

const struct kabi_mem kabi_mem_self = { NULL, self_read, self_write };

int kabi_read(const struct kabi_mem *m, uint64_t addr, void *buf, size_t len)
{
	return len ? m->read(m->ctx, addr, buf, len) : 0;
}

bool kabi_access_ok(uint64_t addr, uint64_t len)
{
	return len <= KABI_TASK_SIZE_MAX && addr <= KABI_TASK_SIZE_MAX - len;
}

/* ---- iovecs ----------------------------------------------------------- */

int kabi_iov_import(const struct kabi_mem *m, uint64_t uvec, uint64_t nr, enum kabi_iov_call call,
		    struct kabi_iov *out)
{
	out->n = 0;
	out->total = 0;
	if (nr > KABI_UIO_MAXIOV)
		return call == KABI_IOV_MSG ? -EMSGSIZE : -EINVAL;
	if (kabi_read(m, uvec, out->v, nr * sizeof(struct iovec)))
		return -EFAULT;
	/* copy_iovec_from_user(): every length, as it copies. */
	for (size_t i = 0; i < nr; i++)
		if ((ssize_t)out->v[i].iov_len < 0)
			return -EINVAL;
	/* __import_iovec(): each range, and the cap. */
	size_t total = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!kabi_access_ok((uintptr_t)out->v[i].iov_base, out->v[i].iov_len))
			return -EFAULT;
		size_t room = (size_t)KABI_MAX_RW_COUNT - total;
		if (out->v[i].iov_len > room)
			out->v[i].iov_len = room;
		total += out->v[i].iov_len;
	}
	out->n = nr;
	out->total = total;
	return 0;
}

int kabi_range_rw(uint64_t buf, uint64_t count, struct iovec *out)
{
	if (!kabi_access_ok(buf, count))
		return -EFAULT;
	if (count > (uint64_t)KABI_MAX_RW_COUNT)
		count = (uint64_t)KABI_MAX_RW_COUNT;
	*out = (struct iovec){ (void *)(uintptr_t)buf, (size_t)count };
	return 0;
}

int kabi_range_single(uint64_t buf, uint64_t len, struct iovec *out)
{
	if (len > (uint64_t)KABI_MAX_RW_COUNT)
		len = (uint64_t)KABI_MAX_RW_COUNT;
	if (!kabi_access_ok(buf, len))
		return -EFAULT;
	*out = (struct iovec){ (void *)(uintptr_t)buf, (size_t)len };
	return 0;
}

static int iov_one(int r, struct kabi_iov *out)
{
	out->n = r ? 0 : 1;
	out->total = r ? 0 : out->v[0].iov_len;
	return r;
}

int kabi_iov_rw(uint64_t buf, uint64_t count, struct kabi_iov *out)
{
	return iov_one(kabi_range_rw(buf, count, &out->v[0]), out);
}

int kabi_iov_range(uint64_t buf, uint64_t len, struct kabi_iov *out)
{
	return iov_one(kabi_range_single(buf, len, &out->v[0]), out);
}

size_t kabi_iov_slice(const struct kabi_iov *iov, size_t off, size_t len, struct iovec *out)
{
	size_t k = 0;
	for (size_t i = 0; i < iov->n && len; i++) {
		size_t l = iov->v[i].iov_len;
		if (off >= l) {
			off -= l;
			continue;
		}
		size_t take = l - off < len ? l - off : len;
		out[k++] = (struct iovec){ (char *)iov->v[i].iov_base + off, take };
		len -= take;
		off = 0;
	}
	return k;
}

/* ---- addresses ---------------------------------------------------------- */

int kabi_sockaddr_import(const struct kabi_mem *m, uint64_t uaddr, uint64_t len,
			 uint8_t buf[KABI_SOCKADDR_MAX])
{
	if ((int)len < 0 || (int)len > KABI_SOCKADDR_MAX)
		return -EINVAL;
	return kabi_read(m, uaddr, buf, (size_t)(int)len) ? -EFAULT : 0;
}

int kabi_sockaddr_alg(uint8_t *sa, size_t len, struct kabi_alg_addr *out)
{
	if (len < KABI_SALG_NAME_OFFSET + 1 || len > KABI_SOCKADDR_MAX)
		return -EINVAL;
	memcpy(&out->feat, sa + 16, 4);
	memcpy(&out->mask, sa + 20, 4);
	if ((out->feat & ~KABI_SALG_ALLOWED_FEAT) || (out->mask & ~KABI_SALG_ALLOWED_FEAT))
		return -EINVAL;
	memcpy(out->type, sa + 2, sizeof(out->type));
	out->type[sizeof(out->type) - 1] = 0;
	sa[len - 1] = 0;	/* salg_name[addr_len - sizeof(*sa) + sizeof(salg_name) - 1] */
	out->name = (const char *)sa + KABI_SALG_NAME_OFFSET;
	return 0;
}

/* ---- messages ---------------------------------------------------------- */

int kabi_msg_import(const struct kabi_mem *m, uint64_t umsg, bool is_send, struct kabi_msg *out)
{
	out->ctl = NULL;
	out->ctllen = 0;
	out->namelen = 0;
	if (kabi_read(m, umsg, &out->h, sizeof(out->h)))
		return -EFAULT;
	/* __copy_msghdr() */
	int namelen = out->h.msg_name ? (int)out->h.msg_namelen : 0;
	if (namelen < 0)
		return -EINVAL;
	if (namelen > KABI_SOCKADDR_MAX)
		namelen = KABI_SOCKADDR_MAX;
	if (out->h.msg_name && namelen && is_send &&
	    kabi_read(m, (uintptr_t)out->h.msg_name, out->name, (size_t)namelen))
		return -EFAULT;
	out->namelen = out->h.msg_name ? namelen : 0;
	int r = kabi_iov_import(m, (uintptr_t)out->h.msg_iov, out->h.msg_iovlen, KABI_IOV_MSG, &out->iov);
	if (r)
		return r;
	out->ctllen = out->h.msg_controllen;
	if (!is_send || !out->ctllen)
		return 0;
	/* ____sys_sendmsg(): sock_kmalloc() refuses more than optmem_max. */
	if (out->ctllen > INT_MAX || out->ctllen > KABI_OPTMEM_MAX)
		return -ENOBUFS;
	out->ctl = out->ctllen <= sizeof(out->ctl_small) ? out->ctl_small : malloc(out->ctllen);
	if (!out->ctl)
		return -ENOMEM;
	if (kabi_read(m, (uintptr_t)out->h.msg_control, out->ctl, out->ctllen)) {
		kabi_msg_release(out);
		return -EFAULT;
	}
	return 0;
}

void kabi_msg_release(struct kabi_msg *msg)
{
	if (msg->ctl)
		explicit_bzero(msg->ctl, msg->ctllen);	/* maybe an IV */
	if (msg->ctl != msg->ctl_small)
		free(msg->ctl);
	msg->ctl = NULL;
}

unsigned kabi_mmsg_vlen(unsigned vlen, bool is_send)
{
	return is_send && vlen > KABI_UIO_MAXIOV ? KABI_UIO_MAXIOV : vlen;
}
