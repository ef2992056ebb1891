/* ualg-run --supervise: serves AF_ALG to a program whose system calls no
 * LD_PRELOAD can reach (static binaries, CGO_ENABLED=0 Go).
 *
 * This process runs with libualg-preload.so preloaded, so every AF_ALG call
 * it makes through libc is served by the shim over algd.  It starts the
 * target under a seccomp filter whose only non-ALLOW answer is
 * SECCOMP_RET_USER_NOTIF, for socket(AF_ALG) and for calls whose fd
 * argument lies in [base, base + SUPERVISE_FD_SPAN): the range where this
 * process installs the target's emulated sockets (SECCOMP_IOCTL_NOTIF_ADDFD
 * with SETFD).  Every other call passes the filter with ALLOW and never
 * reaches us.  For a notified call the supervisor copies the arguments out
 * of the target (process_vm_readv, then NOTIF_ID_VALID), replays the call on
 * its own shim socket, and copies the results back.
 *
 * The target's fd for an emulated socket is one end (B) of an AF_UNIX
 * socketpair whose other end (A) stays here: a real socket, so fstat,
 * close, fork, exec and close_range behave as the kernel makes them, and
 * when the last reference to B anywhere is gone, A reports POLLHUP and the
 * shim socket is closed.  close() therefore never needs to be intercepted.
 * Which emulated socket a target fd is is found by its inode
 * (stat /proc/TID/fd/N), so dups and fds inherited by forked children map
 * to the same socket with no bookkeeping of their fd tables. */
#include "supervise.h"
#include "proto.h"
#include "cryptodev.h"
#include "ualg_cryptodev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <dirent.h>
#include <linux/kcmp.h>
#include <unistd.h>

#ifndef AF_ALG
#define AF_ALG 38
#endif
#define NETLINK_CRYPTO_ 21
#define UIO_MAXIOV_ 1024
#define SOCKADDR_MAX 128		/* sizeof(struct sockaddr_storage) */
#define MAX_RW_COUNT_ 0x7ffff000L	/* INT_MAX & PAGE_MASK: the kernel's cap per call */
/* Bytes copied through this process at a time: sends go in windows with
 * MSG_MORE; a receive returns at most this much (an AF_ALG receive never
 * has more to give than its TX queue, bounded by SO_SNDBUF). */
#define WINDOW (1u << 20)
#define CTL_MAX UALG_SOCKOPT_MAX	/* optmem_max: larger control data is ENOBUFS */
#define GETOPT_MAX 256u
#define IDLE_MAX 4			/* receiver threads kept waiting */
#define THREADS_MAX 256			/* calls served at once; more wait their turn */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS	/* Linux 6.6 */
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif

static int notify_fd = -1;
static int hup_epoll = -1;
static unsigned fd_base;
static atomic_uint idle_receivers, receivers;
static atomic_ulong n_notified, n_passed;
static unsigned filter_len;

/* ---- emulated sockets ------------------------------------------------ */

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

#define BUCKETS 256
static struct esock *table[BUCKETS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
/* Held from choosing a free slot in the target's range to filling it. */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

static void esock_put(struct esock *e)
{
	if (atomic_fetch_sub(&e->refs, 1) == 1) {
		close(e->s);	/* through the shim: it forgets the socket */
		close(e->a);
		free(e);
	}
}

static struct esock *esock_find(dev_t dev, ino_t ino)
{
	struct esock *e;

	pthread_mutex_lock(&table_lock);
	for (e = table[ino % BUCKETS]; e; e = e->next)
		if (e->ino == ino && e->dev == dev) {
			atomic_fetch_add(&e->refs, 1);
			break;
		}
	pthread_mutex_unlock(&table_lock);
	return e;
}

static void esock_unlink(struct esock *e)
{
	pthread_mutex_lock(&table_lock);
	for (struct esock **p = &table[e->ino % BUCKETS]; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			break;
		}
	pthread_mutex_unlock(&table_lock);
}

/* The emulated socket that fd of thread tid is, with a reference, or
 * NULL: an ordinary fd, or none. */
static struct esock *lookup(pid_t tid, uint64_t fd)
{
	char path[64];
	struct stat st;

	/* The kernel takes the low 32 bits of an fd argument, as the filter
	 * does. */
	fd &= 0xffffffffu;
	if (fd > INT32_MAX)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, (int)fd);
	if (stat(path, &st) || !S_ISSOCK(st.st_mode))
		return NULL;
	return esock_find(st.st_dev, st.st_ino);
}

/* The last reference to B is gone (every target fd closed, or the
 * processes holding them ended): release the socket. */
static void *hup_thread(void *arg)
{
	struct epoll_event ev[32];

	(void)arg;
	for (;;) {
		int n = epoll_wait(hup_epoll, ev, 32, -1);
		for (int i = 0; i < n; i++) {
			struct esock *e = ev[i].data.ptr;
			epoll_ctl(hup_epoll, EPOLL_CTL_DEL, e->a, NULL);
			esock_unlink(e);
			esock_put(e);
		}
	}
	return NULL;
}

/* ---- talking to the kernel about one notification -------------------- */

struct call {
	struct seccomp_notif req;
	pid_t pid;
	const __u64 *arg;
};

static bool still_valid(const struct call *c)
{
	uint64_t id = c->req.id;
	return ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void respond(const struct call *c, int64_t val, int err, uint32_t flags)
{
	struct seccomp_notif_resp r = { .id = c->req.id, .val = val, .error = err, .flags = flags };
	ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &r);	/* ENOENT: the call was abandoned */
}

/* The result of a system call: r >= 0, or -errno. */
static void answer(const struct call *c, int64_t r)
{
	if (r < 0)
		respond(c, 0, (int)r, 0);
	else
		respond(c, r, 0, 0);
}

/* Lets the kernel run the call itself: an ordinary fd, or a call whose
 * effect on the target's fd (B) is the one wanted. */
