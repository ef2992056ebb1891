/* The kernel's system-call ABI for AF_ALG, as Linux 6.1 has it: the
 * constants a caller of socket(AF_ALG) sees, and the checks the kernel
 * makes on a call's arguments before any AF_ALG code runs (net/socket.c,
 * lib/iov_iter.c, fs/read_write.c, fs/ioctl.c), each with the kernel's
 * errno in the kernel's order.
 *
 * One module for every place that stands in for the kernel: the
 * LD_PRELOAD shim reads its caller's own memory, the seccomp supervisor
 * (ualg-run --supervise) a target process's; both reach memory through
 * struct kabi_mem, so the checks are the same code either way.
 *
 * Functions return 0 (or a count) on success and -errno on failure;
 * nothing here keeps state or allocates except where a function says so. */
#ifndef UALG_KABI_H
#define UALG_KABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* ---- constants -------------------------------------------------------- */

#define KABI_AF_ALG 38			/* <linux/socket.h> */
#define KABI_SOL_ALG 279
#define KABI_NETLINK_CRYPTO 21		/* <linux/netlink.h> */

/* setsockopt(SOL_ALG, ...) options (<linux/if_alg.h>). */
#define KABI_ALG_SET_KEY 1
#define KABI_ALG_SET_IV 2		/* also a cmsg type */
#define KABI_ALG_SET_OP 3		/* cmsg type */
#define KABI_ALG_SET_AEAD_ASSOCLEN 4	/* cmsg type */
#define KABI_ALG_SET_AEAD_AUTHSIZE 5
#define KABI_ALG_SET_DRBG_ENTROPY 6
#define KABI_ALG_SET_KEY_BY_KEY_SERIAL 7	/* since Linux 6.2; ualg serves it on 6.1 too */
#define KABI_ALG_OP_DECRYPT 0
#define KABI_ALG_OP_ENCRYPT 1

/* struct sockaddr_alg: 24 bytes before salg_name, 88 in all; alg_bind()
 * accepts only CRYPTO_ALG_KERN_DRIVER_ONLY in salg_feat and salg_mask. */
#define KABI_SALG_NAME_OFFSET 24
#define KABI_SALG_TYPE_LEN 14
#define KABI_SALG_ALLOWED_FEAT 0x00001000u
/* HASH_MAX_DIGESTSIZE (include/crypto/hash.h): no hash read returns more. */
#define KABI_HASH_MAX_DIGESTSIZE 64

/* Limits of one call. */
#define KABI_UIO_MAXIOV 1024		/* iovecs per call, and sendmmsg's vlen */
#define KABI_MAX_RW_COUNT 0x7ffff000L	/* INT_MAX & PAGE_MASK: bytes per call */
#define KABI_SOCKADDR_MAX 128		/* sizeof(struct sockaddr_storage) */
#define KABI_CMSG_STACK 36		/* control data ____sys_sendmsg() keeps on its stack */
/* The highest user address + 1 (TASK_SIZE_MAX, x86-64 with 4-level paging):
 * access_ok() fails a range that reaches past it. */
#define KABI_TASK_SIZE_MAX 0x00007ffffffff000ULL

/* The default net.core sysctls (a socket's buffers start at the *_default
 * values; *_max bounds SO_SNDBUF/SO_RCVBUF; optmem_max bounds control data
 * and sock_kmalloc()). */
#define KABI_WMEM_DEFAULT 212992u
#define KABI_WMEM_MAX 212992u
#define KABI_RMEM_DEFAULT 212992u
#define KABI_RMEM_MAX 212992u
#define KABI_OPTMEM_MAX 20480u

/* Socket ioctl numbers (<linux/sockios.h>, x86-64). */
#define KABI_SIOCGSTAMP_OLD 0x8906u
#define KABI_SIOCGSTAMPNS_OLD 0x8907u
#define KABI_SIOCGSTAMP_NEW 0x80108906u	/* _IOR(0x89, 6, long long[2]) */
#define KABI_SIOCGSTAMPNS_NEW 0x80108907u	/* _IOR(0x89, 7, long long[2]) */
#define KABI_SIOCDEVPRIVATE 0x89F0u
#define KABI_SIOCIWFIRST 0x8B00u		/* wireless extensions */
#define KABI_SIOCIWLAST 0x8BFFu

