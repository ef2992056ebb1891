/* algd's confinement (see sandbox.h). */
#include "sandbox.h"
#include "log.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* libseccomp's SCMP_A* macros leave datum_b to zero-initialisation, which
 * clang's -Wextra reports. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

int sandbox_lookup_user(const char *name, uid_t *uid, gid_t *gid)
{
	const struct passwd *pw = getpwnam(name);

	if (!pw) {
		algd_log(LOG_ERR, "no such user: %s", name);
		return -1;
	}
	if (pw->pw_uid == 0) {
		algd_log(LOG_ERR, "--user must not be root");
		return -1;
	}
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

void sandbox_limits(void)
{
	struct rlimit r = { 0, 0 };

	setrlimit(RLIMIT_CORE, &r);
	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

int sandbox_drop_privileges(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		algd_log(LOG_ERR, "cannot drop privileges: %s", strerror(errno));
		return -1;
	}
	if (setuid(0) == 0 || geteuid() != uid) {
		algd_log(LOG_ERR, "privileges could be regained");
		return -1;
	}
	return 0;
}

/* Syscalls allowed with any arguments. */
static const int plain_syscalls[] = {
	/* the event loop */
	SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_create1),
	SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(recvfrom), SCMP_SYS(sendto),
	SCMP_SYS(accept4), SCMP_SYS(getsockopt),
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(close), SCMP_SYS(fcntl), SCMP_SYS(dup),
	SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(eventfd2),
	/* algd.conf: SIGHUP rereads it, algctl save rewrites it (as algd's
	 * unprivileged user); stdio around them */
	SCMP_SYS(openat), SCMP_SYS(rename), SCMP_SYS(unlink), SCMP_SYS(lseek),
	SCMP_SYS(newfstatat), SCMP_SYS(fstat),
	/* native rings: sealed memfds shared with clients, worker threads */
	SCMP_SYS(memfd_create), SCMP_SYS(ftruncate), SCMP_SYS(set_robust_list), SCMP_SYS(rseq),
	SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity), SCMP_SYS(nanosleep),
	SCMP_SYS(clock_nanosleep),
	/* memory (malloc; OpenSSL's secure heap is set up before; Botan's
	 * locked pool, set up before too, is unlocked at exit) */
	SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(munlock),
	/* libc and OpenSSL internals */
	SCMP_SYS(getrandom), SCMP_SYS(futex), SCMP_SYS(clock_gettime), SCMP_SYS(gettid),
	SCMP_SYS(getpid), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigreturn),
	SCMP_SYS(sigaltstack),	/* a thread's own signal stack (sanitizer runtimes) */
	SCMP_SYS(exit),
	SCMP_SYS(exit_group),
};

static int add_rules(scmp_filter_ctx f)
{
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(plain_syscalls) / sizeof(plain_syscalls[0]); i++)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, plain_syscalls[i], 0);
	/* op sockets are AF_UNIX socketpairs; nothing else is ever created */
	if (!r)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(socketpair), 1,
				     SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
	/* one socket option: an attached socket's close made abortive
	 * (closer.c), so that it cannot linger */
	if (!r)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(setsockopt), 2,
				     SCMP_A1(SCMP_CMP_EQ, SOL_SOCKET), SCMP_A2(SCMP_CMP_EQ, SO_LINGER));
	/* no executable memory: a bug cannot map code */
	if (!r)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (!r)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	/* threads, never processes; clone3's flags sit in memory the filter
	 * cannot read, so it answers ENOSYS and glibc falls back to clone */
	if (!r)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	if (!r)
		r = seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* OpenSSL may probe for AF_ALG lazily (its afalg engine): a socket of
	 * any kind is refused as unsupported rather than fatal */
	if (!r)
		r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 0);
	return r;
}

int sandbox_seccomp(void)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int r = f ? add_rules(f) : -ENOMEM;

	if (!r)		/* every thread, should any exist already */
		r = seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1);

	if (!r)
		r = seccomp_load(f);	/* sets no_new_privs too */
	seccomp_release(f);
	if (r) {
		algd_log(LOG_ERR, "cannot install the seccomp filter: %s", strerror(-r));
		return -1;
	}
	return 0;
}

void sandbox_protect(void *buf, size_t len)
{
	mlock(buf, len);
	madvise(buf, len, MADV_DONTDUMP);
}

int sandbox_filter(bool enabled)
{
	if (!enabled) {
		algd_log(LOG_WARNING, "running without the seccomp filter");
		return 0;
	}
	return sandbox_seccomp();
}