static void pass_on(const struct call *c)
{
	atomic_fetch_add(&n_passed, 1);
	respond(c, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

/* ---- the target's memory --------------------------------------------- */

static int tread(const struct call *c, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	if (!len)
		return 0;
	return syscall(SYS_process_vm_readv, c->pid, &l, 1UL, &r, 1UL, 0UL) == (ssize_t)len ? 0 : -EFAULT;
}

/* Writes are made only while the call is still pending, so the pid is
 * still the caller's. */
static int twrite(const struct call *c, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len }, r = { (void *)(uintptr_t)addr, len };
	if (!len)
		return 0;
	if (!still_valid(c))
		return -ENOENT;
	return syscall(SYS_process_vm_writev, c->pid, &l, 1UL, &r, 1UL, 0UL) == (ssize_t)len ? 0 : -EFAULT;
}

/* The target's iovec array, checked as rw_copy_check_uvector(): at most
 * UIO_MAXIOV entries, no length above SSIZE_MAX, the total capped at
 * MAX_RW_COUNT (lengths past the cap are cut). */
struct tiov {
	struct iovec v[UIO_MAXIOV_];
	size_t n, total;
};

static int tiov_read(const struct call *c, uint64_t addr, uint64_t n, struct tiov *t, int toomany)
{
	if (n > UIO_MAXIOV_)
		return toomany;
	if (tread(c, addr, t->v, n * sizeof(struct iovec)))
		return -EFAULT;
	t->n = n;
	t->total = 0;
	for (size_t i = 0; i < n; i++) {
		if ((ssize_t)t->v[i].iov_len < 0)
			return -EINVAL;
		size_t room = MAX_RW_COUNT_ - t->total;
		if (t->v[i].iov_len > room)
			t->v[i].iov_len = room;
		t->total += t->v[i].iov_len;
	}
	return 0;
}

/* The part [off, off + len) of the target's iovecs. */
static size_t tiov_slice(const struct tiov *t, size_t off, size_t len, struct iovec *out)
{
	size_t k = 0;
	for (size_t i = 0; i < t->n && len; i++) {
		size_t l = t->v[i].iov_len;
		if (off >= l) {
			off -= l;
			continue;
		}
		size_t take = l - off < len ? l - off : len;
		out[k++] = (struct iovec){ (char *)t->v[i].iov_base + off, take };
		len -= take;
		off = 0;
	}
	return k;
}

static int tiov_gather(const struct call *c, const struct tiov *t, size_t off, void *buf, size_t len)
{
	static __thread struct iovec part[UIO_MAXIOV_];
	struct iovec l = { buf, len };
	size_t k = tiov_slice(t, off, len, part);
	if (!len)
		return 0;
	return syscall(SYS_process_vm_readv, c->pid, &l, 1UL, part, k, 0UL) == (ssize_t)len ? 0 : -EFAULT;
}

static int tiov_scatter(const struct call *c, const struct tiov *t, const void *buf, size_t len)
{
	static __thread struct iovec part[UIO_MAXIOV_];
	struct iovec l = { (void *)buf, len };
	size_t k = tiov_slice(t, 0, len, part);
	if (!len)
		return 0;
	if (!still_valid(c))
		return -ENOENT;
	return syscall(SYS_process_vm_writev, c->pid, &l, 1UL, part, k, 0UL) == (ssize_t)len ? 0 : -EFAULT;
}

/* ---- installing a socket in the target -------------------------------- */

/* The lowest slot of the range at or above min that the target's fd
 * table leaves free. */
static int free_slot(pid_t tid, unsigned min)
{
	char path[64];
	static uint8_t used[SUPERVISE_FD_SPAN];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)tid);
	DIR *d = opendir(path);
	struct dirent *de;
	if (!d)
		return -ESRCH;
	memset(used, 0, sizeof(used));
	while ((de = readdir(d))) {
		long fd = strtol(de->d_name, NULL, 10);
		if (fd >= fd_base && fd < fd_base + SUPERVISE_FD_SPAN)
			used[fd - fd_base] = 1;
	}
	closedir(d);
	for (unsigned i = min > fd_base ? min - fd_base : 0; i < SUPERVISE_FD_SPAN; i++)
		if (!used[i])
			return (int)(fd_base + i);
	return -EMFILE;
}

/* Puts file src into the target at a free slot of the range (at or above
 * min) and answers the call with that fd, atomically (ADDFD_FLAG_SEND).
 * Returns the fd, or -errno. */
static int addfd_and_answer(const struct call *c, int src, bool cloexec, unsigned min)
{
	pthread_mutex_lock(&slot_lock);
	int slot = free_slot(c->pid, min);
	int r = slot;
	if (slot >= 0) {
		struct seccomp_notif_addfd add = {
			.id = c->req.id, .flags = SECCOMP_ADDFD_FLAG_SETFD | SECCOMP_ADDFD_FLAG_SEND,
			.srcfd = (uint32_t)src, .newfd = (uint32_t)slot, .newfd_flags = cloexec ? O_CLOEXEC : 0,
		};
		r = ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		r = r < 0 ? -errno : r;
	}
	pthread_mutex_unlock(&slot_lock);
	return r;
}

/* A new emulated socket (shim fd s, ours now) becomes a target fd, which
 * answers the call. */
static void install(const struct call *c, int s, bool cloexec, bool nonblock)
{
	int sv[2];
	struct stat st;
	struct esock *e = calloc(1, sizeof(*e));

	if (!e || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		free(e);
		close(s);
		answer(c, -ENFILE);
		return;
	}
	if (nonblock)
		fcntl(sv[1], F_SETFL, O_NONBLOCK);
	/* poll() on the target's fd never reaches us: one byte waiting makes
	 * it report readable and writable, so that a program polling before
	 * its read gets to the read, which waits here as AF_ALG's would. */
	ssize_t one = write(sv[0], "", 1);	/* a new pair has room for it */
	(void)one;
	fstat(sv[1], &st);
	*e = (struct esock){ .s = s, .a = sv[0], .dev = st.st_dev, .ino = st.st_ino };
	atomic_init(&e->refs, 1);
	pthread_mutex_lock(&table_lock);
	e->next = table[e->ino % BUCKETS];
	table[e->ino % BUCKETS] = e;
	pthread_mutex_unlock(&table_lock);
	/* No events asked: POLLHUP is always reported. */
	struct epoll_event ev = { .events = 0, .data.ptr = e };
	epoll_ctl(hup_epoll, EPOLL_CTL_ADD, e->a, &ev);
	int r = addfd_and_answer(c, sv[1], cloexec, 0);
	/* Closing B here leaves the target's the only reference; if the
	 * target got none, A reports POLLHUP now and the socket goes. */
	close(sv[1]);
	if (r < 0 && r != -ENOENT)
		answer(c, r);
}

/* ---- the calls --------------------------------------------------------- */

static void serve_socket(const struct call *c)
{
	int type = (int)c->arg[1];
	int s = socket((int)c->arg[0], (type & ~SOCK_CLOEXEC) | SOCK_CLOEXEC, (int)c->arg[2]);
	if (s < 0) {
		answer(c, -errno);
		return;
	}
	install(c, s, type & SOCK_CLOEXEC, type & SOCK_NONBLOCK);
}

