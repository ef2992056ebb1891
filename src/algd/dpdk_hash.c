/* Hashes and HMACs on a device (dpdk_impl.h): DPDK digests a whole
 * message at once, so a hash state collects its updates (at most the
 * device's largest operation) and digests them at final; a ring batch's
 * one-shot digests go in bursts. */
#include "dpdk_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct hstate {
	uint8_t *buf;
	size_t len, cap;
};

static int h_init(struct ualg_hash_desc *desc)
{
	struct hstate *h = desc->state;

	memset(h, 0, sizeof(*h));
	return 0;
}

static int h_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct hstate *h = desc->state;
	const size_t max = priv_of(desc->tfm)->dev->max_op;

	if (len > max - h->len)
		return -EMSGSIZE;
	if (h->len + len > h->cap) {
		size_t cap = h->cap ? h->cap : 4096;
		while (cap < h->len + len)
			cap *= 2;
		uint8_t *b = malloc(cap);
		if (!b)
			return -ENOMEM;
		if (h->buf) {
			memcpy(b, h->buf, h->len);
			ualg_wipe(h->buf, h->cap);
			free(h->buf);
		}
		h->buf = b;
		h->cap = cap;
	}
	if (len)
		memcpy(h->buf + h->len, data, len);
	h->len += len;
	return 0;
}

static void h_exit(struct ualg_hash_desc *desc)
{
	struct hstate *h = desc->state;

	if (h->buf) {
		ualg_wipe(h->buf, h->cap);
		free(h->buf);
	}
	memset(h, 0, sizeof(*h));
}

static int h_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct ualg_tfm *tfm = desc->tfm;
	const struct priv *p = priv_of(tfm);
	struct hstate *h = desc->state;

	dpdk_check_failed();
	void *sess = dpdk_session(tfm, true, 0);
	if (!sess)
		return -ENOMEM;
	struct job j = {
		.kind = JOB_AUTH, .sess = sess, .in = { { h->buf, h->len } }, .nin = 1,
		.data_off = 0, .data_len = (uint32_t)h->len,
		.digest = out, .digestlen = p->desc->digestsize,
	};
	int r = dpdk_run_job(p->dev, &j);
	h_exit(desc);
	return r;
}

/* Independent one-shot digests (the native ring's batches): in bursts,
 * those longer than an mbuf's data one at a time. */
static int h_digest_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_digest_req *reqs, int *res)
{
	const struct priv *p = priv_of(tfm);
	struct job jobs[DPDK_BURST_MAX];
	unsigned idx[DPDK_BURST_MAX];

	dpdk_check_failed();
	void *sess = dpdk_session(tfm, true, 0);
	if (!sess)
		return -ENOMEM;
	for (unsigned i = 0; i < n;) {
		unsigned k = 0;
		for (; i < n && k < DPDK_BURST_MAX; i++) {
			const struct ualg_digest_req *q = &reqs[i];
			const struct job j = {
				.kind = JOB_AUTH, .sess = sess, .in = { { q->data, q->len } }, .nin = 1,
				.data_off = 0, .data_len = (uint32_t)q->len,
				.digest = q->out, .digestlen = p->desc->digestsize,
			};
			if (q->len > p->dev->max_op)
				res[i] = -EMSGSIZE;	/* as h_update answers */
			else if (q->len > SEG_DATA)
				res[i] = dpdk_run_job(p->dev, &j);
			else {
				jobs[k] = j;
				idx[k++] = i;
			}
		}
		if (k)
			dpdk_run_burst(p->dev, k, jobs, idx, res);
	}
	return 0;
}

static int h_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	const struct hstate *s = src->state;
	struct hstate *d = dst->state;

	memset(d, 0, sizeof(*d));
	return s->len ? h_update(dst, s->buf, s->len) : 0;
}

void dpdk_hash_ops(struct ualg_alg *a, const struct desc *ds)
{
	a->type = UALG_ALG_SHASH;
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = ds->digestsize, .descsize = sizeof(struct hstate),
		.setkey = ds->kind == K_HMAC ? dpdk_hmac_setkey : NULL,
		.init = h_init, .update = h_update, .final = h_final, .clone = h_clone, .exit = h_exit,
		.digest_many = h_digest_many,
	};
}
