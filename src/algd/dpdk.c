/* DPDK cryptodev devices as algd drivers (dpdk.h).
 *
 * Each device gets one queue pair, a session pool, an operation pool, an
 * mbuf pool and a scratch area (AAD and digests, in memory the device can
 * address).  A transform holds its own sessions, created from its key (a
 * cipher: one per direction; an AEAD: one per direction, made again when
 * the associated data's length or the tag's changes, since DPDK fixes
 * both in the session; a hash: one, unkeyed or keyed).
 *
 * Requests run synchronously, one operation per request (burst size 1):
 * under the device's lock the data is copied into a chain of mbufs, the
 * operation enqueued, the queue pair polled until it comes back, and the
 * result copied out.  The wait is bounded (DPDK_OP_TIMEOUT_MS): an
 * operation not back by then marks the device failed, its buffers are left
 * to the device, and every driver of the device leaves lookups.
 *
 * Hashes: DPDK digests a whole message at once, so a hash state collects
 * its updates (at most the device's largest operation) and digests them at
 * final.  Ciphers longer than the largest operation run as several, the
 * IV carried between them as the kernel's modes define it (xts: one
 * operation at most). */
#include "dpdk.h"
#include "log.h"
#include "crypto.h"
#include "modes.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include <rte_common.h>
#include <rte_cryptodev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define MODULE "dpdk"
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
#define IV_OFF (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op))
#define PRIO_HW 4000			/* above every software driver */
#define PRIO_SW 150			/* below every other driver of the core */

bool algd_dpdk_built(void)
{
	return true;
}

/* ---- devices ------------------------------------------------------------ */

struct dev {
	uint8_t id;
	char name[RTE_CRYPTODEV_NAME_MAX_LEN];
	bool sgl;			/* in-place chains of mbufs */
	size_t max_op;			/* bytes one operation may carry */
	pthread_mutex_t lock;		/* the queue pair, scratch, op and mbuf pools */
	struct rte_mempool *sess_pool, *op_pool, *mbuf_pool;
	uint8_t *scratch;
	rte_iova_t scratch_iova;
	atomic_bool failed;
	bool marked;			/* its drivers were taken out (registry thread) */
	unsigned nalgs;
	struct ualg_alg *algs[MAX_ALGS_PER_DEV];
};

static struct dev devs[MAX_DEVS];
static unsigned ndevs;
static pthread_t registry_thread;

/* On the registry's thread: a failed device's drivers fail their
 * self-test state, so lookups pass them over, and the instances built on
 * them are unregistered (those in use live on, their requests failing). */
static void mark_failed(struct dev *d)
{
	if (d->marked)
		return;
	d->marked = true;
	algd_log(LOG_ERR, "dpdk: device %s failed; its drivers leave lookups", d->name);
	for (unsigned i = 0; i < d->nalgs; i++) {
		d->algs[i]->selftest = UALG_SELFTEST_FAILED;
		ualg_alg_set_priority(d->algs[i], d->algs[i]->priority);
	}
}

static void check_failed(void)
{
	if (!pthread_equal(pthread_self(), registry_thread))
		return;
	for (unsigned i = 0; i < ndevs; i++)
		if (atomic_load(&devs[i].failed))
			mark_failed(&devs[i]);
}

