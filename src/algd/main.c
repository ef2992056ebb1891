/* algd: the ualg crypto daemon.  Holds every key and transform state for
 * its clients and serves the AF_ALG protocol on a Unix socket. */
#include "config.h"
#include "crypto.h"
#include "proto.h"
#include "ring.h"
#include "server.h"
#include "sandbox.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Locked key memory for every transform and keyed hash state: a power of
 * two, under the usual 8 MiB RLIMIT_MEMLOCK.  When full, setkey and
 * accept fail with ENOMEM, as kmalloc would. */
#define SECURE_HEAP_SIZE (4u << 20)

static void usage(FILE *f)
{
	fputs("usage: algd [-v] [--config FILE] [--socket PATH] [--ready-fd FD] [--workers N] [--poll-us US]\n"
	      "            [--user NAME] [--allow LIST] [--max-sockets N] [--no-seccomp] [--list]\n"
	      "  --config FILE   settings (see algd.conf(5) in README): priorities,\n"
	      "                  disabled drivers, admin group, socket; SIGHUP rereads it\n"
	      "  --socket PATH   listen on PATH (default: $UALG_SOCKET, /run/ualg/algd.sock\n"
	      "                  for root, else $XDG_RUNTIME_DIR/ualg/algd.sock)\n"
	      "  --ready-fd FD   write one byte to FD once listening, then close it\n"
	      "  --user NAME     when started as root, run as NAME once listening\n"
	      "  --allow LIST    clients allowed besides root, e.g. uid:1000,gid:ualg\n"
	      "                  (repeatable; default: whoever the socket's mode lets in)\n"
	      "  --max-sockets N AF_ALG sockets one uid may hold (default 4096): EMFILE\n"
	      "  --no-seccomp    no syscall filter (debuggers and sanitizers only)\n"
	      "  --list          print the registered algorithms and exit\n"
	      "  --workers N     threads serving native rings (default: one per CPU)\n"
	      "  --poll-us US    how long a ring worker busy-polls after work (default 50)\n"
	      "  -v              log more (repeat for more)\n", f);
}

static int parse_count(const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);

	if (errno || end == s || *end || s[0] < '1' || s[0] > '9' || v > 1000000)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static void list_algs(void)
{
	for (const struct ualg_alg *a = ualg_alg_next(NULL); a; a = ualg_alg_next(a))
		printf("%-24s %-28s %-8s %4d %s\n", a->name, a->driver,
		       ualg_alg_type_name(a->type), a->priority,
		       a->selftest == UALG_SELFTEST_PASSED ? "passed" :
		       a->selftest == UALG_SELFTEST_FAILED ? "failed" : "unknown");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "list", no_argument, NULL, 'l' },
		{ "workers", required_argument, NULL, 'w' },
		{ "poll-us", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' },
		{ "allow", required_argument, NULL, 'a' },
		{ "max-sockets", required_argument, NULL, 'm' },
		{ "no-seccomp", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct server_opts opts = { .ready_fd = -1 };
	char path[256];
	const char *user = NULL;
	bool list = false;
	const char *config = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's': opts.socket_path = optarg; break;
		case 'c': config = optarg; break;
		case 'r': opts.ready_fd = atoi(optarg); break;
		case 'l': list = true; break;
		case 'w': ring_set_workers((unsigned)strtoul(optarg, NULL, 10)); break;
		case 'p': ring_set_poll_us((unsigned)strtoul(optarg, NULL, 10)); break;
		case 'u': user = optarg; break;
		case 'a':
			if (policy_parse(&opts.policy, optarg)) {
				fprintf(stderr, "algd: bad --allow list: %s\n", optarg);
				return 2;
			}
			break;
		case 'm':
			if (parse_count(optarg, &opts.max_sockets)) {
				fprintf(stderr, "algd: bad --max-sockets: %s\n", optarg);
				return 2;
			}
			break;
		case 'n': opts.no_seccomp = true; break;
		case 'v': opts.verbose++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (user && geteuid() != 0) {
		fputs("algd: --user needs root\n", stderr);
		return 2;
	}
	if (user && sandbox_lookup_user(user, &opts.uid, &opts.gid))
		return 1;
	opts.drop = user != NULL;
	if (!user && geteuid() == 0)
		fputs("algd: warning: running as root; use --user\n", stderr);
	/* Keys live in this process: no core dumps, no ptrace by peers. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* Before anything touches OpenSSL (secmem.c). */
	int sec = ualg_secmem_init(SECURE_HEAP_SIZE);
	if (sec < 0) {
		fputs("algd: cannot set up the secure key heap\n", stderr);
		return 1;
	}
	if (sec > 0)
		fputs("algd: warning: key heap not locked in memory (RLIMIT_MEMLOCK?)\n", stderr);

	if (ualg_core_init()) {
		fputs("algd: crypto core failed to initialise\n", stderr);
		return 1;
	}
	if (config && config_load(config)) {
		ualg_core_exit();
		return 1;
	}
	if (!opts.socket_path && config_get()->socket_path[0])
		opts.socket_path = config_get()->socket_path;
	if (list) {
		list_algs();
		ualg_core_exit();
		return 0;
	}
	if (!opts.socket_path) {
		if (ualg_default_socket_path(path, sizeof(path))) {
			fputs("algd: socket path too long\n", stderr);
			return 1;
		}
		opts.socket_path = path;
	}
	int status = server_run(&opts);
	ualg_core_exit();
	return status;
}
