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
 * and prints throughput, ops/s, p50/p99 latency and the ratio to inproc,
 * as a table or JSON.  It needs the shim: started without it, it runs
 * itself again under ualg-run (found beside it), which also provides an
 * algd.  The first output of every path is compared with inproc's, so a
 * fast wrong answer shows as MISMATCH.  A benchmark, not a test: numbers
 * depend on the machine and its load. */
#include "bench_engine.h"
#include "proto.h"
#include "ualg.h"
#include "ualg_cryptodev.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/if_alg.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define CHUNK (64u * 1024u)	/* AF_ALG writes and splices, like libkcapi's */
#define LAT_SAMPLES 400

struct alg_spec {
	const char *name, *type;	/* kernel name, AF_ALG type */
	const char *evp;		/* OpenSSL name of the same thing */
	size_t keylen, ivlen, outlen;	/* outlen: digest size, 0 for ciphers */
	bool mac;
	size_t tag;			/* AEAD: tag length (no associated data) */
};

static const struct alg_spec all_algs[] = {
	{ "sha256", "hash", "SHA256", 0, 0, 32, false, 0 },
	{ "hmac(sha256)", "hash", "SHA256", 32, 0, 32, true, 0 },
	{ "cbc(aes)", "skcipher", "AES-128-CBC", 16, 16, 0, false, 0 },
	{ "ctr(aes)", "skcipher", "AES-128-CTR", 16, 16, 0, false, 0 },
	{ "xts(aes)", "skcipher", "AES-128-XTS", 32, 16, 0, false, 0 },
	{ "gcm(aes)", "aead", "AES-128-GCM", 16, 12, 0, false, 16 },
	{ "rfc7539(chacha20,poly1305)", "aead", "ChaCha20-Poly1305", 32, 12, 0, false, 16 },
};

/* --driver: the name algd binds instead of the generic one (one --alg). */
static const char *bind_driver;

static const char *bind_name(const struct alg_spec *a)
{
	return bind_driver ? bind_driver : a->name;
}

static const size_t all_sizes[] = { 64, 1024, 16384, 65536, 1u << 20 };

/* One way of running an operation, set up for one algorithm and size.
 * run() does one call and returns how many operations it completed (or
 * -errno): one, or a batch. */
struct runner {
	const char *path;
	const struct alg_spec *alg;
	size_t len;
	unsigned per_call;
	unsigned group, inflight;	/* native-batch: which half of the slots is next */
	uint8_t *in, *out;	/* the first operation's input and output */
	int (*run)(struct runner *r);
	void (*done)(struct runner *r);
	/* per path */
	EVP_MD_CTX *md;
	EVP_MAC_CTX *mac;
	EVP_CIPHER_CTX *cipher;
	struct ualg_ring ring;
	int tfm;
	int tfmfd, opfd, pipefd[2];
	uint8_t *iv;
	int cfd;		/* devcrypto */
	uint32_t ses;
};

static const uint8_t bench_key[64] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
};
static const uint8_t bench_iv[16] = { 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7 };

static void fill_pattern(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + 7);
}

