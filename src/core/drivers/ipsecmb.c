/* intel-ipsec-mb drivers: sha1/sha224/sha256/sha384/sha512 and their hmac,
 * cbc(aes) and gcm(aes), through the library's job manager.
 *
 * The job manager's worth is multi-buffer: it runs up to 8 or 16
 * independent messages of one kind in the lanes of the vector unit.  A
 * single request, submitted and flushed at once, uses one lane and is
 * slower than OpenSSL, so these drivers sit below OpenSSL's priority and
 * are chosen by driver name ("sha256-ipsecmb"); the ring batches their
 * requests through the many-request operations (crypto.h).
 *
 * One IMB_MGR per thread (the registry's, each ring worker's): a manager
 * holds the jobs in flight and is not thread-safe, while a transform is
 * used by one thread at a time but may move between threads.  Each call
 * drains the manager before returning, so no job outlives its request.
 *
 * Hashes are one-shot in the library.  A descriptor buffers what it is
 * given and hashes it at final; past UALG_IPSECMB_BUFFER bytes it moves to
 * the OpenSSL driver of the same name, so a long AF_ALG stream costs no
 * more memory than that, and the library's length limit is never hit. */
#include "openssl.h"
#include "others.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-ipsec-mb.h>

#define MODULE "ipsecmb"
/* intel-ipsec-mb 1.3 refuses (IMB_ERR_JOB_AUTH_LEN) hashes of 65535 bytes
 * or more, HMAC of an empty message, and CBC encryption of 65536 bytes or
 * more (IMB_ERR_JOB_CIPH_LEN); such requests go to OpenSSL or in chunks. */
#define UALG_IPSECMB_BUFFER (32u * 1024u)
#define CBC_CHUNK (32u * 1024u)
/* Between Nettle's and OpenSSL's drivers of each kind (nettle.h, openssl.h):
 * faster than Nettle, slower than OpenSSL one request at a time. */
#define UALG_IPSECMB_PRIO_PRIMITIVE 250
#define UALG_IPSECMB_PRIO_WHOLE 375

/* ---- the thread's job manager ------------------------------------------ */

static pthread_key_t mgr_key;
static pthread_once_t mgr_once = PTHREAD_ONCE_INIT;
static int mgr_key_err;

static void mgr_free(void *m)
{
	free_mb_mgr(m);
}

static void mgr_key_make(void)
{
	mgr_key_err = pthread_key_create(&mgr_key, mgr_free);
}

/* What the drivers need: AES-NI and PCLMULQDQ at least (the library would
 * otherwise fall back to its slow software AES), and an SSE or better
 * code path. */
static bool mgr_usable(const IMB_MGR *m)
{
	const uint64_t need = IMB_FEATURE_AESNI | IMB_FEATURE_PCLMULQDQ;

	return m->used_arch >= IMB_ARCH_SSE && (m->features & need) == need;
}

static IMB_MGR *thread_mgr(void)
{
	pthread_once(&mgr_once, mgr_key_make);
	if (mgr_key_err)
		return NULL;
	IMB_MGR *m = pthread_getspecific(mgr_key);
	if (m)
		return m;
	m = alloc_mb_mgr(0);
	if (!m)
		return NULL;
	init_mb_mgr_auto(m, NULL);
	if (imb_get_errno(m) || !mgr_usable(m) || pthread_setspecific(mgr_key, m)) {
		free_mb_mgr(m);
		return NULL;
	}
	return m;
}

/* One request of a batch: fill() sets up its job, done() sees the result. */
struct job_ops {
	void (*fill)(IMB_JOB *job, const void *arg, unsigned i);
	void (*done)(const IMB_JOB *job, const void *arg, unsigned i);
};

static void job_complete(const struct job_ops *ops, const IMB_JOB *j, const void *arg, int *res)
{
	const unsigned i = (unsigned)(uintptr_t)j->user_data;

	res[i] = j->status == IMB_STATUS_COMPLETED ? 0 : -EINVAL;
	if (ops->done)
		ops->done(j, arg, i);
}

