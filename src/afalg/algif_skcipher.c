/* The "skcipher" socket type, as crypto/algif_skcipher.c: sends queue data
 * (afalg_tx.c); a read runs the cipher over what is queued, in whole chunks
 * while more data may follow. */
#include "afalg.h"

#include <errno.h>
#include <string.h>

static int skcipher_send(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p)
{
	return afalg_tx_send(afalg_tx_of(op), s, p, afalg_tfm(op)->alg->u.skcipher.ivsize);
}

/* skcipher_recvmsg(): runs the cipher over queued data in whole chunks
 * while more may follow; waits (AFALG_WAIT) where the kernel sleeps, which
 * includes after a request's last byte when the caller asked for more.
 * Each round's RX list takes as much of the buffer as there is queued data
 * (af_alg_get_rsgl() with ctx->used), the cipher fills the whole chunks of
 * it: a round that leaves a partial chunk queued has used the buffer up to
 * there, so a read no larger than the queue ends with it.  (A larger one
 * sleeps for more, as the kernel's; what a later round produces follows
 * here without the kernel's gap of the partial chunk.) */
static int skcipher_recv(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
			 struct afalg_progress *p)
{
	struct afalg_tx *tx = afalg_tx_of(op);
	struct ualg_tfm *tfm = afalg_tfm(op);
	const size_t bs = tfm->alg->u.skcipher.chunksize ? tfm->alg->u.skcipher.chunksize : 1;

	(void)trunc;
	while (p->pos < len) {
		if (!tx->init || (tx->more && tx->used < bs)) {
			if (dontwait)
				return p->done ? (int)p->done : -EAGAIN;
			return AFALG_WAIT;
		}
		const size_t take = len - p->pos < tx->used ? len - p->pos : tx->used;
		size_t n = take;
		if (tx->more || n < tx->used)
			n -= n % bs;
		/* Less than a chunk of a longer queue: the kernel refuses the
		 * request and leaves the queue as it was. */
		if (!n && tx->used)
			return p->done ? (int)p->done : -EINVAL;
		/* From the private queue straight into out, which may be the
		 * client's shared area: the cipher never reads input there. */
		uint8_t *dst = out + p->done;
		const uint8_t *src = n ? afalg_tx_data(tx) : dst;	/* empty: no buffer yet */
		int r = ualg_skcipher_crypt(tfm, tx->enc, tx->iv, src, dst, n);
		afalg_tx_pull(tx, n);
		if (r)
			return p->done ? (int)p->done : r;
		if (!n)
			break;
		p->done += n;
		p->pos += take;
	}
	return (int)p->done;
}

static bool skcipher_send_ok(const struct alg_sock *op, const struct afalg_send *s)
{
	return afalg_tx_send_ok(afalg_tx_of(op), s, afalg_tfm(op)->alg->u.skcipher.ivsize);
}

/* skcipher_recv()'s first round runs unless it would wait; a second
 * round, which would wait for more data, comes only when the buffer is
 * larger than the queue and the first round consumed some of it. */
static bool skcipher_ready(const struct alg_sock *op, bool send, size_t len)
{
	const struct afalg_tx *tx = afalg_tx_of(op);
	const struct ualg_tfm *tfm = afalg_tfm(op);
	const size_t bs = tfm->alg->u.skcipher.chunksize ? tfm->alg->u.skcipher.chunksize : 1;

	if (send)
		return afalg_tx_send_ready(tx, len);
	if (!len)
		return true;
	if (!tx->init || (tx->more && tx->used < bs))
		return false;
	return len <= tx->used || !tx->used;
}

const struct alg_type afalg_type_skcipher = {
	.name = "skcipher",
	.alg_type = UALG_ALG_SKCIPHER,
	.ctxsize = sizeof(struct afalg_tx),
	.accept = afalg_tx_accept,
	.accept_on_op = false,
	.send = skcipher_send,
	.recv = skcipher_recv,
	.ready = skcipher_ready,
	.send_ok = skcipher_send_ok,
	.poll = afalg_tx_poll,
	.send_copies = true,
	.release = afalg_tx_release,
	.export = afalg_tx_export,
	.import = afalg_tx_import,
};
