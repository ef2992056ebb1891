/* intel-ipsec-mb's sha1/sha224/sha256/sha384/sha512 and their hmac (see
 * ipsecmb.c for the job manager).
 *
 * Hashes are one-shot in the library.  A descriptor buffers what it is
 * given and hashes it at final; past UALG_IPSECMB_BUFFER bytes it moves to
 * the OpenSSL driver of the same name, so a long AF_ALG stream costs no
 * more memory than that, and the library's length limit is never hit. */
#include "ipsecmb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* intel-ipsec-mb 1.3 refuses (IMB_ERR_JOB_AUTH_LEN) hashes of 65535 bytes
 * or more and HMAC of an empty message; such requests go to OpenSSL. */
#define UALG_IPSECMB_BUFFER (32u * 1024u)

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
	IMB_MGR *m = ualg_ipsecmb_thread_mgr();

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
	j->src = q->len ? q->data : ualg_ipsecmb_empty;
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
		int r = k ? ualg_ipsecmb_run_jobs(&digest_ops, &b, k, gres) : 0;
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
	struct ualg_alg *a = ualg_ipsecmb_alloc(name, driver, UALG_ALG_SHASH,
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

int ualg_ipsecmb_register_hashes(void)
{
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(hashes) / sizeof(hashes[0]); i++)
		r = register_hash(i, false);
	for (size_t i = 0; !r && i < sizeof(hashes) / sizeof(hashes[0]); i++)
		r = register_hash(i, true);
	return r;
}
