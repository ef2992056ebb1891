/* The DPDK driver class's own declarations (dpdk.h is algd's view).
 *
 * Each device gets one queue pair, a session pool, an operation pool, an
 * mbuf pool and a scratch area (AAD and digests, in memory the device can
 * address).  A transform holds its own sessions, created from its key (a
 * cipher: one per direction; an AEAD: one per direction, made again when
 * the associated data's length or the tag's changes, since DPDK fixes
 * both in the session; a hash: one, unkeyed or keyed).
 *
 *   dpdk.c           EAL, devices, a failed device's drivers
 *   dpdk_register.c  a device's capabilities as drivers of the kernel's names
 *   dpdk_session.c   keys and sessions of a transform
 *   dpdk_job.c       one operation on a device
 *   dpdk_skcipher.c, dpdk_hash.c, dpdk_aead.c  the algorithm types */
#ifndef UALG_ALGD_DPDK_IMPL_H
#define UALG_ALGD_DPDK_IMPL_H

#include "crypto.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_cryptodev.h>

#define MAX_DEVS 16
#define MAX_ALGS_PER_DEV 32
#define SEG_DATA 32768u			/* bytes of data per mbuf */
#define MAX_SEGS 128u			/* an operation's chain, with in-place SGL */
#define NB_MBUFS (MAX_SEGS + 32)
#define NB_OPS 64
#define NB_SESSIONS 2048		/* per device; each transform holds 1 or 2 */
#define NB_DESC 64
#define SCRATCH_SIZE (65536 + 64)	/* the largest AAD DPDK takes, and a digest */
#define DPDK_OP_TIMEOUT_MS 2000
#define DPDK_BURST_MAX 32		/* operations per burst: 2 mbufs each fit ext_info */
/* The scratch area a burst's operation gets (its digest, then its AAD):
 * an AEAD's associated data goes in a burst up to BURST_AAD_MAX bytes. */
#define BURST_SCRATCH 1088u
#define BURST_AAD_MAX (BURST_SCRATCH - 64)
_Static_assert(DPDK_BURST_MAX * BURST_SCRATCH <= SCRATCH_SIZE, "a burst's scratch fits the area");
#define IV_OFF (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op))
#define PRIO_HW 4000			/* above every software driver */
#define PRIO_SW 150			/* below every other driver of the core */

/* A device and the drivers registered on it. */
struct dev {
	uint8_t id;
	char name[RTE_CRYPTODEV_NAME_MAX_LEN];
	bool sgl;			/* in-place chains of mbufs */
	bool oop;			/* out of place, one mbuf in and one out */
	bool direct;			/* reads the CPU's memory: operates on the request's buffers */
	bool iova_va;			/* IOVAs are virtual addresses (EAL's IOVA mode) */
	size_t max_op;			/* bytes one operation may carry */
	/* Callers' jobs wait in a queue; one caller at a time (busy) owns
	 * the queue pair, scratch area and pools, and runs the jobs queued
	 * ahead of its own, several callers' in one burst where they fit
	 * (dpdk_job.c). */
	pthread_mutex_t lock;		/* the queue and busy */
	pthread_cond_t cond;		/* a caller's jobs done, or the device free */
	struct waiter *head, **tail;
	bool busy;
	atomic_bool shared_burst;	/* one burst had several callers' jobs (logged once, -v) */
	struct rte_mempool *sess_pool, *op_pool, *mbuf_pool;
	struct rte_mempool *ext_pool;	/* mbufs without data, for the request's buffers */
	struct rte_mbuf_ext_shared_info ext_info[MAX_SEGS + 1];
	uint8_t *scratch;
	rte_iova_t scratch_iova;
	atomic_bool failed;
	bool marked;			/* its drivers were taken out (registry thread) */
	unsigned nalgs;
	struct ualg_alg *algs[MAX_ALGS_PER_DEV];
};

extern struct dev dpdk_devs[MAX_DEVS];
extern unsigned dpdk_ndevs;

/* On the registry's thread: takes the drivers of devices found failed
 * out of lookups (elsewhere: nothing). */
void dpdk_check_failed(void);
/* Marks d failed: its requests fail with -EIO from now on. */
void dpdk_device_failed(struct dev *d);

enum job_kind { JOB_CIPHER, JOB_AUTH, JOB_AEAD };

