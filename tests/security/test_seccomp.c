/* algd's seccomp filter (src/algd/sandbox.c): each case runs in a child
 * that installs the filter and makes one call; forbidden calls must kill
 * it with SIGSYS, the event loop's calls must work.  TAP output. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int tests;
static int failures;

static void do_fork(void) { if (fork() == 0) syscall(SYS_exit_group, 0); }
/* socket() is refused, not fatal: OpenSSL may probe for AF_ALG. */
static void refused_socket(int family)
{
	if (socket(family, SOCK_SEQPACKET, 0) >= 0 || errno != EAFNOSUPPORT)
		syscall(SYS_exit_group, 5);
}
static void do_socket_inet(void) { refused_socket(AF_INET); }
static void do_socket_unix(void) { refused_socket(AF_UNIX); }
static void do_socketpair_inet(void) { int sv[2]; socketpair(AF_INET, SOCK_STREAM, 0, sv); }
static void do_exec_mmap(void) { mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); }
static void do_mprotect_exec(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(p, 4096, PROT_READ | PROT_EXEC);
}
static void do_execve(void) { execl("/bin/true", "true", (char *)NULL); }
static void do_ptrace(void) { syscall(SYS_ptrace, 0, 0, 0, 0); }
static void do_setuid(void) { syscall(SYS_setuid, 0); }
static void do_connect(void) { connect(0, NULL, 0); }

static void *thread_main(void *arg)
{
	return arg;
}

/* What the event loop does: a socketpair, a frame across, malloc. */
static void do_event_loop_calls(void)
{
	int sv[2];
	char buf[16];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) ||
	    fcntl(sv[0], F_SETFL, O_NONBLOCK) || write(sv[1], "frame", 5) != 5 ||
	    read(sv[0], buf, sizeof(buf)) != 5)
		syscall(SYS_exit_group, 3);
	void *big = malloc(1 << 20);	/* mmap without PROT_EXEC */
	free(big);
	pthread_t t;			/* a thread: clone3 ENOSYS, then clone */
	if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, NULL))
		syscall(SYS_exit_group, 4);
	close(sv[0]);
	close(sv[1]);
}

static void check(const char *name, void (*call)(void), bool allowed)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (sandbox_seccomp())
			_exit(2);
		call();
		/* Straight to the kernel: sanitizer runtimes hook _exit() with
		 * calls of their own that algd never makes. */
		syscall(SYS_exit_group, 0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	bool ok = allowed ? WIFEXITED(st) && WEXITSTATUS(st) == 0
			  : WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS;
	tests++;
	failures += !ok;
	printf("%sok %d - %s %s\n", ok ? "" : "not ", tests, name,
	       allowed ? "works under the filter" : "kills the process with SIGSYS");
}

int main(void)
{
	check("fork()", do_fork, false);
	check("socket(AF_INET) fails with EAFNOSUPPORT:", do_socket_inet, true);
	check("socket(AF_UNIX) fails with EAFNOSUPPORT:", do_socket_unix, true);
	check("socketpair(AF_INET)", do_socketpair_inet, false);
	check("connect()", do_connect, false);
	check("mmap(PROT_EXEC)", do_exec_mmap, false);
	check("mprotect(PROT_EXEC)", do_mprotect_exec, false);
	check("execve()", do_execve, false);
	check("ptrace()", do_ptrace, false);
	check("setuid(0)", do_setuid, false);
	check("socketpair(AF_UNIX), write, read, malloc, a thread", do_event_loop_calls, true);
	printf("1..%d\n", tests);
	return failures != 0;
}
