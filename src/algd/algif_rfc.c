/* RFC mode (issue 9, src/lib/ualg_rfc.h): the socket types of the 2010
 * design mail.  An RFC transform socket listens; each accept gives an op
 * socket that behaves like a pipe: written bytes queue up to the socket's
 * send buffer, reads return what is ready (possibly less than asked), and
 * nothing here ever waits: a full buffer or nothing to read is -EAGAIN and
 * the shim blocks, releasing the socket meanwhile, so that another thread
 * can read (and so relieve a blocked writer) while one waits.
 *
 * One context serves every RFC type: an input queue, an output queue, and
 * per type the hash state, or the direction and IV of a cipher, or the
 * associated-data queue of an AEAD op (filled through its AD socket), or
 * the direction of a compression op. */
#include "afalg.h"
#include "algd_afalg.h"
#include "keystore.h"
#include "rfc_state.h"
#include "ualg_afalg.h"
#include "ualg_rfc.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define RFC_SNDBUF 212992u	/* as afalg_tx.c: wmem_default */
#define RFC_CHUNK_MAX (64u * 1024u)	/* cipher output made per read */
#define RFC_HASH_OUT_MAX (64u * 1024u)	/* unread digests and states */

/* An RFC transform socket's part (alg_sock.rfc). */
struct rfc_tfm {
	bool listening;
	uint8_t keyfp[RFC_FP_LEN];	/* what states are sealed to */
	struct alg_sock *unpaired;	/* aead: the newest op socket without its AD socket */
};

struct rfc_queue {
	uint8_t *buf;
	size_t head, used, cap;
};

struct rfc_op {
	struct rfc_queue in, out;
	bool ended;		/* skcipher, compression: a write without MSG_MORE ended the message */
	bool enc;		/* encrypt, or compress */
	uint8_t iv[UALG_MAX_IVSIZE];
	/* hash */
	struct ualg_hash_desc desc;
	bool open;		/* a MSG_MORE send (or a restored state) left it open */
	/* aead: the op's associated data, and its AD socket (or, on the AD
	 * socket, its op, on which it holds a reference) */
	struct rfc_queue ad;
	struct alg_sock *peer;
};

/* ---- queues ---------------------------------------------------------- */

static int queue_add(struct rfc_queue *q, const uint8_t *data, size_t len)
{
	if (!len)
		return 0;
	if (q->head + q->used + len > q->cap) {
		if (q->used + len <= q->cap) {
			memmove(q->buf, q->buf + q->head, q->used);
		} else {
			size_t cap = q->used + len;
			uint8_t *b = malloc(cap ? cap : 1);
			if (!b)
				return -ENOMEM;
			if (q->used)
				memcpy(b, q->buf + q->head, q->used);
			ualg_wipe(q->buf, q->cap);
			free(q->buf);
			q->buf = b;
			q->cap = cap;
		}
		q->head = 0;
	}
	memcpy(q->buf + q->head + q->used, data, len);
	q->used += len;
	return 0;
}

static uint8_t *queue_data(const struct rfc_queue *q)
{
	return q->buf ? q->buf + q->head : NULL;	/* never NULL + 0 */
}

static void queue_pull(struct rfc_queue *q, size_t n)
{
	if (!n)
		return;
	ualg_wipe(q->buf + q->head, n);
	q->head += n;
	q->used -= n;
	if (!q->used)
		q->head = 0;
}

static void queue_free(struct rfc_queue *q)
{
	ualg_wipe(q->buf, q->cap);
	free(q->buf);
	*q = (struct rfc_queue){ 0 };
}

/* Reads give what is there, at most len. */
static int queue_take(struct rfc_queue *q, uint8_t *out, size_t len)
{
	size_t n = len < q->used ? len : q->used;
	if (!n)
		return 0;
	memcpy(out, queue_data(q), n);
	queue_pull(q, n);
	return (int)n;
}