/* Submits n jobs, then flushes: the library runs them in parallel lanes.
 * res[i] gets each one's 0 or -errno. */
static int run_jobs(const struct job_ops *ops, const void *arg, unsigned n, int *res)
{
	IMB_MGR *m = thread_mgr();

	if (!m)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		IMB_JOB *j = IMB_GET_NEXT_JOB(m);
		memset(j, 0, sizeof(*j));
		ops->fill(j, arg, i);
		j->user_data = (void *)(uintptr_t)i;
		for (j = IMB_SUBMIT_JOB(m); j; j = IMB_GET_COMPLETED_JOB(m))
			job_complete(ops, j, arg, res);
	}
	for (IMB_JOB *j; (j = IMB_FLUSH_JOB(m));)
		job_complete(ops, j, arg, res);
	return 0;
}

static int run_one_job(const struct job_ops *ops, const void *arg)
{
	int res = -EINVAL;
	int r = run_jobs(ops, arg, 1, &res);

	return r ? r : res;
}

/* The library reads through pointers even for empty inputs. */
static const uint8_t empty[16];

static struct ualg_alg *mb_alloc(const char *name, const char *driver, enum ualg_alg_type type, int prio)
{
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, type, prio);

	if (a)
		a->module = MODULE;
	return a;
}

/* ---- sha and hmac --------------------------------------------------------- */

struct mb_hash {
	const char *name;
	IMB_HASH_ALG plain, hmac;
	unsigned digestsize, blocksize;
};

static const struct mb_hash hashes[] = {
	{ "sha1", IMB_AUTH_SHA_1, IMB_AUTH_HMAC_SHA_1, 20, 64 },
	{ "sha224", IMB_AUTH_SHA_224, IMB_AUTH_HMAC_SHA_224, 28, 64 },
	{ "sha256", IMB_AUTH_SHA_256, IMB_AUTH_HMAC_SHA_256, 32, 64 },
	{ "sha384", IMB_AUTH_SHA_384, IMB_AUTH_HMAC_SHA_384, 48, 128 },
	{ "sha512", IMB_AUTH_SHA_512, IMB_AUTH_HMAC_SHA_512, 64, 128 },
};

struct hash_priv {
	const struct mb_hash *h;
	bool hmac;
	char fallback[UALG_MAX_ALG_NAME];	/* the OpenSSL driver */
};

static struct hash_priv hash_privs[2 * sizeof(hashes) / sizeof(hashes[0])];

struct hash_ctx {
	uint8_t ipad[64], opad[64];	/* hmac: the states after key ^ pad */
	struct ualg_tfm *fallback;
};

struct hash_state {
	uint8_t *buf;
	size_t len, cap;
	bool streaming;			/* past the buffer: fb has it all */
	struct ualg_hash_desc fb;
};

static const struct hash_priv *hash_priv_of(const struct ualg_tfm *tfm)
{
	return tfm->alg->priv;
}

/* The library's one-block compression and whole-message hash, by index. */
static void hash_one_block(IMB_MGR *m, const struct mb_hash *h, const void *in, void *out)
{
	switch (h->plain) {
	case IMB_AUTH_SHA_1: IMB_SHA1_ONE_BLOCK(m, in, out); break;
	case IMB_AUTH_SHA_224: IMB_SHA224_ONE_BLOCK(m, in, out); break;
	case IMB_AUTH_SHA_256: IMB_SHA256_ONE_BLOCK(m, in, out); break;
	case IMB_AUTH_SHA_384: IMB_SHA384_ONE_BLOCK(m, in, out); break;
	default: IMB_SHA512_ONE_BLOCK(m, in, out); break;
	}
}