static size_t out_len(const struct runner *r)
{
	return r->alg->outlen ? r->alg->outlen : r->len + r->alg->tag;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- inproc: OpenSSL, contexts reused as a careful program would ------ */

static int inproc_run(struct runner *r)
{
	int outl;
	size_t macl;

	if (r->md)
		return EVP_DigestInit_ex(r->md, NULL, NULL) && EVP_DigestUpdate(r->md, r->in, r->len) &&
		       EVP_DigestFinal_ex(r->md, r->out, NULL) ? 1 : -EIO;
	if (r->mac)
		return EVP_MAC_init(r->mac, NULL, 0, NULL) && EVP_MAC_update(r->mac, r->in, r->len) &&
		       EVP_MAC_final(r->mac, r->out, &macl, 64) ? 1 : -EIO;
	if (!EVP_CipherInit_ex2(r->cipher, NULL, NULL, bench_iv, 1, NULL) ||
	    !EVP_CipherUpdate(r->cipher, r->out, &outl, r->in, (int)r->len))
		return -EIO;
	if (r->alg->tag && (!EVP_CipherFinal_ex(r->cipher, r->out + r->len, &outl) ||
			    !EVP_CIPHER_CTX_ctrl(r->cipher, EVP_CTRL_AEAD_GET_TAG, (int)r->alg->tag, r->out + r->len)))
		return -EIO;
	return 1;
}

static void inproc_done(struct runner *r)
{
	EVP_MD_CTX_free(r->md);
	EVP_MAC_CTX_free(r->mac);
	EVP_CIPHER_CTX_free(r->cipher);
	free(r->in);
	free(r->out);
}

static int inproc_setup(struct runner *r)
{
	const struct alg_spec *a = r->alg;
	r->in = malloc(r->len);
	r->out = malloc(out_len(r));
	if (!r->in || !r->out)
		return -ENOMEM;
	fill_pattern(r->in, r->len);
	r->run = inproc_run;
	r->done = inproc_done;
	if (a->mac) {
		EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
		OSSL_PARAM p[] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)a->evp, 0),
				   OSSL_PARAM_construct_end() };
		r->mac = mac ? EVP_MAC_CTX_new(mac) : NULL;
		EVP_MAC_free(mac);
		return r->mac && EVP_MAC_init(r->mac, bench_key, a->keylen, p) ? 0 : -EIO;
	}
	if (a->outlen) {
		r->md = EVP_MD_CTX_new();
		return r->md && EVP_DigestInit_ex(r->md, EVP_get_digestbyname(a->evp), NULL) ? 0 : -EIO;
	}
	EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, a->evp, NULL);
	r->cipher = EVP_CIPHER_CTX_new();
	int ok = c && r->cipher && EVP_CipherInit_ex2(r->cipher, c, bench_key, bench_iv, 1, NULL);
	EVP_CIPHER_free(c);
	if (ok)
		EVP_CIPHER_CTX_set_padding(r->cipher, 0);
	return ok ? 0 : -EIO;
}

/* ---- native: libualg ------------------------------------------------- */

/* Request i's slots in the registered buffers: IV, input, output. */
static uint8_t *slot(struct runner *r, unsigned i)
{
	return (uint8_t *)ualg_ring_buf(&r->ring) + (size_t)i * (16 + r->len + 64);
}

static void native_prep(struct runner *r, unsigned i)
{
	struct ualg_sqe *sqe = ualg_get_sqe(&r->ring);
	uint8_t *iv = slot(r, i), *data = iv + 16;

	if (r->alg->outlen)
		ualg_prep_hash(&r->ring, sqe, r->tfm, data, r->len, data + r->len);
	else if (r->alg->tag)
		ualg_prep_aead_encrypt(&r->ring, sqe, r->tfm, data, 0, r->len, data, iv);
	else
		ualg_prep_encrypt(&r->ring, sqe, r->tfm, data, data, r->len, iv);
	ualg_sqe_set_data64(sqe, i);
}

static int native_run(struct runner *r)
{
	struct ualg_cqe *cqes[64];

	for (unsigned i = 0; i < r->per_call; i++)
		native_prep(r, i);
	int n = ualg_submit_and_wait(&r->ring, r->per_call);
	if (n < 0)
		return n;
	unsigned got = ualg_peek_batch_cqe(&r->ring, cqes, 64);
	int err = 0;
	for (unsigned i = 0; i < got; i++)
		if (cqes[i]->res < 0)
			err = cqes[i]->res;
	ualg_cq_advance(&r->ring, got);
	return got != r->per_call ? -EIO : err ? err : (int)got;
}

/* Reaps up to n completions; returns how many, or the first error. */
static int native_reap(struct runner *r, unsigned n)
{
	struct ualg_cqe *cqes[64];
	unsigned got = ualg_peek_batch_cqe(&r->ring, cqes, n < 64 ? n : 64);
	int err = 0;

	for (unsigned i = 0; i < got; i++)
		if (cqes[i]->res < 0)
			err = cqes[i]->res;
	ualg_cq_advance(&r->ring, got);
	return err ? err : (int)got;
}

/* Batched and pipelined: the slots are two halves; one is in flight in
 * algd while the other is prepared and submitted, as a streaming
 * application would keep its ring busy. */
static int native_batch_run(struct runner *r)
{
	const unsigned half = r->per_call;

	for (unsigned i = 0; i < half; i++)
		native_prep(r, r->group * half + i);
	r->group ^= 1;
	r->inflight += half;
	int n = ualg_submit_and_wait(&r->ring, r->inflight - half);
	if (n < 0)
		return n;
	int got = native_reap(r, r->inflight - half);
	if (got > 0)
		r->inflight -= (unsigned)got;
	return got;
}

