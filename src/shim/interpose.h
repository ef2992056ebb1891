/* The interposed libc functions' internal interface.
 *
 * Every interposed function asks the fd table for the fd's socket
 * (afd_get, with a reference; the data path's calls afd_enter, with the
 * thread's hazard slot, hazard.c); if there is none the real function runs
 * with nothing else done.  For ours it calls the socket's operations
 * (struct afd_ops), one table per kind of emulated fd:
 *   alg_sock.c      transform and op sockets (bind, accept, setsockopt,
 *                   ioctl) and their tables, with RFC mode's (rfc.c)
 *   alg_io.c        their data path to algd: frames and the payload area
 *   netlink_sock.c  NETLINK_CRYPTO sockets
 * and the interposed functions live by concern:
 *   next.c     the real functions (dlsym) and the shim's constructor
 *   socket.c   socket, bind, accept, listen and the sock_no_* calls
 *   sockopt.c  setsockopt, getsockopt (keyring.c: ALG_SET_KEY_BY_KEY_SERIAL)
 *   transfer.c send, sendmsg, write, recv, recvmsg, read... and *mmsg
 *   splice.c   splice, sendfile
 *   poll.c     poll, ppoll, select, pselect
 *   fdops.c    close, dup, fcntl, ioctl
 */
#ifndef UALG_INTERPOSE_H
#define UALG_INTERPOSE_H

#include "shim.h"
#include "kabi.h"	/* the kernel's constants and argument checks */

#include <errno.h>
#include <sys/types.h>

#define EXPORT __attribute__((visibility("default")))

/* The operations of one kind of emulated fd.  Each is called with a
 * reference on a held; each sets errno and returns -1 on failure, as the
 * libc function it serves. */
struct afd_ops {
	int (*bind)(int fd, struct afd *a, const struct sockaddr *addr, socklen_t len);
	int (*accept)(int fd, struct afd *a, struct sockaddr *addr, socklen_t *alen, int flags);
	int (*listen)(int fd, struct afd *a, int backlog);
	int (*getsockname)(int fd, struct afd *a, struct sockaddr *addr, socklen_t *len);
	/* Every level, SOL_SOCKET included. */
	int (*setsockopt)(int fd, struct afd *a, int level, int optname, const void *val,
			  socklen_t len);
	/* iov: the caller's iovecs as imported (kabi.h: lengths checked and
	 * cut to MAX_RW_COUNT in all); total their sum.  The same for recv. */
	ssize_t (*send)(int fd, struct afd *a, const struct iovec *iov, size_t niov, size_t total,
			const struct shim_ctl *ctl, int flags);
	/* msg_flags may be NULL. */
	ssize_t (*recv)(int fd, struct afd *a, const struct iovec *iov, size_t niov, int flags,
			int *msg_flags);
	/* recvmsg()'s msg_name for a reply: fills name (len bytes there) and
	 * returns its length; NULL: no address. */
	socklen_t (*recv_name)(void *name, socklen_t len);
	/* The poll mask (shim_alg_revents); NULL: the real socket's. */
	short (*revents)(int fd, struct afd *a, short events);
	/* An ioctl not FIONBIO (which fdops.c keeps for every kind). */
	int (*ioctl)(int fd, struct afd *a, unsigned long cmd, void *arg);
	int so_type;		/* getsockopt(SO_TYPE), or 0: the real socket's */
};

extern const struct afd_ops afd_tfm_ops, afd_op_ops, afd_rfc_tfm_ops, afd_rfc_op_ops,
	afd_netlink_ops, afd_local_tfm_ops, afd_local_op_ops;

/* r = call, then release(arg), also when the thread is cancelled inside
 * call (the emulated calls are cancellation points).  thread_owned: what
 * arg holds is released anyway when the thread ends, so no cleanup handler
 * is pushed (it costs a sigsetjmp). */
#define HELD_CALL(thread_owned, release, arg, r, call)          \
	do {                                                    \
		if (thread_owned) {                             \
			(r) = (call);                           \
			release(arg);                           \
		} else {                                        \
			pthread_cleanup_push(release, (arg));   \
			(r) = (call);                           \
			pthread_cleanup_pop(1);                 \
		}                                               \
	} while (0)
/* a's reference dropped after call. */
void afd_put_cleanup(void *a);
#define AFD_HELD(a, r, call) HELD_CALL(false, afd_put_cleanup, a, r, call)
/* The same for an afd_enter() hold: a thread's slot is emptied when the
 * thread ends (hazard.c), cancelled or not; a counted hold is not. */
#define AFD_ENTERED(hold, r, call) HELD_CALL((hold)->hazard, afd_leave_cleanup, hold, r, call)

/* fdtable.c's table: two levels indexed by fd (fds up to 1M), read
 * inline on the data path. */
#define AFD_L2_BITS 10
#define AFD_L1_SIZE 1024u
extern _Atomic(struct afd *) *_Atomic afd_table[AFD_L1_SIZE];