static void device_failed(struct dev *d)
{
	atomic_store(&d->failed, true);
	check_failed();
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- one operation ---------------------------------------------------------- */

enum job_kind { JOB_CIPHER, JOB_AUTH, JOB_AEAD };

/* One operation, in place over the concatenation of in[0..nin), whose
 * bytes [out_off, out_off + out_len) are copied to out when it succeeds. */
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

static void chain_free(struct rte_mbuf *m)
{
	if (m)
		rte_pktmbuf_free(m);
}

/* The job's input in a chain of mbufs; NULL when the pool is short. */
static struct rte_mbuf *chain_fill(struct dev *d, const struct job *j, size_t total)
{
	const unsigned nseg = total ? (unsigned)((total + SEG_DATA - 1) / SEG_DATA) : 1;
	struct rte_mbuf *segs[MAX_SEGS];

	if (nseg > MAX_SEGS || rte_pktmbuf_alloc_bulk(d->mbuf_pool, segs, nseg))
		return NULL;
	unsigned k = 0;
	size_t at = 0;
	for (unsigned s = 0; s < nseg; s++) {
		const size_t n = total - s * (size_t)SEG_DATA < SEG_DATA ? total - s * (size_t)SEG_DATA : SEG_DATA;
		uint8_t *p = (uint8_t *)rte_pktmbuf_append(segs[s], (uint16_t)n);
		for (size_t done = 0; done < n;) {
			const size_t left = j->in[k].len - at;
			const size_t c = left < n - done ? left : n - done;
			memcpy(p + done, j->in[k].p + at, c);
			done += c;
			at += c;
			if (at == j->in[k].len) {
				k++;
				at = 0;
			}
		}
		if (s && rte_pktmbuf_chain(segs[0], segs[s])) {
			for (unsigned t = s; t < nseg; t++)
				rte_pktmbuf_free(segs[t]);
			rte_pktmbuf_free(segs[0]);
			return NULL;
		}
	}
	return segs[0];
}

static void chain_copy_out(const struct rte_mbuf *m, size_t off, uint8_t *out, size_t len)
{
	for (; m && len; m = m->next) {
		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		const size_t c = m->data_len - off < len ? m->data_len - off : len;
		memcpy(out, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), c);
		out += c;
		len -= c;
		off = 0;
	}
}

static void chain_wipe(struct rte_mbuf *m)
{
	for (; m; m = m->next)
		ualg_wipe(rte_pktmbuf_mtod(m, void *), m->data_len);
}

/* Enqueues one operation and polls for it, at most DPDK_OP_TIMEOUT_MS.
 * 0, -EBADMSG (tag mismatch), -EINVAL (the device refused the request),
 * -ENOMEM (pools short) or -EIO (the device failed). */
static int run_job(struct dev *d, const struct job *j)
{
	size_t total = 0;
	for (unsigned i = 0; i < j->nin; i++)
		total += j->in[i].len;
	if (total > d->max_op || (j->kind == JOB_AEAD && j->aadlen > SCRATCH_SIZE - 64))
		return -EINVAL;
	if (atomic_load(&d->failed))
		return -EIO;
	pthread_mutex_lock(&d->lock);
	struct rte_crypto_op *op = rte_crypto_op_alloc(d->op_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC);
	struct rte_mbuf *m = op ? chain_fill(d, j, total) : NULL;
	int r = -ENOMEM;
	if (!m)
		goto out;
	struct rte_crypto_sym_op *sym = op->sym;
	sym->m_src = m;
	sym->m_dst = NULL;
	if (j->ivlen)
		memcpy(rte_crypto_op_ctod_offset(op, uint8_t *, IV_OFF), j->iv, j->ivlen);
	uint8_t *dig = d->scratch;
	const rte_iova_t dig_iova = d->scratch_iova;
	if (j->verify)
		memcpy(dig, j->digest, j->digestlen);
	switch (j->kind) {
	case JOB_CIPHER:
		sym->cipher.data.offset = j->data_off;
		sym->cipher.data.length = j->data_len;
		break;
	case JOB_AUTH:
		sym->auth.data.offset = j->data_off;
		sym->auth.data.length = j->data_len;
		sym->auth.digest.data = dig;
		sym->auth.digest.phys_addr = dig_iova;
		break;
	case JOB_AEAD:
		memcpy(d->scratch + 64, j->aad, j->aadlen);
		sym->aead.data.offset = j->data_off;
		sym->aead.data.length = j->data_len;
		sym->aead.digest.data = dig;
		sym->aead.digest.phys_addr = dig_iova;
		sym->aead.aad.data = d->scratch + 64;
		sym->aead.aad.phys_addr = d->scratch_iova + 64;
		break;
	}
	rte_crypto_op_attach_sym_session(op, j->sess);
	const uint64_t deadline = now_ms() + DPDK_OP_TIMEOUT_MS;
	struct rte_crypto_op *done = NULL;
	bool queued = false;
	r = -EIO;
	do {
		if (!queued)
			queued = rte_cryptodev_enqueue_burst(d->id, 0, &op, 1) == 1;
		if (queued && rte_cryptodev_dequeue_burst(d->id, 0, &done, 1) == 1)
			break;
		done = NULL;
	} while (now_ms() < deadline);
	if (!done) {
		/* The device may still write them: they stay its. */
		pthread_mutex_unlock(&d->lock);
		device_failed(d);
		return -EIO;
	}
	switch (done->status) {
	case RTE_CRYPTO_OP_STATUS_SUCCESS:
		r = 0;
		break;
	case RTE_CRYPTO_OP_STATUS_AUTH_FAILED:
		r = -EBADMSG;
		break;
	default:
		r = -EINVAL;
		break;
	}
	if (!r && j->out_len)
		chain_copy_out(m, j->out_off, j->out, j->out_len);
	if (!r && !j->verify && j->digestlen)
		memcpy(j->digest, dig, j->digestlen);
out:
	if (m)
		chain_wipe(m);
	ualg_wipe(d->scratch, j->kind == JOB_AEAD ? 64 + j->aadlen : 64);
	chain_free(m);
	if (op)
		rte_crypto_op_free(op);
	pthread_mutex_unlock(&d->lock);
	return r;
}

