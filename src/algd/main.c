/* algd: the ualg crypto daemon.  Holds every key and transform state for
 * its clients and serves the AF_ALG protocol on a Unix socket. */
#include "log.h"
#include "config.h"
#include "crypto.h"
#include "proto.h"
#include "ring.h"
#include "server.h"
#include "sandbox.h"
#include "algd_afalg.h"

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
	      "            [--user NAME] [--allow LIST] [--alg-allow NAME=LIST] [--max-sockets N]\n"
	      "            [--uid-mem-max BYTES] [--uid-key-heap BYTES] [--uid-fd-max N] [--no-seccomp] [--list] [--fips]\n"
	      "            [--engine inproc|algd]\n"
	      "  --config FILE   settings (algd.conf(5)): priorities, disabled drivers,\n"
	      "                  admin group, socket, engines; SIGHUP rereads it\n"
	      "  --engine E      inproc (default): programs may serve AF_ALG data\n"
	      "                  themselves where algd allows it; algd: algd serves all\n"
	      "  --socket PATH   listen on PATH (default: $UALG_SOCKET, /run/ualg/algd.sock\n"
	      "                  for root, else $XDG_RUNTIME_DIR/ualg/algd.sock)\n"
	      "  --ready-fd FD   write one byte to FD once listening, then close it\n"
	      "  --user NAME     when started as root, run as NAME once listening\n"
	      "  --allow LIST    clients allowed besides root, e.g. uid:1000,gid:ualg\n"
	      "  --alg-allow NAME=LIST  only LIST (and root) may use NAME and what is built on it\n"
	      "                  (repeatable; default: whoever the socket's mode lets in)\n"
	      "  --max-sockets N AF_ALG sockets and ring transforms one uid may hold\n"
	      "                  (default 4096): EMFILE\n"
	      "  --uid-mem-max BYTES   memory algd holds for one uid: queues, buffers,\n"
	      "                  payload areas, rings (default 64M): ENOMEM\n"
	      "  --uid-key-heap BYTES  share of the 4 MiB key heap one uid may fill\n"
	      "                  (default 1M): ENOMEM\n"
	      "  --uid-fd-max N  descriptors algd holds for one uid (default: a quarter\n"
	      "                  of its RLIMIT_NOFILE): EMFILE\n"
	      "  --no-seccomp    no syscall filter (debuggers and sanitizers only)\n"
	      "  --list          print the registered algorithms and exit\n"
	      "  --fips          FIPS mode, as Linux 6.1 with fips=1 (also on when\n"
	      "                  /proc/sys/crypto/fips_enabled reads 1): approved\n"
	      "                  algorithms only, and no start if a self-test fails\n"
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

/* --uid-mem-max and --uid-key-heap take bytes with an optional K, M or G
 * suffix; --uid-fd-max a count. */
static int parse_limit(int opt, const char *s, struct server_opts *o)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;

	if (errno || end == s || s[0] < '1' || s[0] > '9')
		return -1;
	if (opt != 'F' && *end && !end[1])
		shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 64;
	else if (*end)
		return -1;
	if (shift == 64 || v > (SIZE_MAX >> shift))
		return -1;
	v <<= shift;
	if (opt == 'M')
		o->uid_mem_max = (size_t)v;
	else if (opt == 'K')
		o->uid_key_heap = (size_t)v;
	else if (v > 1000000)
		return -1;
	else
		o->uid_fd_max = (unsigned)v;
	return 0;
}

/* The kernel's fips=1 is visible to everyone in procfs; algd follows it. */
static bool kernel_fips_enabled(void)
{
	FILE *f = fopen("/proc/sys/crypto/fips_enabled", "r");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == '1';
}

/* An approved algorithm built on demand failed its self-test: the kernel
 * panics in FIPS mode; algd stops serving. */
static void fips_fatal(const struct ualg_alg *failed)
{
	algd_log(LOG_ERR, "FIPS mode: self-test of %s (%s) failed; stopping",
		failed->name, failed->driver);
	_exit(1);
}

#ifdef UALG_TEST_HOOKS
/* Test builds (tests/algd-test) only: UALG_TEST_CORRUPT_VECTOR=NAME flips
 * one expected byte of NAME's self-test vectors. */
static void test_hooks(void)
{
	const char *name = getenv("UALG_TEST_CORRUPT_VECTOR");

	if (name)
		ualg_selftest_corrupt(name);
}
#else
static void test_hooks(void)
{
}
#endif

