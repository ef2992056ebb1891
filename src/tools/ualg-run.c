/* ualg-run: runs a program with the AF_ALG shim preloaded, connected to the
 * algd serving this user, or to a private algd started for the run. */
#include "proto.h"
#include "ualg_paths.h"
#include "supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fputs("usage: ualg-run [--private] [--rfc] [-v] [--supervise] [--] PROGRAM [ARGS...]\n"
	      "Runs PROGRAM with AF_ALG served by algd: the one at $UALG_SOCKET, else at\n"
	      "the user's default path or the system's (" UALG_SYSTEM_SOCKET "), if one\n"
	      "answers; else a private one for this run.\n"
	      "  --private   always start a private algd\n"
	      "  --rfc       RFC mode (UALG_RFC=1): SOCK_STREAM AF_ALG sockets as the\n"
	      "              2010 design mail has them; SOCK_SEQPACKET ones are unchanged\n"
	      "  -v          make a private algd log to stderr\n"
	      "  --supervise serve PROGRAM's raw system calls (static binaries, Go)\n"
	      "              through seccomp user notification instead of LD_PRELOAD\n"
	      "  --supervise-bare  the same seccomp filter, nothing served (to\n"
	      "              measure the filter's own cost)\n", f);
}

/* Does an algd this user can trust answer at path? */
static bool algd_alive(const char *path)
{
	char why[256];
	int fd = ualg_connect(path, why, sizeof(why));

	if (fd == -EPERM)
		fprintf(stderr, "ualg-run: refusing algd at %s: %s\n", path, why);
	if (fd < 0)
		return false;
	bool ok = ualg_hello(fd) == 0;
	close(fd);
	return ok;
}

/* The first of: $ENV, the build tree beside us, the install tree beside
 * us (the paths relative to bindir that meson computed: a DESTDIR or moved
 * install finds its own files), the configured install path. */
static int find_file(char *out, size_t size, const char *env, const char *const *rel, const char *installed)
{
	const char *e = getenv(env);
	char exe[PATH_MAX];

	if (e && *e) {
		snprintf(out, size, "%s", e);
		return access(out, R_OK) ? -1 : 0;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		const char *dir = dirname(exe);
		for (; *rel; rel++) {
			char path[PATH_MAX];
			if (!**rel)	/* an absolute install: no relative path */
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, *rel);
			if (!access(path, R_OK) && realpath(path, out))
				return 0;
		}
	}
	snprintf(out, size, "%s", installed);
	return access(out, R_OK) ? -1 : 0;
}

/* The algd for this run: $UALG_SOCKET's, or the one at this user's
 * default path, or the system's (algd.socket), whichever answers first. */
static bool find_running(char *sock, size_t size)
{
	const char *env = getenv("UALG_SOCKET");

	if (ualg_default_socket_path(sock, size))
		return false;
	if (algd_alive(sock))
		return true;
	if (env && *env)
		return false;
	snprintf(sock, size, "%s", UALG_SYSTEM_SOCKET);
	return algd_alive(sock);
}

/* A private algd: quiet unless -v (what it says goes to log, shown only
 * if it does not start), and ending with this process even when a signal
 * kills it (the parent-death signal). */