static void hash_whole(IMB_MGR *m, const struct mb_hash *h, const void *in, size_t len, void *out)
{
	switch (h->plain) {
	case IMB_AUTH_SHA_1: IMB_SHA1(m, in, len, out); break;
	case IMB_AUTH_SHA_224: IMB_SHA224(m, in, len, out); break;
	case IMB_AUTH_SHA_256: IMB_SHA256(m, in, len, out); break;
	case IMB_AUTH_SHA_384: IMB_SHA384(m, in, len, out); break;
	default: IMB_SHA512(m, in, len, out); break;
	}
}

static int hash_init_tfm(struct ualg_tfm *tfm)
{
	struct hash_ctx *c = tfm->ctx;
	int err = 0;
	struct ualg_alg *alg = ualg_alg_lookup(UALG_ALG_SHASH, hash_priv_of(tfm)->fallback, &err);

	if (!alg)
		return -err;
	c->fallback = ualg_tfm_new(alg, &err);
	ualg_alg_put(alg);
	return c->fallback ? 0 : -err;
}

static void hash_exit_tfm(struct ualg_tfm *tfm)
{
	struct hash_ctx *c = tfm->ctx;

	ualg_tfm_free(c->fallback);
}

/* RFC 2104: a key longer than a block is hashed first; the padded key
 * xor ipad and opad, one block each, give the inner and outer states. */
static int hmac_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct mb_hash *h = hash_priv_of(tfm)->h;
	struct hash_ctx *c = tfm->ctx;
	uint8_t block[128] = { 0 }, pad[128];
	IMB_MGR *m = thread_mgr();

	if (!m)
		return -ENOMEM;
	int r = ualg_tfm_setkey(c->fallback, key, len);
	if (r)
		return r;
	if (len > h->blocksize)
		hash_whole(m, h, key, len, block);
	else
		memcpy(block, key, len);
	for (unsigned i = 0; i < h->blocksize; i++)
		pad[i] = block[i] ^ 0x36;
	hash_one_block(m, h, pad, c->ipad);
	for (unsigned i = 0; i < h->blocksize; i++)
		pad[i] = block[i] ^ 0x5c;
	hash_one_block(m, h, pad, c->opad);
	ualg_wipe(block, sizeof(block));
	ualg_wipe(pad, sizeof(pad));
	return 0;
}

/* Many one-shot digests, or the one a descriptor buffered. */
struct digest_batch {
	const struct ualg_tfm *tfm;
	const struct ualg_digest_req *reqs;
};

static void digest_fill(IMB_JOB *j, const void *arg, unsigned i)
{
	const struct digest_batch *b = arg;
	const struct hash_priv *p = hash_priv_of(b->tfm);
	const struct hash_ctx *c = b->tfm->ctx;
	const struct ualg_digest_req *q = &b->reqs[i];

	j->cipher_mode = IMB_CIPHER_NULL;
	j->chain_order = IMB_ORDER_HASH_CIPHER;
	j->cipher_direction = IMB_DIR_ENCRYPT;
	j->src = q->len ? q->data : empty;
	j->hash_start_src_offset_in_bytes = 0;
	j->msg_len_to_hash_in_bytes = q->len;
	j->auth_tag_output = q->out;
	j->auth_tag_output_len_in_bytes = p->h->digestsize;
	j->hash_alg = p->hmac ? p->h->hmac : p->h->plain;
	if (p->hmac) {
		j->u.HMAC._hashed_auth_key_xor_ipad = c->ipad;
		j->u.HMAC._hashed_auth_key_xor_opad = c->opad;
	}
}

static const struct job_ops digest_ops = { .fill = digest_fill };

static bool library_takes(const struct ualg_tfm *tfm, size_t len)
{
	return len <= UALG_IPSECMB_BUFFER && (len || !hash_priv_of(tfm)->hmac);
}

#define DIGEST_GROUP 64u