static size_t room(const struct alg_sock *sk, const struct rfc_queue *q)
{
	size_t cap = sk->sndbuf ? sk->sndbuf : RFC_SNDBUF;
	return q->used < cap ? cap - q->used : 0;
}

/* Takes what fits; -EAGAIN when nothing does. */
static int queue_write(const struct alg_sock *sk, struct rfc_queue *q, const uint8_t *data,
		       size_t len, size_t *taken)
{
	size_t n = room(sk, q);
	if (n > len)
		n = len;
	*taken = n;
	if (!n && len)
		return -EAGAIN;
	int r = queue_add(q, data, n);
	return r ? r : (int)n;
}

static struct rfc_op *ctx_of(const struct alg_sock *sk)
{
	return sk->ctx;
}

static struct rfc_tfm *rfc_of(const struct alg_sock *sk)
{
	return sk->mode_priv;
}

static struct rfc_tfm *tfm_rfc(const struct alg_sock *op)
{
	return rfc_of(op->parent);
}

/* ---- hash ------------------------------------------------------------ */

static int hash_export_blob(struct alg_sock *op)
{
	struct rfc_op *c = ctx_of(op);
	struct ualg_tfm *tfm = afalg_tfm(op);
	uint8_t state[UALG_RFC_STATE_LEN], blob[UALG_RFC_STATE_LEN];
	const size_t n = ualg_hash_statesize(tfm);

	if (!n || n > sizeof(state))
		return -EOPNOTSUPP;
	int r = ualg_hash_export(&c->desc, state);
	if (!r)
		r = rfc_state_seal(tfm->alg->driver, tfm_rfc(op)->keyfp, state, n, blob, sizeof(blob));
	ualg_wipe(state, sizeof(state));
	if (r > 0)
		r = queue_add(&c->out, blob, (size_t)r);
	return r;
}

/* A blob that does not open leaves the hash as it was; one that opens but
 * that the driver refuses leaves it closed (import has reset it). */
static int hash_import_blob(struct alg_sock *op, const uint8_t *blob, size_t len)
{
	struct rfc_op *c = ctx_of(op);
	struct ualg_tfm *tfm = afalg_tfm(op);
	uint8_t state[UALG_RFC_STATE_LEN];
	const size_t n = ualg_hash_statesize(tfm);

	if (!n || n > sizeof(state))
		return -EOPNOTSUPP;
	int r = rfc_state_open(tfm->alg->driver, tfm_rfc(op)->keyfp, blob, len, state, n);
	if (!r) {
		r = ualg_hash_import(&c->desc, tfm, state, n);	/* validates it */
		c->open = !r;
	}
	ualg_wipe(state, sizeof(state));
	return r;
}

static int hash_write(struct alg_sock *op, const uint8_t *data, size_t len, bool more, bool oob)
{
	struct rfc_op *c = ctx_of(op);
	int r = 0;

	if (oob)	/* a state comes in one piece */
		return (r = hash_import_blob(op, data, len)) ? r : (int)len;
	/* Digests nobody reads must not pile up: then even a hash blocks. */
	if (!more && c->out.used >= RFC_HASH_OUT_MAX)
		return -EAGAIN;
	if (!c->open && (r = ualg_hash_init(&c->desc, afalg_tfm(op))))
		return r;
	c->open = true;
	if (len && (r = ualg_hash_update(&c->desc, data, len)))
		return r;
	if (!more) {
		uint8_t digest[UALG_MAX_DIGESTSIZE];
		c->open = false;
		r = ualg_hash_final(&c->desc, digest);
		if (!r)
			r = queue_add(&c->out, digest, ualg_hash_digestsize(afalg_tfm(op)));
		ualg_wipe(digest, sizeof(digest));
	}
	return r ? r : (int)len;
}

/* A digest waiting is read first; an open hash reads as its state. */
static int hash_read(struct alg_sock *op, uint8_t *out, size_t len)
{
	struct rfc_op *c = ctx_of(op);

	if (!c->out.used && c->open) {
		int r = hash_export_blob(op);
		if (r)
			return r;
	}
	return c->out.used ? queue_take(&c->out, out, len) : -EAGAIN;
}

