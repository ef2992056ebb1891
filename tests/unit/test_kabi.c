/* src/kabi's argument checks against the errnos Linux 6.1 gives: iovec
 * imports (readv/writev and sendmsg/recvmsg), read/write and sendto
 * ranges, socket addresses, sockaddr_alg, message headers with control
 * data, sendmmsg's vlen, and the ioctl classification of an AF_ALG
 * socket.  Memory is this process's own, through kabi_mem_self, so bad
 * pointers are real unmapped addresses. */
#include "kabi.h"
#include "tap.h"

#include <errno.h>
#include <limits.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

static const struct kabi_mem *self = &kabi_mem_self;
static struct kabi_iov iov;
static struct kabi_msg km;
static uint64_t bad;	/* an unmapped page */

static uint64_t addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static void test_iov(void)
{
	static struct iovec v[KABI_UIO_MAXIOV + 1];
	char buf[64];

	for (size_t i = 0; i < KABI_UIO_MAXIOV + 1; i++)
		v[i] = (struct iovec){ buf, 1 };
	ok(kabi_iov_import(self, addr(v), KABI_UIO_MAXIOV + 1, KABI_IOV_RW, &iov) == -EINVAL,
	   "readv/writev: 1025 iovecs is EINVAL");
	ok(kabi_iov_import(self, addr(v), KABI_UIO_MAXIOV + 1, KABI_IOV_MSG, &iov) == -EMSGSIZE,
	   "sendmsg/recvmsg: 1025 iovecs is EMSGSIZE");
	ok(kabi_iov_import(self, addr(v), KABI_UIO_MAXIOV, KABI_IOV_RW, &iov) == 0 &&
	   iov.n == KABI_UIO_MAXIOV && iov.total == KABI_UIO_MAXIOV, "1024 iovecs are imported, total 1024");
	ok(kabi_iov_import(self, bad, 0, KABI_IOV_RW, &iov) == 0 && iov.n == 0 && iov.total == 0,
	   "0 iovecs at a bad address: an empty import");
	ok(kabi_iov_import(self, bad, 2, KABI_IOV_RW, &iov) == -EFAULT, "an unreadable iovec array is EFAULT");

	struct iovec neg[3] = { { (void *)(uintptr_t)bad, 1 }, { buf, 1 }, { buf, (size_t)-1 } };
	ok(kabi_iov_import(self, addr(neg), 3, KABI_IOV_RW, &iov) == -EINVAL,
	   "a length negative as ssize_t is EINVAL, before an earlier segment's bad range");
	struct iovec huge[2] = { { buf, 1 }, { buf, (size_t)SSIZE_MAX } };
	ok(kabi_iov_import(self, addr(huge), 2, KABI_IOV_MSG, &iov) == -EFAULT,
	   "a length past the user address space is EFAULT (access_ok)");
	struct iovec high[1] = { { (void *)(uintptr_t)(KABI_TASK_SIZE_MAX - 8), 16 } };
	ok(kabi_iov_import(self, addr(high), 1, KABI_IOV_RW, &iov) == -EFAULT,
	   "a range crossing TASK_SIZE_MAX is EFAULT");
	struct iovec big[3] = { { (void *)0x10000, 0x60000000 }, { (void *)0x10000, 0x60000000 },
				{ (void *)0x10000, 0x60000000 } };
	ok(kabi_iov_import(self, addr(big), 3, KABI_IOV_RW, &iov) == 0 && iov.total == (size_t)KABI_MAX_RW_COUNT &&
	   iov.v[0].iov_len == 0x60000000 && iov.v[1].iov_len == (size_t)KABI_MAX_RW_COUNT - 0x60000000 &&
	   iov.v[2].iov_len == 0, "lengths past MAX_RW_COUNT in all are cut, not refused");

	ok(kabi_iov_rw(addr(buf), (uint64_t)SSIZE_MAX, &iov) == -EFAULT,
	   "write(fd, buf, SSIZE_MAX): EFAULT (access_ok before the cut)");
	ok(kabi_iov_rw(0x10000, 0x80000000u, &iov) == 0 && iov.total == (size_t)KABI_MAX_RW_COUNT,
	   "write of 2 GiB: cut to MAX_RW_COUNT");
	/* A fixed low address: the stack may lie within MAX_RW_COUNT of TASK_SIZE_MAX. */
	ok(kabi_iov_range(0x10000, (uint64_t)SSIZE_MAX, &iov) == 0 && iov.total == (size_t)KABI_MAX_RW_COUNT,
	   "sendto(buf, SSIZE_MAX): cut to MAX_RW_COUNT before access_ok");
	ok(kabi_iov_range(KABI_TASK_SIZE_MAX - 0x1000, (uint64_t)SSIZE_MAX, &iov) == -EFAULT,
	   "sendto(buf, SSIZE_MAX) near the top: the cut range still crosses TASK_SIZE_MAX, EFAULT");
	ok(kabi_iov_range(KABI_TASK_SIZE_MAX, 1, &iov) == -EFAULT, "sendto past the user address space: EFAULT");

	struct iovec parts[3] = { { buf, 4 }, { buf + 10, 4 }, { buf + 20, 4 } };
	struct iovec out[3];
	kabi_iov_import(self, addr(parts), 3, KABI_IOV_RW, &iov);
	size_t k = kabi_iov_slice(&iov, 2, 7, out);
	ok(k == 3 && out[0].iov_base == buf + 2 && out[0].iov_len == 2 && out[1].iov_len == 4 &&
	   out[2].iov_base == buf + 20 && out[2].iov_len == 1, "a slice across three segments");
}