/* What the library takes goes to it in groups; the rest to OpenSSL. */
static int hash_digest_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_digest_req *reqs, int *res)
{
	const struct hash_ctx *c = tfm->ctx;
	struct ualg_digest_req group[DIGEST_GROUP];
	unsigned index[DIGEST_GROUP];
	int gres[DIGEST_GROUP];

	for (unsigned start = 0; start < n;) {
		unsigned k = 0;
		for (; start < n && k < DIGEST_GROUP; start++) {
			if (library_takes(tfm, reqs[start].len)) {
				index[k] = start;
				group[k++] = reqs[start];
			} else {
				res[start] = ualg_hash_digest(c->fallback, reqs[start].data, reqs[start].len,
							      reqs[start].out);
			}
		}
		const struct digest_batch b = { tfm, group };
		int r = k ? run_jobs(&digest_ops, &b, k, gres) : 0;
		if (r)
			return r;
		for (unsigned i = 0; i < k; i++)
			res[index[i]] = gres[i];
	}
	return 0;
}

static int hash_init(struct ualg_hash_desc *desc)
{
	struct hash_state *st = desc->state;

	st->len = 0;
	st->streaming = false;
	return 0;
}

static int buffer_append(struct hash_state *st, const uint8_t *data, size_t len)
{
	if (st->len + len > st->cap) {
		size_t cap = st->cap ? st->cap : 256;
		while (cap < st->len + len)
			cap *= 2;
		uint8_t *p = malloc(cap);
		if (!p)
			return -ENOMEM;
		if (st->len)
			memcpy(p, st->buf, st->len);
		if (st->buf) {
			ualg_wipe(st->buf, st->cap);
			free(st->buf);
		}
		st->buf = p;
		st->cap = cap;
	}
	memcpy(st->buf + st->len, data, len);
	st->len += len;
	return 0;
}

/* Moves a buffered message to the OpenSSL driver, to go on streaming. */
static int start_streaming(struct hash_state *st, struct ualg_tfm *fallback)
{
	int r = ualg_hash_init(&st->fb, fallback);

	if (!r && st->len)
		r = ualg_hash_update(&st->fb, st->buf, st->len);
	if (r)
		return r;
	st->streaming = true;
	ualg_wipe(st->buf, st->cap);
	st->len = 0;
	return 0;
}

static int hash_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct hash_state *st = desc->state;
	const struct hash_ctx *c = desc->tfm->ctx;

	if (!len)
		return 0;
	if (!st->streaming && len <= UALG_IPSECMB_BUFFER - st->len)
		return buffer_append(st, data, len);
	int r = st->streaming ? 0 : start_streaming(st, c->fallback);
	return r ? r : ualg_hash_update(&st->fb, data, len);
}

static int hash_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct hash_state *st = desc->state;

	if (st->streaming)
		return ualg_hash_final(&st->fb, out);
	const struct ualg_digest_req q = { .data = st->buf, .len = st->len, .out = out };
	int res = -EINVAL;
	int r = hash_digest_many(desc->tfm, 1, &q, &res);
	return r ? r : res;
}

static int hash_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	struct hash_state *d = dst->state;
	const struct hash_state *s = src->state;

	d->streaming = s->streaming;
	if (s->streaming)
		return ualg_hash_clone(&d->fb, &s->fb);
	d->len = 0;
	return s->len ? buffer_append(d, s->buf, s->len) : 0;
}

static void hash_exit(struct ualg_hash_desc *desc)
{
	struct hash_state *st = desc->state;

	ualg_hash_exit(&st->fb);
	if (st->buf) {
		ualg_wipe(st->buf, st->cap);
		free(st->buf);
	}
	st->buf = NULL;
	st->len = st->cap = 0;
	st->streaming = false;
}

