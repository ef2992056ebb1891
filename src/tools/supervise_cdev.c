/* /dev/crypto for a supervised target (when the kernel has none): the
 * open becomes an eventfd in the target's range, and the device's ioctls
 * on it are served by the session layer (src/cryptodev). */
#include "supervise_impl.h"
#include "cryptodev.h"
#include "ualg_cryptodev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

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

bool serve_open_devcrypto(const struct call *c, uint64_t upath, int flags)
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
	int r = addfd(c, d->evfd, flags & O_CLOEXEC, 0, true);
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
/* CRIOGET: a new fd on the same file, without O_CLOEXEC, its number
 * written to the argument. */
static int64_t serve_crioget(const struct call *c, struct cdent *d)
{
	int r = addfd(c, d->evfd, false, 0, false);
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
		struct cdev_mem m = { c->mem.ctx, c->mem.read, c->mem.write };
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

bool serve_cdev(const struct call *c, uint64_t fd)
{
	struct cdent *d = cdent_lookup(c->pid, fd);
	if (d)
		serve_cdev_call(c, d);
	return d != NULL;
}
