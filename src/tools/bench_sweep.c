/* ualg-sweep (make bench): every hash and skcipher the core registers,
 * streamed as a program streams it, beside one CPU-bound process, against
 * the same driver called directly in this process in the same run.
 *
 * A hash gets 16 writes of 256 bytes with MSG_MORE and a final empty write,
 * then one read (4 KiB per digest); a skcipher one sendmsg() of 4 KiB (the
 * operation and an IV as control messages) and one read.  The direct side
 * makes the same calls on the core's driver of the name (ualg_hash_*,
 * ualg_skcipher_crypt): the driver algd and the in-process engine pick by
 * default.  Both run while a forked process spins on the other core, so
 * that the ratio shows what a busy host takes from AF_ALG beyond what it
 * takes from the program.  Run under ualg-run; $UALG_ENGINE picks the
 * engine.  A name whose key this sweep cannot guess, or that cannot be
 * bound, is listed with why. */
#include "bench_hog.h"
#include "bench_cmsg.h"
#include "crypto.h"
#include "kabi.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 256
#define CALL 4096
#define TARGET 0.50

static uint8_t in[CALL], out[CALL], key[64];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The key lengths tried, the first the transform takes. */
static const size_t keylens[] = { 0, 16, 32, 24, 8, 64, 48, 12, 20 };

struct subject {
	const struct ualg_alg *alg;
	struct ualg_tfm *tfm;
	size_t keylen;
	unsigned ivsize;
	int tfd, fd;
};

static bool keyed(struct subject *s)
{
	for (size_t i = 0; i < sizeof(keylens) / sizeof(keylens[0]); i++) {
		s->keylen = keylens[i];
		if (!s->keylen) {
			if (s->alg->type == UALG_ALG_SHASH && (!s->alg->u.shash.setkey || s->alg->u.shash.optional_key))
				return true;
			continue;
		}
		if (!ualg_tfm_setkey(s->tfm, key, s->keylen))
			return true;
	}
	return false;
}

static int direct_one(struct subject *s)
{
	if (s->alg->type == UALG_ALG_SHASH) {
		struct ualg_hash_desc d = { 0 };
		int r = ualg_hash_init(&d, s->tfm);
		for (size_t off = 0; !r && off < CALL; off += CHUNK)
			r = ualg_hash_update(&d, in + off, CHUNK);
		if (!r)
			r = ualg_hash_final(&d, out);
		ualg_hash_exit(&d);
		return r;
	}
	uint8_t iv[64] = { 0 };
	return ualg_skcipher_crypt(s->tfm, true, iv, in, out, CALL);
}

static int afalg_open(struct subject *s)
{
	struct sockaddr_alg sa = { .salg_family = KABI_AF_ALG };
	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s",
		 s->alg->type == UALG_ALG_SHASH ? "hash" : "skcipher");
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%.63s", s->alg->name);
	s->tfd = socket(KABI_AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s->tfd < 0 || bind(s->tfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (s->keylen && setsockopt(s->tfd, KABI_SOL_ALG, ALG_SET_KEY, key, (socklen_t)s->keylen)))
		return -errno;
	s->fd = accept(s->tfd, NULL, NULL);
	return s->fd < 0 ? -errno : 0;
}

static int afalg_one(struct subject *s)
{
	if (s->alg->type == UALG_ALG_SHASH) {
		for (size_t off = 0; off < CALL; off += CHUNK)
			if (send(s->fd, in + off, CHUNK, MSG_MORE) != CHUNK)
				return -errno;
		if (send(s->fd, in, 0, 0) < 0)
			return -errno;
		return read(s->fd, out, sizeof(out)) < 0 ? -errno : 0;
	}
	union bench_cmsg c;
	struct iovec v = { in, CALL };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1 };
	bench_cmsg_fill(&m, &c, NULL, s->ivsize, false);
	if (sendmsg(s->fd, &m, 0) != CALL)
		return -errno;
	return read(s->fd, out, CALL) == CALL ? 0 : -EIO;
}

/* Bytes per second over about seconds. */
static double rate(struct subject *s, int (*one)(struct subject *), double seconds)
{
	unsigned long n = 0;
	const double t0 = now();
	double t;
	do {
		for (int i = 0; i < 4; i++, n++)
			if (one(s))
				return -1;
		t = now() - t0;
	} while (t < seconds);
	return (double)n * CALL / t;
}

static bool listed(const char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	const double seconds = argc > 1 ? atof(argv[1]) : 0.2;
	const char *engine = getenv("UALG_ENGINE");
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(0x40 + i);
	/* The spinner, forked before any AF_ALG socket exists. */
	const pid_t hog = bench_hog_fork(0);
	if (hog < 0 || ualg_core_init()) {
		fprintf(stderr, "ualg-sweep: cannot start\n");
		return 1;
	}
	printf("Every hash and skcipher streamed beside one CPU-bound process, engine %s:\n"
	       "(hash: 16 x 256 B MSG_MORE writes and a read; skcipher: 4 KiB sendmsg and read)\n",
	       engine && *engine ? engine : "auto");
	printf("%-28s %10s %10s %7s %7s %s\n", "name", "direct MB/s", "af_alg MB/s", "ratio", "target",
	       "driver");
	const char *seen[1024];
	size_t nseen = 0;
	unsigned below = 0, total = 0;
	for (const struct ualg_alg *a = ualg_alg_next(NULL); a && nseen < 1024; a = ualg_alg_next(a)) {
		if ((a->type != UALG_ALG_SHASH && a->type != UALG_ALG_SKCIPHER) || listed(seen, nseen, a->name))
			continue;
		seen[nseen++] = a->name;
		int err = 0;
		struct ualg_alg *alg = ualg_alg_lookup(a->type, a->name, &err);
		struct subject s = { .alg = alg, .tfd = -1, .fd = -1 };
		s.tfm = alg ? ualg_tfm_new(alg, &err) : NULL;
		const char *why = !s.tfm ? "no transform" : !keyed(&s) ? "no key length fits" : NULL;
		if (!why && alg->type == UALG_ALG_SKCIPHER) {
			s.ivsize = alg->u.skcipher.ivsize;
			if (CALL % (alg->u.skcipher.chunksize ? alg->u.skcipher.chunksize : 1) ||
			    s.ivsize > BENCH_IV_MAX)
				why = "4 KiB is no whole request";
		}
		double direct = 0, via = 0;
		if (!why && direct_one(&s))
			why = "the driver refuses 4 KiB";
		if (!why && (err = afalg_open(&s)))
			why = strerror(-err);
		if (!why && afalg_one(&s))
			why = "the socket refuses 4 KiB";
		if (!why) {
			direct = rate(&s, direct_one, seconds);
			via = rate(&s, afalg_one, seconds);
			total++;
			below += via < TARGET * direct;
		}
		printf("%-28s %10.1f %10.1f %6.1f%% %6.0f%% %s%s%s\n", a->name, direct / 1e6, via / 1e6,
		       direct > 0 ? 100 * via / direct : 0, 100 * TARGET, alg ? alg->driver : "-",
		       why ? ": " : "", why ? why : "");
		if (s.fd >= 0)
			close(s.fd);
		if (s.tfd >= 0)
			close(s.tfd);
		ualg_tfm_free(s.tfm);
		ualg_alg_put(alg);
	}
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	printf("%u of %u below the target\n\n", below, total);
	ualg_core_exit();
	return 0;
}