static void test_addr(void)
{
	uint8_t sa[KABI_SOCKADDR_MAX];
	uint8_t src[KABI_SOCKADDR_MAX] = { 0 };

	ok(kabi_sockaddr_import(self, addr(src), (uint64_t)-1, sa) == -EINVAL, "addrlen -1: EINVAL");
	ok(kabi_sockaddr_import(self, addr(src), 129, sa) == -EINVAL, "addrlen 129: EINVAL");
	ok(kabi_sockaddr_import(self, addr(src), 128, sa) == 0, "addrlen 128: read");
	ok(kabi_sockaddr_import(self, bad, 0, sa) == 0, "addrlen 0 at a bad address: nothing read");
	ok(kabi_sockaddr_import(self, bad, 16, sa) == -EFAULT, "an unreadable address: EFAULT");
	ok(kabi_sockaddr_import(self, addr(src), 0x100000010ull, sa) == 0, "the length is an int: its high bits ignored");

	struct kabi_alg_addr a;
	memset(sa, 0, sizeof(sa));
	sa[0] = KABI_AF_ALG;
	memcpy(sa + 2, "skcipher-and-more", 14);
	memcpy(sa + KABI_SALG_NAME_OFFSET, "cbc(aes)", 8);
	ok(kabi_sockaddr_alg(sa, KABI_SALG_NAME_OFFSET, &a) == -EINVAL, "sockaddr_alg of 24 bytes: EINVAL");
	ok(kabi_sockaddr_alg(sa, 88, &a) == 0 && !strcmp(a.type, "skcipher-and-") && !strcmp(a.name, "cbc(aes)"),
	   "sockaddr_alg of 88 bytes: type cut at 13, name read");
	ok(kabi_sockaddr_alg(sa, KABI_SALG_NAME_OFFSET + 4, &a) == 0 && !strcmp(a.name, "cbc"),
	   "a short address: the name's last byte is overwritten with NUL");
	uint32_t feat = 0x2000;
	memcpy(sa + 16, &feat, 4);
	ok(kabi_sockaddr_alg(sa, 88, &a) == -EINVAL, "salg_feat other than KERN_DRIVER_ONLY: EINVAL");
	feat = KABI_SALG_ALLOWED_FEAT;
	memcpy(sa + 16, &feat, 4);
	memcpy(sa + 20, &feat, 4);
	ok(kabi_sockaddr_alg(sa, 88, &a) == 0 && a.feat == feat && a.mask == feat,
	   "KERN_DRIVER_ONLY in feat and mask passes the check");
}

