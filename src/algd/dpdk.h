/* DPDK cryptodev devices as algd drivers (built with -Ddpdk, when libdpdk
 * is found).
 *
 * algd.conf's "dpdk-eal ARGS" starts DPDK's environment abstraction layer
 * with ARGS (e.g. "--no-huge --no-pci --vdev crypto_openssl"), before the
 * sandbox and before privileges are dropped; "dpdk-device NAME [PRIORITY]"
 * lines pick devices (none: every cryptodev EAL found).  Each device's
 * capabilities are registered under the kernel's names with driver names
 * that say the device ("cbc-aes-dpdk-crypto_openssl"), and self-tested at
 * registration like every driver.  See docs/dpdk.md. */
#ifndef UALG_ALGD_DPDK_H
#define UALG_ALGD_DPDK_H

#include "config.h"

#include <stdbool.h>

/* Whether this algd was built with DPDK. */
bool algd_dpdk_built(void);

/* Starts EAL with cfg's arguments and registers the chosen devices'
 * drivers; nothing when cfg names no EAL arguments.  Call on the
 * registry's thread, after ualg_core_init() and before the sandbox.
 * When EAL does not start, or DPDK is not built in, it logs why and algd
 * goes on without the devices. */
void algd_dpdk_start(const struct algd_config *cfg);

#endif