static void native_done(struct runner *r)
{
	free(r->out);
	ualg_ring_exit(&r->ring);
}

static int native_setup(struct runner *r, unsigned depth)
{
	const size_t per = 16 + r->len + 64;
	int err = ualg_ring_init(&r->ring, 128, per * depth);
	if (err)
		return err;
	r->per_call = depth;
	r->run = native_run;
	r->done = native_done;
	r->tfm = ualg_ring_open_tfm(&r->ring, r->alg->type, bind_name(r->alg), NULL);
	if (r->tfm < 0)
		return r->tfm;
	if (r->alg->keylen && (err = ualg_ring_setkey(&r->ring, r->tfm, bench_key, r->alg->keylen)))
		return err;
	for (unsigned i = 0; i < depth; i++) {
		memcpy(slot(r, i), bench_iv, 16);
		fill_pattern(slot(r, i) + 16, r->len);
	}
	/* Ciphers run in place: keep the first input to compare against. */
	r->in = slot(r, 0) + 16;
	r->out = malloc(out_len(r));
	if (!r->out)
		return -ENOMEM;
	err = native_run(r);
	memcpy(r->out, r->alg->outlen ? r->in + r->len : r->in, out_len(r));
	if (depth > 1) {
		r->per_call = depth / 2;
		r->run = native_batch_run;
	}
	return err < 0 ? err : 0;
}

/* ---- shim: AF_ALG through libualg-preload ---------------------------- */

static int alg_open(struct runner *r)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };

	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", r->alg->type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", bind_name(r->alg));
	r->tfmfd = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (r->tfmfd < 0 || bind(r->tfmfd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	if (r->alg->keylen && setsockopt(r->tfmfd, SOL_ALG, ALG_SET_KEY, bench_key, (socklen_t)r->alg->keylen))
		return -errno;
	r->opfd = accept(r->tfmfd, NULL, NULL);
	return r->opfd < 0 ? -errno : 0;
}

/* ALG_SET_OP and ALG_SET_IV (and for AEAD ALG_SET_AEAD_ASSOCLEN 0), with
 * no data: what starts a cipher request. */
static int cipher_start(struct runner *r)
{
	union {
		char buf[2 * CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct af_alg_iv) + 16)];
		struct cmsghdr align;
	} ctl;
	const size_t ivlen = r->alg->ivlen;
	struct msghdr m = { .msg_control = ctl.buf,
			    .msg_controllen = CMSG_SPACE(sizeof(int)) * (r->alg->tag ? 2 : 1) +
					      CMSG_SPACE(sizeof(struct af_alg_iv) + ivlen) };

	memset(&ctl, 0, sizeof(ctl));
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	*(int *)CMSG_DATA(c) = ALG_OP_ENCRYPT;
	c = CMSG_NXTHDR(&m, c);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_IV;
	c->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + ivlen);
	struct af_alg_iv *iv = (struct af_alg_iv *)CMSG_DATA(c);
	iv->ivlen = (uint32_t)ivlen;
	memcpy(iv->iv, bench_iv, ivlen);
	if (r->alg->tag) {
		c = CMSG_NXTHDR(&m, c);
		c->cmsg_level = SOL_ALG;
		c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		*(int *)CMSG_DATA(c) = 0;
	}
	return sendmsg(r->opfd, &m, MSG_MORE) < 0 ? -errno : 0;
}

