/* algd: the ualg crypto daemon.  Holds every key and transform state for
 * its clients and serves the AF_ALG protocol on a Unix socket. */
#include "crypto.h"
#include "proto.h"
#include "server.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

/* Locked key memory for every transform and keyed hash state: a power of
 * two, under the usual 8 MiB RLIMIT_MEMLOCK.  When full, setkey and
 * accept fail with ENOMEM, as kmalloc would. */
#define SECURE_HEAP_SIZE (4u << 20)

static void usage(FILE *f)
{
	fputs("usage: algd [-v] [--socket PATH] [--ready-fd FD] [--list]\n"
	      "  --socket PATH   listen on PATH (default: $UALG_SOCKET, /run/ualg/algd.sock\n"
	      "                  for root, else $XDG_RUNTIME_DIR/ualg/algd.sock)\n"
	      "  --ready-fd FD   write one byte to FD once listening, then close it\n"
	      "  --list          print the registered algorithms and exit\n"
	      "  -v              log more (repeat for more)\n", f);
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
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct server_opts opts = { .ready_fd = -1 };
	char path[256];
	bool list = false;
	int c;

	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's': opts.socket_path = optarg; break;
		case 'r': opts.ready_fd = atoi(optarg); break;
		case 'l': list = true; break;
		case 'v': opts.verbose++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
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