static void serve_accept(const struct call *c, struct esock *e, int flags)
{
	uint8_t addr[SOCKADDR_MAX];
	socklen_t alen = 0;
	uint64_t uaddr = c->arg[1], ulen = c->arg[2];

	if (uaddr && (tread(c, ulen, &alen, sizeof(alen)) || (int)alen < 0)) {
		answer(c, (int)alen < 0 ? -EINVAL : -EFAULT);
		return;
	}
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK)) {
		answer(c, -EINVAL);
		return;
	}
	socklen_t l = alen < sizeof(addr) ? alen : sizeof(addr);
	int s = accept4(e->s, uaddr ? (struct sockaddr *)addr : NULL, uaddr ? &l : NULL,
			(flags & SOCK_NONBLOCK) | SOCK_CLOEXEC);
	if (s < 0) {
		answer(c, -errno);
		return;
	}
	if (uaddr) {
		socklen_t out = l < alen ? l : alen;
		if (twrite(c, uaddr, addr, out) || twrite(c, ulen, &l, sizeof(l))) {
			close(s);
			answer(c, -EFAULT);
			return;
		}
	}
	install(c, s, flags & SOCK_CLOEXEC, flags & SOCK_NONBLOCK);
}

/* A sockaddr argument: -EINVAL past sockaddr_storage, as
 * move_addr_to_kernel(). */
static int read_addr(const struct call *c, uint64_t uaddr, uint64_t len, uint8_t *buf)
{
	if ((int)len < 0 || len > SOCKADDR_MAX)
		return -EINVAL;
	return tread(c, uaddr, buf, len);
}

static int64_t serve_bind_connect(const struct call *c, struct esock *e, bool is_bind)
{
	uint8_t addr[SOCKADDR_MAX];
	int r = read_addr(c, c->arg[1], c->arg[2], addr);
	if (r)
		return r;
	if (!still_valid(c))
		return -ENOENT;
	r = is_bind ? bind(e->s, (struct sockaddr *)addr, (socklen_t)c->arg[2])
		    : connect(e->s, (struct sockaddr *)addr, (socklen_t)c->arg[2]);
	return r ? -errno : 0;
}

/* SOL_SOCKET options whose value is plain data (never a pointer the
 * kernel would follow in our memory, as SO_ATTACH_FILTER's is). */
static bool plain_sol_socket(int opt)
{
	switch (opt) {
	case SO_SNDBUF: case SO_RCVBUF: case SO_SNDBUFFORCE: case SO_RCVBUFFORCE:
	case SO_KEEPALIVE: case SO_PRIORITY: case SO_RCVLOWAT: case SO_SNDLOWAT:
	case SO_RCVTIMEO_OLD: case SO_SNDTIMEO_OLD: case SO_PASSCRED: case SO_LINGER:
	case SO_REUSEADDR: case SO_MARK: case SO_BINDTODEVICE:
		return true;
	default:
		return false;
	}
}

static int64_t serve_setsockopt(const struct call *c, struct esock *e)
{
	int level = (int)c->arg[1], opt = (int)c->arg[2];
	uint64_t uval = c->arg[3];
	socklen_t len = (socklen_t)c->arg[4];

	if (level == SOL_SOCKET && !plain_sol_socket(opt))
		return -ENOPROTOOPT;
	/* The shim reads at most len bytes, and none of a key of
	 * UALG_SOCKOPT_MAX or more (ENOMEM there, as the kernel). */
	size_t n = (int)len < 0 ? 0 : len < UALG_SOCKOPT_MAX ? len : 0;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	bool readable = uval && !tread(c, uval, buf, n);
	int r = -ENOENT;
	if (still_valid(c)) {
		/* An unreadable value is the shim's to report, in the kernel's
		 * order: it sees NULL. */
		r = setsockopt(e->s, level, opt, readable ? buf : NULL, len) ? -errno : 0;
	}
	explicit_bzero(buf, n);	/* maybe a key */
	free(buf);
	return r;
}

/* getsockopt, getsockname, getpeername: a value and its length out. */
static int64_t serve_get(const struct call *c, struct esock *e, int kind)
{
	uint64_t uval = kind ? c->arg[1] : c->arg[3], ulen = kind ? c->arg[2] : c->arg[4];
	uint8_t buf[GETOPT_MAX];
	socklen_t len, l;

	if (tread(c, ulen, &len, sizeof(len)))
		return -EFAULT;
	if ((int)len < 0)
		return -EINVAL;
	l = len < sizeof(buf) ? len : sizeof(buf);
	int r = kind == 0 ? getsockopt(e->s, (int)c->arg[1], (int)c->arg[2], buf, &l)
		: kind == 1 ? getsockname(e->s, (struct sockaddr *)buf, &l)
			    : getpeername(e->s, (struct sockaddr *)buf, &l);
	if (r)
		return -errno;
	socklen_t out = l < len ? l : len;
	if (twrite(c, uval, buf, out) || twrite(c, ulen, &l, sizeof(l)))
		return -EFAULT;
	return 0;
}

/* recvmsg/recvfrom/read/readv: at most WINDOW bytes per call (a socket may
 * return fewer bytes than asked). */
static int64_t recv_into(const struct call *c, struct esock *e, const struct tiov *t, int flags,
			 struct msghdr *m)
{
	size_t want = t->total < WINDOW ? t->total : WINDOW;
	uint8_t *buf = malloc(want ? want : 1);
	if (!buf)
		return -ENOMEM;
	struct iovec iov = { buf, want };
	m->msg_iov = &iov;
	m->msg_iovlen = 1;
	ssize_t r = recvmsg(e->s, m, flags);
	int64_t out = r < 0 ? -errno : r;
	if (r > 0) {
		int w = tiov_scatter(c, t, buf, (size_t)r);
		out = w ? w : r;
	}
	free(buf);
	return out;
}

/* sendmsg/sendto/write/writev: through this process in windows of WINDOW
 * bytes, all but the last with MSG_MORE (what one call of the whole would
 * have done); control data and the address go with the first. */
static int64_t send_from(const struct call *c, struct esock *e, const struct tiov *t, int flags,
			 struct msghdr *m)
{
	size_t done = 0, win = t->total < WINDOW ? t->total : WINDOW;
	uint8_t *buf = malloc(win ? win : 1);
	if (!buf)
		return -ENOMEM;
	int64_t out = 0;
	do {
		size_t n = t->total - done < WINDOW ? t->total - done : WINDOW;
		bool last = done + n == t->total;
		if (tiov_gather(c, t, done, buf, n)) {
			out = done ? (int64_t)done : -EFAULT;
			break;
		}
		if (!still_valid(c)) {
			out = -ENOENT;
			break;
		}
		struct iovec iov = { buf, n };
		m->msg_iov = &iov;
		m->msg_iovlen = 1;
		ssize_t r = sendmsg(e->s, m, last ? flags : flags | MSG_MORE);
		m->msg_control = NULL;
		m->msg_controllen = 0;
		m->msg_name = NULL;
		m->msg_namelen = 0;
		if (r < 0) {
			out = done ? (int64_t)done : -errno;
			break;
		}
		done += (size_t)r;
		out = (int64_t)done;
		if ((size_t)r < n)
			break;
	} while (done < t->total);
	free(buf);
	return out;
}

