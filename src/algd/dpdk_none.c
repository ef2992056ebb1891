/* algd built without DPDK (dpdk.h): a configuration that asks for it is
 * logged and algd runs without devices. */
#include "dpdk.h"
#include "log.h"

bool algd_dpdk_built(void)
{
	return false;
}

void algd_dpdk_start(const struct algd_config *cfg)
{
	if (cfg->dpdk_eal[0])
		algd_log(LOG_ERR, "dpdk-eal: this algd was built without DPDK (meson setup -Ddpdk=enabled); "
			 "starting without DPDK's devices");
}
