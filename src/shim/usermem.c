/* The caller's memory, read and written as the kernel's copy_from_user()
 * and copy_to_user() would: a bad pointer is EFAULT, never a crash.
 *
 * The fast path costs no system call: the access runs under a guard, and
 * a SIGSEGV or SIGBUS it raises jumps back here (the program's own
 * handlers for those signals still get every other fault: sigaction() and
 * signal() are interposed so that ours stays installed in front of
 * theirs).  Under valgrind, whose memcheck would report the faulting
 * access, and before the guard is installed, the kernel does the access
 * (process_vm_readv/writev to our own pid). */
#include "shim.h"
#include "kabi.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void)(addr), (void)(len))
#define RUNNING_ON_VALGRIND 0
#endif

#define EXPORT __attribute__((visibility("default")))
#define NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))
#define PAGE 4096u

/* volatile: the compiler must not move the stores across the access (it
 * knows memcpy() never reads guard). */
static __thread sigjmp_buf *volatile guard __attribute__((tls_model("initial-exec")));
#define BARRIER() __asm__ volatile("" ::: "memory")
static atomic_bool guarded;	/* the handler is in place */
static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
/* What the program asked for SIGSEGV and SIGBUS (before and after ours). */
static struct sigaction prog_segv, prog_bus;

static struct sigaction *prog_of(int sig)
{
	return sig == SIGSEGV ? &prog_segv : sig == SIGBUS ? &prog_bus : NULL;
}

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static __sighandler_t (*real_signal)(int, __sighandler_t);

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	sigjmp_buf *env = guard;
	if (env) {
		guard = NULL;
		siglongjmp(*env, 1);
	}
	/* Not ours: as the program's own disposition would have it. */
	struct sigaction *p = prog_of(sig);
	if (p->sa_flags & SA_SIGINFO) {
		p->sa_sigaction(sig, si, uc);
	} else if (p->sa_handler == SIG_DFL || p->sa_handler == SIG_IGN) {
		/* Returning re-runs the faulting access, now fatal. */
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		real_sigaction(sig, &dfl, NULL);
	} else {
		p->sa_handler(sig);
	}
}

static void resolve_sig(void)
{
	if (!real_sigaction)
		real_sigaction = (__typeof__(real_sigaction))dlsym(RTLD_NEXT, "sigaction");
	if (!real_signal)
		real_signal = (__typeof__(real_signal))dlsym(RTLD_NEXT, "signal");
}

/* Installs the guard's handler (once, on the first in-process socket). */
void usermem_guard_init(void)
{
	if (atomic_load(&guarded) || RUNNING_ON_VALGRIND)
		return;
	resolve_sig();
	pthread_mutex_lock(&sig_lock);
	if (!atomic_load(&guarded)) {
		/* SA_NODEFER: the jump back leaves the signal unblocked. */
		struct sigaction sa = { .sa_sigaction = on_fault,
					.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK };
		sigemptyset(&sa.sa_mask);
		if (!real_sigaction(SIGSEGV, &sa, &prog_segv) && !real_sigaction(SIGBUS, &sa, &prog_bus))
			atomic_store(&guarded, true);
	}
	pthread_mutex_unlock(&sig_lock);
}

/* The program's view of SIGSEGV and SIGBUS while ours is installed. */
EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	resolve_sig();
	if (!atomic_load(&guarded) || !prog_of(sig))
		return real_sigaction(sig, act, old);
	pthread_mutex_lock(&sig_lock);
	struct sigaction *p = prog_of(sig);
	if (old)
		*old = *p;
	if (act)
		*p = *act;
	pthread_mutex_unlock(&sig_lock);
	return 0;
}

EXPORT __sighandler_t signal(int sig, __sighandler_t h)
{
	resolve_sig();
	if (!atomic_load(&guarded) || !prog_of(sig))
		return real_signal(sig, h);
	struct sigaction sa = { .sa_handler = h, .sa_flags = SA_RESTART }, old;
	sigemptyset(&sa.sa_mask);
	if (h == SIG_ERR)
		return errno = EINVAL, SIG_ERR;
	sigaction(sig, &sa, &old);
	return (old.sa_flags & SA_SIGINFO) ? (__sighandler_t)(void *)old.sa_sigaction : old.sa_handler;
}

/* Touches the first byte of every page of [p, p + len) and the last byte;
 * write: as an atomic or of zero, which changes nothing. */
