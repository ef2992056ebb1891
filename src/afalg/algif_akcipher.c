/* The "akcipher" socket type, which Linux never merged: the interface of
 * libkcapi's out-of-tree algif_akcipher patch, as kcapi_akcipher_*() use
 * it.  ALG_SET_KEY sets the private key (DER RSAPrivateKey) and
 * ALG_SET_PUBKEY the public one (DER RSAPublicKey, or the uncompressed
 * point of ecdsa); both answer the operation's output size.  A request is
 * the data sent, with ALG_SET_OP ALG_OP_ENCRYPT, _DECRYPT, _SIGN or _VERIFY
 * (MSG_MORE continues it); a read runs it once the last part is there and
 * returns its whole output, which must fit the read (EINVAL otherwise).  A
 * failed verification is EBADMSG. */
#include "afalg.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <string.h>

static int akcipher_accept(struct alg_sock *op, const struct alg_sock *from)
{
	afalg_tx_of(op)->ops = 1u << ALG_OP_DECRYPT | 1u << ALG_OP_ENCRYPT | 1u << ALG_OP_SIGN |
			       1u << ALG_OP_VERIFY;
	return afalg_tx_accept(op, from);
}

static int akcipher_send(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p)
{
	return afalg_tx_send(afalg_tx_of(op), s, p, 0);
}

static enum ualg_akcipher_op core_op(uint32_t op)
{
	switch (op) {
	case ALG_OP_ENCRYPT: return UALG_AK_ENCRYPT;
	case ALG_OP_SIGN: return UALG_AK_SIGN;
	case ALG_OP_VERIFY: return UALG_AK_VERIFY;
	default: return UALG_AK_DECRYPT;
	}
}

static int akcipher_recv(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
			 struct afalg_progress *p)
{
	struct afalg_tx *tx = afalg_tx_of(op);
	uint8_t res[UALG_AKCIPHER_MAX_OUT];
	size_t n = sizeof(res);

	(void)trunc;
	(void)p;
	const uint8_t *data;
	int r = afalg_tx_whole(tx, dontwait, &data);
	if (r)
		return r;
	r = ualg_akcipher_run(afalg_tfm(op), core_op(tx->op), data, tx->used, res, &n);
	afalg_tx_pull_all(tx);
	if (!r && n > len)
		r = -EINVAL;	/* the output must fit whole */
	if (!r)
		memcpy(out, res, n);
	ualg_wipe(res, sizeof(res));
	return r ? r : (int)n;
}

/* The key options answer the size of an operation's output. */
static int akcipher_setsockopt(struct alg_sock *sk, int optname, const struct afalg_optval *v)
{
	int r;

	const bool pub = afalg_akcipher_pubkey_opt(optname, v->optlen);

	if (optname != ALG_SET_KEY && !pub)
		return AFALG_OPT_GENERIC;
	if ((r = afalg_opt_copy_in(sk, v)))
		return r;
	r = pub ? ualg_akcipher_set_pub_key(sk->tfm, v->data, v->len)
		: ualg_tfm_setkey(sk->tfm, v->data, v->len);
	return r ? r : (int)ualg_akcipher_max_size(sk->tfm);
}

const struct alg_type afalg_type_akcipher = {
	.name = "akcipher",
	.alg_type = UALG_ALG_AKCIPHER,
	.ctxsize = sizeof(struct afalg_tx),
	.accept = akcipher_accept,
	.send = akcipher_send,
	.recv = akcipher_recv,
	.poll = afalg_tx_poll,
	.send_copies = true,
	.release = afalg_tx_release,
	.setsockopt = akcipher_setsockopt,
};