static unsigned hash_poll(const struct alg_sock *op)
{
	const struct rfc_op *c = ctx_of(op);
	return POLLOUT | POLLWRNORM | (c->out.used || c->open ? POLLIN | POLLRDNORM : 0);
}

/* ---- skcipher -------------------------------------------------------- */

static size_t chunk_of(const struct ualg_tfm *tfm)
{
	const struct ualg_alg *a = tfm->alg;
	size_t n = a->u.skcipher.chunksize > a->blocksize ? a->u.skcipher.chunksize : a->blocksize;
	return n ? n : 1;
}

/* Input ready for the cipher: whole chunks, or all of an ended message. */
static size_t sk_ready(const struct alg_sock *op)
{
	const struct rfc_op *c = ctx_of(op);
	const size_t chunk = chunk_of(afalg_tfm(op));
	return c->ended ? c->in.used : c->in.used / chunk * chunk;
}

static int sk_write(struct alg_sock *op, const uint8_t *data, size_t len, bool more, bool oob)
{
	struct rfc_op *c = ctx_of(op);
	size_t taken;

	if (oob)
		return -EOPNOTSUPP;
	int r = queue_write(op, &c->in, data, len, &taken);
	if (r >= 0)
		c->ended = !more && taken == len;
	return r;
}

/* Runs the cipher over what is ready, as much as the reader asked for
 * (rounded to chunks), so that output never piles up beyond a read. */
static int sk_read(struct alg_sock *op, uint8_t *out, size_t len)
{
	struct rfc_op *c = ctx_of(op);
	struct ualg_tfm *tfm = afalg_tfm(op);

	if (!c->out.used) {
		const size_t chunk = chunk_of(tfm), ready = sk_ready(op);
		size_t n = len < RFC_CHUNK_MAX ? len : RFC_CHUNK_MAX;
		n = n >= ready ? ready : (n + chunk - 1) / chunk * chunk;
		if (n > ready)
			n = ready;
		if (!n)
			return -EAGAIN;
		uint8_t *tmp = malloc(n);
		if (!tmp)
			return -ENOMEM;
		int r = ualg_skcipher_crypt(tfm, c->enc, c->iv, queue_data(&c->in), tmp, n);
		queue_pull(&c->in, n);	/* a bad tail (EINVAL) is dropped */
		if (!r)
			r = queue_add(&c->out, tmp, n);
		ualg_wipe(tmp, n);
		free(tmp);
		if (r)
			return r;
	}
	return queue_take(&c->out, out, len);
}

static unsigned sk_poll(const struct alg_sock *op)
{
	const struct rfc_op *c = ctx_of(op);
	unsigned m = c->out.used || sk_ready(op) ? POLLIN | POLLRDNORM : 0;
	return m | (room(op, &c->in) ? POLLOUT | POLLWRNORM : 0);
}

/* ---- aead ------------------------------------------------------------ */

static int aead_write(struct alg_sock *op, const uint8_t *data, size_t len, bool more, bool oob)
{
	size_t taken;
	(void)more;
	if (oob)
		return -EOPNOTSUPP;
	return queue_write(op, &ctx_of(op)->in, data, len, &taken);
}

static int ad_write(struct alg_sock *ad, const uint8_t *data, size_t len, bool more, bool oob)
{
	size_t taken;
	(void)more;
	if (oob)
		return -EOPNOTSUPP;
	return queue_write(ad, &ctx_of(ctx_of(ad)->peer)->ad, data, len, &taken);
}

/* "The first read triggers the operation": over all text and associated
 * data written since the last one. */
