/* ualg-bench --dpdk: a DPDK cryptodev device driven directly with DPDK's
 * API in this process (bench_dpdk.c; bench_dpdk_none.c when ualg is built
 * without DPDK), to compare with the same device through algd's driver
 * (AF_ALG and the native ring).  EAL and the device start once per
 * process, on the first setup; every runner has its own session and
 * mbufs, which its done() frees. */
#ifndef UALG_BENCH_DPDK_H
#define UALG_BENCH_DPDK_H

#include "bench_paths.h"

/* dpdk-burst's operations per run, as many as algd's driver puts in one. */
#define DPDK_BURST 32

/* Set r up (r->alg, r->len, r->in and r->out set; r->in's bytes
 * encrypted with key and iv) on device (a --vdev name: "crypto_openssl"),
 * starting EAL and the device in this process the first time.  0, or
 * -errno (-ENOTSUP: not a cipher these runners know, or no DPDK built in;
 * -EBUSY: another device was started first).  r->done, when set, frees
 * what setup made and r->in and r->out.
 *
 * dpdk_direct_setup: one operation per run, one DPDK operation per 32 KiB
 * mbuf of it, polled one at a time (dpdk-direct).
 * dpdk_burst_setup: DPDK_BURST operations of r->len bytes (at most
 * 32 KiB) per run, one mbuf each, enqueued as one burst (dpdk-burst). */
int dpdk_direct_setup(struct runner *r, const char *device, const uint8_t *key, const uint8_t *iv);
int dpdk_burst_setup(struct runner *r, const char *device, const uint8_t *key, const uint8_t *iv);

#endif
