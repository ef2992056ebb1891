/* ualg-bench --dpdk (bench_dpdk.h): a device driven as a DPDK program
 * drives it.  The data stays in mbufs of 32 KiB (one mbuf carries at
 * most 64 KiB - 1 bytes), encrypted in place; each run allocates an
 * operation, enqueues it and polls the queue pair until it is back.
 * Only the first run copies r->in in and the result out to r->out, for
 * ualg-bench's comparison with OpenSSL.  One operation per mbuf, the IV
 * carried between them, as algd's driver does: crypto_aesni_mb claims
 * in-place chains but leaves a chained AES-CBC operation's data as it
 * was (DPDK 22.11). */
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
#define IV_OFF (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op))

struct direct {
	uint8_t id;
	bool primed;
	enum rte_crypto_cipher_algorithm algo;
	struct rte_mempool *sess_pool, *op_pool, *mbuf_pool;
	void *sess;
	struct rte_mbuf *seg[MAX_SEGS];
	unsigned nseg;
	uint8_t iv[16];
};

static struct direct dd;	/* one device per process: EAL starts once */
static bool eal_up;

static int eal_start(const char *device)
{
	cpu_set_t cpus;
	char lcore[16];
	int cpu = 0;

	if (eal_up)
		return 0;
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
	if (r < 0)
		return -EIO;
	eal_up = true;
	return 0;
}

static int dev_start(const char *device, size_t len)
{
	const int id = rte_cryptodev_get_dev_id(device);

	if (id < 0)
		return -ENODEV;
	dd.id = (uint8_t)id;
	struct rte_cryptodev_config conf = { .socket_id = rte_socket_id(), .nb_queue_pairs = 1 };
	dd.sess_pool = rte_cryptodev_sym_session_pool_create("bench_s", 16,
		rte_cryptodev_sym_get_private_session_size(dd.id), 0, 0, rte_socket_id());
	dd.op_pool = rte_crypto_op_pool_create("bench_o", RTE_CRYPTO_OP_TYPE_SYMMETRIC, 2 * MAX_SEGS, 0, 16,
					       rte_socket_id());
	dd.mbuf_pool = rte_pktmbuf_pool_create("bench_m", 2 * MAX_SEGS, 0, 0, SEG + RTE_PKTMBUF_HEADROOM,
					       rte_socket_id());
	struct rte_cryptodev_qp_conf qp = { .nb_descriptors = 2 * MAX_SEGS, .mp_session = dd.sess_pool };
	if (!dd.sess_pool || !dd.op_pool || !dd.mbuf_pool || rte_cryptodev_configure(dd.id, &conf) ||
	    rte_cryptodev_queue_pair_setup(dd.id, 0, &qp, rte_socket_id()) || rte_cryptodev_start(dd.id))
		return -EIO;
	dd.nseg = (unsigned)((len + SEG - 1) / SEG);
	if (!dd.nseg || dd.nseg > MAX_SEGS || rte_pktmbuf_alloc_bulk(dd.mbuf_pool, dd.seg, dd.nseg))
		return -ENOMEM;
	for (unsigned s = 0; s < dd.nseg; s++) {
		const size_t n = len - s * (size_t)SEG < SEG ? len - s * (size_t)SEG : SEG;
		if (!rte_pktmbuf_append(dd.seg[s], (uint16_t)n))
			return -ENOMEM;
	}
	return 0;
}

/* One operation over the mbuf m, in place, with dd.iv. */
static int one_op(struct rte_mbuf *m, uint32_t len)
{
	struct rte_crypto_op *op = rte_crypto_op_alloc(dd.op_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC), *done = NULL;

	if (!op)
		return -ENOMEM;
	op->sym->m_src = m;
	op->sym->cipher.data.offset = 0;
	op->sym->cipher.data.length = len;
	memcpy(rte_crypto_op_ctod_offset(op, uint8_t *, IV_OFF), dd.iv, 16);
	rte_crypto_op_attach_sym_session(op, dd.sess);
	while (rte_cryptodev_enqueue_burst(dd.id, 0, &op, 1) != 1)
		;
	while (rte_cryptodev_dequeue_burst(dd.id, 0, &done, 1) != 1)
		;
	const int r = done->status == RTE_CRYPTO_OP_STATUS_SUCCESS ? 0 : -EIO;
	rte_crypto_op_free(done);
	return r;
}

/* The IV after n bytes of ciphertext ending at last. */
static void next_iv(const uint8_t *last, size_t n)
{
	if (dd.algo == RTE_CRYPTO_CIPHER_AES_CBC) {
		memcpy(dd.iv, last - 16, 16);
		return;
	}
	for (size_t blocks = (n + 15) / 16; blocks; blocks--)
		for (int i = 15; i >= 0 && !++dd.iv[i]; i--)
			;
}

static void copy_chain(struct runner *r, bool in)
{
	size_t at = 0;
	for (unsigned s = 0; s < dd.nseg; s++) {
		uint8_t *p = rte_pktmbuf_mtod(dd.seg[s], uint8_t *);
		const size_t n = dd.seg[s]->data_len;
		if (in)
			memcpy(p, r->in + at, n);
		else
			memcpy(r->out + at, p, n);
		at += n;
	}
}

static int direct_run(struct runner *r)
{
	if (!dd.primed)
		copy_chain(r, true);
	memcpy(dd.iv, r->iv, 16);
	int err = 0;
	for (unsigned s = 0; s < dd.nseg && !err; s++) {
		err = one_op(dd.seg[s], dd.seg[s]->data_len);
		next_iv(rte_pktmbuf_mtod(dd.seg[s], uint8_t *) + dd.seg[s]->data_len, dd.seg[s]->data_len);
	}
	if (err)
		return err;
	if (!dd.primed)
		copy_chain(r, false);
	dd.primed = true;
	return 1;
}

static void direct_done(struct runner *r)
{
	free(r->in);
	free(r->out);
	free(r->iv);
	r->in = r->out = r->iv = NULL;
}

int dpdk_direct_setup(struct runner *r, const char *device, const uint8_t *key, const uint8_t *iv)
{
	r->run = direct_run;
	r->done = direct_done;
	if (!strcmp(r->alg->name, "cbc(aes)"))
		dd.algo = RTE_CRYPTO_CIPHER_AES_CBC;
	else if (!strcmp(r->alg->name, "ctr(aes)"))
		dd.algo = RTE_CRYPTO_CIPHER_AES_CTR;
	else
		return -ENOTSUP;
	if (eal_up)
		return -EBUSY;	/* one setup per process */
	r->iv = malloc(16);
	if (!r->iv)
		return -ENOMEM;
	memcpy(r->iv, iv, 16);
	int err = eal_start(device);
	if (!err)
		err = dev_start(device, r->len);
	if (err)
		return err;
	struct rte_crypto_sym_xform x = { .type = RTE_CRYPTO_SYM_XFORM_CIPHER };
	x.cipher.op = RTE_CRYPTO_CIPHER_OP_ENCRYPT;
	x.cipher.algo = dd.algo;
	x.cipher.key.data = (uint8_t *)key;
	x.cipher.key.length = (uint16_t)r->alg->keylen;
	x.cipher.iv.offset = IV_OFF;
	x.cipher.iv.length = 16;
	dd.sess = rte_cryptodev_sym_session_create(dd.id, &x, dd.sess_pool);
	return dd.sess ? 0 : -EIO;
}