static int aead_run(struct alg_sock *op)
{
	struct rfc_op *c = ctx_of(op);
	struct ualg_tfm *tfm = afalg_tfm(op);
	const size_t as = tfm->authsize, tlen = c->in.used;
	uint8_t iv[UALG_MAX_IVSIZE];
	int r = 0;

	if (!c->enc && tlen < as)
		r = -EINVAL;
	size_t outlen = c->enc ? tlen + as : tlen;
	uint8_t *text = r ? NULL : malloc(outlen ? outlen : 1);
	if (!r && !text)
		r = -ENOMEM;
	if (!r) {
		if (tlen)
			memcpy(text, queue_data(&c->in), tlen);
		memcpy(iv, c->iv, sizeof(iv));	/* the request may change its copy */
		const struct ualg_aead_req req = {
			.aad = queue_data(&c->ad), .assoclen = c->ad.used,
			.text = text, .cryptlen = tlen, .iv = iv,
		};
		r = c->enc ? ualg_aead_encrypt(tfm, &req) : ualg_aead_decrypt(tfm, &req);
		if (!r)
			r = queue_add(&c->out, text, c->enc ? outlen : tlen - as);
		ualg_wipe(text, outlen);
		ualg_wipe(iv, sizeof(iv));
	}
	free(text);
	queue_pull(&c->in, c->in.used);
	queue_pull(&c->ad, c->ad.used);
	return r;
}

static int aead_read(struct alg_sock *op, uint8_t *out, size_t len)
{
	struct rfc_op *c = ctx_of(op);

	if (!c->out.used) {
		if (!c->in.used && !c->ad.used)
			return -EAGAIN;
		int r = aead_run(op);
		if (r)
			return r;
	}
	return c->out.used ? queue_take(&c->out, out, len) : 0;
}

static unsigned aead_poll(const struct alg_sock *op)
{
	const struct rfc_op *c = ctx_of(op);
	unsigned m = c->out.used || c->in.used || c->ad.used ? POLLIN | POLLRDNORM : 0;
	return m | (room(op, &c->in) ? POLLOUT | POLLWRNORM : 0);
}

static int ad_read(struct alg_sock *ad, uint8_t *out, size_t len)
{
	(void)ad, (void)out, (void)len;
	return -EINVAL;	/* results come on the op fd */
}

static unsigned ad_poll(const struct alg_sock *ad)
{
	const struct alg_sock *op = ctx_of(ad)->peer;
	return room(ad, &ctx_of(op)->ad) ? POLLOUT | POLLWRNORM : 0;
}

/* ---- compression ----------------------------------------------------- */

/* "Ciphers/compression are pretty much the same": written bytes queue,
 * a write without MSG_MORE ends the message, and the first read after it
 * runs the whole (de)compression (the kernel's formats are blocks, not
 * streams).  One message at a time: while an ended message waits for its
 * read, writes wait too (the seed's "whenever the write blocks start
 * reading"), so that two messages never run as one. */
static int comp_write(struct alg_sock *op, const uint8_t *data, size_t len, bool more, bool oob)
{
	struct rfc_op *c = ctx_of(op);
	size_t taken;

	if (oob)
		return -EOPNOTSUPP;
	if (c->ended)
		return -EAGAIN;
	int r = queue_write(op, &c->in, data, len, &taken);
	if (r >= 0)
		c->ended = !more && taken == len;
	return r;
}

/* The output replaces the (empty) output queue; a stream that does not
 * decode gives EBADMSG, one that expands too far EFBIG, and in both cases
 * no output, and the message is dropped. */
static int comp_run(struct alg_sock *op)
{
	struct rfc_op *c = ctx_of(op);
	uint8_t *out = NULL;
	size_t n = 0;
	int r = afalg_comp_bounded(afalg_tfm(op), c->enc, queue_data(&c->in), c->in.used, &out, &n);

	queue_pull(&c->in, c->in.used);
	c->ended = false;
	if (r)
		return r;
	queue_free(&c->out);
	c->out = (struct rfc_queue){ .buf = out, .used = n, .cap = n };
	return 0;
}