/* Moves one chunk into the op socket: by send, or by vmsplice + splice. */
static int feed(struct runner *r, const uint8_t *p, size_t n, bool more)
{
	if (r->pipefd[0] < 0)
		return send(r->opfd, p, n, more ? MSG_MORE : 0) == (ssize_t)n ? 0 : -EIO;
	while (n) {
		struct iovec iov = { (void *)p, n };
		ssize_t k = vmsplice(r->pipefd[1], &iov, 1, 0);
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		const bool last = (size_t)k == n;
		if (splice(r->pipefd[0], NULL, r->opfd, NULL, (size_t)k,
			   more || !last ? SPLICE_F_MORE : 0) != k)
			return -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int read_all(int fd, uint8_t *p, size_t n)
{
	while (n) {
		ssize_t got = read(fd, p, n);
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

/* An AEAD request is whole: the text, then ciphertext and tag back. */
static int shim_aead_run(struct runner *r)
{
	int err = cipher_start(r);

	for (size_t at = 0; !err && at < r->len; at += CHUNK) {
		const size_t n = r->len - at < CHUNK ? r->len - at : CHUNK;
		err = feed(r, r->in + at, n, at + n < r->len);
	}
	if (!err)
		err = read_all(r->opfd, r->out, r->len + r->alg->tag);
	return err ? err : 1;
}

/* A hash takes the whole message, then gives the digest; a cipher is fed
 * and drained chunk by chunk, as the kernel's send buffer requires. */
static int shim_run(struct runner *r)
{
	if (r->alg->tag)
		return shim_aead_run(r);
	int err = r->alg->outlen ? 0 : cipher_start(r);

	for (size_t at = 0; !err && at < r->len; at += CHUNK) {
		const size_t n = r->len - at < CHUNK ? r->len - at : CHUNK;
		const bool more = at + n < r->len;
		err = feed(r, r->in + at, n, more);
		if (!err && !r->alg->outlen)
			err = read_all(r->opfd, r->out + at, n);
	}
	if (!err && r->alg->outlen)
		err = read_all(r->opfd, r->out, r->alg->outlen);
	return err ? err : 1;
}

static void shim_done(struct runner *r)
{
	for (int *fd = &r->tfmfd; fd <= &r->opfd; fd++)
		if (*fd >= 0)
			close(*fd);
	for (int i = 0; i < 2; i++)
		if (r->pipefd[i] >= 0)
			close(r->pipefd[i]);
	free(r->in);
	free(r->out);
}

static int shim_setup(struct runner *r, bool use_splice)
{
	r->tfmfd = r->opfd = r->pipefd[0] = r->pipefd[1] = -1;
	r->run = shim_run;
	r->done = shim_done;
	/* The kernel holds a whole AEAD request in the socket's send buffer
	 * (about 200 KiB), so larger ones cannot be sent at all. */
	if (r->alg->tag && r->len > CHUNK)
		return -EMSGSIZE;
	/* Page-aligned, as vmsplice users align: whole pages fit the pipe. */
	r->in = aligned_alloc(4096, (r->len + 4095) / 4096 * 4096);
	r->out = malloc(out_len(r));
	if (!r->in || !r->out)
		return -ENOMEM;
	fill_pattern(r->in, r->len);
	if (use_splice && pipe(r->pipefd))
		return -errno;
	if (use_splice)
		fcntl(r->pipefd[1], F_SETPIPE_SZ, CHUNK);
	return alg_open(r);
}

/* ---- devcrypto: /dev/crypto's ioctls ---------------------------------- */

static int devcrypto_run(struct runner *r)
{
	uint8_t iv[16];

	memcpy(iv, bench_iv, sizeof(iv));
	if (r->alg->tag) {
		struct crypt_auth_op a = { .ses = r->ses, .op = COP_ENCRYPT, .len = (uint32_t)r->len,
					   .src = r->in, .dst = r->out, .iv = iv, .tag_len = (uint32_t)r->alg->tag };
		return ioctl(r->cfd, CIOCAUTHCRYPT, &a) ? -errno : 1;
	}
	struct crypt_op c = { .ses = r->ses, .op = COP_ENCRYPT, .len = (uint32_t)r->len, .src = r->in };
	if (r->alg->outlen)
		c.mac = r->out;
	else {
		c.dst = r->out;
		c.iv = iv;
	}
	return ioctl(r->cfd, CIOCCRYPT, &c) ? -errno : 1;
}

static void devcrypto_done(struct runner *r)
{
	if (r->cfd >= 0)
		close(r->cfd);
	free(r->in);
	free(r->out);
}

static int devcrypto_setup(struct runner *r)
{
	const struct alg_spec *a = r->alg;
	struct session2_op s = { 0 };

	r->cfd = -1;
	r->run = devcrypto_run;
	r->done = devcrypto_done;
	if (r->len > UINT32_MAX - 64)
		return -EMSGSIZE;
	r->in = malloc(r->len);
	r->out = malloc(out_len(r));
	if (!r->in || !r->out)
		return -ENOMEM;
	fill_pattern(r->in, r->len);
	if ((r->cfd = open("/dev/crypto", O_RDWR | O_CLOEXEC)) < 0)
		return -errno;
	if (a->outlen) {
		snprintf(s.mac_name, sizeof(s.mac_name), "%s", bind_name(a));
		s.mackey = (uint8_t *)bench_key;
		s.mackeylen = a->mac ? (uint32_t)a->keylen : 0;
	} else {
		snprintf(s.alg_name, sizeof(s.alg_name), "%s", bind_name(a));
		s.key = (uint8_t *)bench_key;
		s.keylen = (uint32_t)a->keylen;
	}
	if (ioctl(r->cfd, CIOCGSESSION2, &s))
		return -errno;
	r->ses = s.ses;
	return 0;
}

/* ---- measurement ----------------------------------------------------- */

enum path { P_INPROC, P_NATIVE_SYNC, P_NATIVE_BATCH, P_SHIM_WRITE, P_SHIM_SPLICE, P_DEVCRYPTO, P_COUNT };
static const char *const path_names[P_COUNT] = {
	"inproc", "native-sync", "native-batch", "shim-write", "shim-splice", "devcrypto",
};

struct result {
	int err;		/* 0, or why the path could not run */
	bool mismatch;		/* first output differs from inproc's */
	double mbps, ops, p50_us, p99_us, ratio;
};

static unsigned batch_depth(size_t len)
{
	const size_t budget = 32u << 20;	/* registered buffers for one batch */
	size_t d = budget / (len + 80);
	return d > 64 ? 64 : d < 1 ? 1 : (unsigned)d;
}

static int setup(struct runner *r, enum path p)
{
	r->per_call = 1;
	switch (p) {
	case P_INPROC: return inproc_setup(r);
	case P_NATIVE_SYNC: return native_setup(r, 1);
	case P_NATIVE_BATCH: return native_setup(r, batch_depth(r->len));
	case P_SHIM_WRITE: return shim_setup(r, false);
	case P_SHIM_SPLICE: return shim_setup(r, true);
	case P_DEVCRYPTO: return devcrypto_setup(r);
	default: return -EINVAL;
	}
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
	res->err = setup(&r, p);
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

static pid_t algd_pid(void)
{
	char path[PATH_MAX];
	struct ucred cred = { 0 };
	socklen_t len = sizeof(cred);
	int fd = ualg_default_socket_path(path, sizeof(path)) ? -1 : ualg_connect(path, NULL, 0);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		cred.pid = 0;
	if (fd >= 0)
		close(fd);
	return cred.pid;
}

static long rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

struct memory {
	long idle_kib, with_sockets_kib;
	int sockets;
};

/* algd's RSS now, and with n more op sockets open on one sha256 transform
 * socket (each having hashed a little, so its state exists). */
static void measure_memory(int n, struct memory *m)
{
	struct runner r = { .alg = &all_algs[0], .len = 64 };
	pid_t pid = algd_pid();
	int *fds = calloc((size_t)n, sizeof(int));

	m->idle_kib = m->with_sockets_kib = -1;
	m->sockets = 0;
	if (!pid || !fds || shim_setup(&r, false)) {
		free(fds);
		return;
	}
	m->idle_kib = rss_kib(pid);
	for (; m->sockets < n; m->sockets++) {
		fds[m->sockets] = accept(r.tfmfd, NULL, NULL);
		if (fds[m->sockets] < 0 || send(fds[m->sockets], r.in, 64, MSG_MORE) != 64)
			break;
	}
	m->with_sockets_kib = rss_kib(pid);
	for (int i = 0; i < m->sockets; i++)
		close(fds[i]);
	if (m->sockets < n && fds[m->sockets] >= 0)
		close(fds[m->sockets]);
	free(fds);
	shim_done(&r);
}

/* ---- output ---------------------------------------------------------- */

static void size_name(size_t len, char *buf, size_t n)
{
	if (len >= (1u << 20))
		snprintf(buf, n, "%zu MiB", len >> 20);
	else if (len >= 1024)
		snprintf(buf, n, "%zu KiB", len >> 10);
	else
		snprintf(buf, n, "%zu B", len);
}

static void print_row(const struct alg_spec *a, size_t len, enum path p, const struct result *res)
{
	char sz[32];

	size_name(len, sz, sizeof(sz));
	if (res->err) {
		printf("%-26s %7s %-13s  n/a (%s)\n", a->name, sz, path_names[p], strerror(-res->err));
		return;
	}
	printf("%-26s %7s %-13s %9.1f %11.0f %9.1f %9.1f %6.0f%%%s\n", a->name, sz, path_names[p],
	       res->mbps, res->ops, res->p50_us, res->p99_us, res->ratio * 100,
	       res->mismatch ? "  MISMATCH" : "");
}

static void print_json_row(FILE *f, bool first, const struct alg_spec *a, size_t len, enum path p,
			   const struct result *res)
{
	fprintf(f, "%s\n  {\"alg\": \"%s\", \"size\": %zu, \"path\": \"%s\", ", first ? "" : ",",
		a->name, len, path_names[p]);
	if (res->err)
		fprintf(f, "\"error\": \"%s\"}", strerror(-res->err));
	else
		fprintf(f, "\"mb_per_s\": %.2f, \"ops_per_s\": %.1f, \"p50_us\": %.2f, \"p99_us\": %.2f, "
			"\"ratio\": %.4f, \"output_matches\": %s}",
			res->mbps, res->ops, res->p50_us, res->p99_us, res->ratio,
			res->mismatch ? "false" : "true");
}

/* gnuplot, when there is one: throughput per path, one panel per size. */
static void plot(const char *png, const struct result *res, size_t nalgs, const struct alg_spec *const *algs,
		 size_t nsizes, const size_t *sizes)
{
	FILE *g = popen("gnuplot 2>/dev/null", "w");
	if (!g) {
		fprintf(stderr, "ualg-bench: gnuplot not available, no plot\n");
		return;
	}
	fprintf(g, "set terminal png size 1400,%zu\nset output '%s'\nset multiplot layout %zu,1\n"
		"set style data histograms\nset style fill solid\nset ylabel 'MB/s'\nset logscale y\n",
		360 * nsizes, png, nsizes);
	for (size_t s = 0; s < nsizes; s++) {
		char sz[32];
		size_name(sizes[s], sz, sizeof(sz));
		fprintf(g, "set title '%s'\nplot", sz);
		for (int p = 0; p < P_COUNT; p++)
			fprintf(g, "%s '-' using 2:xtic(1) title '%s'", p ? "," : "", path_names[p]);
		fputc('\n', g);
		for (int p = 0; p < P_COUNT; p++) {
			for (size_t a = 0; a < nalgs; a++) {
				const struct result *x = &res[(a * nsizes + s) * P_COUNT + (size_t)p];
				fprintf(g, "'%s' %f\n", algs[a]->name, x->err ? 0.001 : x->mbps);
			}
			fputs("e\n", g);
		}
	}
	fputs("unset multiplot\n", g);
	if (pclose(g))
		fprintf(stderr, "ualg-bench: gnuplot failed, no plot\n");
}

/* ---- main ------------------------------------------------------------ */

static void usage(FILE *f)
{
	fputs("usage: ualg-bench [--json] [--png FILE] [--seconds S] [--repeat N] [--alg NAME]... [--size BYTES]...\n"
	      "                  [--no-parallel] [--no-memory] [--driver DRIVER (with one --alg)]\n"
	      "       ualg-bench --engines [--pbkdf2 ITERATIONS] [--seconds S]\n"
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

/* Every cell, inproc first so the others have a reference and a ratio. */
static void run_all(const struct options *o, struct result *res)
{
	if (!o->json)
		printf("%-26s %7s %-13s %9s %11s %9s %9s %7s\n", "algorithm", "size", "path", "MB/s", "ops/s",
		       "p50 us", "p99 us", "ratio");
	for (size_t a = 0; a < o->nalgs; a++)
		for (size_t s = 0; s < o->nsizes; s++) {
			struct result *row = &res[(a * o->nsizes + s) * P_COUNT];
			uint8_t *ref = NULL;
			struct runner ir = { .alg = o->algs[a], .len = o->sizes[s] };
			if (inproc_setup(&ir) == 0 && inproc_run(&ir) == 1) {
				ref = malloc(out_len(&ir));
				if (ref)
					memcpy(ref, ir.out, out_len(&ir));
			}
			inproc_done(&ir);
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

int main(int argc, char **argv)
{
	struct options o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_args(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	if (!shim_loaded()) {
		reexec_under_ualg_run(argv);
		return 127;
	}
	if (o.engines)
		return bench_engines(o.seconds * 10, o.pbkdf2);
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* Memory first, while algd has served nothing else. */
	struct memory mem = { -1, -1, 0 };
	if (o.memory)
		measure_memory(1000, &mem);
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
	if (o.png)
		plot(o.png, res, o.nalgs, o.algs, o.nsizes, o.sizes);
	free(res);
	return 0;
}