/* ---- algorithms ------------------------------------------------------------ */

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

static const struct desc descs[] = {
	{ "ecb(aes)", "ecb-aes", K_CIPHER, RTE_CRYPTO_CIPHER_AES_ECB, M_ECB, 16, 0, 0, { 16, 24, 32 }, NULL },
	{ "cbc(aes)", "cbc-aes", K_CIPHER, RTE_CRYPTO_CIPHER_AES_CBC, M_CBC, 16, 16, 0, { 16, 24, 32 }, NULL },
	{ "ctr(aes)", "ctr-aes", K_CIPHER, RTE_CRYPTO_CIPHER_AES_CTR, M_CTR, 1, 16, 0, { 16, 24, 32 }, NULL },
	{ "xts(aes)", "xts-aes", K_CIPHER, RTE_CRYPTO_CIPHER_AES_XTS, M_XTS, 16, 16, 0, { 32, 64 }, NULL },
	{ "gcm(aes)", "gcm-aes", K_AEAD, RTE_CRYPTO_AEAD_AES_GCM, M_NONE, 1, 12, 16, { 16, 24, 32 }, NULL },
	{ "rfc7539(chacha20,poly1305)", "rfc7539-chacha20-poly1305", K_AEAD,
	  RTE_CRYPTO_AEAD_CHACHA20_POLY1305, M_NONE, 1, 12, 16, { 32 }, NULL },
	{ "sha1", "sha1", K_HASH, RTE_CRYPTO_AUTH_SHA1, M_NONE, 64, 0, 20, { 0 }, NULL },
	{ "sha224", "sha224", K_HASH, RTE_CRYPTO_AUTH_SHA224, M_NONE, 64, 0, 28, { 0 }, NULL },
	{ "sha256", "sha256", K_HASH, RTE_CRYPTO_AUTH_SHA256, M_NONE, 64, 0, 32, { 0 }, NULL },
	{ "sha384", "sha384", K_HASH, RTE_CRYPTO_AUTH_SHA384, M_NONE, 128, 0, 48, { 0 }, NULL },
	{ "sha512", "sha512", K_HASH, RTE_CRYPTO_AUTH_SHA512, M_NONE, 128, 0, 64, { 0 }, NULL },
	{ "hmac(sha1)", "hmac-sha1", K_HMAC, RTE_CRYPTO_AUTH_SHA1_HMAC, M_NONE, 64, 0, 20, { 0 }, "SHA1" },
	{ "hmac(sha224)", "hmac-sha224", K_HMAC, RTE_CRYPTO_AUTH_SHA224_HMAC, M_NONE, 64, 0, 28, { 0 }, "SHA224" },
	{ "hmac(sha256)", "hmac-sha256", K_HMAC, RTE_CRYPTO_AUTH_SHA256_HMAC, M_NONE, 64, 0, 32, { 0 }, "SHA256" },
	{ "hmac(sha384)", "hmac-sha384", K_HMAC, RTE_CRYPTO_AUTH_SHA384_HMAC, M_NONE, 128, 0, 48, { 0 }, "SHA384" },
	{ "hmac(sha512)", "hmac-sha512", K_HMAC, RTE_CRYPTO_AUTH_SHA512_HMAC, M_NONE, 128, 0, 64, { 0 }, "SHA512" },
};

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

