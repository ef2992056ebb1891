/* The supervisor's parts (ualg-run --supervise), shared between its
 * files: supervise.c starts the target under the filter,
 * supervise_notify.c receives notifications and dispatches them,
 * supervise_mem.c reaches the target's memory, supervise_fds.c keeps the
 * emulated sockets and the target's fds that stand for them,
 * supervise_calls.c replays the socket calls, supervise_cdev.c serves
 * /dev/crypto. */
#ifndef UALG_SUPERVISE_IMPL_H
#define UALG_SUPERVISE_IMPL_H

#include "supervise.h"
#include "kabi.h"

#include <linux/seccomp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes copied through this process at a time: sends go in windows with
 * MSG_MORE; a receive returns at most this much (an AF_ALG receive never
 * has more to give than its TX queue, bounded by SO_SNDBUF). */
#define WINDOW (1u << 20)

/* ---- shared state (supervise.c sets it up before the first call) ---- */

extern int notify_fd;			/* the seccomp listener */
extern int hup_epoll;			/* A ends waiting for POLLHUP */
extern unsigned fd_base;		/* the target's range: [fd_base, fd_base + SUPERVISE_FD_SPAN) */
extern atomic_ulong n_notified, n_passed;

/* ---- one notification (supervise_notify.c) ---------------------------- */

struct call {
	struct seccomp_notif req;
	pid_t pid;
	const __u64 *arg;
	struct kabi_mem mem;	/* the target's memory, for kabi */
};

/* Whether the call is still pending (the target has not given up on it). */
bool still_valid(const struct call *c);
/* The result of a system call: r >= 0, or -errno. */
void answer(const struct call *c, int64_t r);
/* Lets the kernel run the call itself: an ordinary fd, or a call whose
 * effect on the target's fd (B) is the one wanted. */
void pass_on(const struct call *c);
/* Starts one more receiver thread (at most THREADS_MAX). */
void spawn_receiver(void);

/* ---- the target's memory (supervise_mem.c) ---------------------------- */

/* c->mem's callbacks over tread/twrite. */
void call_mem_init(struct call *c);
/* len bytes at addr: 0 or -EFAULT.  twrite writes only while the call is
 * still pending (-ENOENT otherwise), so the pid is still the caller's. */
int tread(const struct call *c, uint64_t addr, void *buf, size_t len);
int twrite(const struct call *c, uint64_t addr, const void *buf, size_t len);
/* The bytes [off, off + len) of the target's iovecs into buf, and buf's
 * len bytes out to them from the start. */
int tiov_gather(const struct call *c, const struct kabi_iov *t, size_t off, void *buf, size_t len);
int tiov_scatter(const struct call *c, const struct kabi_iov *t, const void *buf, size_t len);

/* ---- emulated sockets and the target's fds (supervise_fds.c) ---------- */

/* One emulated socket: the shim's fd here, and A, our end of the pair
 * whose other end is the target's fd. */
struct esock {
	atomic_uint refs;	/* the table's, and one per call in progress */
	int s;			/* the shim socket (AF_ALG as far as we are concerned) */
	int a;			/* our end of the placeholder pair */
	dev_t dev;
	ino_t ino;		/* B's inode: what the target's fds refer to */
	struct esock *next;
};

/* The emulated socket that fd of thread tid is, with a reference, or
 * NULL: an ordinary fd, or none. */
struct esock *lookup(pid_t tid, uint64_t fd);
void esock_put(struct esock *e);
/* The thread that releases a socket once every target fd for it is gone. */
void *hup_thread(void *arg);
/* Puts file src into the target at a free slot of the range (at or above
 * min); send: answers the call with that fd, atomically
 * (ADDFD_FLAG_SEND).  Returns the fd, or -errno. */
int addfd(const struct call *c, int src, bool cloexec, unsigned min, bool send);
/* A new emulated socket (shim fd s, ours now) becomes a target fd, which
 * answers the call. */
void install(const struct call *c, int s, bool cloexec, bool nonblock);
/* The target's fd as a file of ours (pidfd_getfd); -errno if it has none. */
int borrow_fd(const struct call *c, uint64_t fd);
/* dup(fd), fcntl(fd, F_DUPFD[_CLOEXEC], min): a new fd in the range for
 * the same file (the kernel's would lie below it, out of our reach). */
void serve_dup(const struct call *c, bool cloexec, uint64_t min);
/* dup2/dup3: onto a slot of the range the kernel's own, elsewhere EINVAL. */
void serve_dup2(const struct call *c);
void serve_ioctl(const struct call *c, struct esock *e);
void serve_fcntl(const struct call *c, struct esock *e);

/* ---- the socket calls (supervise_calls.c) ----------------------------- */

void serve_socket(const struct call *c);
/* A call on one of our sockets. */
void serve_fd_call(const struct call *c, struct esock *e);
/* splice and sendfile: SPLICE_NOT_OURS when neither end is ours. */
#define SPLICE_NOT_OURS INT64_MIN
int64_t serve_splice(const struct call *c, bool is_sendfile);

/* ---- /dev/crypto (supervise_cdev.c) ----------------------------------- */

/* open("/dev/crypto") or openat(dirfd, "/dev/crypto"): true when served. */
bool serve_open_devcrypto(const struct call *c, uint64_t upath, int flags);
/* A call on a /dev/crypto fd of the target: true when fd is one. */
bool serve_cdev(const struct call *c, uint64_t fd);

#endif
