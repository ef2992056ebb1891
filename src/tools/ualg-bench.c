/* ualg-bench: how close each way of reaching algd comes to doing the
 * crypto in-process.  For each algorithm and size it measures
 *
 *   inproc        OpenSSL EVP in this process: the limit
 *   native-sync   libualg, one request per round trip, data in registered buffers
 *   native-batch  libualg, a batch of requests per submission
 *   shim-write    AF_ALG through libualg-preload: send/sendmsg + read
 *   shim-splice   AF_ALG through libualg-preload: vmsplice + splice + read
 *   devcrypto     /dev/crypto (cryptodev-linux's ioctls) through libualg-preload:
 *                 one CIOCCRYPT or CIOCAUTHCRYPT per operation, in this process
 *
 * With --dpdk DEVICE (one skcipher --alg, cbc(aes) or ctr(aes)), the
 * device through its driver in algd ("cbc-aes-dpdk-DEVICE", algd
 * configured with the device) against the same device driven with DPDK's
 * API in this process (bench_dpdk.h): at one size (64 KiB unless
 * --size), inproc, native-sync, native-batch and shim-write bound to the
 * driver, and dpdk-direct (one operation per 32 KiB mbuf, polled); at
 * 64 B, inproc, native-batch (which algd's driver sends to the device in
 * bursts) and dpdk-burst (bursts of 32 operations, one mbuf each).  Then
 * the share of dpdk-direct's throughput that each path through algd
 * keeps, and of dpdk-burst's operations per second that native-batch
 * keeps at 64 B.
 *
 * and prints throughput, ops/s, p50/p99 latency and the ratio to inproc,
 * as a table or JSON.  It needs the shim: started without it, it runs
 * itself again under ualg-run (found beside it), which also provides an
 * algd.  The first output of every path is compared with inproc's, so a
 * fast wrong answer shows as MISMATCH.  A benchmark, not a test: numbers
 * depend on the machine and its load. */
#include "bench_dpdk.h"
#include "bench_engine.h"
#include "bench_paths.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LAT_SAMPLES 400

static const struct alg_spec all_algs[] = {
	{ "sha256", "hash", "SHA256", 0, 0, 32, false, 0 },
	{ "hmac(sha256)", "hash", "SHA256", 32, 0, 32, true, 0 },
	{ "cbc(aes)", "skcipher", "AES-128-CBC", 16, 16, 0, false, 0 },
	{ "ctr(aes)", "skcipher", "AES-128-CTR", 16, 16, 0, false, 0 },
	{ "xts(aes)", "skcipher", "AES-128-XTS", 32, 16, 0, false, 0 },
	{ "gcm(aes)", "aead", "AES-128-GCM", 16, 12, 0, false, 16 },
	{ "rfc7539(chacha20,poly1305)", "aead", "ChaCha20-Poly1305", 32, 12, 0, false, 16 },
};


static const size_t all_sizes[] = { 64, 1024, 16384, 65536, 1u << 20 };

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Throughput over the whole run, untimed per call; then latency of calls
 * timed one by one. */
static int measure(struct runner *r, double seconds, struct result *res)
{
	uint64_t ops = 0, start = now_ns(), end = start + (uint64_t)(seconds * 1e9), t;
	static uint64_t lat[LAT_SAMPLES];
	int err = 0;

	do {
		for (int i = 0; i < 8 && err >= 0; i++) {
			err = r->run(r);
			ops += err > 0 ? (uint64_t)err : 0;
		}
	} while (err >= 0 && (t = now_ns()) < end);
	if (err < 0)
		return err;
	const double secs = (double)(t - start) / 1e9;
	res->ops = (double)ops / secs;
	res->mbps = res->ops * (double)r->len / 1e6;
	unsigned n = 0;
	const uint64_t lat_end = now_ns() + (uint64_t)(seconds * 0.3e9);
	for (; n < LAT_SAMPLES && err >= 0 && (n < 20 || now_ns() < lat_end); n++) {
		const uint64_t t0 = now_ns();
		err = r->run(r);
		lat[n] = now_ns() - t0;
	}
	qsort(lat, n, sizeof(lat[0]), cmp_u64);
	res->p50_us = (double)lat[n / 2] / 1e3;
	res->p99_us = (double)lat[n * 99 / 100] / 1e3;
	return err < 0 ? err : 0;
}