static const struct priv *priv_of(const struct ualg_tfm *tfm)
{
	return tfm->alg->priv;
}

static void sess_drop(struct ualg_tfm *tfm)
{
	struct ctx *c = tfm->ctx;
	for (int i = 0; i < 2; i++)
		if (c->sess[i]) {
			rte_cryptodev_sym_session_free(priv_of(tfm)->dev->id, c->sess[i]);
			c->sess[i] = NULL;
		}
}

static int init_tfm(struct ualg_tfm *tfm)
{
	check_failed();
	return atomic_load(&priv_of(tfm)->dev->failed) ? -EIO : 0;
}

static void exit_tfm(struct ualg_tfm *tfm)
{
	sess_drop(tfm);
}

/* The session for direction enc, made now if need be. */
static void *session(struct ualg_tfm *tfm, bool enc, unsigned aadlen)
{
	const struct priv *p = priv_of(tfm);
	const struct desc *ds = p->desc;
	struct ctx *c = tfm->ctx;
	const int i = enc;

	if (c->sess[i] && (ds->kind != K_AEAD || (c->sess_aad[i] == aadlen && c->sess_auth[i] == tfm->authsize)))
		return c->sess[i];
	if (c->sess[i]) {
		rte_cryptodev_sym_session_free(p->dev->id, c->sess[i]);
		c->sess[i] = NULL;
	}
	struct rte_crypto_sym_xform x;
	memset(&x, 0, sizeof(x));
	switch (ds->kind) {
	case K_CIPHER:
		x.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
		x.cipher.op = enc ? RTE_CRYPTO_CIPHER_OP_ENCRYPT : RTE_CRYPTO_CIPHER_OP_DECRYPT;
		x.cipher.algo = (enum rte_crypto_cipher_algorithm)ds->algo;
		x.cipher.key.data = c->key;
		x.cipher.key.length = (uint16_t)c->keylen;
		x.cipher.iv.offset = IV_OFF;
		x.cipher.iv.length = (uint16_t)ds->ivsize;
		break;
	case K_HASH:
	case K_HMAC:
		x.type = RTE_CRYPTO_SYM_XFORM_AUTH;
		x.auth.op = RTE_CRYPTO_AUTH_OP_GENERATE;
		x.auth.algo = (enum rte_crypto_auth_algorithm)ds->algo;
		x.auth.key.data = ds->kind == K_HMAC ? c->key : NULL;
		x.auth.key.length = ds->kind == K_HMAC ? (uint16_t)c->keylen : 0;
		x.auth.digest_length = (uint16_t)ds->digestsize;
		break;
	case K_AEAD:
		x.type = RTE_CRYPTO_SYM_XFORM_AEAD;
		x.aead.op = enc ? RTE_CRYPTO_AEAD_OP_ENCRYPT : RTE_CRYPTO_AEAD_OP_DECRYPT;
		x.aead.algo = (enum rte_crypto_aead_algorithm)ds->algo;
		x.aead.key.data = c->key;
		x.aead.key.length = (uint16_t)c->keylen;
		x.aead.iv.offset = IV_OFF;
		x.aead.iv.length = (uint16_t)ds->ivsize;
		x.aead.digest_length = (uint16_t)tfm->authsize;
		x.aead.aad_length = (uint16_t)aadlen;
		break;
	}
	c->sess[i] = rte_cryptodev_sym_session_create(p->dev->id, &x, p->dev->sess_pool);
	c->sess_aad[i] = aadlen;
	c->sess_auth[i] = tfm->authsize;
	return c->sess[i];
}

static bool key_ok(const struct desc *ds, size_t len)
{
	for (unsigned i = 0; i < 3; i++)
		if (ds->keys[i] && ds->keys[i] == len)
			return true;
	return false;
}