static int64_t serve_rw(const struct call *c, struct esock *e, bool vec, bool is_write, int flags)
{
	static __thread struct tiov t;
	int r;

	if (vec) {
		if ((int)c->arg[2] < 0)
			return -EINVAL;
		r = tiov_read(c, c->arg[1], c->arg[2], &t, -EINVAL);
	} else {
		size_t len = c->arg[2] > (uint64_t)MAX_RW_COUNT_ ? MAX_RW_COUNT_ : c->arg[2];
		t.v[0] = (struct iovec){ (void *)(uintptr_t)c->arg[1], len };
		t.n = 1;
		t.total = len;
		r = 0;
	}
	if (r)
		return r;
	struct msghdr m = { 0 };
	if (is_write)
		return send_from(c, e, &t, flags, &m);
	if (!t.total)
		return 0;	/* read of 0 bytes: sock_read_iter() */
	return recv_into(c, e, &t, flags, &m);
}

static int64_t serve_sendto(const struct call *c, struct esock *e)
{
	static __thread struct tiov t;
	uint8_t addr[SOCKADDR_MAX];
	struct msghdr m = { 0 };
	size_t len = c->arg[2] > (uint64_t)MAX_RW_COUNT_ ? MAX_RW_COUNT_ : c->arg[2];

	t.v[0] = (struct iovec){ (void *)(uintptr_t)c->arg[1], len };
	t.n = 1;
	t.total = len;
	if (c->arg[4]) {
		int r = read_addr(c, c->arg[4], c->arg[5], addr);
		if (r)
			return r;
		m.msg_name = addr;
		m.msg_namelen = (socklen_t)c->arg[5];
	}
	return send_from(c, e, &t, (int)c->arg[3], &m);
}

static int64_t serve_recvfrom(const struct call *c, struct esock *e)
{
	static __thread struct tiov t;
	uint8_t addr[SOCKADDR_MAX];
	socklen_t alen = 0;
	struct msghdr m = { 0 };
	size_t len = c->arg[2] > (uint64_t)MAX_RW_COUNT_ ? MAX_RW_COUNT_ : c->arg[2];

	t.v[0] = (struct iovec){ (void *)(uintptr_t)c->arg[1], len };
	t.n = 1;
	t.total = len;
	if (c->arg[4] && c->arg[5]) {
		if (tread(c, c->arg[5], &alen, sizeof(alen)))
			return -EFAULT;
		m.msg_name = addr;
		m.msg_namelen = sizeof(addr);
	}
	int64_t r = recv_into(c, e, &t, (int)c->arg[3], &m);
	if (r >= 0 && c->arg[4] && c->arg[5]) {	/* move_addr_to_user() */
		if ((int)alen < 0)
			return -EINVAL;
		socklen_t out = m.msg_namelen < alen ? m.msg_namelen : alen;
		if (twrite(c, c->arg[4], addr, out) || twrite(c, c->arg[5], &m.msg_namelen, sizeof(socklen_t)))
			return -EFAULT;
	}
	return r;
}

/* One struct msghdr of the target: header, iovecs, name and control. */
struct tmsg {
	struct msghdr h;	/* as the target has it */
	struct tiov t;
	uint8_t name[SOCKADDR_MAX];
	uint8_t *ctl;
};

static int tmsg_read(const struct call *c, uint64_t addr, struct tmsg *m, bool is_send)
{
	if (tread(c, addr, &m->h, sizeof(m->h)))
		return -EFAULT;
	int r = tiov_read(c, (uintptr_t)m->h.msg_iov, m->h.msg_iovlen, &m->t, -EMSGSIZE);
	if (r)
		return r;
	/* Control data to send past optmem_max is ENOBUFS (sock_kmalloc);
	 * room for received control data is only room: AF_ALG gives none,
	 * and the shim sees at most CTL_MAX of it. */
	if (is_send && m->h.msg_controllen > CTL_MAX)
		return -ENOBUFS;
	if (!is_send && m->h.msg_controllen > CTL_MAX)
		m->h.msg_controllen = CTL_MAX;
	m->ctl = malloc(m->h.msg_controllen ? m->h.msg_controllen : 1);
	if (!m->ctl)
		return -ENOMEM;
	if (is_send) {
		if (m->h.msg_name && (r = read_addr(c, (uintptr_t)m->h.msg_name, m->h.msg_namelen, m->name)))
			return r;
		if (tread(c, (uintptr_t)m->h.msg_control, m->ctl, m->h.msg_controllen))
			return -EFAULT;
	}
	return 0;
}

static int64_t msg_one(const struct call *c, struct esock *e, uint64_t addr, int flags, bool is_send)
{
	static __thread struct tmsg tm;
	int r = tmsg_read(c, addr, &tm, is_send);
	if (r) {
		free(tm.ctl);
		tm.ctl = NULL;
		return r;
	}
	struct msghdr m = {
		.msg_name = tm.h.msg_name ? tm.name : NULL,
		.msg_namelen = tm.h.msg_name ? (is_send ? tm.h.msg_namelen : sizeof(tm.name)) : 0,
		.msg_control = tm.h.msg_controllen ? tm.ctl : NULL,
		.msg_controllen = tm.h.msg_controllen,
	};
	int64_t out;
	if (is_send) {
		out = send_from(c, e, &tm.t, flags, &m);
	} else {
		out = recv_into(c, e, &tm.t, flags, &m);
		if (out >= 0) {
			/* recvmsg's outputs: name, control, and three fields. */
			socklen_t nl = m.msg_namelen < tm.h.msg_namelen ? m.msg_namelen : tm.h.msg_namelen;
			struct msghdr *u = (struct msghdr *)(uintptr_t)addr;
			size_t cl = m.msg_controllen;
			if ((tm.h.msg_name && twrite(c, (uintptr_t)tm.h.msg_name, tm.name, nl)) ||
			    twrite(c, (uintptr_t)tm.h.msg_control, tm.ctl, cl) ||
			    twrite(c, (uintptr_t)&u->msg_namelen, &m.msg_namelen, sizeof(m.msg_namelen)) ||
			    twrite(c, (uintptr_t)&u->msg_controllen, &cl, sizeof(cl)) ||
			    twrite(c, (uintptr_t)&u->msg_flags, &m.msg_flags, sizeof(m.msg_flags)))
				out = -EFAULT;
		}
	}
	free(tm.ctl);
	tm.ctl = NULL;
	return out;
}

