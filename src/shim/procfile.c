/* /proc/sys/crypto/fips_enabled on a kernel without it (no CONFIG_CRYPTO_FIPS,
 * or a container hiding it): programs and test suites read it to decide
 * what to test, and the algorithms they reach are algd's.  Where the real
 * file cannot be found and AF_ALG is emulated, a read-only open of it gives
 * algd's FIPS mode, "1\n" or "0\n", as the kernel's file reads.
 *
 * The shim's one set of open() wrappers: /dev/crypto, where the kernel
 * has none, is answered through devcrypto_after_open() (devcrypto.c). */
#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define FIPS_PATH "/proc/sys/crypto/fips_enabled"

static struct {
	int (*open)(const char *, int, ...);
	int (*open64)(const char *, int, ...);
	int (*openat)(int, const char *, int, ...);
	int (*openat64)(int, const char *, int, ...);
	int (*open_2)(const char *, int);
	int (*open64_2)(const char *, int);
	int (*openat_2)(int, const char *, int);
	int (*openat64_2)(int, const char *, int);
	FILE *(*fopen)(const char *, const char *);
	FILE *(*fopen64)(const char *, const char *);
} nx;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
	nx.open = (__typeof__(nx.open))dlsym(RTLD_NEXT, "open");
	nx.open64 = (__typeof__(nx.open64))dlsym(RTLD_NEXT, "open64");
	nx.openat = (__typeof__(nx.openat))dlsym(RTLD_NEXT, "openat");
	nx.openat64 = (__typeof__(nx.openat64))dlsym(RTLD_NEXT, "openat64");
	nx.open_2 = (__typeof__(nx.open_2))dlsym(RTLD_NEXT, "__open_2");
	nx.open64_2 = (__typeof__(nx.open64_2))dlsym(RTLD_NEXT, "__open64_2");
	nx.openat_2 = (__typeof__(nx.openat_2))dlsym(RTLD_NEXT, "__openat_2");
	nx.openat64_2 = (__typeof__(nx.openat64_2))dlsym(RTLD_NEXT, "__openat64_2");
	nx.fopen = (__typeof__(nx.fopen))dlsym(RTLD_NEXT, "fopen");
	nx.fopen64 = (__typeof__(nx.fopen64))dlsym(RTLD_NEXT, "fopen64");
}

/* algd's FIPS mode: its records carry it (UALG_FIPS_OFF when off). */
static int algd_fips(void)
{
	struct ualg_alg_req q = { .name = "sha256" };
	struct ualg_alg_rec rec;
	size_t got = 0;
	int fd = client_connect(SOCK_CLOEXEC);

	if (fd < 0)
		return -1;
	int r = ualg_admin_call(fd, UALG_MSG_ALG_GET, &q, &rec, sizeof(rec), &got);
	real.close(fd);
	if (r || got != sizeof(rec))
		return -1;
	return rec.fips != UALG_FIPS_OFF;
}

/* After the real open failed: the answer, or -1 with the real errno.
 * /dev/crypto is devcrypto.c's to answer. */
static int answer(int r, const char *path, int flags)
{
	if (r < 0 && errno == ENOENT && path && !strcmp(path, "/dev/crypto"))
		return devcrypto_after_open(r, AT_FDCWD, path, flags);
	const int err = errno;

	if (r >= 0 || err != ENOENT || !path || strcmp(path, FIPS_PATH) ||
	    (flags & O_ACCMODE) != O_RDONLY || !shim_active())
		return r;
	shim_resolve();
	int fips = algd_fips();
	int fd = fips < 0 ? -1 : memfd_create("fips_enabled", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd >= 0 && pwrite(fd, fips ? "1\n" : "0\n", 2, 0) != 2) {
		real.close(fd);
		fd = -1;
	}
	if (fd < 0)
		errno = err;
	return fd;
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

/* fn(PARAMS..., path, flags, ...): the real call with ARGS, then answer(). */
#define OPEN_LIKE(fn, field, PARAMS, ARGS)                                     \
	EXPORT int fn(PARAMS const char *path, int flags, ...)                 \
	{                                                                      \
		va_list ap;                                                    \
		va_start(ap, flags);                                           \
		mode_t mode = mode_arg(flags, ap);                             \
		va_end(ap);                                                    \
		pthread_once(&once, resolve);                                  \
		return answer(nx.field(ARGS path, flags, mode), path, flags);  \
	}
#define NONE
#define DIRFD int dirfd,
#define DIRARG dirfd,

OPEN_LIKE(open, open, NONE, NONE)
OPEN_LIKE(open64, open64, NONE, NONE)
OPEN_LIKE(openat, openat, DIRFD, DIRARG)
OPEN_LIKE(openat64, openat64, DIRFD, DIRARG)

EXPORT int __open_2(const char *path, int flags)
{
	pthread_once(&once, resolve);
	return answer(nx.open_2(path, flags), path, flags);
}

EXPORT int __open64_2(const char *path, int flags)
{
	pthread_once(&once, resolve);
	return answer(nx.open64_2(path, flags), path, flags);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	pthread_once(&once, resolve);
	return answer(nx.openat_2(dirfd, path, flags), path, flags);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	pthread_once(&once, resolve);
	return answer(nx.openat64_2(dirfd, path, flags), path, flags);
}

static FILE *fopen_answer(FILE *f, const char *path, const char *mode)
{
	if (f || !mode || mode[0] != 'r' || strchr(mode, '+'))
		return f;
	int fd = answer(-1, path, O_RDONLY | (strchr(mode, 'e') ? O_CLOEXEC : 0));
	if (fd < 0)
		return NULL;
	FILE *g = fdopen(fd, "r");
	if (!g)
		real.close(fd);
	return g;
}

EXPORT FILE *fopen(const char *path, const char *mode)
{
	pthread_once(&once, resolve);
	return fopen_answer(nx.fopen(path, mode), path, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	pthread_once(&once, resolve);
	return fopen_answer(nx.fopen64(path, mode), path, mode);
}