static int key_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct ctx *c = tfm->ctx;

	if (!key_ok(priv_of(tfm)->desc, len))
		return -EINVAL;
	sess_drop(tfm);
	ualg_wipe(c->key, sizeof(c->key));
	memcpy(c->key, key, len);
	c->keylen = (unsigned)len;
	return 0;
}

/* HMAC's key made a block long, as HMAC itself does (hashed when longer,
 * zero-padded when shorter): the device then needs one key length. */
static int hmac_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct desc *ds = priv_of(tfm)->desc;
	struct ctx *c = tfm->ctx;
	uint8_t k[KEY_MAX];
	unsigned klen = 0;

	memset(k, 0, sizeof(k));
	if (len > ds->blocksize) {
		const EVP_MD *md = EVP_get_digestbyname(ds->md);
		if (!md || !EVP_Digest(key, len, k, &klen, md, NULL)) {
			explicit_bzero(k, sizeof(k));
			return -ENOMEM;
		}
	} else {
		memcpy(k, key, len);
	}
	sess_drop(tfm);
	ualg_wipe(c->key, sizeof(c->key));
	memcpy(c->key, k, ds->blocksize);
	c->keylen = ds->blocksize;
	explicit_bzero(k, sizeof(k));
	return 0;
}

/* ---- skcipher ---------------------------------------------------------------- */

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

	check_failed();
	if (ds->mode == M_XTS && (len < 16 || len > p->dev->max_op))
		return -EINVAL;
	if ((ds->mode == M_ECB || ds->mode == M_CBC) && len % 16)
		return -EINVAL;
	void *sess = session(tfm, enc, 0);
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
		int r = run_job(p->dev, &j);
		if (!r)
			r = next_iv(tfm, enc, iv, dst + at, n, before);
		if (r)
			return r;
		at += n;
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

/* ---- hashes ------------------------------------------------------------------- */

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

	check_failed();
	void *sess = session(tfm, true, 0);
	if (!sess)
		return -ENOMEM;
	struct job j = {
		.kind = JOB_AUTH, .sess = sess, .in = { { h->buf, h->len } }, .nin = 1,
		.data_off = 0, .data_len = (uint32_t)h->len,
		.digest = out, .digestlen = p->desc->digestsize,
	};
	int r = run_job(p->dev, &j);
	h_exit(desc);
	return r;
}

static int h_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	const struct hstate *s = src->state;
	struct hstate *d = dst->state;

	memset(d, 0, sizeof(*d));
	return s->len ? h_update(dst, s->buf, s->len) : 0;
}

/* ---- AEAD ------------------------------------------------------------------------ */

static int aead_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	if (priv_of(tfm)->desc->algo == RTE_CRYPTO_AEAD_AES_GCM)
		return authsize == 4 || authsize == 8 || (authsize >= 12 && authsize <= 16) ? 0 : -EINVAL;
	return authsize == 16 ? 0 : -EINVAL;
}

static int aead_crypt(struct ualg_tfm *tfm, bool enc, const struct ualg_aead_req *req)
{
	const struct priv *p = priv_of(tfm);
	const unsigned as = tfm->authsize;

	check_failed();
	if (!enc && req->cryptlen < as)
		return -EINVAL;
	const size_t textlen = enc ? req->cryptlen : req->cryptlen - as;
	if (req->assoclen > SCRATCH_SIZE - 64 || textlen > UINT32_MAX)
		return -EINVAL;
	void *sess = session(tfm, enc, (unsigned)req->assoclen);
	if (!sess)
		return -ENOMEM;
	uint8_t tag[16];
	if (!enc)
		memcpy(tag, req->text + textlen, as);
	/* Nothing to decrypt nor authenticate: the tag is made as in
	 * encryption and compared here, not left to the device's check of
	 * an empty operation. */
	if (!enc && !textlen && !req->assoclen) {
		uint8_t made[16];
		const struct ualg_aead_req e = { .aad = req->aad, .text = made, .iv = req->iv };
		int r = aead_crypt(tfm, true, &e);
		if (!r && ualg_memneq(made, tag, as))
			r = -EBADMSG;
		explicit_bzero(made, sizeof(made));
		return r;
	}
	struct job j = {
		.kind = JOB_AEAD, .sess = sess, .iv = req->iv, .ivlen = p->desc->ivsize,
		.in = { { req->text, textlen } }, .nin = 1, .data_off = 0, .data_len = (uint32_t)textlen,
		.aad = req->aad, .aadlen = (unsigned)req->assoclen,
		.digest = enc ? req->text + textlen : tag, .digestlen = as, .verify = !enc,
		.out = req->text, .out_off = 0, .out_len = textlen,
	};
	return run_job(p->dev, &j);
}

