/* Symmetric ciphers on a device (dpdk_impl.h): requests longer than one
 * operation run as several, the IV carried between them as the kernel's
 * modes define it (xts: one operation at most); batches of independent
 * requests (the native ring's) go to the device in bursts. */
#include "dpdk_impl.h"
#include "modes.h"

#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

/* The IV after len bytes, as the kernel's modes leave it; before is the
 * input's last block (cbc decryption, taken before it is overwritten). */
static int next_iv(struct ualg_tfm *tfm, bool enc, uint8_t *iv, const uint8_t *dst, size_t len,
		   const uint8_t *before)
{
	const struct desc *ds = priv_of(tfm)->desc;
	struct ctx *c = tfm->ctx;

	switch (ds->mode) {
	case M_CBC:
		memcpy(iv, enc ? dst + len - 16 : before, 16);
		break;
	case M_CTR:
		ualg_ctr_add(iv, 16, (len + 15) / 16);
		break;
	case M_XTS: {
		/* As xts-aes-aesni: the encrypted tweak, advanced past every block. */
		const unsigned half = c->keylen / 2;
		const EVP_CIPHER *ciph = half == 16 ? EVP_aes_128_ecb() : EVP_aes_256_ecb();
		EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
		int outl = 0;
		const bool ok = e && EVP_EncryptInit_ex(e, ciph, NULL, c->key + half, NULL) &&
				EVP_CIPHER_CTX_set_padding(e, 0) && EVP_EncryptUpdate(e, iv, &outl, iv, 16);
		EVP_CIPHER_CTX_free(e);
		if (!ok)
			return -ENOMEM;
		ualg_xts_mul_xn(iv, (len + 15) / 16);
		break;
	}
	default:
		break;
	}
	return 0;
}

static int sk_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	const struct priv *p = priv_of(tfm);
	const struct desc *ds = p->desc;

	dpdk_check_failed();
	if (ds->mode == M_XTS && (len < 16 || len > p->dev->max_op))
		return -EINVAL;
	if ((ds->mode == M_ECB || ds->mode == M_CBC) && len % 16)
		return -EINVAL;
	void *sess = dpdk_session(tfm, enc, 0);
	if (!sess)
		return -ENOMEM;
	/* One mbuf of whole blocks per operation (xts: the whole request),
	 * the IV carried over between them: some devices mishandle ciphers
	 * over longer chains (crypto_aesni_mb over three mbufs). */
	const size_t chunk = ds->mode == M_XTS ? len : SEG_DATA;
	for (size_t at = 0; at < len;) {
		size_t n = len - at < chunk ? len - at : chunk;
		/* ctr: the kernel's counter is all 128 bits, some devices' the
		 * low 32 or 64: no operation runs past a wrap of the low 32. */
		if (ds->mode == M_CTR) {
			const uint64_t low = (uint64_t)iv[12] << 24 | (uint64_t)iv[13] << 16 |
					     (uint64_t)iv[14] << 8 | iv[15];
			const uint64_t room = ((1ull << 32) - low) * 16;
			if (n > room)
				n = (size_t)room;
		}
		uint8_t before[16];
		if (ds->mode == M_CBC && !enc)
			memcpy(before, src + at + n - 16, 16);
		struct job j = {
			.kind = JOB_CIPHER, .sess = sess, .iv = iv, .ivlen = ds->ivsize,
			.in = { { src + at, n } }, .nin = 1, .data_off = 0, .data_len = (uint32_t)n,
			.out = dst + at, .out_off = 0, .out_len = n,
		};
		int r = dpdk_run_job(p->dev, &j);
		if (!r)
			r = next_iv(tfm, enc, iv, dst + at, n, before);
		if (r)
			return r;
		at += n;
	}
	return 0;
}

/* Whether a request of len bytes at iv is one operation a burst can take. */
static bool one_op(const struct desc *ds, const uint8_t *iv, size_t len)
{
	if (!len || len > SEG_DATA || ((ds->mode == M_ECB || ds->mode == M_CBC) && len % 16) ||
	    (ds->mode == M_XTS && len < 16))
		return false;
	if (ds->mode == M_CTR) {
		const uint64_t low = (uint64_t)iv[12] << 24 | (uint64_t)iv[13] << 16 | (uint64_t)iv[14] << 8 | iv[15];
		return len <= ((1ull << 32) - low) * 16;
	}
	return true;
}

/* Independent requests: those of one operation each go to the device in
 * bursts of up to DPDK_BURST_MAX, the others run as sk_crypt runs them. */
static int sk_crypt_many(struct ualg_tfm *tfm, bool enc, unsigned n, const struct ualg_skcipher_req *reqs,
			 int *res)
{
	const struct priv *p = priv_of(tfm);
	const struct desc *ds = p->desc;
	struct job jobs[DPDK_BURST_MAX];
	unsigned idx[DPDK_BURST_MAX];
	uint8_t before[DPDK_BURST_MAX][16];

	dpdk_check_failed();
	void *sess = dpdk_session(tfm, enc, 0);
	if (!sess)
		return -ENOMEM;
	/* What every job shares, copied into each (a compound literal per
	 * job is zeroed with rep stos: a tenth of a small request's cost). */
	const struct job base = { .kind = JOB_CIPHER, .sess = sess, .ivlen = ds->ivsize, .nin = 1 };
	for (unsigned i = 0; i < n;) {
		unsigned k = 0;
		for (; i < n && k < DPDK_BURST_MAX; i++) {
			const struct ualg_skcipher_req *q = &reqs[i];
			if (!one_op(ds, q->iv, q->len)) {
				res[i] = sk_crypt(tfm, enc, q->iv, q->src, q->dst, q->len);
				continue;
			}
			if (ds->mode == M_CBC && !enc)
				memcpy(before[k], q->src + q->len - 16, 16);
			struct job *j = &jobs[k];
			*j = base;
			j->iv = q->iv;
			j->in[0].p = q->src;
			j->in[0].len = q->len;
			j->data_len = (uint32_t)q->len;
			j->out = q->dst;
			j->out_len = q->len;
			idx[k++] = i;
		}
		if (!k)
			continue;
		int r[DPDK_BURST_MAX];
		const int e = dpdk_run_jobs(p->dev, k, jobs, r);
		for (unsigned t = 0; t < k; t++) {
			const struct ualg_skcipher_req *q = &reqs[idx[t]];
			res[idx[t]] = e ? e : r[t] ? r[t] : next_iv(tfm, enc, q->iv, q->dst, q->len, before[t]);
		}
	}
	return 0;
}

static int sk_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return sk_crypt(tfm, true, iv, src, dst, len);
}

static int sk_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return sk_crypt(tfm, false, iv, src, dst, len);
}

void dpdk_skcipher_ops(struct ualg_alg *a, const struct desc *ds)
{
	a->type = UALG_ALG_SKCIPHER;
	a->u.skcipher = (struct ualg_skcipher_ops){
		.min_keysize = ds->keys[0], .max_keysize = ds->keys[ds->keys[2] ? 2 : 1],
		.ivsize = ds->ivsize, .chunksize = ds->mode == M_CTR ? 16 : ds->blocksize,
		.setkey = dpdk_key_setkey, .encrypt = sk_encrypt, .decrypt = sk_decrypt,
		.crypt_many = sk_crypt_many,
	};
}