/* One operation over the concatenation of in[0..nin), whose bytes
 * [out_off, out_off + out_len) go to out when it succeeds (and only then:
 * a decryption whose tag fails leaves out as it was).  On a device that
 * reads the CPU's memory (dev.direct), an operation over one input whose
 * output is all of it, in place (out == in[0].p) or out of place, runs on
 * these buffers themselves, a decryption's output held in one of the
 * device's mbufs until its tag verified; otherwise it runs in place over a
 * copy in the device's mbufs. */
struct job {
	enum job_kind kind;
	void *sess;
	const uint8_t *iv;
	unsigned ivlen;
	struct { const uint8_t *p; size_t len; } in[2];
	unsigned nin;
	uint32_t data_off, data_len;	/* what the cipher, hash or AEAD covers */
	const uint8_t *aad;		/* AEAD */
	unsigned aadlen;
	uint8_t *digest;		/* in: the tag to verify; out: the digest made */
	unsigned digestlen;
	bool verify;
	uint8_t *out;
	size_t out_off, out_len;
};

/* Runs j on d and waits for it: 0, -EBADMSG (tag mismatch), -EINVAL
 * (the device refused the request), -ENOMEM (pools short) or -EIO (the
 * device failed, or did not answer in DPDK_OP_TIMEOUT_MS). */
int dpdk_run_job(struct dev *d, const struct job *j);
/* Runs the n independent jobs j[0..n) on d as one burst (n at most
 * DPDK_BURST_MAX; when n > 1, each of at most SEG_DATA bytes, an AEAD's
 * with at most BURST_AAD_MAX bytes of AAD, all AEADs of one session) and
 * waits for them all: 0 with res[i] each's result as dpdk_run_job's, or
 * -EINVAL or -EIO for them all.  Jobs of other callers waiting at the
 * same time may go in the same burst (each caller's jobs fit one, and
 * all of them are of at most SEG_DATA bytes). */
int dpdk_run_jobs(struct dev *d, unsigned n, const struct job *j, int *res);
/* dpdk_run_jobs() for requests of a batch: job t's result (or the
 * burst's error) in res[idx[t]]. */
void dpdk_run_burst(struct dev *d, unsigned n, const struct job *j, const unsigned *idx, int *res);

enum kind { K_CIPHER, K_HASH, K_HMAC, K_AEAD };
enum mode { M_NONE, M_ECB, M_CBC, M_CTR, M_XTS };

struct desc {
	const char *name, *driver;	/* generic name; driver name before "-dpdk-DEVICE" */
	enum kind kind;
	int algo;			/* rte_crypto_{cipher,auth,aead}_algorithm */
	enum mode mode;
	unsigned blocksize, ivsize, digestsize;
	unsigned keys[3];		/* the key lengths the kernel takes (ciphers, AEADs) */
	const char *md;			/* hmac: OpenSSL's name of the hash, for long keys */
};

extern const struct desc dpdk_descs[];
extern const size_t dpdk_ndescs;

struct priv {
	struct dev *dev;
	const struct desc *desc;
};

#define KEY_MAX 128	/* xts-256's 64, an hmac key padded to sha512's block */

/* A transform: its key (wiped with the context) and sessions. */
struct ctx {
	uint8_t key[KEY_MAX];
	unsigned keylen;
	void *sess[2];			/* [0] decrypt or verify, [1] encrypt or digest */
	unsigned sess_aad[2], sess_auth[2];
};

static inline const struct priv *priv_of(const struct ualg_tfm *tfm)
{
	return tfm->alg->priv;
}

/* dpdk_session.c */
int dpdk_init_tfm(struct ualg_tfm *tfm);
void dpdk_exit_tfm(struct ualg_tfm *tfm);
void dpdk_sess_drop(struct ualg_tfm *tfm);
/* The session for direction enc (and, AEAD, aadlen bytes of associated
 * data), made now if need be; NULL when the pool is short. */
void *dpdk_session(struct ualg_tfm *tfm, bool enc, unsigned aadlen);
int dpdk_key_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len);
int dpdk_hmac_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len);

/* The type's operations for ds, in a->u. */
void dpdk_skcipher_ops(struct ualg_alg *a, const struct desc *ds);
void dpdk_hash_ops(struct ualg_alg *a, const struct desc *ds);
void dpdk_aead_ops(struct ualg_alg *a, const struct desc *ds);

/* Registers the drivers device d can serve, at prio; how many. */
unsigned dpdk_register_dev(struct dev *d, int prio);

#endif
