/* intel-ipsec-mb's cbc(aes) and gcm(aes) (see ipsecmb.c for the job
 * manager). */
#include "ipsecmb.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* intel-ipsec-mb 1.3 refuses (IMB_ERR_JOB_CIPH_LEN) CBC encryption of
 * 65536 bytes or more; longer requests run in chunks. */
#define CBC_CHUNK (32u * 1024u)

/* ---- cbc(aes) ------------------------------------------------------------ */

struct cbc_ctx {
	uint32_t enc[60] __attribute__((aligned(16)));
	uint32_t dec[60] __attribute__((aligned(16)));
	unsigned keylen;
};

static int cbc_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct cbc_ctx *c = tfm->ctx;
	IMB_MGR *m = ualg_ipsecmb_thread_mgr();

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
		r = ualg_ipsecmb_run_one_job(&cbc_ops, &q);
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

int ualg_ipsecmb_register_cbc(void)
{
	struct ualg_alg *a = ualg_ipsecmb_alloc("cbc(aes)", "cbc-aes-ipsecmb", UALG_ALG_SKCIPHER, UALG_IPSECMB_PRIO_WHOLE);

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
	IMB_MGR *m = ualg_ipsecmb_thread_mgr();

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
	uint8_t *const *plain;	/* decryption out of place: each request's plaintext; NULL: in place */
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
	j->src = textlen ? q->text : ualg_ipsecmb_empty;
	j->dst = !textlen ? (uint8_t *)b->tags[i] : b->plain ? b->plain[i] : q->text;
	j->cipher_start_src_offset_in_bytes = 0;
	j->msg_len_to_cipher_in_bytes = textlen;
	j->hash_start_src_offset_in_bytes = 0;
	j->msg_len_to_hash_in_bytes = textlen;
	j->iv = q->iv;
	j->iv_len_in_bytes = 12;
	j->u.GCM.aad = q->assoclen ? q->aad : ualg_ipsecmb_empty;
	j->u.GCM.aad_len_in_bytes = q->assoclen;
	j->auth_tag_output = b->enc ? q->text + textlen : b->tags[i];
	j->auth_tag_output_len_in_bytes = authsize;
}

static const struct job_ops gcm_ops = { .fill = gcm_fill };

/* Decryption: the text stands only if the tag matches.  In place it was
 * decrypted already and is wiped otherwise, as gcm-aes-openssl does; out
 * of place the plaintext is copied to it only then. */
static void gcm_verify(const struct gcm_batch *b, unsigned n, int *res)
{
	const unsigned authsize = b->tfm->authsize;

	for (unsigned i = 0; i < n; i++) {
		const struct ualg_aead_req *q = &b->reqs[i];
		const size_t textlen = q->cryptlen - authsize;
		if (!res[i] && ualg_memneq(b->tags[i], q->text + textlen, authsize))
			res[i] = -EBADMSG;
		if (b->plain && !res[i])
			memcpy(q->text, b->plain[i], textlen);
		else if (!b->plain && res[i])
			ualg_wipe(q->text, textlen);
		ualg_wipe(b->tags[i], 16);
	}
}

#define GCM_BATCH_MAX 256u

static __thread uint8_t gcm_tags[GCM_BATCH_MAX][16];

static int gcm_run(const struct gcm_batch *b, unsigned n, int *res)
{
	if (n > GCM_BATCH_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		const struct ualg_aead_req *q = &b->reqs[i];
		const size_t textlen = b->enc ? q->cryptlen : q->cryptlen - b->tfm->authsize;
		if ((!b->enc && q->cryptlen < b->tfm->authsize) || textlen > INT32_MAX || q->assoclen > INT32_MAX)
			return -EINVAL;
	}
	int r = ualg_ipsecmb_run_jobs(&gcm_ops, b, n, res);
	if (!r && !b->enc)
		gcm_verify(b, n, res);
	return r;
}

static int gcm_crypt_many(struct ualg_tfm *tfm, bool enc, unsigned n, const struct ualg_aead_req *reqs, int *res)
{
	const struct gcm_batch b = { tfm, enc, reqs, gcm_tags, NULL };

	return gcm_run(&b, n, res);
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

/* Decryptions whose text keeps its ciphertext when the tag fails: the
 * plaintext goes to a private buffer first (one for the batch), and to the
 * text only once its tag verified. */
static int gcm_decrypt_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_aead_req *reqs, int *res)
{
	uint8_t *plain[GCM_BATCH_MAX];
	size_t total = 0;

	if (n > GCM_BATCH_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		if (reqs[i].cryptlen < tfm->authsize || reqs[i].cryptlen - tfm->authsize > INT32_MAX)
			return -EINVAL;
		total += reqs[i].cryptlen - tfm->authsize;
	}
	uint8_t *buf = malloc(total ? total : 1);
	if (!buf)
		return -ENOMEM;
	total = 0;
	for (unsigned i = 0; i < n; i++) {
		plain[i] = buf + total;
		total += reqs[i].cryptlen - tfm->authsize;
	}
	const struct gcm_batch b = { tfm, false, reqs, gcm_tags, plain };
	int r = gcm_run(&b, n, res);
	ualg_wipe(buf, total);
	free(buf);
	return r;
}

int ualg_ipsecmb_register_gcm(void)
{
	struct ualg_alg *a = ualg_ipsecmb_alloc("gcm(aes)", "gcm-aes-ipsecmb", UALG_ALG_AEAD, UALG_IPSECMB_PRIO_WHOLE);

	if (!a)
		return -ENOMEM;
	a->blocksize = 1;
	a->ctxsize = sizeof(struct gcm_ctx);
	a->u.aead = (struct ualg_aead_ops){
		.ivsize = 12, .maxauthsize = 16,
		.setkey = gcm_setkey, .setauthsize = gcm_setauthsize,
		.encrypt = gcm_encrypt, .decrypt = gcm_decrypt,
		.encrypt_many = gcm_encrypt_many, .decrypt_many = gcm_decrypt_many,
	};
	return ualg_openssl_reg(a);
}