static pid_t start_algd(const char *algd, const char *sock, bool verbose, const char *log)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -1;
	const pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		char fdarg[16];
		close(p[0]);
		fcntl(p[1], F_SETFD, 0);
		snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
		/* Its own process group: a ^C to the program is not for it. */
		setpgid(0, 0);
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(1);
		if (!verbose) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			if (fd >= 0 && fd != STDERR_FILENO) {
				dup2(fd, STDERR_FILENO);
				close(fd);
			}
		}
		execl(algd, "algd", "--socket", sock, "--ready-fd", fdarg, verbose ? "-v" : NULL, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	struct pollfd pf = { p[0], POLLIN, 0 };
	char c;
	if (poll(&pf, 1, 30000) != 1 || read(p[0], &c, 1) != 1) {
		close(p[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		FILE *f = verbose ? NULL : fopen(log, "re");	/* why it did not start */
		for (int ch; f && (ch = getc(f)) != EOF;)
			fputc(ch, stderr);
		if (f)
			fclose(f);
		return -1;
	}
	close(p[0]);
	return pid;
}

static void prepend_env(const char *name, const char *value, char sep)
{
	const char *old = getenv(name);
	if (!old || !*old) {
		setenv(name, value, 1);
		return;
	}
	size_t len = strlen(value) + strlen(old) + 2;
	char *v = malloc(len);
	if (!v)
		return;
	snprintf(v, len, "%s%c%s", value, sep, old);
	setenv(name, v, 1);
	free(v);
}

/* --supervise: this program again, with the shim preloaded, as the
 * supervisor of PROGRAM (supervise.c); PROGRAM gets the LD_PRELOAD it had. */
static pid_t start_supervisor(const char *mode, char **prog)
{
	int n = 0;
	while (prog[n])
		n++;
	char **args = calloc((size_t)n + 4, sizeof(*args));
	if (!args)
		return -1;
	args[0] = "ualg-run";
	args[1] = "--supervisor-internal";
	args[2] = (char *)mode;
	memcpy(args + 3, prog, (size_t)n * sizeof(*args));
	pid_t pid = fork();
	if (pid == 0) {
		execv("/proc/self/exe", args);
		fprintf(stderr, "ualg-run: cannot start the supervisor: %s\n", strerror(errno));
		_exit(127);
	}
	free(args);
	return pid;
}

static volatile pid_t child_pid;

static void pass_on(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

int main(int argc, char **argv)
{
	static const char *const shim_rel[] = { "../shim/libualg-preload.so", UALG_PRELOAD_FROM_BINDIR, NULL };
	static const char *const algd_rel[] = { "../algd/algd", UALG_ALGD_FROM_BINDIR, "algd", NULL };
	bool private_daemon = false, verbose = false;
	const char *supervise = NULL;
	int i = 1;
	char shim[PATH_MAX], algd[PATH_MAX], sock[256], dir[PATH_MAX] = "", log[PATH_MAX + 16] = "";
	pid_t algd_pid = -1;

	if (argc > 3 && !strcmp(argv[1], "--supervisor-internal"))
		return supervise_main(argv + 3, !strcmp(argv[2], "bare"), getenv("UALG_SUPERVISE_STATS"));
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--rfc")) {
			setenv("UALG_RFC", "1", 1);	/* read by the shim */
		} else if (!strcmp(argv[i], "--private")) {
			private_daemon = true;
		} else if (!strcmp(argv[i], "--supervise")) {
			supervise = "serve";
		} else if (!strcmp(argv[i], "--supervise-bare")) {
			supervise = "bare";
		} else if (!strcmp(argv[i], "-v")) {
			verbose = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	if (find_file(shim, sizeof(shim), "UALG_PRELOAD", shim_rel, UALG_INSTALLED_PRELOAD)) {
		fprintf(stderr, "ualg-run: cannot find libualg-preload.so (set UALG_PRELOAD)\n");
		return 127;
	}
	if (private_daemon || !find_running(sock, sizeof(sock))) {
		if (find_file(algd, sizeof(algd), "UALG_ALGD", algd_rel, UALG_INSTALLED_ALGD)) {
			fprintf(stderr, "ualg-run: no algd is running and none was found to start (set UALG_ALGD)\n");
			return 127;
		}
		const char *rt = getenv("XDG_RUNTIME_DIR");
		snprintf(dir, sizeof(dir), "%s/ualg-run.XXXXXX", rt && *rt && !access(rt, W_OK) ? rt : "/tmp");
		if (!mkdtemp(dir) || snprintf(sock, sizeof(sock), "%s/algd.sock", dir) >= (int)sizeof(sock)) {
			fprintf(stderr, "ualg-run: cannot make a private directory: %s\n", strerror(errno));
			return 127;
		}
		snprintf(log, sizeof(log), "%s/algd.log", dir);
		algd_pid = start_algd(algd, sock, verbose, log);
		if (algd_pid < 0) {
			fprintf(stderr, "ualg-run: algd (%s) did not start\n", algd);
			unlink(log);
			rmdir(dir);
			return 127;
		}
	}
	setenv("UALG_SOCKET", sock, 1);
	if (supervise) {
		const char *old = getenv("LD_PRELOAD");
		setenv("UALG_TARGET_LD_PRELOAD", old ? old : "", 1);
	}
	prepend_env("LD_PRELOAD", shim, ':');

	pid_t child = supervise ? start_supervisor(supervise, argv + i) : fork();
	if (child == 0) {
		execvp(argv[i], argv + i);
		fprintf(stderr, "ualg-run: %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	int status = 0, rc = 127;
	/* Signals meant for the program reach it through the terminal; we
	 * only wait. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	/* Those sent to us alone (kill, timeout) are passed on: the program
	 * ends, then the private algd with us. */
	child_pid = child;
	struct sigaction sa = { .sa_handler = pass_on };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (child > 0) {
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	if (algd_pid > 0) {
		kill(algd_pid, SIGTERM);
		waitpid(algd_pid, NULL, 0);
		unlink(sock);
		unlink(log);
		rmdir(dir);
	}
	return rc;
}