static int aead_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return aead_crypt(tfm, true, req);
}

static int aead_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return aead_crypt(tfm, false, req);
}

/* ---- registration ---------------------------------------------------------- */

/* Whether the device does everything the kernel's name promises. */
static bool dev_has(const struct dev *d, const struct desc *ds)
{
	struct rte_cryptodev_sym_capability_idx idx;
	memset(&idx, 0, sizeof(idx));
	switch (ds->kind) {
	case K_CIPHER:
		idx.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
		idx.algo.cipher = (enum rte_crypto_cipher_algorithm)ds->algo;
		break;
	case K_HASH:
	case K_HMAC:
		idx.type = RTE_CRYPTO_SYM_XFORM_AUTH;
		idx.algo.auth = (enum rte_crypto_auth_algorithm)ds->algo;
		break;
	case K_AEAD:
		idx.type = RTE_CRYPTO_SYM_XFORM_AEAD;
		idx.algo.aead = (enum rte_crypto_aead_algorithm)ds->algo;
		break;
	}
	const struct rte_cryptodev_symmetric_capability *cap = rte_cryptodev_sym_capability_get(d->id, &idx);
	if (!cap)
		return false;
	switch (ds->kind) {
	case K_CIPHER:
		for (unsigned i = 0; i < 3 && ds->keys[i]; i++)
			if (rte_cryptodev_sym_capability_check_cipher(cap, (uint16_t)ds->keys[i], (uint16_t)ds->ivsize))
				return false;
		return true;
	case K_HASH:
		return !rte_cryptodev_sym_capability_check_auth(cap, 0, (uint16_t)ds->digestsize, 0);
	case K_HMAC:
		return !rte_cryptodev_sym_capability_check_auth(cap, (uint16_t)ds->blocksize,
								 (uint16_t)ds->digestsize, 0);
	case K_AEAD:
		for (unsigned i = 0; i < 3 && ds->keys[i]; i++)
			if (rte_cryptodev_sym_capability_check_aead(cap, (uint16_t)ds->keys[i], 16, 0,
								    (uint16_t)ds->ivsize))
				return false;
		/* gcm: every tag length crypto_gcm_check_authsize() takes */
		for (unsigned as = 4; ds->algo == RTE_CRYPTO_AEAD_AES_GCM && as <= 16; as++)
			if ((as == 4 || as == 8 || as >= 12) &&
			    rte_cryptodev_sym_capability_check_aead(cap, 16, (uint16_t)as, 0,
								    (uint16_t)ds->ivsize))
				return false;
		return true;
	}
	return false;
}

static void alg_destroy(struct ualg_alg *a)
{
	free((void *)a->priv);
	free(a);
}