/* ---- memory ----------------------------------------------------------- */

/* Where a call's pointers point: the caller's own memory, or another
 * process's.  read and write move len bytes at addr (len may be 0) and
 * return 0, or -EFAULT for memory that is not there, or another -errno
 * (the supervisor's -ENOENT: the call was abandoned). */
struct kabi_mem {
	void *ctx;
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	int (*write)(void *ctx, uint64_t addr, const void *buf, size_t len);
};

/* This process's own memory, through process_vm_readv/writev on its own
 * pid: a bad pointer is -EFAULT, never a crash. */
extern const struct kabi_mem kabi_mem_self;

/* m->read, with len 0 answered 0 without a call. */
int kabi_read(const struct kabi_mem *m, uint64_t addr, void *buf, size_t len);

/* access_ok(): whether [addr, addr + len) lies below KABI_TASK_SIZE_MAX. */
bool kabi_access_ok(uint64_t addr, uint64_t len);

/* ---- iovecs ----------------------------------------------------------- */

/* A call's data buffers, after the kernel's import: n segments, lengths
 * cut so that total is at most KABI_MAX_RW_COUNT. */
struct kabi_iov {
	struct iovec v[KABI_UIO_MAXIOV];
	size_t n, total;
};

/* Which call imports an iovec array: the count past UIO_MAXIOV is EINVAL
 * for readv/writev/preadv2/pwritev2 (import_iovec()), EMSGSIZE for
 * sendmsg/recvmsg (__copy_msghdr(), before the import). */
enum kabi_iov_call { KABI_IOV_RW, KABI_IOV_MSG };

/* import_iovec() of nr iovecs at uvec: nr > UIO_MAXIOV is EINVAL or
 * EMSGSIZE (see above); the array unreadable is EFAULT; any length
 * negative as ssize_t is EINVAL (all lengths are checked before any
 * address); then a segment past KABI_TASK_SIZE_MAX is EFAULT, and lengths
 * beyond KABI_MAX_RW_COUNT in all are cut.  nr 0 is an empty import. */
int kabi_iov_import(const struct kabi_mem *m, uint64_t uvec, uint64_t nr, enum kabi_iov_call call,
		    struct kabi_iov *out);

/* read()/write(): vfs_read()/vfs_write() check the whole range
 * (access_ok: EFAULT), then cut count to KABI_MAX_RW_COUNT.  The range
 * as one iovec, or as an import of one. */
int kabi_range_rw(uint64_t buf, uint64_t count, struct iovec *out);
int kabi_iov_rw(uint64_t buf, uint64_t count, struct kabi_iov *out);

/* send()/sendto()/recv()/recvfrom(): import_single_range() cuts len to
 * KABI_MAX_RW_COUNT first, then checks the range (EFAULT).  As above. */
int kabi_range_single(uint64_t buf, uint64_t len, struct iovec *out);
int kabi_iov_range(uint64_t buf, uint64_t len, struct kabi_iov *out);

/* The part [off, off + len) of an import as at most n iovecs in out;
 * returns how many. */
size_t kabi_iov_slice(const struct kabi_iov *iov, size_t off, size_t len, struct iovec *out);

/* ---- addresses ---------------------------------------------------------- */

/* move_addr_to_kernel(): len (an int) negative or past KABI_SOCKADDR_MAX
 * is EINVAL, len 0 reads nothing, else len bytes into buf (EFAULT). */
int kabi_sockaddr_import(const struct kabi_mem *m, uint64_t uaddr, uint64_t len,
			 uint8_t buf[KABI_SOCKADDR_MAX]);

/* A bound AF_ALG address as alg_bind() reads it. */
struct kabi_alg_addr {
	char type[KABI_SALG_TYPE_LEN];	/* NUL-terminated */
	uint32_t feat, mask;
	const char *name;		/* inside the buffer given, NUL-terminated */
};

