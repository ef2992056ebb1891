/* The /dev/crypto session layer: cryptodev-linux's open file (its sessions
 * and its queue of asynchronous completions) over the core's transforms.
 * It knows nothing of how it is reached: a host (the LD_PRELOAD shim's
 * module, or ualg-run --supervise) gives each ioctl the caller's argument
 * address and a memory accessor that copies from and to the caller, and a
 * placeholder fd of its own whose eventfd counter it keeps equal to the
 * number of completions waiting (POLLIN). */
#ifndef UALG_CRYPTODEV_SESSION_H
#define UALG_CRYPTODEV_SESSION_H

#include <stddef.h>
#include <stdint.h>

struct cdev_mem {
	void *ctx;
	/* 0, or -EFAULT when [addr, addr + len) is not the caller's */
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	int (*write)(void *ctx, uint64_t addr, const void *buf, size_t len);
};

struct cdev_file;

/* Initialises the core (once; later calls return the first result). */
int cdev_init(void);
/* A new open file, holding one reference; NULL on ENOMEM. */
struct cdev_file *cdev_open(void);
void cdev_get(struct cdev_file *f);
/* Drops a reference; the last frees the sessions and the queue. */
void cdev_put(struct cdev_file *f);
/* Serves one ioctl: 0 or -errno.  evfd: an eventfd (EFD_SEMAPHORE) on
 * the same counter as the caller's fd, or -1.  CRIOGET is the host's
 * (it makes an fd): here it gives -ENOTTY. */
long cdev_ioctl(struct cdev_file *f, unsigned long cmd, uint64_t arg, const struct cdev_mem *mem,
		int evfd);

/* The one symbol of libualg-cryptodev.so, the shim's lazily loaded module. */
struct ualg_cryptodev_ops {
	unsigned version;	/* UALG_CRYPTODEV_OPS_VERSION */
	int (*init)(void);
	struct cdev_file *(*open)(void);
	void (*get)(struct cdev_file *f);
	void (*put)(struct cdev_file *f);
	long (*ioctl)(struct cdev_file *f, unsigned long cmd, uint64_t arg, const struct cdev_mem *mem,
		      int evfd);
};
#define UALG_CRYPTODEV_OPS_VERSION 1
#define UALG_CRYPTODEV_OPS_SYMBOL "ualg_cryptodev_ops"

#endif