static int comp_read(struct alg_sock *op, uint8_t *out, size_t len)
{
	struct rfc_op *c = ctx_of(op);

	if (!c->out.used) {
		if (!c->ended)
			return -EAGAIN;
		int r = comp_run(op);
		if (r)
			return r;
	}
	return queue_take(&c->out, out, len);	/* 0: an empty result */
}

static unsigned comp_poll(const struct alg_sock *op)
{
	const struct rfc_op *c = ctx_of(op);
	unsigned m = c->out.used || c->ended ? POLLIN | POLLRDNORM : 0;
	return m | (!c->ended && room(op, &c->in) ? POLLOUT | POLLWRNORM : 0);
}

/* ---- the alg_type glue ----------------------------------------------- */

struct rfc_ops {
	int (*write)(struct alg_sock *op, const uint8_t *data, size_t len, bool more, bool oob);
	int (*read)(struct alg_sock *op, uint8_t *out, size_t len);
};

static const struct rfc_ops hash_ops = { hash_write, hash_read };
static const struct rfc_ops sk_ops = { sk_write, sk_read };
static const struct rfc_ops aead_ops = { aead_write, aead_read };
static const struct rfc_ops ad_ops = { ad_write, ad_read };
static const struct rfc_ops comp_ops = { comp_write, comp_read };

static const struct rfc_ops *ops_of(const struct alg_sock *sk);

static int rfc_accept(struct alg_sock *op, const struct alg_sock *from)
{
	(void)op, (void)from;	/* accept_on_op is false */
	return 0;
}

/* AEAD: the accept after an op socket's gives its AD socket. */
static int rfc_aead_accept(struct alg_sock *op, const struct alg_sock *from)
{
	struct rfc_tfm *t = tfm_rfc(op);
	struct alg_sock *mate = t->unpaired;

	(void)from;
	if (!mate) {
		t->unpaired = op;
		return 0;
	}
	op->type = &afalg_type_rfc_ad;
	ctx_of(op)->peer = mate;
	mate->ref++;
	ctx_of(mate)->peer = op;
	t->unpaired = NULL;
	return 0;
}

static void rfc_release(struct alg_sock *sk)
{
	struct rfc_op *c = ctx_of(sk);

	if (sk->type == &afalg_type_rfc_ad) {
		ctx_of(c->peer)->peer = NULL;
		afalg_sock_put(c->peer);
	} else if (tfm_rfc(sk)->unpaired == sk) {
		tfm_rfc(sk)->unpaired = NULL;
	}
	ualg_hash_exit(&c->desc);
	queue_free(&c->in);
	queue_free(&c->out);
	queue_free(&c->ad);
}

/* The kernel-style SEND and RECV do not reach RFC op sockets. */
static int no_send(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p)
{
	(void)op, (void)s, (void)p;
	return -EOPNOTSUPP;
}

static int no_recv(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
		   struct afalg_progress *p)
{
	(void)op, (void)out, (void)len, (void)dontwait, (void)trunc, (void)p;
	return -EOPNOTSUPP;
}

#define RFC_TYPE(tname, atype, acc, pollfn)                                     \
	{                                                                       \
		.name = tname, .alg_type = atype, .ctxsize = sizeof(struct rfc_op), \
		.accept = acc, .send = no_send, .recv = no_recv, .poll = pollfn, \
		.release = rfc_release,                                         \
	}

const struct alg_type afalg_type_rfc_hash = RFC_TYPE("hash", UALG_ALG_SHASH, rfc_accept, hash_poll);
const struct alg_type afalg_type_rfc_skcipher =
	RFC_TYPE("skcipher", UALG_ALG_SKCIPHER, rfc_accept, sk_poll);
const struct alg_type afalg_type_rfc_aead = RFC_TYPE("aead", UALG_ALG_AEAD, rfc_aead_accept, aead_poll);
const struct alg_type afalg_type_rfc_ad = RFC_TYPE("aead", UALG_ALG_AEAD, rfc_accept, ad_poll);
const struct alg_type afalg_type_rfc_comp =
	RFC_TYPE("compression", UALG_ALG_COMP, rfc_accept, comp_poll);

