/* ualg-bench's paths (bench_paths.c): one way each of running an
 * operation (in-process OpenSSL, libualg, AF_ALG through the shim,
 * /dev/crypto), set up for one algorithm and size; and what the
 * measurement and the report (ualg-bench.c, bench_report.c) share. */
#ifndef UALG_BENCH_PATHS_H
#define UALG_BENCH_PATHS_H

#include "ualg.h"

#include <openssl/evp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct alg_spec {
	const char *name, *type;	/* kernel name, AF_ALG type */
	const char *evp;		/* OpenSSL name of the same thing */
	size_t keylen, ivlen, outlen;	/* outlen: digest size, 0 for ciphers */
	bool mac;
	size_t tag;			/* AEAD: tag length (no associated data) */
};

/* One way of running an operation, set up for one algorithm and size.
 * run() does one call and returns how many operations it completed (or
 * -errno): one, or a batch. */
struct runner {
	const char *path;
	const struct alg_spec *alg;
	size_t len;
	unsigned per_call;
	unsigned group, inflight;	/* native-batch: which half of the slots is next */
	bool decrypt;		/* native: AEAD decryptions, the slots holding ciphertexts */
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
	struct dpdk_runner *dpdk;	/* dpdk-direct, dpdk-burst (bench_dpdk.c) */
	int cfd;		/* devcrypto */
	uint32_t ses;
};

enum path { P_INPROC, P_NATIVE_SYNC, P_NATIVE_BATCH, P_SHIM_WRITE, P_SHIM_SPLICE, P_DEVCRYPTO, P_COUNT };
extern const char *const path_names[P_COUNT];

/* --driver: the name algd binds instead of the generic one (one --alg). */
extern const char *bind_driver;
/* --decrypt: AEADs are measured decrypting (in-process and the native
 * paths; the others say n/a); their rows are labelled so (alg_label). */
extern bool aead_decrypt;
const char *alg_label(const struct alg_spec *a);

/* Bytes of output of one operation of r. */
size_t out_len(const struct runner *r);
/* Sets r up for path p (r->alg and r->len set): 0, or -errno. */
int path_setup(struct runner *r, enum path p);
/* In-process OpenSSL, the reference: setup, one operation, teardown. */
int inproc_setup(struct runner *r);
int inproc_run(struct runner *r);
void inproc_done(struct runner *r);
/* --dpdk: device driven directly with DPDK's API (bench_dpdk.h), same
 * key, IV and input as the other paths: one operation per run, or
 * (burst) a burst of them. */
int dpdk_path_setup(struct runner *r, const char *device, bool burst);
/* AF_ALG through the shim (splice or write), and its teardown. */
int shim_setup(struct runner *r, bool use_splice);
void shim_done(struct runner *r);

/* ---- the report (bench_report.c) -------------------------------------- */

/* One path's numbers for one algorithm and size. */
struct result {
	int err;		/* 0, or why the path could not run */
	bool mismatch;		/* first output differs from inproc's */
	double mbps, ops, p50_us, p99_us, ratio;
};

struct memory {
	long idle_kib, with_sockets_kib;
	int sockets;
};

/* algd's RSS now, and with n more op sockets open on one transform
 * socket of alg (each having hashed a little, so its state exists). */
void measure_memory(const struct alg_spec *alg, int n, struct memory *m);
/* "64 B", "64 KiB", "1 MiB". */
void size_name(size_t len, char *buf, size_t n);
void print_named_row(const struct alg_spec *a, size_t len, const char *path, const struct result *res);
void print_row(const struct alg_spec *a, size_t len, enum path p, const struct result *res);
void print_json_row(FILE *f, bool first, const struct alg_spec *a, size_t len, enum path p,
		    const struct result *res);
/* The chart, a PNG file drawn by gnuplot (its png terminal: Debian's
 * gnuplot-nox): throughput per path, one panel per size.  0, or -1 with a
 * message when there is no gnuplot or it failed. */
int plot(const char *png, const struct result *res, size_t nalgs, const struct alg_spec *const *algs,
	 size_t nsizes, const size_t *sizes);

#endif
