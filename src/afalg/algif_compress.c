/* The "compression" socket type, ualg's own (Linux has no algif for its
 * compression algorithms).  A request is the data sent, with ALG_SET_OP
 * ALG_OP_ENCRYPT to compress or ALG_OP_DECRYPT to decompress; MSG_MORE
 * streams it in parts, up to the socket's send buffer (SO_SNDBUF, 208 KiB
 * by default).  The first read after its last part runs it; that read and
 * the following ones return the output in order until it is all read (a
 * read then waits for the next request, which also discards what was not
 * read of the last output).
 *
 * A stream that is not valid fails the first read with EBADMSG; one that
 * would expand past AFALG_COMP_OUT_MAX (1 MiB) fails it with EFBIG, without
 * more than that ever being allocated for it: no output either way. */
#include "afalg.h"

#include <errno.h>
#include <poll.h>
#include <linux/if_alg.h>
#include <stdlib.h>
#include <string.h>

#define COMP_OUT_MIN (64u << 10)

struct comp_ctx {
	struct afalg_tx tx;	/* first: afalg_tx_of() */
	uint8_t *out;		/* the last request's output, NULL when none */
	size_t out_len, out_pos;
};

static void drop_output(struct comp_ctx *c)
{
	if (c->out && c->tx.mem)
		ualg_budget_uncharge(c->tx.mem, c->out_len);
	ualg_wipe(c->out, c->out_len);
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_pos = 0;
}

static int comp_accept(struct alg_sock *op, const struct alg_sock *from)
{
	return afalg_tx_accept(op, from);
}

static int comp_send(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p)
{
	struct comp_ctx *c = op->ctx;

	if (!p->started)
		drop_output(c);
	return afalg_tx_send(&c->tx, s, p, 0);
}

/* Decompression retries with twice the room while the output does not
 * fit, up to the limit; compression's output always fits its bound. */
int afalg_comp_bounded(struct ualg_tfm *tfm, bool compress, const uint8_t *src, size_t slen,
		       struct ualg_budget *mem, uint8_t **out, size_t *outlen)
{
	size_t cap = compress ? slen + slen / 8 + 1024 : 4 * slen;

	if (cap < COMP_OUT_MIN)
		cap = COMP_OUT_MIN;
	for (;;) {
		if (cap > AFALG_COMP_OUT_MAX)
			cap = AFALG_COMP_OUT_MAX;
		if (mem && !ualg_budget_charge(mem, cap))
			return -ENOMEM;
		uint8_t *buf = malloc(cap);
		size_t n = cap;
		int r = buf ? ualg_comp_run(tfm, compress, src, slen, buf, &n) : -ENOMEM;
		if (!r) {
			/* The output is kept, and charged, at its own size. */
			uint8_t *fit = realloc(buf, n ? n : 1);
			if (fit)
				buf = fit;
			if (mem)
				ualg_budget_uncharge(mem, cap - n);
			*out = buf;
			*outlen = n;
			return 0;
		}
		if (mem)
			ualg_budget_uncharge(mem, cap);
		ualg_wipe(buf, cap);
		free(buf);
		if (r != -ENOSPC)
			return r;
		if (cap == AFALG_COMP_OUT_MAX)
			return -EFBIG;
		cap *= 2;
	}
}

static int comp_recv(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
		     struct afalg_progress *p)
{
	struct comp_ctx *c = op->ctx;

	(void)trunc;
	(void)p;
	if (!c->out) {
		const uint8_t *data;
		int r = afalg_tx_whole(&c->tx, dontwait, &data);
		if (r)
			return r;
		r = afalg_comp_bounded(afalg_tfm(op), c->tx.op == ALG_OP_ENCRYPT, data, c->tx.used,
				       c->tx.mem, &c->out, &c->out_len);
		afalg_tx_pull_all(&c->tx);
		if (r)
			return r;
	}
	size_t n = c->out_len - c->out_pos < len ? c->out_len - c->out_pos : len;
	memcpy(out, c->out + c->out_pos, n);
	c->out_pos += n;
	if (c->out_pos == c->out_len)
		drop_output(c);
	return (int)n;
}

static unsigned comp_poll(const struct alg_sock *op)
{
	const struct comp_ctx *c = op->ctx;

	return afalg_tx_poll(op) | (c->out ? POLLIN | POLLRDNORM : 0);
}

static void comp_release(struct alg_sock *op)
{
	drop_output(op->ctx);
	afalg_tx_release(op);
}

const struct alg_type afalg_type_comp = {
	.name = "compression",
	.alg_type = UALG_ALG_COMP,
	.ctxsize = sizeof(struct comp_ctx),
	.accept = comp_accept,
	.send = comp_send,
	.recv = comp_recv,
	.poll = comp_poll,
	.send_copies = true,
	.release = comp_release,
};