static const struct rfc_ops *ops_of(const struct alg_sock *sk)
{
	if (sk->type == &afalg_type_rfc_hash)
		return &hash_ops;
	if (sk->type == &afalg_type_rfc_skcipher)
		return &sk_ops;
	if (sk->type == &afalg_type_rfc_aead)
		return &aead_ops;
	if (sk->type == &afalg_type_rfc_comp)
		return &comp_ops;
	return sk->type == &afalg_type_rfc_ad ? &ad_ops : NULL;
}

const struct alg_type *afalg_rfc_find_type(const char *name)
{
	static const struct alg_type *const types[] = {
		&afalg_type_rfc_hash, &afalg_type_rfc_skcipher, &afalg_type_rfc_aead,
		&afalg_type_rfc_comp,
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i]->name, name))
			return types[i];
	return NULL;
}

static int rfc_bound(struct alg_sock *sk)
{
	return rfc_state_fingerprint(NULL, 0, false, rfc_of(sk)->keyfp);
}

static void rfc_free(void *priv)
{
	struct rfc_tfm *t = priv;
	if (t)
		ualg_wipe(t, sizeof(*t));
	free(t);
}

static int rfc_accept_check(const struct alg_sock *sk)
{
	return rfc_of(sk)->listening ? 0 : -EINVAL;	/* inet_accept() unless listening */
}

static int rfc_setsockopt(struct alg_sock *sk, int level, int optname, const struct afalg_optval *v);

static const struct afalg_mode rfc_mode = {
	.find_type = afalg_rfc_find_type,
	.exportable_hashes = true,
	.bound = rfc_bound,
	.setsockopt = rfc_setsockopt,
	.accept_check = rfc_accept_check,
	.release = rfc_free,
};

bool afalg_is_rfc(const struct alg_sock *sk)
{
	return afalg_mode_of(sk) == &rfc_mode;
}

int afalg_rfc_mode(struct alg_sock *sk)
{
	if (sk->connected || sk->type || sk->mode)
		return -EINVAL;
	if (!(sk->mode_priv = calloc(1, sizeof(struct rfc_tfm))))
		return -ENOMEM;
	sk->mode = &rfc_mode;
	return 0;
}

int afalg_rfc_listen(struct alg_sock *sk)
{
	if (sk->mode != &rfc_mode || sk->connected)
		return -EOPNOTSUPP;
	if (!sk->type)
		return -EINVAL;	/* listen before bind */
	rfc_of(sk)->listening = true;
	return 0;
}

static bool is_rfc_op(const struct alg_sock *sk)
{
	return sk->connected && afalg_is_rfc(sk);
}

int afalg_rfc_write(struct alg_sock *sk, const uint8_t *data, size_t len, bool more, bool oob)
{
	if (!is_rfc_op(sk))
		return -EOPNOTSUPP;
	int r = afalg_check_key(sk);
	return r ? r : ops_of(sk)->write(sk, data, len, more, oob);
}

int afalg_rfc_read(struct alg_sock *sk, uint8_t *out, size_t len)
{
	if (!is_rfc_op(sk))
		return -EOPNOTSUPP;
	int r = afalg_check_key(sk);
	return r ? r : ops_of(sk)->read(sk, out, len);
}

/* ---- options --------------------------------------------------------- */

/* States are sealed to the key's fingerprint, so the same key set by
 * bytes or by name restores the same states. */
static int setkey_bytes(void *tfm_sock, const uint8_t *key, size_t len)
{
	struct alg_sock *sk = tfm_sock;
	uint8_t fp[RFC_FP_LEN];
	int r = rfc_state_fingerprint(key, len, true, fp);
	if (!r)
		r = ualg_tfm_setkey(sk->tfm, key, len);
	if (!r)
		memcpy(rfc_of(sk)->keyfp, fp, sizeof(fp));
	return r;
}