/* sendmmsg/recvmmsg: loops of the single calls, as __sys_sendmmsg(). */
static int64_t serve_mmsg(const struct call *c, struct esock *e, bool is_send)
{
	unsigned n = (unsigned)c->arg[2] > UIO_MAXIOV_ ? UIO_MAXIOV_ : (unsigned)c->arg[2];
	int flags = (int)c->arg[3];
	int64_t r = 0;
	unsigned done = 0;

	while (done < n) {
		uint64_t at = c->arg[1] + (uint64_t)done * sizeof(struct mmsghdr);
		r = msg_one(c, e, at, flags, is_send);
		if (r < 0)
			break;
		unsigned len = (unsigned)r;
		if (twrite(c, at + offsetof(struct mmsghdr, msg_len), &len, sizeof(len))) {
			r = -EFAULT;
			break;
		}
		done++;
		if (!is_send && (flags & MSG_WAITFORONE))
			flags |= MSG_DONTWAIT;
	}
	return done ? (int64_t)done : r;
}

/* preadv2/pwritev2: with offset -1 they are readv/writev (RWF_NOWAIT is
 * MSG_DONTWAIT); a socket has no other offset (ESPIPE). */
static int64_t serve_rw2(const struct call *c, struct esock *e, bool is_write)
{
	if ((int64_t)c->arg[3] != -1)
		return -ESPIPE;
	return serve_rw(c, e, true, is_write, (c->arg[5] & RWF_NOWAIT) ? MSG_DONTWAIT : 0);
}

/* The target's fd as a file of ours (pidfd_getfd), for splice's and
 * sendfile's other end; -errno if it has none. */
static int borrow_fd(const struct call *c, uint64_t fd)
{
	int pfd = (int)syscall(SYS_pidfd_open, c->pid, PIDFD_THREAD);
	if (pfd < 0 && errno == EINVAL)	/* before 6.9: a thread-group leader only */
		pfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (pfd < 0)
		return -errno;
	int r = (int)syscall(SYS_pidfd_getfd, pfd, (int)fd, 0);
	r = r < 0 ? -errno : r;
	close(pfd);
	return r;
}

/* An fd argument: ours (e, the shim socket) or the target's own, borrowed. */
static int either_fd(const struct call *c, uint64_t fd, struct esock **e, int *owned)
{
	*owned = -1;
	*e = lookup(c->pid, fd);
	if (*e)
		return (*e)->s;
	int r = borrow_fd(c, fd);
	if (r >= 0)
		*owned = r;
	return r;
}

#define SPLICE_NOT_OURS INT64_MIN

/* splice(in, off_in, out, off_out, len, flags) and sendfile(out, in, off,
 * count) with at least one end ours: replayed here on the shim socket
 * and a borrowed copy of the target's other fd (its offsets are copied in
 * and out). */
static int64_t serve_splice(const struct call *c, bool is_sendfile)
{
	uint64_t fin = is_sendfile ? c->arg[1] : c->arg[0], fout = is_sendfile ? c->arg[0] : c->arg[2];
	uint64_t uoff_in = is_sendfile ? c->arg[2] : c->arg[1], uoff_out = is_sendfile ? 0 : c->arg[3];
	struct esock *ein, *eout;
	int oin, oout;
	loff_t off_in, off_out;
	int64_t r;

	int in = either_fd(c, fin, &ein, &oin);
	int out = either_fd(c, fout, &eout, &oout);
	if (!ein && !eout) {	/* neither end is ours: the kernel's call */
		r = SPLICE_NOT_OURS;
		goto done;
	}
	if (in < 0 || out < 0) {
		r = in < 0 ? in : out;
		r = r == -EBADF || r == -ENOENT ? -EBADF : r;
		goto done;
	}
	if ((uoff_in && tread(c, uoff_in, &off_in, sizeof(off_in))) ||
	    (uoff_out && tread(c, uoff_out, &off_out, sizeof(off_out)))) {
		r = -EFAULT;
		goto done;
	}
	size_t len = is_sendfile ? c->arg[3] : c->arg[4];
	if (is_sendfile)
		r = sendfile(out, in, uoff_in ? &off_in : NULL, len);
	else
		r = splice(in, uoff_in ? &off_in : NULL, out, uoff_out ? &off_out : NULL, len,
			   (unsigned)c->arg[5]);
	r = r < 0 ? -errno : r;
	if (r >= 0 && ((uoff_in && twrite(c, uoff_in, &off_in, sizeof(off_in))) ||
		       (uoff_out && twrite(c, uoff_out, &off_out, sizeof(off_out)))))
		r = -EFAULT;
done:
	if (ein)
		esock_put(ein);
	if (eout)
		esock_put(eout);
	if (oin >= 0)
		close(oin);
	if (oout >= 0)
		close(oout);
	return r;
}

/* dup(fd), fcntl(fd, F_DUPFD[_CLOEXEC], min): a new fd in the range for
 * the same socket (the kernel's would lie below it, out of our reach). */
static void serve_dup(const struct call *c, bool cloexec, uint64_t min)
{
	int mine = borrow_fd(c, c->arg[0]);
	if (mine < 0) {
		answer(c, mine);
		return;
	}
	if (min >= fd_base + SUPERVISE_FD_SPAN) {
		close(mine);
		answer(c, -EMFILE);
		return;
	}
	int r = addfd_and_answer(c, mine, cloexec, (unsigned)min);
	close(mine);
	if (r < 0 && r != -ENOENT)
		answer(c, r);
}

/* O_NONBLOCK on the target's fd is also the shim socket's: the shim takes
 * it as MSG_DONTWAIT on every call. */