static void test_msg(void)
{
	char data[16] = "0123456789abcdef";
	uint8_t name[200] = { 1, 2, 3 };
	uint8_t ctl[KABI_OPTMEM_MAX + 1];
	struct iovec v[1] = { { data, sizeof(data) } };
	struct msghdr h = { .msg_iov = v, .msg_iovlen = 1 };

	memset(ctl, 0x5a, sizeof(ctl));
	ok(kabi_msg_import(self, bad, true, &km) == -EFAULT, "an unreadable msghdr: EFAULT");
	ok(kabi_msg_import(self, addr(&h), true, &km) == 0 && km.iov.total == 16 && !km.ctl && km.namelen == 0,
	   "a plain sendmsg header");

	h.msg_name = name;
	h.msg_namelen = (socklen_t)-1;
	ok(kabi_msg_import(self, addr(&h), false, &km) == -EINVAL, "msg_namelen negative: EINVAL (recvmsg too)");
	h.msg_namelen = 200;
	ok(kabi_msg_import(self, addr(&h), true, &km) == 0 && km.namelen == KABI_SOCKADDR_MAX && km.name[2] == 3,
	   "msg_namelen 200: cut to 128, not refused");
	h.msg_name = (void *)(uintptr_t)bad;
	h.msg_namelen = 16;
	ok(kabi_msg_import(self, addr(&h), true, &km) == -EFAULT, "sendmsg: an unreadable name is EFAULT");
	ok(kabi_msg_import(self, addr(&h), false, &km) == 0, "recvmsg: the name is only room, not read");
	h.msg_iovlen = KABI_UIO_MAXIOV + 1;
	ok(kabi_msg_import(self, addr(&h), true, &km) == -EFAULT,
	   "the name is read before msg_iovlen is checked (EFAULT before EMSGSIZE)");
	h.msg_name = NULL;
	ok(kabi_msg_import(self, addr(&h), true, &km) == -EMSGSIZE, "msg_iovlen 1025: EMSGSIZE");
	h.msg_iovlen = 1;

	h.msg_control = ctl;
	h.msg_controllen = KABI_OPTMEM_MAX + 1;
	ok(kabi_msg_import(self, addr(&h), true, &km) == -ENOBUFS, "control past optmem_max: ENOBUFS");
	ok(kabi_msg_import(self, addr(&h), false, &km) == 0 && km.ctllen == KABI_OPTMEM_MAX + 1 && !km.ctl,
	   "recvmsg: control of any size is only room");
	h.msg_controllen = (size_t)INT_MAX + 1;
	ok(kabi_msg_import(self, addr(&h), true, &km) == -ENOBUFS, "control past INT_MAX: ENOBUFS");
	h.msg_iovlen = KABI_UIO_MAXIOV + 1;
	ok(kabi_msg_import(self, addr(&h), true, &km) == -EMSGSIZE, "msg_iovlen is checked before the control length");
	h.msg_iovlen = 1;
	h.msg_controllen = KABI_OPTMEM_MAX;
	ok(kabi_msg_import(self, addr(&h), true, &km) == 0 && km.ctl && km.ctllen == KABI_OPTMEM_MAX &&
	   km.ctl[KABI_OPTMEM_MAX - 1] == 0x5a, "control of optmem_max bytes is read");
	kabi_msg_release(&km);
	kabi_msg_release(&km);
	ok(km.ctl == NULL, "kabi_msg_release twice is harmless");
	h.msg_control = (void *)(uintptr_t)bad;
	h.msg_controllen = 24;
	ok(kabi_msg_import(self, addr(&h), true, &km) == -EFAULT && !km.ctl, "unreadable control: EFAULT, nothing kept");

	ok(kabi_mmsg_vlen(5000, true) == KABI_UIO_MAXIOV && kabi_mmsg_vlen(7, true) == 7,
	   "sendmmsg: vlen cut to UIO_MAXIOV");
	ok(kabi_mmsg_vlen(5000, false) == 5000, "recvmmsg: vlen as it is");
}

static void test_ioctl(void)
{
	ok(kabi_alg_ioctl_errno(KABI_SIOCGSTAMP_OLD) == ENOTTY && kabi_alg_ioctl_errno(KABI_SIOCGSTAMPNS_OLD) == ENOTTY,
	   "SIOCGSTAMP_OLD, SIOCGSTAMPNS_OLD: ENOTTY (no gettstamp)");
	ok(kabi_alg_ioctl_errno(KABI_SIOCGSTAMP_NEW) == ENOTTY && kabi_alg_ioctl_errno(KABI_SIOCGSTAMPNS_NEW) == ENOTTY,
	   "SIOCGSTAMP_NEW, SIOCGSTAMPNS_NEW: ENOTTY (no gettstamp)");
	ok(KABI_SIOCGSTAMP_OLD == SIOCGSTAMP_OLD && KABI_SIOCGSTAMP_NEW == SIOCGSTAMP_NEW &&
	   KABI_SIOCGSTAMPNS_NEW == SIOCGSTAMPNS_NEW, "the timestamp ioctl numbers match <linux/sockios.h>");
	ok(kabi_alg_ioctl_errno(FIONREAD) == EOPNOTSUPP && kabi_alg_ioctl_errno(TCGETS) == EOPNOTSUPP &&
	   kabi_alg_ioctl_errno(SIOCGIFINDEX) == EOPNOTSUPP && kabi_alg_ioctl_errno(SIOCGIFCONF) == EOPNOTSUPP,
	   "FIONREAD, TCGETS, SIOCGIFINDEX, SIOCGIFCONF: EOPNOTSUPP (sock_no_ioctl)");
	ok(kabi_alg_ioctl_class(FIONBIO) == KABI_IOCTL_GENERIC && kabi_alg_ioctl_class(FIOCLEX) == KABI_IOCTL_GENERIC &&
	   kabi_alg_ioctl_class(FIOSETOWN) == KABI_IOCTL_GENERIC && kabi_alg_ioctl_class(SIOCGSKNS) == KABI_IOCTL_GENERIC,
	   "FIONBIO, FIOCLEX, FIOSETOWN, SIOCGSKNS: generic");
	ok(kabi_alg_ioctl_class(SIOCDEVPRIVATE + 3) == KABI_IOCTL_GENERIC && kabi_alg_ioctl_class(0x8B01) == KABI_IOCTL_GENERIC,
	   "SIOCDEVPRIVATE range and wireless extensions: generic (dev_ioctl, wext)");
	ok(kabi_alg_ioctl_errno((uint32_t)(0x100000000ull | KABI_SIOCGSTAMP_OLD)) == ENOTTY,
	   "the command's high 32 bits are not the kernel's");
}

int main(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	bad = addr(p);
	test_iov();
	test_addr();
	test_msg();
	test_ioctl();
	return tap_done();
}