/* On a shared machine other processes steal time from some runs: the
 * best of a few says what the path itself can do. */
static int measure_best(struct runner *r, double seconds, unsigned repeat, struct result *res)
{
	int err = 0;

	for (unsigned i = 0; i < repeat && !err; i++) {
		struct result one = *res;
		err = measure(r, seconds, &one);
		if (!err && one.ops > res->ops)
			*res = one;
	}
	return err;
}

static unsigned repeat_count = 3;

static void run_cell(const struct alg_spec *a, size_t len, enum path p, double seconds,
		     const uint8_t *reference, struct result *res)
{
	struct runner r = { .path = path_names[p], .alg = a, .len = len };

	memset(res, 0, sizeof(*res));
	res->err = path_setup(&r, p);
	/* The first output: for native, done in setup; else one call now. */
	if (!res->err && p != P_NATIVE_SYNC && p != P_NATIVE_BATCH)
		res->err = r.run(&r) < 0 ? -EIO : 0;
	if (!res->err && reference)
		res->mismatch = memcmp(r.out, reference, out_len(&r)) != 0;
	if (!res->err)
		res->err = measure_best(&r, seconds, repeat_count, res);
	if (r.done)
		r.done(&r);
}

/* ---- two client processes (the multi-core target) -------------------- */

/* ops/s of n processes each running native-batch sha256 at len, summed. */
static double parallel_ops(const struct alg_spec *a, size_t len, int n, double seconds)
{
	int fds[2][2];
	pid_t pids[2];
	double total = 0;

	for (int i = 0; i < n; i++) {
		if (pipe(fds[i]))
			return 0;
		pids[i] = fork();
		if (pids[i] == 0) {
			struct result res;
			run_cell(a, len, P_NATIVE_BATCH, seconds, NULL, &res);
			(void)!write(fds[i][1], &res.ops, sizeof(res.ops));
			_exit(res.err ? 1 : 0);
		}
		close(fds[i][1]);
	}
	for (int i = 0; i < n; i++) {
		double ops = 0;
		if (read(fds[i][0], &ops, sizeof(ops)) == sizeof(ops))
			total += ops;
		close(fds[i][0]);
		waitpid(pids[i], NULL, 0);
	}
	return total;
}

/* ---- algd memory ----------------------------------------------------- */
/* ---- main ------------------------------------------------------------ */

static void usage(FILE *f)
{
	fputs("usage: ualg-bench [--json] [--png FILE] [--seconds S] [--repeat N] [--alg NAME]... [--size BYTES]...\n"
	      "                  [--no-parallel] [--no-memory] [--driver DRIVER (with one --alg)] [--decrypt]\n"
	      "       ualg-bench --engines [--pbkdf2 ITERATIONS] [--seconds S]\n"
	      "       ualg-bench --dpdk DEVICE [--alg cbc(aes)|ctr(aes)] [--size BYTES] [--seconds S]\n"
	      "  --decrypt: AEADs decrypt (in-process and the native paths)\n"
	      "  --engines: plain AF_ALG calls under $UALG_ENGINE against in-process OpenSSL\n"
	      "Runs under ualg-run (re-executing itself there when started without it).\n", f);
}

/* Is the shim loaded?  It answers AF_ALG sockets, which this kernel may not. */
static bool shim_loaded(void)
{
	const char *p = getenv("LD_PRELOAD");
	return p && strstr(p, "libualg-preload");
}

static void reexec_under_ualg_run(char **argv)
{
	char exe[PATH_MAX], run[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return;
	exe[n] = '\0';
	snprintf(run, sizeof(run), "%s/ualg-run", dirname(exe));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n] = '\0';
	int argc = 0;
	while (argv[argc])
		argc++;
	char **args = calloc((size_t)argc + 3, sizeof(char *));
	if (!args)
		return;
	args[0] = run;
	args[1] = exe;
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	execv(run, args);
	fprintf(stderr, "ualg-bench: cannot run %s: %s\n", run, strerror(errno));
	free(args);
}

struct options {
	bool json, parallel, memory, engines;
	const char *dpdk;
	unsigned long pbkdf2;
	const char *png;
	double seconds;
	const struct alg_spec *algs[sizeof(all_algs) / sizeof(all_algs[0])];
	size_t nalgs, sizes[8], nsizes;
};