static int register_alg(struct dev *d, const struct desc *ds, int prio)
{
	struct ualg_alg *a = calloc(1, sizeof(*a));
	struct priv *p = calloc(1, sizeof(*p));
	if (!a || !p) {
		free(a);
		free(p);
		return -ENOMEM;
	}
	p->dev = d;
	p->desc = ds;
	snprintf(a->name, sizeof(a->name), "%s", ds->name);
	snprintf(a->driver, sizeof(a->driver), "%s-dpdk-%s", ds->driver, d->name);
	a->module = MODULE;
	a->priority = prio;
	a->priv = p;
	a->blocksize = ds->blocksize;
	a->ctxsize = sizeof(struct ctx);
	a->init_tfm = init_tfm;
	a->exit_tfm = exit_tfm;
	a->destroy = alg_destroy;
	switch (ds->kind) {
	case K_CIPHER:
		a->type = UALG_ALG_SKCIPHER;
		a->u.skcipher = (struct ualg_skcipher_ops){
			.min_keysize = ds->keys[0], .max_keysize = ds->keys[ds->keys[2] ? 2 : 1],
			.ivsize = ds->ivsize, .chunksize = ds->mode == M_CTR ? 16 : ds->blocksize,
			.setkey = key_setkey, .encrypt = sk_encrypt, .decrypt = sk_decrypt,
		};
		break;
	case K_HASH:
	case K_HMAC:
		a->type = UALG_ALG_SHASH;
		a->u.shash = (struct ualg_shash_ops){
			.digestsize = ds->digestsize, .descsize = sizeof(struct hstate),
			.setkey = ds->kind == K_HMAC ? hmac_setkey : NULL,
			.init = h_init, .update = h_update, .final = h_final, .clone = h_clone, .exit = h_exit,
		};
		break;
	case K_AEAD:
		a->type = UALG_ALG_AEAD;
		a->u.aead = (struct ualg_aead_ops){
			.ivsize = ds->ivsize, .maxauthsize = ds->digestsize,
			.setkey = key_setkey, .setauthsize = aead_setauthsize,
			.encrypt = aead_encrypt, .decrypt = aead_decrypt,
		};
		break;
	}
	int r = ualg_register(a);
	if (r) {
		alg_destroy(a);
		return r;
	}
	if (a->selftest != UALG_SELFTEST_PASSED)
		algd_log(LOG_WARNING, "dpdk: %s (%s) failed its self-test", a->name, a->driver);
	d->algs[d->nalgs++] = a;
	return 0;
}

/* Configures and starts device id: one queue pair, its pools. */
static int dev_setup(struct dev *d)
{
	struct rte_cryptodev_info info;
	char pname[RTE_MEMPOOL_NAMESIZE];
	const int socket = rte_cryptodev_socket_id(d->id);

	rte_cryptodev_info_get(d->id, &info);
	d->sgl = info.feature_flags & RTE_CRYPTODEV_FF_IN_PLACE_SGL;
	d->max_op = d->sgl ? (size_t)SEG_DATA * MAX_SEGS : SEG_DATA;
	struct rte_cryptodev_config conf = { .socket_id = socket, .nb_queue_pairs = 1 };
	if (rte_cryptodev_configure(d->id, &conf))
		return -1;
	snprintf(pname, sizeof(pname), "ualg_s%u", d->id);
	d->sess_pool = rte_cryptodev_sym_session_pool_create(pname, NB_SESSIONS,
		rte_cryptodev_sym_get_private_session_size(d->id), 0, 0, socket);
	snprintf(pname, sizeof(pname), "ualg_o%u", d->id);
	d->op_pool = rte_crypto_op_pool_create(pname, RTE_CRYPTO_OP_TYPE_SYMMETRIC, NB_OPS, 0,
					       UALG_MAX_IVSIZE, socket);
	snprintf(pname, sizeof(pname), "ualg_m%u", d->id);
	d->mbuf_pool = rte_pktmbuf_pool_create(pname, NB_MBUFS, 0, 0,
					       SEG_DATA + RTE_PKTMBUF_HEADROOM, socket);
	d->scratch = rte_zmalloc_socket("ualg_scratch", SCRATCH_SIZE, 64, socket);
	if (!d->sess_pool || !d->op_pool || !d->mbuf_pool || !d->scratch)
		return -1;
	d->scratch_iova = rte_malloc_virt2iova(d->scratch);
	struct rte_cryptodev_qp_conf qp = { .nb_descriptors = NB_DESC, .mp_session = d->sess_pool };
	if (rte_cryptodev_queue_pair_setup(d->id, 0, &qp, socket) || rte_cryptodev_start(d->id))
		return -1;
	return (info.feature_flags & RTE_CRYPTODEV_FF_HW_ACCELERATED) ? PRIO_HW : PRIO_SW;
}

/* Splits the EAL arguments and adds algd's own: no telemetry socket and
 * no multi-process channel (threads that would serve sockets past the
 * sandbox), and one lcore, the first CPU algd may run on, unless the
 * arguments choose. */
#define EAL_ARGS_MAX 64

