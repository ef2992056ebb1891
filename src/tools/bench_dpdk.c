/* ualg-bench --dpdk (bench_dpdk.h): a device driven as a DPDK program
 * drives it.  EAL, the device, its one queue pair and the pools start
 * once per process, on the first setup; each runner has its own session
 * and mbufs, freed by its done().  The data stays in the mbufs, encrypted
 * in place; only the first run copies the result out to r->out, for
 * ualg-bench's comparison with OpenSSL.
 *
 * dpdk-direct: the data in mbufs of 32 KiB (one mbuf carries at most
 * 64 KiB - 1 bytes); each run allocates an operation per mbuf, enqueues
 * it and polls the queue pair until it is back, the IV carried from one
 * mbuf's operation to the next, as algd's driver does: crypto_aesni_mb
 * claims in-place chains but leaves a chained AES-CBC operation's data as
 * it was (DPDK 22.11).  One run is one operation.
 *
 * dpdk-burst: DPDK_BURST operations of one mbuf each, enqueued with one
 * rte_cryptodev_enqueue_burst and dequeued until all are back; one run is
 * DPDK_BURST operations.  They all have the same IV and input (each its
 * own mbuf), which a throughput measurement does not mind; the first
 * one's output is the one compared. */
#include "bench_dpdk.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cryptodev.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define SEG 32768u
#define MAX_SEGS 64u
/* Mbufs and operations: a chain of MAX_SEGS and a burst at once. */
#define POOL_SIZE (MAX_SEGS + DPDK_BURST)
#define IV_OFF (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op))

_Static_assert(DPDK_BURST <= MAX_SEGS, "a burst's mbufs fit a runner's array");

/* The device and what its runners share, started once per process. */
static struct {
	int state;		/* 1: not started yet; 0: up; -errno: why it did not start */
	char name[64];
	uint8_t id;
	struct rte_mempool *sess_pool, *op_pool, *mbuf_pool;
} dev = { .state = 1 };

/* One runner's own. */
struct dpdk_runner {
	enum rte_crypto_cipher_algorithm algo;
	void *sess;
	struct rte_mbuf *m[MAX_SEGS];	/* the chain's segments, or the burst's mbufs */
	unsigned nm;
	bool primed;			/* the first output is in r->out */
	uint8_t iv[16];			/* every run's first IV */
	uint8_t next[16];		/* dpdk-direct: the IV of the next segment */
};

static int eal_start(const char *device)
{
	cpu_set_t cpus;
	char lcore[16];
	int cpu = 0;

	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		CPU_ZERO(&cpus);
	while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &cpus))
		cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu < CPU_SETSIZE ? cpu : 0);
	char *argv[] = { "ualg-bench", "--no-huge", "--no-pci", "--no-telemetry", "--no-shconf",
			 "--log-level=*:warning", "--vdev", (char *)device, "-l", lcore, NULL };
	const int r = rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv);
	if (CPU_COUNT(&cpus))
		sched_setaffinity(0, sizeof(cpus), &cpus);
	return r < 0 ? -EIO : 0;
}

static int dev_start(const char *device)
{
	const int id = rte_cryptodev_get_dev_id(device);

	if (id < 0)
		return -ENODEV;
	dev.id = (uint8_t)id;
	struct rte_cryptodev_config conf = { .socket_id = rte_socket_id(), .nb_queue_pairs = 1 };
	dev.sess_pool = rte_cryptodev_sym_session_pool_create("bench_s", 16,
		rte_cryptodev_sym_get_private_session_size(dev.id), 0, 0, rte_socket_id());
	dev.op_pool = rte_crypto_op_pool_create("bench_o", RTE_CRYPTO_OP_TYPE_SYMMETRIC, POOL_SIZE, 0, 16,
						rte_socket_id());
	dev.mbuf_pool = rte_pktmbuf_pool_create("bench_m", POOL_SIZE, 0, 0, SEG + RTE_PKTMBUF_HEADROOM,
						rte_socket_id());
	struct rte_cryptodev_qp_conf qp = { .nb_descriptors = 2 * MAX_SEGS, .mp_session = dev.sess_pool };
	if (!dev.sess_pool || !dev.op_pool || !dev.mbuf_pool || rte_cryptodev_configure(dev.id, &conf) ||
	    rte_cryptodev_queue_pair_setup(dev.id, 0, &qp, rte_socket_id()) || rte_cryptodev_start(dev.id))
		return -EIO;
	return 0;
}

/* EAL and device up, the first time; later, the same device again. */
static int dev_up(const char *device)
{
	if (dev.state <= 0)
		return dev.state == 0 && strcmp(device, dev.name) ? -EBUSY : dev.state;
	snprintf(dev.name, sizeof(dev.name), "%s", device);
	dev.state = eal_start(device);
	if (!dev.state)
		dev.state = dev_start(device);
	return dev.state;
}

/* op: encrypt len bytes of m in place with iv. */
static void op_prep(const struct dpdk_runner *d, struct rte_crypto_op *op, struct rte_mbuf *m,
		    const uint8_t *iv)
{
	op->sym->m_src = m;
	op->sym->cipher.data.offset = 0;
	op->sym->cipher.data.length = m->data_len;
	memcpy(rte_crypto_op_ctod_offset(op, uint8_t *, IV_OFF), iv, 16);
	rte_crypto_op_attach_sym_session(op, d->sess);
}

/* Enqueues n operations and polls until all are back: 0, or -EIO when
 * one failed. */
