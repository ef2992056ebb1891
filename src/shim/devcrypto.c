/* /dev/crypto under LD_PRELOAD.  When the kernel has no /dev/crypto, an
 * open of it returns an eventfd (EFD_SEMAPHORE) standing for the device's
 * open file: close, dup, fork, poll and fcntl act on a real fd, and its
 * counter is the number of asynchronous completions waiting, so poll()
 * reports POLLIN as the module's cryptodev_poll() does.  Its ioctls go to
 * the session layer in libualg-cryptodev.so, loaded beside this shim on
 * the first such open, so that programs that never open /dev/crypto never
 * load it (or OpenSSL through it).  Loaded system-wide, the shim serves it
 * unless preload.conf's mode is off.
 *
 * The fd-to-file table follows dup, dup2, dup3, F_DUPFD and CRIOGET (all
 * share the file's sessions, as on a character device); a forked child
 * has a copy of the table and of the sessions. */
#include "shim.h"
#include "cryptodev.h"
#include "ualg_cryptodev.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MODULE_NAME "libualg-cryptodev.so"

static const struct ualg_cryptodev_ops *ops;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cdev_file **files;	/* indexed by fd */
static size_t nfiles;
static atomic_bool any;			/* an fd was ever ours: the fast path's test */


static void load(void)
{
	void *h = shim_dlopen_beside(MODULE_NAME);
	if (!h) {
		fprintf(stderr, "ualg: /dev/crypto: %s\n", dlerror());
		return;
	}
	const struct ualg_cryptodev_ops *o = dlsym(h, UALG_CRYPTODEV_OPS_SYMBOL);
	if (!o || o->version != UALG_CRYPTODEV_OPS_VERSION || o->init() != 0) {
		fprintf(stderr, "ualg: /dev/crypto: %s does not start\n", MODULE_NAME);
		return;
	}
	usermem_guard_init();	/* its ioctls copy without system calls */
	ops = o;
}

static bool is_devcrypto(int dirfd, const char *path)
{
	(void)dirfd;	/* an absolute path ignores it */
	return path && strcmp(path, "/dev/crypto") == 0;
}

static void set_file(int fd, struct cdev_file *f)
{
	struct cdev_file *old = NULL;

	pthread_mutex_lock(&table_lock);
	if ((size_t)fd >= nfiles && f) {
		size_t n = nfiles ? nfiles : 64;
		while (n <= (size_t)fd)
			n *= 2;
		struct cdev_file **t = realloc(files, n * sizeof(*t));
		if (t) {
			memset(t + nfiles, 0, (n - nfiles) * sizeof(*t));
			files = t;
			nfiles = n;
		}
	}
	if ((size_t)fd < nfiles) {
		old = files[fd];
		files[fd] = f;
		if (f)
			atomic_store(&any, true);
	} else if (f) {
		old = f;	/* no room: the fd stays a bare eventfd */
	}
	pthread_mutex_unlock(&table_lock);
	if (old)
		ops->put(old);
}

/* The file of fd, with a reference the caller puts; NULL if not ours. */
static struct cdev_file *get_file(int fd)
{
	if (!atomic_load_explicit(&any, memory_order_relaxed) || fd < 0)
		return NULL;
	struct cdev_file *f = NULL;
	pthread_mutex_lock(&table_lock);
	if ((size_t)fd < nfiles && (f = files[fd]))
		ops->get(f);
	pthread_mutex_unlock(&table_lock);
	return f;
}

static int open_device(int flags)
{
	pthread_once(&load_once, load);
	if (!ops) {
		errno = ENOENT;	/* what the program would have had */
		return -1;
	}
	struct cdev_file *f = ops->open();
	if (!f) {
		errno = ENOMEM;
		return -1;
	}
	int fd = eventfd(0, EFD_SEMAPHORE | (flags & O_CLOEXEC ? EFD_CLOEXEC : 0) |
			 (flags & O_NONBLOCK ? EFD_NONBLOCK : 0));
	if (fd < 0) {
		int e = errno;
		ops->put(f);
		errno = e;
		return -1;
	}
	set_file(fd, f);
	return fd;
}

/* After the real open failed (procfile.c's open wrappers): ours when
 * the kernel has no /dev/crypto. */
int devcrypto_after_open(int r, int dirfd, const char *path, int flags)
{
	if (r >= 0 || errno != ENOENT || !is_devcrypto(dirfd, path))
		return r;
	if (!shim_devcrypto_enabled()) {
		errno = ENOENT;
		return r;
	}
	return open_device(flags);
}

/* ---- the caller's memory --------------------------------------------- */

/* cmsg.c's checked copies: a bad pointer is EFAULT, as copy_from_user. */
static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	return copy_in(buf, (const void *)(uintptr_t)addr, len);
}

static int mem_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	(void)ctx;
	return copy_out((void *)(uintptr_t)addr, buf, len);
}

static const struct cdev_mem self_mem = { NULL, mem_read, mem_write };

/* ---- hooks for fdops.c (close, dup, ioctl) ---------------------------- */

bool devcrypto_ioctl(int fd, unsigned long cmd, void *arg, int *ret)
{
	struct cdev_file *f = get_file(fd);

	if (!f)
		return false;
	long r;
	cmd = (uint32_t)cmd;	/* the kernel's unsigned int */
	switch (cmd) {
	case FIOCLEX: case FIONCLEX: case FIONBIO: case FIOASYNC: case FIOQSIZE:
		ops->put(f);
		return false;	/* do_vfs_ioctl()'s own, on the real fd */
	case CRIOGET: {
		/* clonefd(): a new fd on the same file, without O_CLOEXEC */
		int n = dup(fd);
		if (n < 0) {
			r = -errno;
			break;
		}
		uint32_t v = (uint32_t)n;
		if ((r = mem_write(NULL, (uint64_t)(uintptr_t)arg, &v, sizeof(v))))
			close(n);
		break;
	}
	default:
		r = ops->ioctl(f, cmd, (uint64_t)(uintptr_t)arg, &self_mem, fd);
	}
	ops->put(f);
	if (r < 0) {
		errno = (int)-r;
		*ret = -1;
	} else {
		*ret = (int)r;
	}
	return true;
}

void devcrypto_close(int fd)
{
	if (atomic_load_explicit(&any, memory_order_relaxed) && fd >= 0)
		set_file(fd, NULL);
}

/* newfd now refers to what oldfd does (dup, dup2, dup3, F_DUPFD). */
void devcrypto_dup(int oldfd, int newfd)
{
	if (!atomic_load_explicit(&any, memory_order_relaxed) || newfd < 0 || oldfd == newfd)
		return;
	set_file(newfd, get_file(oldfd));
}
