/* The "rng" socket type, as crypto/algif_rng.c (without the CAVP test
 * interface, which Linux 6.1 kernels as shipped leave out): ALG_SET_KEY
 * seeds the generator shared by all op sockets of the transform; each read
 * returns at most 128 random bytes; sends are not supported. */
#include "afalg.h"

#include <errno.h>

#define RNG_MAXSIZE 128		/* algif_rng.c's MAXSIZE */

static int rng_accept(struct alg_sock *op, const struct alg_sock *from)
{
	(void)op;
	(void)from;
	return 0;
}

static int rng_send(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p)
{
	(void)op;
	(void)s;
	(void)p;
	return -EOPNOTSUPP;	/* sock_no_sendmsg */
}

static int rng_recv(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
		    struct afalg_progress *p)
{
	(void)dontwait;
	(void)trunc;
	(void)p;
	if (!len)
		return 0;
	if (len > RNG_MAXSIZE)
		len = RNG_MAXSIZE;
	int r = ualg_rng_generate(afalg_tfm(op), out, len);
	return r ? r : (int)len;
}

static void rng_release(struct alg_sock *op)
{
	(void)op;
}

const struct alg_type afalg_type_rng = {
	.name = "rng",
	.alg_type = UALG_ALG_RNG,
	.ctxsize = 1,
	.accept = rng_accept,
	.accept_on_op = false,
	.send = rng_send,
	.recv = rng_recv,
	.poll = NULL,
	.release = rng_release,
};