static int register_hash(size_t i, bool hmac)
{
	const struct mb_hash *h = &hashes[i];
	struct hash_priv *p = &hash_privs[2 * i + hmac];
	char name[UALG_MAX_ALG_NAME], driver[UALG_MAX_ALG_NAME];

	snprintf(name, sizeof(name), hmac ? "hmac(%s)" : "%s", h->name);
	snprintf(driver, sizeof(driver), hmac ? "hmac-%s-ipsecmb" : "%s-ipsecmb", h->name);
	snprintf(p->fallback, sizeof(p->fallback), hmac ? "hmac-%s-openssl" : "%s-openssl", h->name);
	p->h = h;
	p->hmac = hmac;
	struct ualg_alg *a = mb_alloc(name, driver, UALG_ALG_SHASH,
				      hmac ? UALG_IPSECMB_PRIO_WHOLE : UALG_IPSECMB_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->blocksize = h->blocksize;
	a->priv = p;
	a->ctxsize = sizeof(struct hash_ctx);
	a->init_tfm = hash_init_tfm;
	a->exit_tfm = hash_exit_tfm;
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = h->digestsize,
		.descsize = sizeof(struct hash_state),
		.setkey = hmac ? hmac_setkey : NULL,
		.init = hash_init, .update = hash_update, .final = hash_final,
		.clone = hash_clone, .exit = hash_exit,
		.digest_many = hash_digest_many,
	};
	return ualg_openssl_reg(a);
}

/* ---- cbc(aes) ------------------------------------------------------------ */

struct cbc_ctx {
	uint32_t enc[60] __attribute__((aligned(16)));
	uint32_t dec[60] __attribute__((aligned(16)));
	unsigned keylen;
};

static int cbc_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct cbc_ctx *c = tfm->ctx;
	IMB_MGR *m = thread_mgr();

	if (!m)
		return -ENOMEM;
	switch (len) {
	case 16: IMB_AES_KEYEXP_128(m, key, c->enc, c->dec); break;
	case 24: IMB_AES_KEYEXP_192(m, key, c->enc, c->dec); break;
	case 32: IMB_AES_KEYEXP_256(m, key, c->enc, c->dec); break;
	default: return -EINVAL;
	}
	c->keylen = (unsigned)len;
	return 0;
}

struct cbc_req {
	const struct cbc_ctx *c;
	bool enc;
	const uint8_t *iv, *src;
	uint8_t *dst;
	size_t len;
};

static void cbc_fill(IMB_JOB *j, const void *arg, unsigned i)
{
	const struct cbc_req *q = (const struct cbc_req *)arg + i;

	j->cipher_mode = IMB_CIPHER_CBC;
	j->hash_alg = IMB_AUTH_NULL;
	j->cipher_direction = q->enc ? IMB_DIR_ENCRYPT : IMB_DIR_DECRYPT;
	j->chain_order = q->enc ? IMB_ORDER_CIPHER_HASH : IMB_ORDER_HASH_CIPHER;
	j->enc_keys = q->c->enc;
	j->dec_keys = q->c->dec;
	j->key_len_in_bytes = q->c->keylen;
	j->src = q->src;
	j->dst = q->dst;
	j->cipher_start_src_offset_in_bytes = 0;
	j->msg_len_to_cipher_in_bytes = q->len;
	j->iv = q->iv;
	j->iv_len_in_bytes = 16;
}

static const struct job_ops cbc_ops = { .fill = cbc_fill };

/* As cbc-aes-openssl: the last ciphertext block is the next IV.  Long
 * requests run as a chain of chunks, each from the last one's IV. */
static int cbc_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	uint8_t chain[16], next[16];
	int r = 0;

	if (!len)
		return 0;
	if (len % 16)
		return -EINVAL;
	memcpy(chain, iv, 16);
	for (size_t off = 0; !r && off < len; off += CBC_CHUNK) {
		const size_t n = len - off < CBC_CHUNK ? len - off : CBC_CHUNK;
		memcpy(next, src + off + n - 16, 16);	/* before in place overwrites it */
		const struct cbc_req q = { tfm->ctx, enc, chain, src + off, dst + off, n };
		r = run_one_job(&cbc_ops, &q);
		memcpy(chain, enc ? dst + off + n - 16 : next, 16);
	}
	if (!r)
		memcpy(iv, chain, 16);
	return r;
}