static int eal_args(const char *args, char *buf, size_t size, char **argv, const cpu_set_t *cpus,
		    char *lcore, size_t lsize)
{
	int argc = 0;
	bool cores = false;

	snprintf(buf, size, "%s", args);
	argv[argc++] = "algd";
	for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (argc >= EAL_ARGS_MAX - 6)
			return -1;
		cores |= !strcmp(t, "-l") || !strcmp(t, "-c") || !strncmp(t, "--lcores", 8);
		argv[argc++] = t;
	}
	argv[argc++] = "--no-telemetry";
	argv[argc++] = "--no-shconf";
	if (!cores) {
		int cpu = 0;
		while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, cpus))
			cpu++;
		snprintf(lcore, lsize, "%d", cpu < CPU_SETSIZE ? cpu : 0);
		argv[argc++] = "-l";
		argv[argc++] = lcore;
	}
	argv[argc] = NULL;
	return argc;
}

static bool wanted(const struct algd_config *cfg, const char *name, int *prio)
{
	if (!cfg->n_dpdk_devices)
		return true;
	for (unsigned i = 0; i < cfg->n_dpdk_devices; i++)
		if (!strcmp(cfg->dpdk_devices[i].name, name)) {
			if (cfg->dpdk_devices[i].priority >= 0)
				*prio = cfg->dpdk_devices[i].priority;
			return true;
		}
	return false;
}

void algd_dpdk_start(const struct algd_config *cfg)
{
	static char buf[CONFIG_DPDK_EAL_MAX];
	static char *argv[EAL_ARGS_MAX];
	static char lcore[16];
	cpu_set_t cpus;

	if (!cfg->dpdk_eal[0])
		return;
	registry_thread = pthread_self();
	/* EAL pins the calling thread to its main lcore: algd's threads keep
	 * the CPUs they had. */
	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		CPU_ZERO(&cpus);
	int argc = eal_args(cfg->dpdk_eal, buf, sizeof(buf), argv, &cpus, lcore, sizeof(lcore));
	if (argc < 0) {
		algd_log(LOG_ERR, "dpdk: too many EAL arguments; starting without DPDK's devices");
		return;
	}
	const int eal = rte_eal_init(argc, argv);
	if (CPU_COUNT(&cpus))
		sched_setaffinity(0, sizeof(cpus), &cpus);
	if (eal < 0) {
		algd_log(LOG_ERR, "dpdk: EAL did not start: %s; starting without DPDK's devices",
			 rte_strerror(rte_errno));
		return;
	}
	const uint8_t n = rte_cryptodev_count();
	for (uint8_t id = 0; id < n && ndevs < MAX_DEVS; id++) {
		const char *name = rte_cryptodev_name_get(id);
		int prio = -1;
		if (!name || !wanted(cfg, name, &prio))
			continue;
		struct dev *d = &devs[ndevs];
		d->id = id;
		snprintf(d->name, sizeof(d->name), "%s", name);
		for (char *s = d->name; *s; s++)
			if (!(*s == '_' || *s == '-' || *s == '.' || *s == ':' ||
			      (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
				*s = '_';
		pthread_mutex_init(&d->lock, NULL);
		const int kind_prio = dev_setup(d);
		if (kind_prio < 0) {
			algd_log(LOG_ERR, "dpdk: device %s did not start: %s", d->name, rte_strerror(rte_errno));
			continue;
		}
		ndevs++;
		if (prio < 0)
			prio = kind_prio;
		unsigned count = 0;
		for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]) && d->nalgs < MAX_ALGS_PER_DEV; i++)
			if (dev_has(d, &descs[i]) && !register_alg(d, &descs[i], prio))
				count++;
		algd_log(LOG_NOTICE, "dpdk: device %s: %u drivers at priority %d", d->name, count, prio);
	}
	for (unsigned i = 0; i < cfg->n_dpdk_devices; i++) {
		bool found = false;
		for (unsigned k = 0; k < ndevs; k++)
			found |= !strcmp(devs[k].name, cfg->dpdk_devices[i].name);
		if (!found)
			algd_log(LOG_WARNING, "dpdk: no device %s", cfg->dpdk_devices[i].name);
	}
}