static NO_SANITIZE void touch(const void *p, size_t len, bool write)
{
	volatile uint8_t *b = (volatile uint8_t *)p;
	size_t step = PAGE - ((uintptr_t)p & (PAGE - 1));
	for (size_t off = 0;; off += step, step = PAGE) {
		if (write)
			__atomic_fetch_or((uint8_t *)&b[off], 0, __ATOMIC_RELAXED);
		else
			(void)b[off];
		if (off + step >= len)
			break;
	}
	if (write)
		__atomic_fetch_or((uint8_t *)&b[len - 1], 0, __ATOMIC_RELAXED);
	else
		(void)b[len - 1];
}

static NO_SANITIZE int guarded_touch(const void *p, size_t len, bool write)
{
	sigjmp_buf env;
	if (sigsetjmp(env, 0))
		return -EFAULT;
	guard = &env;
	BARRIER();
	touch(p, len, write);
	BARRIER();
	guard = NULL;
	return 0;
}

static NO_SANITIZE int guarded_copy(void *dst, const void *src, size_t len)
{
	sigjmp_buf env;
	if (sigsetjmp(env, 0))
		return -EFAULT;
	guard = &env;
	BARRIER();
	memcpy(dst, src, len);
	BARRIER();
	guard = NULL;
	return 0;
}

static int kernel_copy(void *dst, const void *src, size_t len, bool out)
{
	struct iovec local = { out ? (void *)src : dst, len }, remote = { out ? dst : (void *)src, len };
	long nr = out ? SYS_process_vm_writev : SYS_process_vm_readv;
	ssize_t n = syscall(nr, getpid(), &local, 1UL, &remote, 1UL, 0UL);
	if (n == (ssize_t)len) {
		if (out)
			(void)VALGRIND_MAKE_MEM_DEFINED(dst, len);
		return 0;
	}
	if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
		memcpy(dst, src, len);	/* no such call here: trust the pointer */
		return 0;
	}
	return -EFAULT;
}

int copy_in(void *dst, const void *src, size_t len)
{
	if (!len)
		return 0;
	if (!src)
		return -EFAULT;
	return atomic_load_explicit(&guarded, memory_order_relaxed) ? guarded_copy(dst, src, len)
								     : kernel_copy(dst, src, len, false);
}

int copy_out(void *dst, const void *src, size_t len)
{
	if (!len)
		return 0;
	if (!dst)
		return -EFAULT;
	return atomic_load_explicit(&guarded, memory_order_relaxed) ? guarded_copy(dst, src, len)
								     : kernel_copy(dst, src, len, true);
}

/* Writes the byte back as it was; a write-only mapping (PROT_WRITE alone,
 * as libkcapi maps its output file) cannot be read and gets a zero, which
 * the result overwrites. */
static int probe_byte(uint8_t *p)
{
	uint8_t b = 0;
	struct iovec local = { &b, 1 }, remote = { p, 1 };
	pid_t self = getpid();

	if (syscall(SYS_process_vm_readv, self, &local, 1UL, &remote, 1UL, 0UL) != 1)
		b = 0;
	if (syscall(SYS_process_vm_writev, self, &local, 1UL, &remote, 1UL, 0UL) != 1)
		return errno == ENOSYS || errno == EPERM ? 0 : -EFAULT;
	return 0;
}

int probe_out(void *buf, size_t len)
{
	if (!len)
		return 0;
	if (!buf)
		return -EFAULT;
	if (atomic_load_explicit(&guarded, memory_order_relaxed))
		return guarded_touch(buf, len, true);
	int r = probe_byte(buf);
	return r ? r : probe_byte((uint8_t *)buf + len - 1);
}

int probe_in(const void *buf, size_t len)
{
	uint8_t b;
	if (!len)
		return 0;
	if (!buf)
		return -EFAULT;
	if (atomic_load_explicit(&guarded, memory_order_relaxed))
		return guarded_touch(buf, len, false);
	int r = kernel_copy(&b, buf, 1, false);
	return r ? r : kernel_copy(&b, (const uint8_t *)buf + len - 1, 1, false);
}

static int user_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	return copy_in(buf, (const void *)(uintptr_t)addr, len);
}

static int user_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	(void)ctx;
	return copy_out((void *)(uintptr_t)addr, buf, len);
}

const struct kabi_mem shim_user_mem = { NULL, user_read, user_write };
