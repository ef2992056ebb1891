/* RFC mode's private parts, shared by algif_rfc.c (the socket types) and
 * rfc_options.c (their socket options): the transform socket's and the op
 * socket's state. */
#ifndef UALG_ALGD_RFC_IMPL_H
#define UALG_ALGD_RFC_IMPL_H

#include "afalg.h"
#include "rfc_queue.h"
#include "rfc_state.h"

#include <stdbool.h>
#include <stdint.h>

/* An RFC transform socket's part (alg_sock.rfc). */
struct rfc_tfm {
	bool listening;
	uint8_t keyfp[RFC_FP_LEN];	/* what states are sealed to */
	struct alg_sock *unpaired;	/* aead: the newest op socket without its AD socket */
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

static inline struct rfc_op *ctx_of(const struct alg_sock *sk)
{
	return sk->ctx;
}

static inline struct rfc_tfm *rfc_of(const struct alg_sock *sk)
{
	return sk->mode_priv;
}

static inline struct rfc_tfm *tfm_rfc(const struct alg_sock *op)
{
	return rfc_of(op->parent);
}

/* The mode's setsockopt (afalg_mode.setsockopt). */
int rfc_serve_setsockopt(struct alg_sock *sk, int level, int optname, const struct afalg_optval *v);

#endif
