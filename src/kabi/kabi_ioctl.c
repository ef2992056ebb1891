/* Which part of the kernel answers an ioctl on an AF_ALG socket, and with
 * which errno (see kabi.h). */
#include "kabi.h"

#include <errno.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>

enum kabi_ioctl_class kabi_alg_ioctl_class(uint32_t cmd)
{
	switch (cmd) {
	/* do_vfs_ioctl(): the file's own (FIOQSIZE, FIGETBSZ and the
	 * filesystem ones answer a socket as any socket). */
	case FIOCLEX: case FIONCLEX: case FIONBIO: case FIOASYNC: case FIOQSIZE:
	case FIGETBSZ: case FIFREEZE: case FITHAW: case FICLONE: case FICLONERANGE:
	case FIDEDUPERANGE: case FS_IOC_FIEMAP:
	/* sock_ioctl(): the same for every family. */
	case FIOSETOWN: case SIOCSPGRP: case FIOGETOWN: case SIOCGPGRP:
	case SIOCGIFBR: case SIOCSIFBR: case SIOCBRADDBR: case SIOCBRDELBR:
	case SIOCGIFVLAN: case SIOCSIFVLAN: case SIOCGSKNS:
		return KABI_IOCTL_GENERIC;
	/* sock_ioctl(): no gettstamp in AF_ALG's proto_ops. */
	case KABI_SIOCGSTAMP_OLD: case KABI_SIOCGSTAMPNS_OLD:
	case KABI_SIOCGSTAMP_NEW: case KABI_SIOCGSTAMPNS_NEW:
		return KABI_IOCTL_NOTTY;
	default:
		if ((cmd >= KABI_SIOCDEVPRIVATE && cmd <= KABI_SIOCDEVPRIVATE + 15) ||
		    (cmd >= KABI_SIOCIWFIRST && cmd <= KABI_SIOCIWLAST))
			return KABI_IOCTL_GENERIC;	/* dev_ioctl(), wext_handle_ioctl() */
		return KABI_IOCTL_OPNOTSUPP;	/* sock_do_ioctl() -> sock_no_ioctl() */
	}
}

int kabi_alg_ioctl_errno(uint32_t cmd)
{
	switch (kabi_alg_ioctl_class(cmd)) {
	case KABI_IOCTL_GENERIC: return 0;
	case KABI_IOCTL_NOTTY: return ENOTTY;
	default: return EOPNOTSUPP;
	}
}