static int cbc_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return cbc_crypt(tfm, true, iv, src, dst, len);
}

static int cbc_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return cbc_crypt(tfm, false, iv, src, dst, len);
}

static int register_cbc(void)
{
	struct ualg_alg *a = mb_alloc("cbc(aes)", "cbc-aes-ipsecmb", UALG_ALG_SKCIPHER, UALG_IPSECMB_PRIO_WHOLE);

	if (!a)
		return -ENOMEM;
	a->blocksize = 16;
	a->ctxsize = sizeof(struct cbc_ctx);
	a->u.skcipher = (struct ualg_skcipher_ops){
		.min_keysize = 16, .max_keysize = 32, .ivsize = 16, .chunksize = 16,
		.setkey = cbc_setkey, .encrypt = cbc_encrypt, .decrypt = cbc_decrypt,
	};
	return ualg_openssl_reg(a);
}

/* ---- gcm(aes) ------------------------------------------------------------ */

/* The library wants its key data 64-byte aligned; the context is only
 * malloc-aligned, so it holds room to align within. */
struct gcm_ctx {
	uint8_t room[sizeof(struct gcm_key_data) + 64];
	unsigned keylen;
};

static struct gcm_key_data *gcm_key(const struct ualg_tfm *tfm)
{
	const struct gcm_ctx *c = tfm->ctx;
	uintptr_t p = (uintptr_t)c->room;

	return (struct gcm_key_data *)((p + 63) & ~(uintptr_t)63);
}

static int gcm_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct gcm_ctx *c = tfm->ctx;
	IMB_MGR *m = thread_mgr();

	if (!m)
		return -ENOMEM;
	switch (len) {
	case 16: IMB_AES128_GCM_PRE(m, key, gcm_key(tfm)); break;
	case 24: IMB_AES192_GCM_PRE(m, key, gcm_key(tfm)); break;
	case 32: IMB_AES256_GCM_PRE(m, key, gcm_key(tfm)); break;
	default: return -EINVAL;
	}
	c->keylen = (unsigned)len;
	return 0;
}

/* crypto_gcm_check_authsize() */
static int gcm_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	(void)tfm;
	return authsize == 4 || authsize == 8 || (authsize >= 12 && authsize <= 16) ? 0 : -EINVAL;
}

struct gcm_batch {
	const struct ualg_tfm *tfm;
	bool enc;
	const struct ualg_aead_req *reqs;
	uint8_t (*tags)[16];	/* decryption: the tags computed */
};

static void gcm_fill(IMB_JOB *j, const void *arg, unsigned i)
{
	const struct gcm_batch *b = arg;
	const struct ualg_aead_req *q = &b->reqs[i];
	const unsigned authsize = b->tfm->authsize;
	const size_t textlen = b->enc ? q->cryptlen : q->cryptlen - authsize;

	j->cipher_mode = IMB_CIPHER_GCM;
	j->hash_alg = IMB_AUTH_AES_GMAC;
	j->cipher_direction = b->enc ? IMB_DIR_ENCRYPT : IMB_DIR_DECRYPT;
	j->chain_order = b->enc ? IMB_ORDER_CIPHER_HASH : IMB_ORDER_HASH_CIPHER;
	j->enc_keys = j->dec_keys = gcm_key(b->tfm);
	j->key_len_in_bytes = ((const struct gcm_ctx *)b->tfm->ctx)->keylen;
	j->src = textlen ? q->text : empty;
	j->dst = textlen ? q->text : (uint8_t *)b->tags[i];
	j->cipher_start_src_offset_in_bytes = 0;
	j->msg_len_to_cipher_in_bytes = textlen;
	j->hash_start_src_offset_in_bytes = 0;
	j->msg_len_to_hash_in_bytes = textlen;
	j->iv = q->iv;
	j->iv_len_in_bytes = 12;
	j->u.GCM.aad = q->assoclen ? q->aad : empty;
	j->u.GCM.aad_len_in_bytes = q->assoclen;
	j->auth_tag_output = b->enc ? q->text + textlen : b->tags[i];
	j->auth_tag_output_len_in_bytes = authsize;
}

