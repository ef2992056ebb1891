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
 * This file starts the target: the fd range, the filter, the fork, and
 * the handover of the listener; supervise_impl.h lists the other parts. */
#include "supervise_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS	/* Linux 6.6 */
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

int notify_fd = -1;
int hup_epoll = -1;
unsigned fd_base;
atomic_ulong n_notified, n_passed;
static unsigned filter_len;
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
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 1, arg32_eq(0, KABI_AF_ALG));
	if (!r)
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 2, arg32_eq(0, AF_NETLINK),
				     arg32_eq(2, KABI_NETLINK_CRYPTO));
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
