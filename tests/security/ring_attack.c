/* Hostile and measuring ring clients for tests/security/limits.py, one
 * mode per run, against the algd at argv[2]:
 *
 *   cqfull    fills a ring's completion queue and queues more requests
 *             behind it without reaping; prints "ready", waits for stdin
 *   scratch   one 16 MiB AES-GCM decryption (bad tag: EBADMSG expected)
 *             on a 32 MiB ring; prints its result, waits for stdin
 *   tfms N    opens up to N keyed hmac(sha256) transforms, on as many
 *             rings as that takes; prints how many opened and the first
 *             errno; waits for stdin
 *   rings N   sets up to N rings (one connection each); prints how many
 *             and the first errno; waits for stdin
 *   lock      submits 32 in-place 8 MiB cbc(aes) encryptions, then times
 *             a setkey on another transform of the same ring (the event
 *             loop needs the ring's lock for it); prints its errno, its
 *             milliseconds and the requests' average
 *   huge M S  for S seconds and two requests at least: one in-place M MiB
 *             cbc(aes) encryption at a time, and during each a setkey on
 *             another transform of the ring; prints "ready" once set up,
 *             then how many requests, setkey's first errno and the slowest
 *             request in milliseconds; then exits while one more runs
 *
 * Prints "result ..." lines; exits 0 unless a step that must work failed. */
#include "ualg.h"
#include "ualg_abi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *sock;