static int parse_args(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .parallel = true, .memory = true, .seconds = 0.15 };
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--json")) {
			o->json = true;
		} else if (!strcmp(argv[i], "--engines")) {
			o->engines = true;
		} else if (!strcmp(argv[i], "--pbkdf2") && v) {
			o->pbkdf2 = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--no-parallel")) {
			o->parallel = false;
		} else if (!strcmp(argv[i], "--no-memory")) {
			o->memory = false;
		} else if (!strcmp(argv[i], "--dpdk") && v) {
			o->dpdk = argv[++i];
		} else if (!strcmp(argv[i], "--decrypt")) {
			aead_decrypt = true;
		} else if (!strcmp(argv[i], "--driver") && v) {
			bind_driver = argv[++i];
		} else if (!strcmp(argv[i], "--png") && v) {
			o->png = argv[++i];
		} else if (!strcmp(argv[i], "--repeat") && v) {
			repeat_count = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--seconds") && v) {
			o->seconds = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--size") && v && o->nsizes < 8) {
			o->sizes[o->nsizes++] = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--alg") && v && o->nalgs < sizeof(o->algs) / sizeof(o->algs[0])) {
			size_t k = 0;
			while (k < sizeof(all_algs) / sizeof(all_algs[0]) && strcmp(all_algs[k].name, v))
				k++;
			if (k == sizeof(all_algs) / sizeof(all_algs[0]))
				return -1;
			o->algs[o->nalgs++] = &all_algs[k];
			i++;
		} else {
			return -1;
		}
	}
	if (bind_driver && o->nalgs != 1)
		return -1;
	if (o->dpdk && (o->nalgs > 1 || o->nsizes > 1))
		return -1;
	if (o->dpdk && !o->nalgs)
		o->algs[o->nalgs++] = &all_algs[2];	/* cbc(aes) */
	if (o->dpdk && !o->nsizes)
		o->sizes[o->nsizes++] = 65536;
	if (!o->nalgs)
		for (size_t k = 0; k < sizeof(all_algs) / sizeof(all_algs[0]); k++)
			o->algs[o->nalgs++] = &all_algs[k];
	if (!o->nsizes)
		for (size_t k = 0; k < sizeof(all_sizes) / sizeof(all_sizes[0]); k++)
			o->sizes[o->nsizes++] = all_sizes[k];
	for (size_t k = 0; k < o->nsizes; k++)
		if (o->sizes[k] == 0 || o->sizes[k] > (64u << 20))
			return -1;
	return o->seconds > 0 && repeat_count > 0 ? 0 : -1;
}

/* in-process OpenSSL's first output of a at len (malloc'ed), to check
 * the other paths' against; NULL when it has none. */
static uint8_t *reference_output(const struct alg_spec *a, size_t len)
{
	struct runner ir = { .alg = a, .len = len };
	uint8_t *ref = NULL;

	if (inproc_setup(&ir) == 0 && inproc_run(&ir) == 1 && (ref = malloc(out_len(&ir))))
		memcpy(ref, ir.out, out_len(&ir));
	inproc_done(&ir);
	return ref;
}

/* Every cell, inproc first so the others have a reference and a ratio. */
static void run_all(const struct options *o, struct result *res)
{
	if (!o->json)
		printf("%-26s %7s %-13s %9s %11s %9s %9s %7s\n", "algorithm", "size", "path", "MB/s", "ops/s",
		       "p50 us", "p99 us", "ratio");
	for (size_t a = 0; a < o->nalgs; a++)
		for (size_t s = 0; s < o->nsizes; s++) {
			struct result *row = &res[(a * o->nsizes + s) * P_COUNT];
			uint8_t *ref = reference_output(o->algs[a], o->sizes[s]);
			for (int p = 0; p < P_COUNT; p++) {
				run_cell(o->algs[a], o->sizes[s], (enum path)p, o->seconds, ref, &row[p]);
				if (!row[0].err && row[0].ops > 0)
					row[p].ratio = row[p].ops / row[0].ops;
				if (!o->json)
					print_row(o->algs[a], o->sizes[s], (enum path)p, &row[p]);
			}
			free(ref);
		}
}

