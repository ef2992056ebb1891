/* ualg-bench --engines, first rows: what a fresh process pays for its
 * first operation, socket() to digest, against the same program's first
 * SHA-256 with OpenSSL (linked in, as this program is), and the memory it
 * adds (the largest resident set, from main() to after the operation):
 * the targets are on what AF_ALG adds beyond OpenSSL's own first use,
 * which the in-process engine makes too.
 * Each is measured in a child that runs this program again, five times,
 * the median reported. */
#include "bench_engine.h"

#include <errno.h>
#include <stdbool.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 5
#define COLD_MS_TARGET 2.0	/* more than OpenSSL's first SHA-256 */
#define COLD_SHA_KIB_TARGET 2048
#define COLD_CBC_KIB_TARGET 1024

static double ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static long maxrss_kib(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_maxrss;
}

/* Prints "ms sha_kib cbc_kib digest": the first SHA-256 of 64 zero bytes,
 * then (AF_ALG only) a cbc(aes) operation after it. */
int bench_cold_child(const char *mode)
{
	static const uint8_t zeros[64];
	uint8_t md[32], ct[16];
	const bool afalg = strcmp(mode, "openssl");
	const long rss0 = maxrss_kib();
	const double t0 = ms_now();
	int err = afalg ? bench_oneshot("hash", "sha256", sizeof(zeros), 0, 0, md, sizeof(md))
			: EVP_Digest(zeros, sizeof(zeros), md, NULL, EVP_sha256(), NULL) ? 0 : -EIO;
	const double t1 = ms_now();
	const long rss1 = maxrss_kib();
	if (!err && afalg)
		err = bench_oneshot("skcipher", "cbc(aes)", 16, 16, 16, ct, sizeof(ct));
	const long rss2 = maxrss_kib();
	if (err) {
		fprintf(stderr, "ualg-bench: first operation: %s\n", strerror(-err));
		return 1;
	}
	printf("%.3f %ld %ld %02x%02x%02x%02x\n", t1 - t0, rss1 - rss0, rss2 - rss1, md[0], md[1],
	       md[2], md[3]);
	return 0;
}

struct cold {
	double ms;
	long sha_kib, cbc_kib;
	char digest[16];
};

static int run_child(const char *self, const char *mode, struct cold *c)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "'%s' --cold-child %s", self, mode);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	const int n = fscanf(p, "%lf %ld %ld %15s", &c->ms, &c->sha_kib, &c->cbc_kib, c->digest);
	return pclose(p) == 0 && n == 4 ? 0 : -1;
}

static int by_ms(const void *a, const void *b)
{
	const double x = ((const struct cold *)a)->ms, y = ((const struct cold *)b)->ms;
	return x < y ? -1 : x > y;
}

static int by_sha_kib(const void *a, const void *b)
{
	return (int)(((const struct cold *)a)->sha_kib - ((const struct cold *)b)->sha_kib);
}

static int by_cbc_kib(const void *a, const void *b)
{
	return (int)(((const struct cold *)a)->cbc_kib - ((const struct cold *)b)->cbc_kib);
}

/* The median of RUNS children of mode, each field on its own. */
static int median(const char *self, const char *mode, struct cold *out)
{
	struct cold c[RUNS];
	for (int i = 0; i < RUNS; i++)
		if (run_child(self, mode, &c[i]))
			return -1;
	memcpy(out->digest, c[0].digest, sizeof(out->digest));
	qsort(c, RUNS, sizeof(c[0]), by_ms);
	out->ms = c[RUNS / 2].ms;
	qsort(c, RUNS, sizeof(c[0]), by_sha_kib);
	out->sha_kib = c[RUNS / 2].sha_kib;
	qsort(c, RUNS, sizeof(c[0]), by_cbc_kib);
	out->cbc_kib = c[RUNS / 2].cbc_kib;
	return 0;
}

void bench_cold(const char *self)
{
	struct cold o, a;
	printf("First operation in a fresh process, socket() to result (median of %d runs):\n", RUNS);
	if (median(self, "openssl", &o) || median(self, "afalg", &a)) {
		printf("  (a child failed)\n\n");
		return;
	}
	const bool same = !strcmp(o.digest, a.digest);
	printf("  OpenSSL sha256:     %6.2f ms, max RSS +%5ld KiB\n", o.ms, o.sha_kib);
	printf("  AF_ALG sha256:      %6.2f ms (+%.2f ms, target +%.0f ms), max RSS +%5ld KiB "
	       "(+%ld KiB over OpenSSL's, target %d KiB)%s\n", a.ms, a.ms - o.ms, COLD_MS_TARGET,
	       a.sha_kib, a.sha_kib - o.sha_kib, COLD_SHA_KIB_TARGET, same ? "" : " MISMATCH");
	printf("  AF_ALG cbc(aes) after it:            max RSS +%5ld KiB (target %d KiB)\n\n",
	       a.cbc_kib, COLD_CBC_KIB_TARGET);
}
