/* The "skcipher" socket type, as crypto/algif_skcipher.c and the TX side of
 * af_alg_sendmsg(): sends queue data (up to the socket's send buffer) with
 * the operation and IV from control messages; a read runs the cipher over
 * what is queued, in whole chunks while more data may follow. */
#include "afalg.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <stdlib.h>
#include <string.h>

/* sk_sndbuf of a new socket (net.core.wmem_default), rounded down to pages
 * as af_alg_sndbuf() does. */
#define SKCIPHER_SNDBUF 212992u
#define PAGE_SIZE_ 4096u

struct skcipher_ctx {
	uint8_t *tx;		/* queued input: tx[head .. head + used) */
	size_t head, used, cap;
	bool more, init, enc;
	uint8_t iv[UALG_MAX_IVSIZE];
};

static int skcipher_accept(struct alg_sock *op, const struct alg_sock *from)
{
	(void)op;
	(void)from;
	return 0;
}

static size_t sndbuf_left(const struct skcipher_ctx *ctx)
{
	return ctx->used < SKCIPHER_SNDBUF ? SKCIPHER_SNDBUF - ctx->used : 0;
}

/* af_alg_writable(): at least a page of room. */
static bool writable(const struct skcipher_ctx *ctx)
{
	return sndbuf_left(ctx) >= PAGE_SIZE_;
}

static int tx_append(struct skcipher_ctx *ctx, const uint8_t *data, size_t len)
{
	if (ctx->head + ctx->used + len > ctx->cap) {
		if (ctx->head) {
			memmove(ctx->tx, ctx->tx + ctx->head, ctx->used);
			ctx->head = 0;
		}
		if (ctx->used + len > ctx->cap) {
			size_t cap = ctx->used + len;
			uint8_t *tx = malloc(cap);
			if (!tx)
				return -ENOMEM;
			if (ctx->used)
				memcpy(tx, ctx->tx, ctx->used);
			ualg_wipe(ctx->tx, ctx->cap);
			free(ctx->tx);
			ctx->tx = tx;
			ctx->cap = cap;
		}
	}
	memcpy(ctx->tx + ctx->head + ctx->used, data, len);
	ctx->used += len;
	return 0;
}

static void tx_pull(struct skcipher_ctx *ctx, size_t len)
{
	ualg_wipe(ctx->tx + ctx->head, len);
	ctx->head += len;
	ctx->used -= len;
	if (!ctx->used)
		ctx->head = 0;
}

static int skcipher_send(struct alg_sock *op, const struct afalg_send *s)
{
	struct skcipher_ctx *ctx = op->ctx;
	const unsigned ivsize = afalg_tfm(op)->alg->u.skcipher.ivsize;

	if (s->first) {
		if (s->ctl.present) {
			if (s->ctl.invalid || s->ctl.op > ALG_OP_ENCRYPT)
				return -EINVAL;
			if (s->ctl.has_iv && s->ctl.ivlen != ivsize)
				return -EINVAL;
		}
		if (ctx->init && !ctx->more && ctx->used)
			return -EINVAL;
		ctx->init = true;
		if (s->ctl.present) {
			ctx->enc = s->ctl.op == ALG_OP_ENCRYPT;
			if (s->ctl.has_iv)
				memcpy(ctx->iv, s->ctl.iv, ivsize);
		}
	}
	size_t copied = 0;
	if (s->len) {
		if (!writable(ctx)) {
			/* Later parts of one call stop at what was taken. */
			if (!s->first)
				return 0;
			return s->dontwait ? -EAGAIN : AFALG_WAIT;
		}
		copied = s->len < sndbuf_left(ctx) ? s->len : sndbuf_left(ctx);
		int r = tx_append(ctx, s->data, copied);
		if (r)
			return r;
	}
	if (s->last && copied == s->len)
		ctx->more = s->more;
	return (int)copied;
}

static int skcipher_recv(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc)
{
	struct skcipher_ctx *ctx = op->ctx;
	struct ualg_tfm *tfm = afalg_tfm(op);
	const size_t bs = tfm->alg->u.skcipher.chunksize ? tfm->alg->u.skcipher.chunksize : 1;
	size_t done = 0;

	(void)trunc;
	while (done < len) {
		if (!ctx->init || (ctx->more && ctx->used < bs)) {
			/* The kernel sleeps here; a single-threaded caller
			 * that already got data is better served by it. */
			if (done)
				break;
			return dontwait ? -EAGAIN : AFALG_WAIT;
		}
		size_t n = len - done < ctx->used ? len - done : ctx->used;
		if (ctx->more || n < ctx->used)
			n -= n % bs;
		uint8_t *dst = out + done;
		memcpy(dst, ctx->tx + ctx->head, n);
		tx_pull(ctx, n);
		int r = ualg_skcipher_crypt(tfm, ctx->enc, ctx->iv, dst, dst, n);
		if (r)
			return done ? (int)done : r;
		if (!n)
			break;
		done += n;
	}
	return (int)done;
}

static void skcipher_release(struct alg_sock *op)
{
	struct skcipher_ctx *ctx = op->ctx;

	ualg_wipe(ctx->tx, ctx->cap);
	free(ctx->tx);
	ualg_wipe(ctx->iv, sizeof(ctx->iv));
}

const struct alg_type afalg_type_skcipher = {
	.name = "skcipher",
	.alg_type = UALG_ALG_SKCIPHER,
	.ctxsize = sizeof(struct skcipher_ctx),
	.accept = skcipher_accept,
	.accept_on_op = false,
	.send = skcipher_send,
	.recv = skcipher_recv,
	.release = skcipher_release,
};