static void wait_stdin(void)
{
	char b[16];
	fflush(stdout);
	while (read(0, b, sizeof(b)) > 0)
		;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cqfull(void)
{
	struct ualg_ring r;
	struct ualg_cqe *cqes[4];
	if (ualg_ring_init_at(&r, 4, 4096, sock))
		return 1;
	for (int i = 0; i < 4; i++)
		ualg_prep_nop(ualg_get_sqe(&r));
	ualg_submit(&r);
	/* All four complete: the CQ is full (nothing reaped). */
	for (int tries = 0; ualg_peek_batch_cqe(&r, cqes, 4) < 4; tries++) {
		if (tries > 10000)
			return 1;
		usleep(1000);
	}
	for (int i = 0; i < 4; i++)
		ualg_prep_nop(ualg_get_sqe(&r));
	ualg_submit(&r);
	printf("ready\n");
	wait_stdin();
	ualg_ring_exit(&r);
	return 0;
}

static int scratch(void)
{
	struct ualg_ring r;
	const size_t len = 16u << 20;
	uint8_t key[16] = { 1 }, iv[12] = { 2 };
	if (ualg_ring_init_at(&r, 4, 32u << 20, sock))
		return 1;
	int t = ualg_ring_open_tfm(&r, "aead", "gcm(aes)", NULL);
	if (t < 0 || ualg_ring_setkey(&r, t, key, sizeof(key)))
		return 1;
	uint8_t *buf = ualg_ring_buf(&r);
	memset(buf, 0x5a, len);
	memcpy(buf + len + 4096, iv, sizeof(iv));
	struct ualg_cqe *cqe;
	ualg_prep_aead_decrypt(&r, ualg_get_sqe(&r), t, buf, 0, len, buf, buf + len + 4096);
	ualg_submit_and_wait(&r, 1);
	if (ualg_wait_cqe(&r, &cqe))
		return 1;
	printf("result %d\n", cqe->res);
	ualg_cqe_seen(&r, cqe);
	wait_stdin();
	ualg_ring_exit(&r);
	return 0;
}

static int tfms(int n)
{
	struct ualg_ring r[64];
	uint8_t key[32] = { 3 };
	int opened = 0, err = 0, nr = 0;
	while (opened < n && !err && nr < 64) {
		if ((err = ualg_ring_init_at(&r[nr], 4, 4096, sock)))
			break;
		nr++;
		/* Until the ring's own limit (EMFILE at UALG_RING_MAX_TFMS)
		 * or algd's; then another ring. */
		for (int k = 0; opened < n; k++, opened++) {
			int t = ualg_ring_open_tfm(&r[nr - 1], "hash", "hmac(sha256)", NULL);
			if (t < 0 && k == UALG_RING_MAX_TFMS)
				break;
			if (t >= 0 && (err = ualg_ring_setkey(&r[nr - 1], t, key, sizeof(key))))
				ualg_ring_close_tfm(&r[nr - 1], t);
			if (t < 0)
				err = t;
			if (err)
				break;
		}
	}
	printf("result %d %d\n", opened, -err);
	wait_stdin();
	for (int i = 0; i < nr; i++)
		ualg_ring_exit(&r[i]);
	return 0;
}

static int rings(int n)
{
	struct ualg_ring *r = calloc((size_t)n, sizeof(*r));
	int made = 0, err = 0;
	for (; made < n; made++)
		if ((err = ualg_ring_init_at(&r[made], 1, 4096, sock)))
			break;
	printf("result %d %d\n", made, -err);
	wait_stdin();
	for (int i = 0; i < made; i++)
		ualg_ring_exit(&r[i]);
	free(r);
	return 0;
}

static int lock(void)
{
	struct ualg_ring r;
	const size_t len = 8u << 20;
	uint8_t key[16] = { 4 }, iv[16] = { 5 };
	struct ualg_cqe *cqe;
	if (ualg_ring_init_at(&r, 32, len + 4096, sock))
		return 1;
	int t = ualg_ring_open_tfm(&r, "skcipher", "cbc(aes)", NULL);
	int u = ualg_ring_open_tfm(&r, "skcipher", "cbc(aes)", NULL);
	if (t < 0 || u < 0 || ualg_ring_setkey(&r, t, key, 16))
		return 1;
	uint8_t *buf = ualg_ring_buf(&r);
	memcpy(buf + len, iv, sizeof(iv));
	for (int i = 0; i < 32; i++)
		ualg_prep_encrypt(&r, ualg_get_sqe(&r), t, buf, buf, len, buf + len);
	const double start = now_ms();
	ualg_submit(&r);
	usleep(20000);	/* the worker has started the batch */
	const double t0 = now_ms();
	int e = ualg_ring_setkey(&r, u, key, 16);
	const double ms = now_ms() - t0;
	for (int i = 0; i < 32; i++) {
		if (ualg_wait_cqe(&r, &cqe))
			return 1;
		ualg_cqe_seen(&r, cqe);
	}
	/* setkey's wait, and one request's time on average */
	printf("result %d %.1f %.1f\n", e, ms, (now_ms() - start) / 32);
	ualg_ring_exit(&r);
	return 0;
}

static int huge(size_t mib, double secs)
{
	struct ualg_ring r;
	const size_t len = mib << 20;
	uint8_t key[16] = { 4 }, iv[16] = { 5 };
	struct ualg_cqe *cqe;
	if (ualg_ring_init_at(&r, 2, len + 4096, sock))
		return 1;
	int t = ualg_ring_open_tfm(&r, "skcipher", "cbc(aes)", NULL);
	int u = ualg_ring_open_tfm(&r, "skcipher", "cbc(aes)", NULL);
	if (t < 0 || u < 0 || ualg_ring_setkey(&r, t, key, 16))
		return 1;
	uint8_t *buf = ualg_ring_buf(&r);
	memcpy(buf + len, iv, sizeof(iv));
	printf("ready\n");
	int n = 0, err = 0;
	double worst = 0;
	for (const double end = now_ms() + secs * 1000; now_ms() < end || n < 2; n++) {
		const double t0 = now_ms();
		ualg_prep_encrypt(&r, ualg_get_sqe(&r), t, buf, buf, len, buf + len);
		ualg_submit(&r);
		usleep(5000);	/* the worker has started it */
		int e = ualg_ring_setkey(&r, u, key, 16);
		if (e && !err)
			err = e;
		if (ualg_wait_cqe(&r, &cqe))
			return 1;
		ualg_cqe_seen(&r, cqe);
		if (now_ms() - t0 > worst)
			worst = now_ms() - t0;
	}
	printf("result %d %d %.1f\n", n, err, worst);
	/* and gone with one running: algd releases the ring */
	ualg_prep_encrypt(&r, ualg_get_sqe(&r), t, buf, buf, len, buf + len);
	ualg_submit(&r);
	usleep(5000);
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	sock = argv[2];
	const char *m = argv[1];
	const int n = argc > 3 ? atoi(argv[3]) : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return !strcmp(m, "cqfull") ? cqfull() : !strcmp(m, "scratch") ? scratch()
	     : !strcmp(m, "tfms") ? tfms(n) : !strcmp(m, "rings") ? rings(n)
	     : !strcmp(m, "lock") ? lock()
	     : !strcmp(m, "huge") && argc > 4 ? huge((size_t)n, atof(argv[4])) : 2;
}
