/* libualg-cryptodev.so: the session layer as a module the LD_PRELOAD shim
 * loads (RTLD_LOCAL) on a program's first open of /dev/crypto, so that
 * programs that never open it never load the core or OpenSSL through ualg.
 * Its one exported symbol is this table (module.map). */
#include "cryptodev.h"

__attribute__((visibility("default"))) const struct ualg_cryptodev_ops ualg_cryptodev_ops = {
	.version = UALG_CRYPTODEV_OPS_VERSION,
	.init = cdev_init,
	.open = cdev_open,
	.get = cdev_get,
	.put = cdev_put,
	.ioctl = cdev_ioctl,
};