/* fd's place in the table; NULL: none yet. */
static inline _Atomic(struct afd *) *afd_slot(int fd)
{
	if (fd < 0 || (unsigned)fd >= AFD_L1_SIZE << AFD_L2_BITS)
		return NULL;
	_Atomic(struct afd *) *l2 = atomic_load_explicit(&afd_table[fd >> AFD_L2_BITS], memory_order_acquire);
	return l2 ? &l2[fd & ((1u << AFD_L2_BITS) - 1)] : NULL;
}

/* fdtable.c and hazard.c: an entry whose last reference went, and its
 * release once no call holds it. */
void afd_retire(struct afd *a);
void afd_release(struct afd *a);

/* The real functions the interposed ones stand for (next.c); those of
 * struct real_fns (shim.h) are in real. */
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
struct next_fns {
	read_fn read;
	write_fn write;
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*writev)(int, const struct iovec *, int);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	int (*accept)(int, struct sockaddr *, socklen_t *);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	int (*listen)(int, int);
	int (*getsockname)(int, struct sockaddr *, socklen_t *);
	int (*getpeername)(int, struct sockaddr *, socklen_t *);
	int (*shutdown)(int, int);
	ssize_t (*splice)(int, loff_t *, int, loff_t *, size_t, unsigned);
	ssize_t (*sendfile)(int, int, off_t *, size_t);
	int (*sendmmsg)(int, struct mmsghdr *, unsigned, int);
	int (*ioctl)(int, unsigned long, ...);
	int (*recvmmsg)(int, struct mmsghdr *, unsigned, int, struct timespec *);
};
extern struct next_fns next;

static inline int fail(int err)
{
	errno = err;
	return -1;
}

static inline ssize_t sfail(int err)
{
	errno = err;
	return -1;
}

/* alg_sock.c, for the AF_ALG tables.  alg_bind_parse(): the address as
 * move_addr_to_kernel() and alg_bind() check it (0 or -errno);
 * alg_bind_xact(): BIND of it on fd's connection (0 or -errno), sent
 * ahead (struct xact) when its answer is known. */
int alg_bind_parse(const struct sockaddr *addr, socklen_t len, struct shim_bind *out);
int alg_bind_xact(struct afd *a, int fd, const struct shim_bind *b, bool ahead);
int alg_bind(int fd, struct afd *a, const struct sockaddr *addr, socklen_t len);
int alg_accept(int fd, struct afd *a, struct sockaddr *addr, socklen_t *alen, int flags);

/* sockopt.c: setsockopt() of a transform socket, an op socket and an RFC
 * mode socket (SO_SNDBUF kept for algd, other SOL_SOCKET options on the
 * real socket). */
int alg_tfm_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
		       socklen_t len);
int alg_op_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
		      socklen_t len);
int alg_rfc_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
		       socklen_t len);
/* SO_SNDBUF's value as sock_setsockopt() computes it: 0 or -errno. */
int sndbuf_bytes(const void *val, socklen_t len, int *bytes);
/* SETSOCKOPT at SOL_ALG of val (vallen bytes, already the program's) on
 * fd's connection: the result, algd's key_gen after it in *key_gen; with
 * key_gen NULL, sent ahead (client.c) on a connection being set up. */
int alg_sockopt_xact(struct afd *a, int fd, int optname, const void *val, uint32_t vallen,
		     uint32_t optlen, uint32_t *key_gen);

/* local.c: the calls of sockets algd has not seen, for their tables. */
int local_tfm_bind(int fd, struct afd *a, const struct sockaddr *addr, socklen_t len);
int local_tfm_accept(int fd, struct afd *a, struct sockaddr *addr, socklen_t *alen, int flags);
int local_op_accept(int fd, struct afd *a, struct sockaddr *addr, socklen_t *alen, int flags);
int local_tfm_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
			 socklen_t len);
int local_op_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
			socklen_t len);
ssize_t local_tfm_send(int fd, struct afd *a, const struct iovec *iov, size_t niov, size_t total,
		       const struct shim_ctl *ctl, int flags);
ssize_t local_tfm_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov, int flags,
		       int *msg_flags);
short local_tfm_revents(int fd, struct afd *a, short events);

/* netlink_sock.c: socket(AF_NETLINK, type, NETLINK_CRYPTO). */
int netlink_sock_create(int type);

/* alg_io.c: the AF_ALG data path to algd, for the op tables. */
ssize_t alg_send(int fd, struct afd *a, const struct iovec *iov, size_t niov, size_t total,
		 const struct shim_ctl *ctl, int flags);
ssize_t alg_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov, int flags,
		 int *msg_flags);
/* One sendmsg() of the first n bytes of a's payload area (splice.c). */
ssize_t alg_send_area(int fd, struct afd *a, size_t n, int flags);

/* keyring.c: ALG_SET_KEY_BY_KEY_SERIAL's key read from the caller's
 * keyrings: 0 with the payload in *out (the caller wipes and frees it), or
 * a positive errno; *by_name when the key is a "ualg:NAME" reference and
 * *out holds NAME. */
int read_key_by_serial(const void *val, socklen_t len, uint8_t **out, size_t *outlen,
		       bool *by_name);

#endif