static void list_algs(void)
{
	for (const struct ualg_alg *a = ualg_alg_next(NULL); a; a = ualg_alg_next(a))
		printf("%-24s %-28s %-8s %4d %s%s\n", a->name, a->driver,
		       ualg_alg_type_name(a->type), a->priority,
		       a->selftest == UALG_SELFTEST_PASSED ? "passed" :
		       a->selftest == UALG_SELFTEST_FAILED ? "failed" : "unknown",
		       !ualg_fips_enabled() ? "" : a->fips_internal ? " fips:no" : " fips:yes");
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
		{ "alg-allow", required_argument, NULL, 'A' },
		{ "max-sockets", required_argument, NULL, 'm' },
		{ "uid-mem-max", required_argument, NULL, 'M' },
		{ "uid-key-heap", required_argument, NULL, 'K' },
		{ "uid-fd-max", required_argument, NULL, 'F' },
		{ "no-seccomp", no_argument, NULL, 'n' },
		{ "fips", no_argument, NULL, 'f' },
		{ "engine", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct server_opts opts = { .ready_fd = -1 };
	char path[256];
	const char *user = NULL;
	bool list = false, fips = false;
	const char *config = NULL;
	int c;

	log_init();
	/* With the shim in /etc/ld.so.preload, algd is one of "every program":
	 * it must never become its own client. */
	setenv("UALG_PRELOAD_MODE", "off", 1);
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
				algd_log(LOG_ERR, "bad --allow list: %s", optarg);
				return 2;
			}
			break;
		case 'A':
			if (policy_add_alg_rule(optarg)) {
				algd_log(LOG_ERR, "bad --alg-allow rule (NAME=LIST): %s", optarg);
				return 2;
			}
			break;
		case 'm':
			if (parse_count(optarg, &opts.max_sockets)) {
				algd_log(LOG_ERR, "bad --max-sockets: %s", optarg);
				return 2;
			}
			break;
		case 'M':
		case 'K':
		case 'F':
			if (parse_limit(c, optarg, &opts)) {
				algd_log(LOG_ERR, "bad --%s: %s", c == 'M' ? "uid-mem-max" :
					 c == 'K' ? "uid-key-heap" : "uid-fd-max", optarg);
				return 2;
			}
			break;
		case 'n': opts.no_seccomp = true; break;
		case 'f': fips = true; break;
		case 'E':
			if (strcmp(optarg, "inproc") && strcmp(optarg, "algd")) {
				algd_log(LOG_ERR, "bad --engine (inproc or algd): %s", optarg);
				return 2;
			}
			config_set_engine_algd(!strcmp(optarg, "algd"));
			break;
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
		algd_log(LOG_ERR, "--user needs root");
		return 2;
	}
	if (user && sandbox_lookup_user(user, &opts.uid, &opts.gid))
		return 1;
	opts.drop = user != NULL;
	if (!user && geteuid() == 0)
		algd_log(LOG_WARNING, "warning: running as root; use --user");
	/* Keys live in this process: no core dumps, no ptrace by peers. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* Before anything touches OpenSSL (secmem.c). */
	int sec = ualg_secmem_init(SECURE_HEAP_SIZE);
	if (sec < 0) {
		algd_log(LOG_ERR, "cannot set up the secure key heap");
		return 1;
	}
	if (sec > 0)
		algd_log(LOG_WARNING, "warning: key heap not locked in memory (RLIMIT_MEMLOCK?)");

	test_hooks();
	if (fips || kernel_fips_enabled())
		ualg_fips_enable();
	ualg_core_count_stats(true);	/* crypto_user's and algctl's */
	ualg_core_release_hash_states(true);	/* the key heap is every user's */
	if (ualg_core_init()) {
		const struct ualg_alg *failed = ualg_fips_failure();
		if (failed)
			algd_log(LOG_ERR, "FIPS mode: self-test of %s (%s) failed; refusing to start",
				failed->name, failed->driver);
		else
			algd_log(LOG_ERR, "crypto core failed to initialise");
		return 1;
	}
	ualg_fips_set_fatal_hook(fips_fatal);
	algd_afalg_host_init();
	if (ualg_fips_enabled() && opts.verbose)
		algd_log(LOG_NOTICE, "FIPS mode");
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
			algd_log(LOG_ERR, "socket path too long");
			return 1;
		}
		opts.socket_path = path;
	}
	int status = server_run(&opts);
	ualg_core_exit();
	return status;
}