/* alg_bind()'s checks on an address already imported (sa, len bytes, in
 * a buffer of KABI_SOCKADDR_MAX): len below KABI_SALG_NAME_OFFSET + 1, or
 * feat or mask with a bit other than KABI_SALG_ALLOWED_FEAT, is EINVAL.
 * Terminates type and name where the kernel does (the name's last byte
 * is the address's last, which is overwritten with NUL).  The family is
 * not checked: alg_bind() does not. */
int kabi_sockaddr_alg(uint8_t *sa, size_t len, struct kabi_alg_addr *out);

/* ---- messages ---------------------------------------------------------- */

/* One struct msghdr imported as sendmsg()/recvmsg() do. */
struct kabi_msg {
	struct msghdr h;		/* the caller's header, as read */
	struct kabi_iov iov;
	uint8_t name[KABI_SOCKADDR_MAX];	/* sendmsg: the address read */
	int namelen;			/* the kernel's: 0 without a name, cut to KABI_SOCKADDR_MAX */
	uint8_t *ctl;			/* sendmsg: the control data (kabi_msg_release frees it) */
	size_t ctllen;			/* the caller's msg_controllen */
	/* Room for the usual control data (an operation, an IV, an AD
	 * length), as ____sys_sendmsg()'s buffer on the stack: ctl points
	 * here when it fits, and is allocated only when not. */
	_Alignas(struct cmsghdr) uint8_t ctl_small[128];
};

/* copy_msghdr_from_user(), then for a send ____sys_sendmsg()'s control
 * import, in the kernel's order: the header unreadable is EFAULT;
 * msg_namelen negative is EINVAL (past KABI_SOCKADDR_MAX it is cut); a
 * send's address is read (EFAULT); msg_iovlen past UIO_MAXIOV is
 * EMSGSIZE; the iovecs as kabi_iov_import(); then a send's
 * msg_controllen past INT_MAX or KABI_OPTMEM_MAX is ENOBUFS (the
 * sock_kmalloc() refusal; ENOMEM for our own allocation) and its control
 * data unreadable is EFAULT.  A receive's name and control are only
 * room: nothing is read.  On failure nothing is left to release. */
int kabi_msg_import(const struct kabi_mem *m, uint64_t umsg, bool is_send, struct kabi_msg *out);

/* Frees what kabi_msg_import() allocated (safe to call twice). */
void kabi_msg_release(struct kabi_msg *msg);

/* The messages sendmmsg()/recvmmsg() handle of vlen: __sys_sendmmsg()
 * cuts vlen to UIO_MAXIOV; do_recvmmsg() takes it as it is. */
unsigned kabi_mmsg_vlen(unsigned vlen, bool is_send);

/* ---- ioctl ------------------------------------------------------------- */

/* Who answers ioctl(cmd) on an AF_ALG socket (Linux 6.1: fs/ioctl.c
 * do_vfs_ioctl(), then net/socket.c sock_ioctl(), then the protocol's
 * proto_ops ioctl, AF_ALG's being sock_no_ioctl()). */
enum kabi_ioctl_class {
	/* do_vfs_ioctl() or sock_ioctl() itself, the same for every socket:
	 * run on any real socket fd standing for the AF_ALG one, it answers
	 * as the AF_ALG socket would. */
	KABI_IOCTL_GENERIC,
	/* SIOCGSTAMP{,NS}_{OLD,NEW}: AF_ALG has no gettstamp, so
	 * -ENOIOCTLCMD, which vfs_ioctl() turns into ENOTTY. */
	KABI_IOCTL_NOTTY,
	/* Everything else reaches sock_no_ioctl(): EOPNOTSUPP. */
	KABI_IOCTL_OPNOTSUPP,
};

/* The class of cmd (the kernel takes the low 32 bits of the argument). */
enum kabi_ioctl_class kabi_alg_ioctl_class(uint32_t cmd);

/* The errno an AF_ALG socket answers cmd with, or 0 for a generic
 * command, which the caller runs on its real fd. */
int kabi_alg_ioctl_errno(uint32_t cmd);

#endif