static void mirror_nonblock(struct esock *e, bool on)
{
	int fl = fcntl(e->s, F_GETFL);
	if (fl >= 0)
		fcntl(e->s, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static bool in_range(uint64_t fd)
{
	fd &= 0xffffffffu;
	return fd >= fd_base && fd < fd_base + SUPERVISE_FD_SPAN;
}

/* ioctl on an AF_ALG socket: the file-level commands act on the target's
 * fd itself (FIONBIO also on ours); AF_ALG has no others (sock_no_ioctl),
 * and no gettstamp for the timestamp requests. */
static void serve_ioctl(const struct call *c, struct esock *e)
{
	unsigned long cmd = (unsigned long)c->arg[1];
	int on;

	switch (cmd) {
	case FIONBIO:
		if (tread(c, c->arg[2], &on, sizeof(on))) {
			answer(c, -EFAULT);
			return;
		}
		mirror_nonblock(e, on != 0);
		pass_on(c);
		return;
	case FIOCLEX: case FIONCLEX: case FIOASYNC: case FIOSETOWN: case FIOGETOWN:
	case SIOCSPGRP: case SIOCGPGRP: case FIOQSIZE:
		pass_on(c);
		return;
	case SIOCGSTAMP_OLD: case SIOCGSTAMPNS_OLD:
		answer(c, -ENOTTY);
		return;
	default:
		answer(c, -EOPNOTSUPP);
	}
}

static void serve_fcntl(const struct call *c, struct esock *e)
{
	switch ((int)c->arg[1]) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		serve_dup(c, (int)c->arg[1] == F_DUPFD_CLOEXEC, c->arg[2]);
		return;
	case F_SETFL:
		mirror_nonblock(e, c->arg[2] & O_NONBLOCK);
		/* fallthrough */
	default:
		pass_on(c);
	}
}

/* dup2/dup3 onto a slot of the range: the kernel's own; elsewhere the new
 * fd would be out of our reach: refused (EINVAL). */
static void serve_dup2(const struct call *c)
{
	if (in_range(c->arg[1]))
		pass_on(c);
	else
		answer(c, -EINVAL);
}

/* A call on one of our sockets. */
static void serve_fd_call(const struct call *c, struct esock *e)
{
	const int nr = c->req.data.nr;
	switch (nr) {
	case SYS_read: answer(c, serve_rw(c, e, false, false, 0)); break;
	case SYS_readv: answer(c, serve_rw(c, e, true, false, 0)); break;
	case SYS_write: answer(c, serve_rw(c, e, false, true, 0)); break;
	case SYS_writev: answer(c, serve_rw(c, e, true, true, 0)); break;
	case SYS_preadv2: answer(c, serve_rw2(c, e, false)); break;
	case SYS_pwritev2: answer(c, serve_rw2(c, e, true)); break;
	case SYS_sendto: answer(c, serve_sendto(c, e)); break;
	case SYS_recvfrom: answer(c, serve_recvfrom(c, e)); break;
	case SYS_sendmsg: answer(c, msg_one(c, e, c->arg[1], (int)c->arg[2], true)); break;
	case SYS_recvmsg: answer(c, msg_one(c, e, c->arg[1], (int)c->arg[2], false)); break;
	case SYS_sendmmsg: answer(c, serve_mmsg(c, e, true)); break;
	case SYS_recvmmsg: answer(c, serve_mmsg(c, e, false)); break;
	case SYS_bind: answer(c, serve_bind_connect(c, e, true)); break;
	case SYS_connect: answer(c, serve_bind_connect(c, e, false)); break;
	case SYS_listen: answer(c, listen(e->s, (int)c->arg[1]) ? -errno : 0); break;
	case SYS_shutdown: answer(c, shutdown(e->s, (int)c->arg[1]) ? -errno : 0); break;
	case SYS_accept: serve_accept(c, e, 0); break;
	case SYS_accept4: serve_accept(c, e, (int)c->arg[3]); break;
	case SYS_setsockopt: answer(c, serve_setsockopt(c, e)); break;
	case SYS_getsockopt: answer(c, serve_get(c, e, 0)); break;
	case SYS_getsockname: answer(c, serve_get(c, e, 1)); break;
	case SYS_getpeername: answer(c, serve_get(c, e, 2)); break;
	case SYS_ioctl: serve_ioctl(c, e); break;
	case SYS_fcntl: serve_fcntl(c, e); break;
	case SYS_dup: serve_dup(c, false, 0); break;
	case SYS_dup2: case SYS_dup3: serve_dup2(c); break;
	default: pass_on(c);
	}
}

/* ---- /dev/crypto ------------------------------------------------------ */

/* An open of /dev/crypto (when the kernel has none) becomes an eventfd
 * installed in the range, standing for the device's open file; this
 * process keeps its own reference (evfd), so that the session layer can
 * keep the counter equal to the completions waiting (POLLIN).  Eventfds
 * share one inode: which open file a target fd is, kcmp(KCMP_FILE) says.
 * The files live until ualg-run ends. */
struct cdent {
	struct cdev_file *f;
	int evfd;
	struct cdent *next;
};
static struct cdent *cdents;
static pthread_mutex_t cdent_lock = PTHREAD_MUTEX_INITIALIZER;

static struct cdent *cdent_lookup(pid_t tid, uint64_t fd)
{
	fd &= 0xffffffffu;
	if (!__atomic_load_n(&cdents, __ATOMIC_ACQUIRE) || fd > INT32_MAX)
		return NULL;
	char path[64], link[64];
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, (int)fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return NULL;
	link[n] = 0;
	if (strcmp(link, "anon_inode:[eventfd]"))
		return NULL;
	pthread_mutex_lock(&cdent_lock);
	struct cdent *d;
	for (d = cdents; d; d = d->next)
		if (syscall(SYS_kcmp, tid, getpid(), KCMP_FILE, (unsigned long)fd, (unsigned long)d->evfd) == 0)
			break;
	pthread_mutex_unlock(&cdent_lock);
	return d;
}

/* open("/dev/crypto") or openat(dirfd, "/dev/crypto"): true when served. */
static bool serve_open_devcrypto(const struct call *c, uint64_t upath, int flags)
{
	static const char want[] = "/dev/crypto";
	char path[sizeof(want)];
	if (tread(c, upath, path, sizeof(path)) || memcmp(path, want, sizeof(want)) ||
	    access(want, F_OK) == 0 || errno != ENOENT)
		return false;
	if (cdev_init()) {
		answer(c, -ENOENT);
		return true;
	}
	struct cdent *d = calloc(1, sizeof(*d));
	if (d)
		d->f = cdev_open();
	if (!d || !d->f) {
		free(d);
		answer(c, -ENOMEM);
		return true;
	}
	d->evfd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC | (flags & O_NONBLOCK ? EFD_NONBLOCK : 0));
	if (d->evfd < 0) {
		cdev_put(d->f);
		free(d);
		answer(c, -errno);
		return true;
	}
	/* Listed first: the target may use the fd as soon as it has it. */
	pthread_mutex_lock(&cdent_lock);
	d->next = cdents;
	__atomic_store_n(&cdents, d, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cdent_lock);
	int r = addfd_and_answer(c, d->evfd, flags & O_CLOEXEC, 0);
	if (r < 0) {
		if (r != -ENOENT)
			answer(c, r);
		/* No fd was installed: nothing refers to the file. */
		pthread_mutex_lock(&cdent_lock);
		for (struct cdent **p = &cdents; *p; p = &(*p)->next)
			if (*p == d) {
				*p = d->next;
				break;
			}
		pthread_mutex_unlock(&cdent_lock);
		close(d->evfd);
		cdev_put(d->f);
		free(d);
	}
	return true;
}

static int tmem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return len ? tread(ctx, addr, buf, len) : 0;
}

static int tmem_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	return len ? twrite(ctx, addr, buf, len) : 0;
}

/* CRIOGET: a new fd on the same file, without O_CLOEXEC, its number
 * written to the argument. */