/* --dpdk's small operations, measured in bursts. */
#define DPDK_SMALL 64

/* run_cell for the device driven directly: dpdk-direct, or dpdk-burst. */
static void direct_cell(const struct alg_spec *a, size_t len, const char *device, bool burst,
			double seconds, const uint8_t *reference, struct result *res)
{
	struct runner r = { .path = burst ? "dpdk-burst" : "dpdk-direct", .alg = a, .len = len };

	memset(res, 0, sizeof(*res));
	res->err = dpdk_path_setup(&r, device, burst);
	if (!res->err)
		res->err = r.run(&r) < 0 ? -EIO : 0;
	if (!res->err && reference)
		res->mismatch = memcmp(r.out, reference, len) != 0;
	if (!res->err)
		res->err = measure_best(&r, seconds, repeat_count, res);
	if (r.done)
		r.done(&r);
}

/* One summary line: the share of the direct path's throughput that p
 * keeps, and their p50s where both are one operation a call. */
static bool share_line(const char *what, const struct result *p, const struct result *direct,
		       bool latency)
{
	if (p->err || direct->err || direct->ops <= 0) {
		printf("%s: n/a\n", what);
		return false;
	}
	printf("%s: %.0f%% of the device driven directly with DPDK's API (throughput)", what,
	       100 * p->ops / direct->ops);
	if (latency)
		printf(", p50 %.1f us against %.1f us", p->p50_us, direct->p50_us);
	printf("\n");
	return true;
}

/* --dpdk: the device through algd's driver against the device driven
 * directly, one algorithm (cbc(aes) unless chosen).  At one size (64 KiB
 * unless chosen): the native ring (one request per round trip, and
 * pipelined batches) and AF_ALG against dpdk-direct.  At DPDK_SMALL
 * bytes: the native ring's pipelined batches, which algd's driver sends
 * to the device in bursts, against dpdk-burst.  Each size has an inproc
 * row, for the ratio column and the outputs' check. */
