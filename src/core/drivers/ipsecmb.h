/* What the intel-ipsec-mb drivers share (ipsecmb.c): the thread's job
 * manager, batches of jobs through it, and the drivers' allocation. */
#ifndef UALG_CORE_DRIVERS_IPSECMB_H
#define UALG_CORE_DRIVERS_IPSECMB_H

#include "openssl.h"

#include <stdint.h>

#include <intel-ipsec-mb.h>

/* Between Nettle's and OpenSSL's drivers of each kind (nettle.h, openssl.h):
 * faster than Nettle, slower than OpenSSL one request at a time. */
#define UALG_IPSECMB_PRIO_PRIMITIVE 250
#define UALG_IPSECMB_PRIO_WHOLE 375

/* The calling thread's manager, made on first use; NULL where it cannot
 * be made or the CPU lacks what the drivers need (AES-NI, PCLMULQDQ). */
IMB_MGR *ualg_ipsecmb_thread_mgr(void);

/* One request of a batch: fill() sets up its job, done() sees the result. */
struct job_ops {
	void (*fill)(IMB_JOB *job, const void *arg, unsigned i);
	void (*done)(const IMB_JOB *job, const void *arg, unsigned i);
};

/* Submits n jobs, then flushes: the library runs them in parallel lanes.
 * res[i] gets each one's 0 or -errno. */
int ualg_ipsecmb_run_jobs(const struct job_ops *ops, const void *arg, unsigned n, int *res);
/* One job: its 0 or -errno. */
int ualg_ipsecmb_run_one_job(const struct job_ops *ops, const void *arg);

/* The library reads through pointers even for empty inputs. */
extern const uint8_t ualg_ipsecmb_empty[16];

/* A driver of the module "ipsecmb", registered with ualg_openssl_reg(). */
struct ualg_alg *ualg_ipsecmb_alloc(const char *name, const char *driver, enum ualg_alg_type type,
				    int prio);

int ualg_ipsecmb_register_hashes(void);	/* ipsecmb_hash.c: sha*, hmac(sha*) */
int ualg_ipsecmb_register_cbc(void);	/* ipsecmb_aes.c: cbc(aes) */
int ualg_ipsecmb_register_gcm(void);	/* ipsecmb_aes.c: gcm(aes) */

#endif
