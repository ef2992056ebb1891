/* RFC mode (src/lib/ualg_rfc.h): the socket types of the 2010
 * design mail.  An RFC transform socket listens; each accept gives an op
 * socket that behaves like a pipe: written bytes queue up to the socket's
 * send buffer, reads return what is ready (possibly less than asked), and
 * nothing here ever waits: a full buffer or nothing to read is -EAGAIN and
 * the shim blocks, releasing the socket meanwhile, so that another thread
 * can read (and so relieve a blocked writer) while one waits.
 *
 * One context serves every RFC type: an input queue, an output queue
 * (rfc_queue.c), and per type the hash state, or the direction and IV of a
 * cipher, or the associated-data queue of an AEAD op (filled through its
 * AD socket), or the direction of a compression op. */
#include "afalg.h"
#include "algd_afalg.h"
#include "rfc_impl.h"
#include "rfc_state.h"
#include "ualg_afalg.h"
#include "ualg_rfc.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define RFC_CHUNK_MAX (64u * 1024u)	/* cipher output made per read */
#define RFC_HASH_OUT_MAX (64u * 1024u)	/* unread digests and states */

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
		r = rfc_queue_add(&c->out, blob, (size_t)r);
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
			r = rfc_queue_add(&c->out, digest, ualg_hash_digestsize(afalg_tfm(op)));
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
	return c->out.used ? rfc_queue_take(&c->out, out, len) : -EAGAIN;
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
	int r = rfc_queue_write(op, &c->in, data, len, &taken);
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
		int r = ualg_skcipher_crypt(tfm, c->enc, c->iv, rfc_queue_data(&c->in), tmp, n);
		rfc_queue_pull(&c->in, n);	/* a bad tail (EINVAL) is dropped */
		if (!r)
			r = rfc_queue_add(&c->out, tmp, n);
		ualg_wipe(tmp, n);
		free(tmp);
		if (r)
			return r;
	}
	return rfc_queue_take(&c->out, out, len);
}

static unsigned sk_poll(const struct alg_sock *op)
{
	const struct rfc_op *c = ctx_of(op);
	unsigned m = c->out.used || sk_ready(op) ? POLLIN | POLLRDNORM : 0;
	return m | (rfc_queue_room(op, &c->in) ? POLLOUT | POLLWRNORM : 0);
}

/* ---- aead ------------------------------------------------------------ */

static int aead_write(struct alg_sock *op, const uint8_t *data, size_t len, bool more, bool oob)
{
	size_t taken;
	(void)more;
	if (oob)
		return -EOPNOTSUPP;
	return rfc_queue_write(op, &ctx_of(op)->in, data, len, &taken);
}

static int ad_write(struct alg_sock *ad, const uint8_t *data, size_t len, bool more, bool oob)
{
	size_t taken;
	(void)more;
	if (oob)
		return -EOPNOTSUPP;
	return rfc_queue_write(ad, &ctx_of(ctx_of(ad)->peer)->ad, data, len, &taken);
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
			memcpy(text, rfc_queue_data(&c->in), tlen);
		memcpy(iv, c->iv, sizeof(iv));	/* the request may change its copy */
		const struct ualg_aead_req req = {
			.aad = rfc_queue_data(&c->ad), .assoclen = c->ad.used,
			.text = text, .cryptlen = tlen, .iv = iv,
		};
		r = c->enc ? ualg_aead_encrypt(tfm, &req) : ualg_aead_decrypt(tfm, &req);
		if (!r)
			r = rfc_queue_add(&c->out, text, c->enc ? outlen : tlen - as);
		ualg_wipe(text, outlen);
		ualg_wipe(iv, sizeof(iv));
	}
	free(text);
	rfc_queue_pull(&c->in, c->in.used);
	rfc_queue_pull(&c->ad, c->ad.used);
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
	return c->out.used ? rfc_queue_take(&c->out, out, len) : 0;
}

static unsigned aead_poll(const struct alg_sock *op)
{
	const struct rfc_op *c = ctx_of(op);
	unsigned m = c->out.used || c->in.used || c->ad.used ? POLLIN | POLLRDNORM : 0;
	return m | (rfc_queue_room(op, &c->in) ? POLLOUT | POLLWRNORM : 0);
}

static int ad_read(struct alg_sock *ad, uint8_t *out, size_t len)
{
	(void)ad, (void)out, (void)len;
	return -EINVAL;	/* results come on the op fd */
}

static unsigned ad_poll(const struct alg_sock *ad)
{
	const struct alg_sock *op = ctx_of(ad)->peer;
	return rfc_queue_room(ad, &ctx_of(op)->ad) ? POLLOUT | POLLWRNORM : 0;
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
	int r = rfc_queue_write(op, &c->in, data, len, &taken);
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
	int r = afalg_comp_bounded(afalg_tfm(op), c->enc, rfc_queue_data(&c->in), c->in.used, op->mem,
				   &out, &n);

	rfc_queue_pull(&c->in, c->in.used);
	c->ended = false;
	if (r)
		return r;
	rfc_queue_free(&c->out);
	c->out = (struct rfc_queue){ .buf = out, .used = n, .cap = n, .mem = op->mem };
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
	return rfc_queue_take(&c->out, out, len);	/* 0: an empty result */
}

static unsigned comp_poll(const struct alg_sock *op)
{
	const struct rfc_op *c = ctx_of(op);
	unsigned m = c->out.used || c->ended ? POLLIN | POLLRDNORM : 0;
	return m | (!c->ended && rfc_queue_room(op, &c->in) ? POLLOUT | POLLWRNORM : 0);
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

/* The op socket's queues are charged to its owner. */
static int rfc_accept(struct alg_sock *op, const struct alg_sock *from)
{
	struct rfc_op *c = ctx_of(op);

	(void)from;	/* accept_on_op is false */
	c->in.mem = c->out.mem = c->ad.mem = op->mem;
	return 0;
}

/* AEAD: the accept after an op socket's gives its AD socket. */
static int rfc_aead_accept(struct alg_sock *op, const struct alg_sock *from)
{
	struct rfc_tfm *t = tfm_rfc(op);
	struct alg_sock *mate = t->unpaired;

	rfc_accept(op, from);
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
	rfc_queue_free(&c->in);
	rfc_queue_free(&c->out);
	rfc_queue_free(&c->ad);
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

static const struct afalg_mode rfc_mode = {
	.find_type = afalg_rfc_find_type,
	.exportable_hashes = true,
	.bound = rfc_bound,
	.setsockopt = rfc_serve_setsockopt,
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