static int run_dpdk(const struct options *o)
{
	static char driver[64];
	static const enum path big_paths[] = { P_INPROC, P_NATIVE_SYNC, P_NATIVE_BATCH, P_SHIM_WRITE };
	const struct alg_spec *a = o->algs[0];
	const size_t len = o->sizes[0];
	struct result big[5], small[3];
	char what[160], sz[32];

	/* "cbc(aes)" -> "cbc-aes-dpdk-DEVICE", as algd names the driver */
	size_t n = 0;
	for (const char *c = a->name; *c && n < 16; c++)
		if (*c != ')')
			driver[n++] = *c == '(' ? '-' : *c;
	snprintf(driver + n, sizeof(driver) - n, "-dpdk-%s", o->dpdk);
	if (!bind_driver)
		bind_driver = driver;

	uint8_t *expect = reference_output(a, len);
	for (int i = 0; i < 4; i++)
		run_cell(a, len, big_paths[i], o->seconds, expect, &big[i]);
	direct_cell(a, len, o->dpdk, false, o->seconds, expect, &big[4]);
	free(expect);
	expect = reference_output(a, DPDK_SMALL);
	run_cell(a, DPDK_SMALL, P_INPROC, o->seconds, expect, &small[0]);
	run_cell(a, DPDK_SMALL, P_NATIVE_BATCH, o->seconds, expect, &small[1]);
	direct_cell(a, DPDK_SMALL, o->dpdk, true, o->seconds, expect, &small[2]);
	free(expect);

	printf("%-26s %7s %-13s %9s %11s %9s %9s %7s\n", "algorithm", "size", "path", "MB/s", "ops/s",
	       "p50 us", "p99 us", "ratio");
	for (int i = 0; i < 5; i++) {
		if (!big[i].err && !big[0].err && big[0].ops > 0)
			big[i].ratio = big[i].ops / big[0].ops;
		print_named_row(a, len, i < 4 ? path_names[big_paths[i]] : "dpdk-direct", &big[i]);
	}
	for (int i = 0; i < 3; i++) {
		if (!small[i].err && !small[0].err && small[0].ops > 0)
			small[i].ratio = small[i].ops / small[0].ops;
		print_named_row(a, DPDK_SMALL, i == 0 ? "inproc" : i == 1 ? "native-batch" : "dpdk-burst",
				&small[i]);
	}

	bool ok = true;
	size_name(len, sz, sizeof(sz));
	snprintf(what, sizeof(what), "%s %s through the native ring (one request per round trip)", bind_driver, sz);
	ok &= share_line(what, &big[1], &big[4], true);
	snprintf(what, sizeof(what), "%s %s through the native ring (pipelined batches)", bind_driver, sz);
	ok &= share_line(what, &big[2], &big[4], false);
	snprintf(what, sizeof(what), "%s through AF_ALG", bind_driver);
	ok &= share_line(what, &big[3], &big[4], true);
	size_name(DPDK_SMALL, sz, sizeof(sz));
	if (small[1].err || small[2].err || small[2].ops <= 0) {
		printf("%s %s through the native ring's batches against bursts of %d: n/a\n", bind_driver, sz,
		       DPDK_BURST);
		return 1;
	}
	printf("%s %s through the native ring's batches (algd's bursts of up to %d): %.0f%% of the device "
	       "driven directly with bursts of %d (ops/s), %.0f against %.0f\n", bind_driver, sz, DPDK_BURST,
	       100 * small[1].ops / small[2].ops, DPDK_BURST, small[1].ops, small[2].ops);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct options o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--cold-child"))
		return bench_cold_child(argv[2]);
	if (parse_args(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	if (!shim_loaded()) {
		reexec_under_ualg_run(argv);
		return 127;
	}
	if (o.dpdk)
		return run_dpdk(&o);
	if (o.engines) {
		char self[PATH_MAX];
		const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n > 0) {
			self[n] = '\0';
			bench_cold(self);
		}
		return bench_engines(o.seconds * 10, o.pbkdf2);
	}
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* Memory first, while algd has served nothing else. */
	struct memory mem = { -1, -1, 0 };
	if (o.memory)
		measure_memory(&all_algs[0], 1000, &mem);
	struct result *res = calloc(o.nalgs * o.nsizes * P_COUNT, sizeof(*res));
	if (!res)
		return 1;
	run_all(&o, res);

	const struct alg_spec *sha = &all_algs[0];
	const size_t par_len = 16384;
	double one = o.parallel ? parallel_ops(sha, par_len, 1, o.seconds * 4) : 0;
	double two = o.parallel ? parallel_ops(sha, par_len, 2, o.seconds * 4) : 0;

	if (o.json) {
		printf("{\"results\": [");
		size_t i = 0;
		for (size_t a = 0; a < o.nalgs; a++)
			for (size_t s = 0; s < o.nsizes; s++)
				for (int p = 0; p < P_COUNT; p++, i++)
					print_json_row(stdout, i == 0, o.algs[a], o.sizes[s], (enum path)p, &res[i]);
		printf("\n],\n\"parallel\": {\"alg\": \"sha256\", \"size\": %zu, \"one_process_ops\": %.1f, "
		       "\"two_processes_ops\": %.1f, \"scaling\": %.3f},\n", par_len, one, two, one > 0 ? two / one : 0);
		printf("\"algd_memory\": {\"idle_rss_kib\": %ld, \"rss_with_sockets_kib\": %ld, \"sockets\": %d, "
		       "\"per_socket_bytes\": %.0f}}\n", mem.idle_kib, mem.with_sockets_kib, mem.sockets,
		       mem.sockets ? (double)(mem.with_sockets_kib - mem.idle_kib) * 1024 / mem.sockets : 0);
	} else {
		if (o.parallel)
			printf("\nnative-batch sha256 16 KiB: 1 process %.0f ops/s, 2 processes %.0f ops/s (%.2fx)\n",
			       one, two, one > 0 ? two / one : 0);
		if (o.memory)
			printf("algd RSS: %ld KiB before, %ld KiB with %d more op sockets (%.1f KiB each)\n",
			       mem.idle_kib, mem.with_sockets_kib, mem.sockets,
			       mem.sockets ? (double)(mem.with_sockets_kib - mem.idle_kib) / mem.sockets : 0);
	}
	const int rc = o.png && plot(o.png, res, o.nalgs, o.algs, o.nsizes, o.sizes) ? 1 : 0;
	free(res);
	return rc;
}
