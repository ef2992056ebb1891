/* The emulated sockets and the target's fds that stand for them: the
 * table of sockets by the inode of the target's end, installing fds in
 * the target's range, dup, fcntl and ioctl on them.
 *
 * The target's fd for an emulated socket is one end (B) of an AF_UNIX
 * socketpair whose other end (A) stays here: a real socket, so fstat,
 * close, fork, exec and close_range behave as the kernel makes them, and
 * when the last reference to B anywhere is gone, A reports POLLHUP and the
 * shim socket is closed.  close() therefore never needs to be intercepted.
 * Which emulated socket a target fd is is found by its inode
 * (stat /proc/TID/fd/N), so dups and fds inherited by forked children map
 * to the same socket with no bookkeeping of their fd tables. */
#include "supervise_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

#define BUCKETS 256
static struct esock *table[BUCKETS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
/* Held from choosing a free slot in the target's range to filling it. */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

void esock_put(struct esock *e)
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

struct esock *lookup(pid_t tid, uint64_t fd)
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
void *hup_thread(void *arg)
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

/* ---- installing a file in the target ---------------------------------- */

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

int addfd(const struct call *c, int src, bool cloexec, unsigned min, bool send)
{
	pthread_mutex_lock(&slot_lock);
	int slot = free_slot(c->pid, min);
	int r = slot;
	if (slot >= 0) {
		struct seccomp_notif_addfd add = {
			.id = c->req.id, .flags = SECCOMP_ADDFD_FLAG_SETFD | (send ? SECCOMP_ADDFD_FLAG_SEND : 0),
			.srcfd = (uint32_t)src, .newfd = (uint32_t)slot, .newfd_flags = cloexec ? O_CLOEXEC : 0,
		};
		r = ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		r = r < 0 ? -errno : r;
	}
	pthread_mutex_unlock(&slot_lock);
	return r;
}

void install(const struct call *c, int s, bool cloexec, bool nonblock)
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
	int r = addfd(c, sv[1], cloexec, 0, true);
	/* Closing B here leaves the target's the only reference; if the
	 * target got none, A reports POLLHUP now and the socket goes. */
	close(sv[1]);
	if (r < 0 && r != -ENOENT)
		answer(c, r);
}

/* ---- calls on the fd itself -------------------------------------------- */

int borrow_fd(const struct call *c, uint64_t fd)
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

void serve_dup(const struct call *c, bool cloexec, uint64_t min)
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
	int r = addfd(c, mine, cloexec, (unsigned)min, true);
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

/* ioctl on an AF_ALG socket, answered as kabi_alg_ioctl_class() says: the
 * generic commands run on the target's fd itself (a socket too; FIONBIO
 * is also mirrored on ours), the others are AF_ALG's errno. */
void serve_ioctl(const struct call *c, struct esock *e)
{
	uint32_t cmd = (uint32_t)c->arg[1];	/* the kernel's unsigned int */
	int on;

	if (cmd == FIONBIO) {
		if (tread(c, c->arg[2], &on, sizeof(on))) {
			answer(c, -EFAULT);
			return;
		}
		mirror_nonblock(e, on != 0);
	}
	int err = kabi_alg_ioctl_errno(cmd);
	if (err)
		answer(c, -err);
	else
		pass_on(c);
}

void serve_fcntl(const struct call *c, struct esock *e)
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

void serve_dup2(const struct call *c)
{
	if (in_range(c->arg[1]))
		pass_on(c);
	else
		answer(c, -EINVAL);
}