static int set_key(struct alg_sock *sk, const struct afalg_optval *v, bool by_name)
{
	if (v->too_big)
		return -ENOMEM;
	if (v->fault)
		return -EFAULT;
	int err;
	struct key *k = by_name ? afalg_named_key(v, &err) : NULL;
	if (by_name && !k)
		return err;
	if (!ualg_tfm_has_setkey(sk->tfm))
		return -ENOSYS;
	return by_name ? keystore_use(k, setkey_bytes, sk) : setkey_bytes(sk, v->data, v->len);
}

static int tfm_option(struct alg_sock *sk, int optname, const struct afalg_optval *v)
{
	if (sk->children != sk->nokey_children)
		return -EBUSY;
	if (!sk->type)
		return -ENOPROTOOPT;
	switch (optname) {
	case ALG_SET_KEY:
		return set_key(sk, v, false);
	case UALG_SET_KEY_BY_NAME:
		return set_key(sk, v, true);
	case ALG_HASH_SET_KEY:
		return sk->type == &afalg_type_rfc_hash ? set_key(sk, v, false) : -ENOPROTOOPT;
	case ALG_SKCIPHER_SET_KEY:
		return sk->type == &afalg_type_rfc_skcipher ? set_key(sk, v, false) : -ENOPROTOOPT;
	case ALG_AEAD_SET_KEY:
		return sk->type == &afalg_type_rfc_aead ? set_key(sk, v, false) : -ENOPROTOOPT;
	case ALG_SET_AEAD_AUTHSIZE:
		return sk->type == &afalg_type_rfc_aead ? ualg_aead_setauthsize(sk->tfm, v->optlen)
							: -ENOPROTOOPT;
	default:
		return -ENOPROTOOPT;
	}
}

static unsigned ivsize_of(const struct ualg_tfm *tfm)
{
	return tfm->alg->type == UALG_ALG_AEAD ? tfm->alg->u.aead.ivsize : tfm->alg->u.skcipher.ivsize;
}

/* The direction or IV of what is written next: not while text waits. */
static int op_option(struct alg_sock *op, bool is_op, const struct afalg_optval *v)
{
	struct rfc_op *c = ctx_of(op);
	const struct ualg_tfm *tfm = afalg_tfm(op);

	if (v->fault)
		return -EFAULT;
	if (c->in.used)
		return -EBUSY;
	if (is_op) {
		int32_t val;
		if (v->len != sizeof(val))
			return -EINVAL;
		memcpy(&val, v->data, sizeof(val));
		if (val != ALG_AEAD_OP_ENCRYPT && val != ALG_AEAD_OP_DECRYPT)
			return -EINVAL;
		c->enc = val == ALG_AEAD_OP_ENCRYPT;
		return 0;
	}
	if (v->len != ivsize_of(tfm) || v->len > sizeof(c->iv))
		return -EINVAL;
	memcpy(c->iv, v->data, v->len);
	return 0;
}

static int rfc_setsockopt(struct alg_sock *sk, int level, int optname, const struct afalg_optval *v)
{
	if (level != SOL_ALG)
		return -ENOPROTOOPT;
	if (!sk->connected)
		return tfm_option(sk, optname, v);
	const bool sk_type = sk->type == &afalg_type_rfc_skcipher;
	const bool aead = sk->type == &afalg_type_rfc_aead;
	const bool comp = sk->type == &afalg_type_rfc_comp;
	switch (optname) {
	case ALG_COMPRESS_OP:
		return comp ? op_option(sk, true, v) : -ENOPROTOOPT;
	case ALG_SKCIPHER_OP:
	case ALG_SKCIPHER_SET_IV:
		return sk_type ? op_option(sk, optname == ALG_SKCIPHER_OP, v) : -ENOPROTOOPT;
	case ALG_AEAD_OP:
	case ALG_AEAD_SET_IV:
		return aead ? op_option(sk, optname == ALG_AEAD_OP, v) : -ENOPROTOOPT;
	default:
		return -ENOPROTOOPT;
	}
}