static int64_t serve_crioget(const struct call *c, struct cdent *d)
{
	pthread_mutex_lock(&slot_lock);
	int slot = free_slot(c->pid, 0);
	int r = slot;
	if (slot >= 0) {
		struct seccomp_notif_addfd add = {
			.id = c->req.id, .flags = SECCOMP_ADDFD_FLAG_SETFD,
			.srcfd = (uint32_t)d->evfd, .newfd = (uint32_t)slot, .newfd_flags = 0,
		};
		r = ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		r = r < 0 ? -errno : r;
	}
	pthread_mutex_unlock(&slot_lock);
	if (r < 0)
		return r;
	uint32_t v = (uint32_t)r;
	return twrite(c, c->arg[2], &v, sizeof(v));	/* the module leaves the fd on a fault too */
}

static void serve_cdev_call(const struct call *c, struct cdent *d)
{
	switch (c->req.data.nr) {
	case SYS_ioctl: {
		unsigned long cmd = (unsigned long)(uint32_t)c->arg[1];	/* the kernel's unsigned int */
		if (cmd == FIOCLEX || cmd == FIONCLEX || cmd == FIONBIO || cmd == FIOASYNC || cmd == FIOQSIZE) {
			pass_on(c);	/* do_vfs_ioctl()'s own */
			return;
		}
		if (cmd == CRIOGET) {
			answer(c, serve_crioget(c, d));
			return;
		}
		struct cdev_mem m = { (void *)c, tmem_read, tmem_write };
		answer(c, cdev_ioctl(d->f, cmd, c->arg[2], &m, d->evfd));
		return;
	}
	case SYS_fcntl:
		if ((int)c->arg[1] == F_DUPFD || (int)c->arg[1] == F_DUPFD_CLOEXEC)
			serve_dup(c, (int)c->arg[1] == F_DUPFD_CLOEXEC, c->arg[2]);
		else
			pass_on(c);
		return;
	case SYS_dup: serve_dup(c, false, 0); return;
	case SYS_dup2: case SYS_dup3: serve_dup2(c); return;
	case SYS_read: case SYS_readv: case SYS_write: case SYS_writev:
	case SYS_preadv2: case SYS_pwritev2:
		answer(c, -EINVAL);	/* the device has no read or write */
		return;
	default: pass_on(c);
	}
}

static void serve(struct call *c)
{
	const int nr = c->req.data.nr;

	atomic_fetch_add(&n_notified, 1);
	c->pid = (pid_t)c->req.pid;
	c->arg = c->req.data.args;
	if (c->req.data.arch != SCMP_ARCH_X86_64) {
		pass_on(c);
		return;
	}
	if (nr == SYS_socket) {
		serve_socket(c);
		return;
	}
	if (nr == SYS_splice || nr == SYS_sendfile) {
		int64_t r = serve_splice(c, nr == SYS_sendfile);
		if (r == SPLICE_NOT_OURS)
			pass_on(c);
		else
			answer(c, r);
		return;
	}
	if (nr == SYS_open || nr == SYS_openat) {
		bool at = nr == SYS_openat;
		if (!serve_open_devcrypto(c, c->arg[at], (int)c->arg[at + 1]))
			pass_on(c);
		return;
	}
	struct cdent *d = cdent_lookup(c->pid, c->arg[0]);
	if (d) {
		serve_cdev_call(c, d);
		return;
	}
	struct esock *e = lookup(c->pid, c->arg[0]);
	if (!e) {
		pass_on(c);	/* an ordinary fd that strayed into the range */
		return;
	}
	serve_fd_call(c, e);
	esock_put(e);
}

/* ---- receiving notifications ------------------------------------------ */

static void spawn_receiver(void);

/* Each notification is served on the thread that received it; one more
 * thread is started whenever none is left waiting, so a call that blocks
 * (a read waiting for another thread's write) holds up no other. */
static void *receiver(void *arg)
{
	static __thread struct call c;

	(void)arg;
	for (;;) {
		memset(&c.req, 0, sizeof(c.req));
		if (ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_RECV, &c.req)) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;
		}
		if (atomic_fetch_sub(&idle_receivers, 1) == 1)
			spawn_receiver();
		serve(&c);
		if (atomic_fetch_add(&idle_receivers, 1) >= IDLE_MAX) {
			atomic_fetch_sub(&idle_receivers, 1);
			break;
		}
	}
	atomic_fetch_sub(&receivers, 1);
	return NULL;
}

static void spawn_receiver(void)
{
	pthread_t t;
	pthread_attr_t at;

	if (atomic_fetch_add(&receivers, 1) >= THREADS_MAX) {
		atomic_fetch_sub(&receivers, 1);
		return;
	}
	atomic_fetch_add(&idle_receivers, 1);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, receiver, NULL)) {
		atomic_fetch_sub(&idle_receivers, 1);
		atomic_fetch_sub(&receivers, 1);
	}
	pthread_attr_destroy(&at);
}

/* ---- the filter --------------------------------------------------------- */

/* Calls whose first argument is an fd. */
static const int fd_calls[] = {
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
	SCMP_SYS(preadv2), SCMP_SYS(pwritev2), SCMP_SYS(sendto), SCMP_SYS(recvfrom),
	SCMP_SYS(sendmsg), SCMP_SYS(recvmsg), SCMP_SYS(sendmmsg), SCMP_SYS(recvmmsg),
	SCMP_SYS(bind), SCMP_SYS(connect), SCMP_SYS(listen), SCMP_SYS(shutdown),
	SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(setsockopt), SCMP_SYS(getsockopt),
	SCMP_SYS(getsockname), SCMP_SYS(getpeername), SCMP_SYS(ioctl), SCMP_SYS(fcntl),
	SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3), SCMP_SYS(splice), SCMP_SYS(sendfile),
};

/* libseccomp's one-datum SCMP_A<n>_32(EQ, v) leaves datum_b to the
 * compiler, which clang's -Wmissing-field-initializers rejects; spell the
 * same comparison out. */
static struct scmp_arg_cmp arg32_eq(unsigned int arg, uint32_t value)
{
	struct scmp_arg_cmp c = { .arg = arg, .op = SCMP_CMP_EQ, .datum_a = value, .datum_b = 0 };
	return c;
}

/* The filter as a BPF program: default ALLOW; NOTIFY for socket(AF_ALG),
 * socket(AF_NETLINK, *, NETLINK_CRYPTO), and the fd calls with an fd in
 * the range (a single masked compare of the low 32 bits: the range is
 * aligned to its size).  Other architectures' calls are allowed. */
