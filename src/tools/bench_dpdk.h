/* ualg-bench --dpdk: a DPDK cryptodev device driven directly with DPDK's
 * API in this process (bench_dpdk.c; bench_dpdk_none.c when ualg is built
 * without DPDK), to compare with the same device through AF_ALG and algd. */
#ifndef UALG_BENCH_DPDK_H
#define UALG_BENCH_DPDK_H

#include "bench_paths.h"

/* Sets r up (r->alg, r->len, r->in and r->out set) to encrypt r->in with
 * key and iv on device (a --vdev name: "crypto_openssl") through DPDK's
 * API, starting EAL in this process the first time: 0, or -errno
 * (-ENOTSUP: not a cipher this runner knows, or no DPDK built in). */
int dpdk_direct_setup(struct runner *r, const char *device, const uint8_t *key, const uint8_t *iv);

#endif
