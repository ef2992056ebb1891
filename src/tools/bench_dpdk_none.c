/* ualg-bench built without DPDK (bench_dpdk.h): no direct runners. */
#include "bench_dpdk.h"

#include <errno.h>

int dpdk_direct_setup(struct runner *r, const char *device, const uint8_t *key, const uint8_t *iv)
{
	(void)r;
	(void)device;
	(void)key;
	(void)iv;
	return -ENOTSUP;
}

int dpdk_burst_setup(struct runner *r, const char *device, const uint8_t *key, const uint8_t *iv)
{
	return dpdk_direct_setup(r, device, key, iv);
}