static int build_filter(struct sock_fprog *prog)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	const uint32_t mask = ~(SUPERVISE_FD_SPAN - 1);
	int r = ctx ? 0 : -ENOMEM;

	if (!r)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	/* A binary tree over the syscall numbers: a call pays a few compares
	 * instead of one per listed syscall. */
	if (!r)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (!r)
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 1, arg32_eq(0, AF_ALG));
	if (!r)
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 2, arg32_eq(0, AF_NETLINK),
				     arg32_eq(2, NETLINK_CRYPTO_));
	for (size_t i = 0; !r && i < sizeof(fd_calls) / sizeof(fd_calls[0]); i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, fd_calls[i], 1,
				     SCMP_A0_32(SCMP_CMP_MASKED_EQ, mask, fd_base));
	/* /dev/crypto: every open (the path is read to decide). */
	if (!r)
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(open), 0);
	if (!r)
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 0);
	/* splice's fd_out and sendfile's in_fd. */
	if (!r)
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(splice), 1,
				     SCMP_A2_32(SCMP_CMP_MASKED_EQ, mask, fd_base));
	if (!r)
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendfile), 1,
				     SCMP_A1_32(SCMP_CMP_MASKED_EQ, mask, fd_base));
	/* libseccomp 2.5 exports to an fd only. */
	int mfd = r ? -1 : memfd_create("ualg-filter", MFD_CLOEXEC);
	if (!r && (mfd < 0 || seccomp_export_bpf(ctx, mfd)))
		r = -EIO;
	if (ctx)
		seccomp_release(ctx);
	if (r)
		return r;
	off_t size = lseek(mfd, 0, SEEK_END);
	prog->filter = malloc(size > 0 ? (size_t)size : 1);
	prog->len = (unsigned short)(size / sizeof(struct sock_filter));
	if (!prog->filter || size <= 0 || pread(mfd, prog->filter, (size_t)size, 0) != size)
		r = -EIO;
	close(mfd);
	return r;
}

/* The measurement twin: the same program, every notification an ALLOW. */
static void make_bare(struct sock_fprog *prog)
{
	for (unsigned i = 0; i < prog->len; i++) {
		struct sock_filter *f = &prog->filter[i];
		if (f->code == (BPF_RET | BPF_K) && (f->k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
			f->k = SECCOMP_RET_ALLOW;
	}
}

/* Installs the filter on this (single-threaded) process; returns the
 * listener fd, or 0 for a bare filter, or -errno.  With
 * WAIT_KILLABLE_RECV (5.19) a call the supervisor has taken is no longer
 * interrupted by a signal handler, so no call is replayed here while the
 * target has given up on it. */
static int load_filter(struct sock_fprog *prog, bool bare)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (bare)
		return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) ? -errno : 0;
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, prog);
	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
	return fd < 0 ? -errno : (int)fd;
}

/* The range: [4096, 5120) where RLIMIT_NOFILE's hard limit allows, else
 * the highest aligned span below it.  The soft limit is raised to cover
 * it; an ordinary fd then lands in the range only where the old limit
 * would have made it EMFILE. */
static int choose_range(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	rlim_t hard = rl.rlim_max;
	if (hard >= 4096 + SUPERVISE_FD_SPAN)
		fd_base = 4096;
	else if (hard >= 2 * SUPERVISE_FD_SPAN)
		fd_base = (unsigned)(hard / SUPERVISE_FD_SPAN - 1) * SUPERVISE_FD_SPAN;
	else
		return -EMFILE;
	if (rl.rlim_cur < fd_base + SUPERVISE_FD_SPAN) {
		rl.rlim_cur = fd_base + SUPERVISE_FD_SPAN;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return -errno;
	}
	return 0;
}

/* The target: the filter, then PROGRAM with the LD_PRELOAD it was given
 * (ours is the supervisor's only).  Tells the parent the listener's
 * number through w and waits for its go through r. */
static void run_target(char **argv, struct sock_fprog *prog, bool bare, int w, int r)
{
	const char *orig = getenv("UALG_TARGET_LD_PRELOAD");
	if (orig && *orig)
		setenv("LD_PRELOAD", orig, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv("UALG_TARGET_LD_PRELOAD");
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	int fd = load_filter(prog, bare);
	if (fd < 0) {
		fprintf(stderr, "ualg-run: cannot install the seccomp filter: %s\n", strerror(-fd));
		_exit(127);
	}
	char go;
	if (write(w, &fd, sizeof(fd)) != sizeof(fd) || read(r, &go, 1) != 1)
		_exit(127);
	if (fd > 0)
		close(fd);
	close(w);
	close(r);
	execvp(argv[0], argv);
	fprintf(stderr, "ualg-run: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The listener, from the target (it must make it itself). */
static int take_listener(pid_t child, int fd)
{
	int pfd = (int)syscall(SYS_pidfd_open, child, 0);
	if (pfd < 0)
		return -errno;
	int r = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	r = r < 0 ? -errno : r;
	close(pfd);
	return r;
}

static void write_stats(const char *path)
{
	FILE *f = path ? fopen(path, "w") : NULL;
	if (!f)
		return;
	fprintf(f, "notifications %lu\npassed %lu\nfilter %u instructions, fds %u-%u\n",
		atomic_load(&n_notified), atomic_load(&n_passed), filter_len, fd_base,
		fd_base + SUPERVISE_FD_SPAN - 1);
	fclose(f);
}

int supervise_main(char **argv, int bare, const char *stats_path)
{
	struct sock_fprog prog;
	int up[2], down[2], r;

	if ((r = choose_range()) || (r = build_filter(&prog))) {
		fprintf(stderr, "ualg-run: --supervise: %s\n", strerror(-r));
		return 127;
	}
	filter_len = prog.len;
	if (bare)
		make_bare(&prog);
	/* The target needs it for its filter; we take it too: nothing here
	 * is meant to gain privileges.  We end with ualg-run (the target
	 * then gets ENOSYS for what we served). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_PDEATHSIG, SIGKILL) || pipe2(up, O_CLOEXEC) || pipe2(down, O_CLOEXEC))
		return 127;
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	pid_t child = fork();
	if (child < 0)
		return 127;
	if (child == 0)
		run_target(argv, &prog, bare, up[1], down[0]);
	close(up[1]);
	close(down[0]);
	int tfd = -1;
	if (read(up[0], &tfd, sizeof(tfd)) == sizeof(tfd) && tfd > 0) {
		notify_fd = take_listener(child, tfd);
		hup_epoll = epoll_create1(EPOLL_CLOEXEC);
		pthread_t t;
		if (notify_fd < 0 || hup_epoll < 0 || pthread_create(&t, NULL, hup_thread, NULL)) {
			fprintf(stderr, "ualg-run: --supervise: cannot take the target's listener: %s\n",
				strerror(notify_fd < 0 ? -notify_fd : errno));
			kill(child, SIGKILL);
		} else {
			/* The target waits while we serve: hand the CPU over
			 * directly both ways (Linux 6.6; without it, a wake-up). */
			ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
			spawn_receiver();
		}
	}
	if (write(down[1], "g", 1) != 1)
		kill(child, SIGKILL);
	close(down[1]);
	close(up[0]);
	int status = 0;
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	write_stats(stats_path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