static int enqueue_wait(struct rte_crypto_op **ops, uint16_t n)
{
	struct rte_crypto_op *done[DPDK_BURST];
	uint16_t queued = 0, back = 0;
	int err = 0;

	while (queued < n)
		queued += rte_cryptodev_enqueue_burst(dev.id, 0, ops + queued, (uint16_t)(n - queued));
	while (back < n) {
		const uint16_t got = rte_cryptodev_dequeue_burst(dev.id, 0, done, (uint16_t)(n - back));
		for (uint16_t i = 0; i < got; i++) {
			if (done[i]->status != RTE_CRYPTO_OP_STATUS_SUCCESS)
				err = -EIO;
			rte_crypto_op_free(done[i]);
		}
		back += got;
	}
	return err;
}

/* The IV after n bytes of ciphertext ending at last. */
static void next_iv(struct dpdk_runner *d, const uint8_t *last, size_t n)
{
	if (d->algo == RTE_CRYPTO_CIPHER_AES_CBC) {
		memcpy(d->next, last - 16, 16);
		return;
	}
	for (size_t blocks = (n + 15) / 16; blocks; blocks--)
		for (int i = 15; i >= 0 && !++d->next[i]; i--)
			;
}

static int direct_run(struct runner *r)
{
	struct dpdk_runner *d = r->dpdk;
	int err = 0;

	memcpy(d->next, d->iv, 16);
	for (unsigned s = 0; s < d->nm && !err; s++) {
		struct rte_crypto_op *op = rte_crypto_op_alloc(dev.op_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC);
		if (!op)
			return -ENOMEM;
		op_prep(d, op, d->m[s], d->next);
		err = enqueue_wait(&op, 1);
		next_iv(d, rte_pktmbuf_mtod(d->m[s], uint8_t *) + d->m[s]->data_len, d->m[s]->data_len);
	}
	if (err)
		return err;
	if (!d->primed) {
		size_t at = 0;
		for (unsigned s = 0; s < d->nm; at += d->m[s]->data_len, s++)
			memcpy(r->out + at, rte_pktmbuf_mtod(d->m[s], uint8_t *), d->m[s]->data_len);
		d->primed = true;
	}
	return 1;
}

static int burst_run(struct runner *r)
{
	struct dpdk_runner *d = r->dpdk;
	struct rte_crypto_op *ops[DPDK_BURST];

	if (rte_crypto_op_bulk_alloc(dev.op_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC, ops, d->nm) != d->nm)
		return -ENOMEM;
	for (unsigned i = 0; i < d->nm; i++)
		op_prep(d, ops[i], d->m[i], d->iv);
	const int err = enqueue_wait(ops, (uint16_t)d->nm);
	if (err)
		return err;
	if (!d->primed) {
		memcpy(r->out, rte_pktmbuf_mtod(d->m[0], uint8_t *), r->len);
		d->primed = true;
	}
	return (int)d->nm;
}

static void dpdk_done(struct runner *r)
{
	struct dpdk_runner *d = r->dpdk;

	if (d) {
		for (unsigned i = 0; i < d->nm; i++)
			rte_pktmbuf_free(d->m[i]);
		if (d->sess)
			rte_cryptodev_sym_session_free(dev.id, d->sess);
		free(d);
	}
	free(r->in);
	free(r->out);
	r->dpdk = NULL;
	r->in = r->out = NULL;
}

/* The runner's session and its nm mbufs of up to SEG bytes: the chain
 * of r->in (burst false), or nm copies of it. */
static int runner_setup(struct runner *r, const char *device, bool burst, const uint8_t *key,
			const uint8_t *iv)
{
	struct dpdk_runner *d;
	const unsigned nm = burst ? DPDK_BURST : (unsigned)((r->len + SEG - 1) / SEG);

	r->done = dpdk_done;
	if (!(d = r->dpdk = calloc(1, sizeof(*d))))
		return -ENOMEM;
	if (!strcmp(r->alg->name, "cbc(aes)"))
		d->algo = RTE_CRYPTO_CIPHER_AES_CBC;
	else if (!strcmp(r->alg->name, "ctr(aes)"))
		d->algo = RTE_CRYPTO_CIPHER_AES_CTR;
	else
		return -ENOTSUP;
	if (!nm || nm > MAX_SEGS || (burst && r->len > SEG))
		return -EMSGSIZE;
	memcpy(d->iv, iv, 16);
	int err = dev_up(device);
	if (err)
		return err;
	struct rte_crypto_sym_xform x = { .type = RTE_CRYPTO_SYM_XFORM_CIPHER };
	x.cipher.op = RTE_CRYPTO_CIPHER_OP_ENCRYPT;
	x.cipher.algo = d->algo;
	x.cipher.key.data = (uint8_t *)key;
	x.cipher.key.length = (uint16_t)r->alg->keylen;
	x.cipher.iv.offset = IV_OFF;
	x.cipher.iv.length = 16;
	if (!(d->sess = rte_cryptodev_sym_session_create(dev.id, &x, dev.sess_pool)))
		return -EIO;
	if (rte_pktmbuf_alloc_bulk(dev.mbuf_pool, d->m, nm))
		return -ENOMEM;
	d->nm = nm;
	size_t at = 0;
	for (unsigned s = 0; s < nm; s++) {
		const size_t n = burst ? r->len : r->len - at < SEG ? r->len - at : SEG;
		uint8_t *p = (uint8_t *)rte_pktmbuf_append(d->m[s], (uint16_t)n);
		if (!p)
			return -ENOMEM;
		memcpy(p, r->in + (burst ? 0 : at), n);
		at += n;
	}
	return 0;
}

int dpdk_direct_setup(struct runner *r, const char *device, const uint8_t *key, const uint8_t *iv)
{
	r->run = direct_run;
	return runner_setup(r, device, false, key, iv);
}

int dpdk_burst_setup(struct runner *r, const char *device, const uint8_t *key, const uint8_t *iv)
{
	r->run = burst_run;
	return runner_setup(r, device, true, key, iv);
}
