/* The "hash" socket type, as crypto/algif_hash.c: data is hashed as it is
 * sent; MSG_MORE keeps the hash open; a read finalises (or reports the
 * result of a final send) and then forgets the result, so that a second
 * read returns the digest of the empty message. */
#include "afalg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct hash_ctx {
	struct ualg_hash_desc desc;
	bool more;		/* a MSG_MORE send left the hash open */
	bool have_result;
	uint8_t result[UALG_MAX_DIGESTSIZE];
};

static int hash_accept(struct alg_sock *op, const struct alg_sock *from)
{
	struct hash_ctx *ctx = op->ctx;

	if (!from)
		return 0;
	const struct hash_ctx *src = from->ctx;
	ctx->more = src->more;
	return src->more ? ualg_hash_clone(&ctx->desc, &src->desc) : 0;
}

static void hash_free_result(struct hash_ctx *ctx)
{
	ualg_wipe(ctx->result, sizeof(ctx->result));
	ctx->have_result = false;
}

static int hash_send(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p)
{
	struct hash_ctx *ctx = op->ctx;
	int r;

	(void)p;	/* hashing never waits */
	/* Control messages are ignored by hash sockets. */
	if (s->first) {
		if (!ctx->more) {
			if (s->more)
				hash_free_result(ctx);
			r = ualg_hash_init(&ctx->desc, afalg_tfm(op));
			if (r)
				return r;
		}
		ctx->more = false;
	}
	if (s->fault)
		return -EFAULT;
	if (s->len && (r = ualg_hash_update(&ctx->desc, s->data, s->len)))
		return r;
	if (!s->last)
		return (int)s->len;
	ctx->more = s->more;
	if (!ctx->more) {
		/* hash_alloc_result(): the result buffer exists from here on,
		 * zeroed when new (a freed result is wiped), and stays when the
		 * final fails: the next read returns it as it is. */
		ctx->have_result = true;
		r = ualg_hash_final(&ctx->desc, ctx->result);
		ualg_hash_done(&ctx->desc);	/* only init follows: no clone or export */
		if (r)
			return r;
	}
	return (int)s->len;
}

static int hash_recv(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
		     struct afalg_progress *p)
{
	struct hash_ctx *ctx = op->ctx;
	const unsigned ds = ualg_hash_digestsize(afalg_tfm(op));
	const bool result = ctx->have_result;
	int r = 0;

	(void)dontwait;
	(void)p;
	if (len > ds)
		len = ds;
	else if (len < ds)
		*trunc = true;
	if (!result && !ctx->more)
		r = ualg_hash_init(&ctx->desc, afalg_tfm(op));
	if (!r && (!result || ctx->more)) {
		ctx->more = false;
		r = ualg_hash_final(&ctx->desc, ctx->result);
		ualg_hash_done(&ctx->desc);
	}
	if (!r)
		memcpy(out, ctx->result, len);
	hash_free_result(ctx);
	return r ? r : (int)len;
}

static void hash_release(struct alg_sock *op)
{
	struct hash_ctx *ctx = op->ctx;

	ualg_hash_exit(&ctx->desc);
}

static int hash_export(const struct alg_sock *op, struct afalg_state *st)
{
	const struct hash_ctx *ctx = op->ctx;

	st->flags = (ctx->more ? AFALG_STATE_MORE : 0) | (ctx->have_result ? AFALG_STATE_RESULT : 0);
	memcpy(st->result, ctx->result, sizeof(st->result));
	if (!ctx->more)
		return 0;
	const size_t n = ualg_hash_statesize(afalg_tfm(op));
	if (!(st->data = malloc(n)))
		return -ENOMEM;
	st->len = n;
	return ualg_hash_export(&ctx->desc, st->data);
}

/* An open hash comes back through the driver's import, which refuses
 * states no update could have made. */
static int hash_import(struct alg_sock *op, const struct afalg_state *st, bool part)
{
	struct hash_ctx *ctx = op->ctx;
	const uint32_t allowed = AFALG_STATE_MORE | AFALG_STATE_RESULT;

	if (part || (st->flags & ~allowed) || ctx->more || ctx->have_result ||
	    !(st->flags & AFALG_STATE_MORE) != !st->len)
		return -EINVAL;
	if (st->flags & AFALG_STATE_MORE) {
		int r = ualg_hash_import(&ctx->desc, afalg_tfm(op), st->data, st->len);
		if (r)
			return r;
		ctx->more = true;
	}
	if (st->flags & AFALG_STATE_RESULT) {
		memcpy(ctx->result, st->result, sizeof(ctx->result));
		ctx->have_result = true;
	}
	return 0;
}

/* A hash never waits: a read without data digests what there is. */
static bool hash_ready(const struct alg_sock *op, bool send, size_t len)
{
	(void)op, (void)send, (void)len;
	return true;
}

const struct alg_type afalg_type_hash = {
	.name = "hash",
	.alg_type = UALG_ALG_SHASH,
	.ctxsize = sizeof(struct hash_ctx),
	.accept = hash_accept,
	.accept_on_op = true,
	.send = hash_send,
	.recv = hash_recv,
	.ready = hash_ready,
	.release = hash_release,
	.export = hash_export,
	.import = hash_import,
};