static const struct job_ops gcm_ops = { .fill = gcm_fill };

/* Decryption: the text was decrypted in place; it stands only if the tag
 * matches, as gcm-aes-openssl (which wipes it otherwise). */
static void gcm_verify(const struct gcm_batch *b, unsigned n, int *res)
{
	const unsigned authsize = b->tfm->authsize;

	for (unsigned i = 0; i < n; i++) {
		const struct ualg_aead_req *q = &b->reqs[i];
		const size_t textlen = q->cryptlen - authsize;
		if (!res[i] && ualg_memneq(b->tags[i], q->text + textlen, authsize))
			res[i] = -EBADMSG;
		if (res[i])
			ualg_wipe(q->text, textlen);
		ualg_wipe(b->tags[i], 16);
	}
}

#define GCM_BATCH_MAX 256u

static int gcm_crypt_many(struct ualg_tfm *tfm, bool enc, unsigned n, const struct ualg_aead_req *reqs, int *res)
{
	static __thread uint8_t tags[GCM_BATCH_MAX][16];
	const struct gcm_batch b = { tfm, enc, reqs, tags };

	if (n > GCM_BATCH_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		const size_t textlen = enc ? reqs[i].cryptlen : reqs[i].cryptlen - tfm->authsize;
		if ((!enc && reqs[i].cryptlen < tfm->authsize) || textlen > INT32_MAX ||
		    reqs[i].assoclen > INT32_MAX)
			return -EINVAL;
	}
	int r = run_jobs(&gcm_ops, &b, n, res);
	if (!r && !enc)
		gcm_verify(&b, n, res);
	return r;
}

static int gcm_one(struct ualg_tfm *tfm, bool enc, const struct ualg_aead_req *req)
{
	int res = -EINVAL;
	int r = gcm_crypt_many(tfm, enc, 1, req, &res);

	return r ? r : res;
}

static int gcm_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return gcm_one(tfm, true, req);
}

static int gcm_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return gcm_one(tfm, false, req);
}

static int gcm_encrypt_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_aead_req *reqs, int *res)
{
	return gcm_crypt_many(tfm, true, n, reqs, res);
}

static int register_gcm(void)
{
	struct ualg_alg *a = mb_alloc("gcm(aes)", "gcm-aes-ipsecmb", UALG_ALG_AEAD, UALG_IPSECMB_PRIO_WHOLE);

	if (!a)
		return -ENOMEM;
	a->blocksize = 1;
	a->ctxsize = sizeof(struct gcm_ctx);
	a->u.aead = (struct ualg_aead_ops){
		.ivsize = 12, .maxauthsize = 16,
		.setkey = gcm_setkey, .setauthsize = gcm_setauthsize,
		.encrypt = gcm_encrypt, .decrypt = gcm_decrypt,
		.encrypt_many = gcm_encrypt_many,
	};
	return ualg_openssl_reg(a);
}

/* ---- registration -------------------------------------------------------- */

/* Nothing is registered where the library cannot run well (no AES-NI):
 * the other drivers serve every one of these names. */
int ualg_ipsecmb_register(void)
{
	if (!thread_mgr())
		return 0;
	int r = 0;
	for (size_t i = 0; !r && i < sizeof(hashes) / sizeof(hashes[0]); i++)
		r = register_hash(i, false);
	for (size_t i = 0; !r && i < sizeof(hashes) / sizeof(hashes[0]); i++)
		r = register_hash(i, true);
	if (!r)
		r = register_cbc();
	if (!r)
		r = register_gcm();
	return r;
}
