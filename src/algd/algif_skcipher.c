/* The "skcipher" socket type, as crypto/algif_skcipher.c and the TX side of
 * af_alg_sendmsg(): sends queue data (up to the socket's send buffer) with
 * the operation and IV from control messages; a read runs the cipher over
 * what is queued, in whole chunks while more data may follow. */
#include "afalg.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <poll.h>
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

/* af_alg_pull_tsgl(): once the queue is empty, a new request must start
 * with its own operation and IV unless MSG_MORE said more was coming. */
static void tx_pull(struct skcipher_ctx *ctx, size_t len)
{
	ualg_wipe(ctx->tx + ctx->head, len);
	ctx->head += len;
	ctx->used -= len;
	if (!ctx->used) {
		ctx->head = 0;
		ctx->init = ctx->more;
	}
}

/* The checks af_alg_sendmsg() makes once per call, before any data. */
static int send_begin(struct skcipher_ctx *ctx, const struct afalg_send *s, unsigned ivsize)
{
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
	return 0;
}

static int skcipher_send(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p)
{
	struct skcipher_ctx *ctx = op->ctx;

	if (!p->started) {
		p->started = true;
		if (s->first) {
			int r = send_begin(ctx, s, afalg_tfm(op)->alg->u.skcipher.ivsize);
			if (r)
				return r;
		}
		if (s->fault)
			return -EFAULT;
	}
	while (p->done < s->len) {
		if (!writable(ctx)) {
			if (s->dontwait)
				return p->done ? (int)p->done : -EAGAIN;
			return AFALG_WAIT;	/* until a read makes room */
		}
		size_t n = s->len - p->done;
		if (n > sndbuf_left(ctx))
			n = sndbuf_left(ctx);
		int r = tx_append(ctx, s->data + p->done, n);
		if (r)
			return p->done ? (int)p->done : r;
		p->done += n;
	}
	if (s->last)
		ctx->more = s->more;
	return (int)p->done;
}

/* skcipher_recvmsg(): runs the cipher over queued data in whole chunks
 * while more may follow; waits (AFALG_WAIT) where the kernel sleeps, which
 * includes after a request's last byte when the caller asked for more. */
static int skcipher_recv(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
			 struct afalg_progress *p)
{
	struct skcipher_ctx *ctx = op->ctx;
	struct ualg_tfm *tfm = afalg_tfm(op);
	const size_t bs = tfm->alg->u.skcipher.chunksize ? tfm->alg->u.skcipher.chunksize : 1;

	(void)trunc;
	while (p->done < len) {
		if (!ctx->init || (ctx->more && ctx->used < bs)) {
			if (dontwait)
				return p->done ? (int)p->done : -EAGAIN;
			return AFALG_WAIT;
		}
		size_t n = len - p->done < ctx->used ? len - p->done : ctx->used;
		if (ctx->more || n < ctx->used)
			n -= n % bs;
		/* Less than a chunk of a longer queue: the kernel refuses the
		 * request and leaves the queue as it was. */
		if (!n && ctx->used)
			return p->done ? (int)p->done : -EINVAL;
		uint8_t *dst = out + p->done;
		memcpy(dst, ctx->tx + ctx->head, n);
		tx_pull(ctx, n);
		int r = ualg_skcipher_crypt(tfm, ctx->enc, ctx->iv, dst, dst, n);
		if (r)
			return p->done ? (int)p->done : r;
		if (!n)
			break;
		p->done += n;
	}
	return (int)p->done;
}

/* af_alg_poll(): readable once a request is complete or data is queued,
 * writable while a page of send buffer is free. */
static unsigned skcipher_poll(const struct alg_sock *op)
{
	const struct skcipher_ctx *ctx = op->ctx;
	unsigned mask = 0;

	if (!ctx->more || ctx->used)
		mask |= POLLIN | POLLRDNORM;
	if (writable(ctx))
		mask |= POLLOUT | POLLWRNORM | POLLWRBAND;
	return mask;
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
	.poll = skcipher_poll,
	.release = skcipher_release,
};
