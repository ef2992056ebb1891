/* The "kpp" socket type, which Linux never merged: the interface of
 * libkcapi's out-of-tree algif_kpp patch, as kcapi_kpp_*() use it.
 *
 * The options go by the kernel patches' numbers or by libkcapi's
 * (afalg.h).  On the transform socket, for dh, ALG_SET_DH_PARAMETERS takes
 * the group as PKCS#3 DER (`openssl dhparam -outform DER`) and answers the
 * size of p; for ecdh, ALG_SET_ECDH_CURVE takes the curve's ECC_CURVE_NIST_* id as
 * a decimal string, which must be the socket's own curve.  After either,
 * ALG_SET_KEY takes the private key as big-endian bytes (empty: generate
 * one); before, it takes the kernel's packed secret (crypto_dh_encode_key(),
 * crypto_ecdh_encode_key()).  It answers the size of an output.
 *
 * On an op socket, a sendmsg() with ALG_SET_OP ALG_OP_KEYGEN and no data
 * makes the next read return our public key (p-sized for dh, X || Y for
 * ecdh); ALG_OP_SSGEN with the peer's public key makes it return the
 * shared secret.  A read too short for the output is EINVAL. */
#include "afalg.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <stdlib.h>
#include <string.h>

struct afalg_kpp_opts {
	bool has_params, has_curve;
	size_t plen, glen;
	uint8_t p[UALG_DH_MAX_BYTES], g[UALG_DH_MAX_BYTES];
};

static void kpp_release_tfm(struct alg_sock *sk)
{
	free(sk->tfm_priv);
	sk->tfm_priv = NULL;
}

static bool is_dh(const struct alg_sock *sk)
{
	return !strcmp(sk->tfm->alg->name, "dh");
}

/* ECC_CURVE_NIST_P192/P256/P384 of include/crypto/ecdh.h. */
static unsigned curve_id(const struct alg_sock *sk)
{
	static const char *const names[] = { "ecdh-nist-p192", "ecdh-nist-p256", "ecdh-nist-p384" };

	for (unsigned i = 0; i < 3; i++)
		if (!strcmp(sk->tfm->alg->name, names[i]))
			return i + 1;
	return 0;
}

static struct afalg_kpp_opts *opts_of(struct alg_sock *sk)
{
	if (!sk->tfm_priv)
		sk->tfm_priv = calloc(1, sizeof(struct afalg_kpp_opts));
	return sk->tfm_priv;
}

static int set_dh_params(struct alg_sock *sk, const struct afalg_optval *v)
{
	if (!is_dh(sk))
		return -EINVAL;
	struct afalg_kpp_opts *o = opts_of(sk);
	if (!o)
		return -ENOMEM;
	int r = ualg_dh_decode_params(v->data, v->len, o->p, &o->plen, o->g, &o->glen);
	o->has_params = !r;
	return r ? r : (int)o->plen;
}

/* "2" (libkcapi sends it NUL-padded in an unsigned long's room). */
static int set_curve(struct alg_sock *sk, const struct afalg_optval *v)
{
	const size_t n = strnlen((const char *)v->data, v->len);
	unsigned long id = 0;

	if (!n || n > 3)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (v->data[i] < '0' || v->data[i] > '9')
			return -EINVAL;
		id = id * 10 + (v->data[i] - '0');
	}
	if (!curve_id(sk) || id != curve_id(sk))
		return -EINVAL;
	struct afalg_kpp_opts *o = opts_of(sk);
	if (!o)
		return -ENOMEM;
	o->has_curve = true;
	return 0;
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, sizeof(v)); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, sizeof(v)); }

/* The raw private key in the kernel's packed secret, after the options
 * above; else the value is that secret already. */
static int set_key(struct alg_sock *sk, const struct afalg_optval *v)
{
	const struct afalg_kpp_opts *o = sk->tfm_priv;
	uint8_t *buf = NULL;
	size_t len = 0;
	int r;

	if (o && is_dh(sk) && o->has_params) {
		len = 16 + v->len + o->plen + o->glen;
		if (v->len > UALG_DH_MAX_BYTES || !(buf = ualg_secure_zalloc(len)))
			return v->len > UALG_DH_MAX_BYTES ? -EINVAL : -ENOMEM;
		put16(buf, 1);
		put16(buf + 2, (uint16_t)len);
		put32(buf + 4, (uint32_t)v->len);
		put32(buf + 8, (uint32_t)o->plen);
		put32(buf + 12, (uint32_t)o->glen);
		memcpy(buf + 16, v->data, v->len);
		memcpy(buf + 16 + v->len, o->p, o->plen);
		memcpy(buf + 16 + v->len + o->plen, o->g, o->glen);
	} else if (o && o->has_curve) {
		len = 6 + v->len;
		if (v->len > 66 || !(buf = ualg_secure_zalloc(len)))
			return v->len > 66 ? -EINVAL : -ENOMEM;
		put16(buf, 2);
		put16(buf + 2, (uint16_t)len);
		put16(buf + 4, (uint16_t)v->len);
		memcpy(buf + 6, v->data, v->len);
	}
	r = buf ? ualg_tfm_setkey(sk->tfm, buf, len) : ualg_tfm_setkey(sk->tfm, v->data, v->len);
	if (buf) {
		ualg_wipe(buf, len);
		ualg_secure_free(buf);
	}
	return r ? r : (int)ualg_kpp_max_size(sk->tfm);
}

static int kpp_setsockopt(struct alg_sock *sk, int optname, const struct afalg_optval *v)
{
	int r;

	if (optname != ALG_SET_KEY && optname != ALG_SET_DH_PARAMETERS &&
	    optname != ALG_SET_ECDH_CURVE && optname != ALG_SET_ECDH_CURVE_KCAPI)
		return AFALG_OPT_GENERIC;
	if ((r = afalg_opt_copy_in(sk, v)))
		return r;
	switch (optname) {
	case ALG_SET_DH_PARAMETERS:
		return set_dh_params(sk, v);
	case ALG_SET_ECDH_CURVE:	/* = ALG_SET_DH_PARAMETERS_KCAPI */
		return is_dh(sk) ? set_dh_params(sk, v) : set_curve(sk, v);
	case ALG_SET_ECDH_CURVE_KCAPI:
		return set_curve(sk, v);
	default:
		return set_key(sk, v);
	}
}

static int kpp_accept(struct alg_sock *op, const struct alg_sock *from)
{
	afalg_tx_of(op)->ops = 1u << ALG_OP_KEYGEN | 1u << ALG_OP_SSGEN;
	return afalg_tx_accept(op, from);
}

static int kpp_send(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p)
{
	return afalg_tx_send(afalg_tx_of(op), s, p, 0);
}

static int kpp_recv(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
		    struct afalg_progress *p)
{
	struct afalg_tx *tx = afalg_tx_of(op);
	struct ualg_tfm *tfm = afalg_tfm(op);
	uint8_t res[UALG_AKCIPHER_MAX_OUT];
	size_t n = sizeof(res);
	int r;

	(void)trunc;
	(void)p;
	const uint8_t *data;
	if ((r = afalg_tx_whole(tx, dontwait, &data)))
		return r;
	if (tx->op == ALG_OP_KEYGEN)
		r = tx->used ? -EINVAL : ualg_kpp_gen_pubkey(tfm, res, &n);
	else if (tx->op == ALG_OP_SSGEN)
		r = ualg_kpp_compute_ss(tfm, data, tx->used, res, &n);
	else
		r = -EINVAL;	/* no ALG_SET_OP yet */
	afalg_tx_pull_all(tx);
	if (!r && n > len)
		r = -EINVAL;
	if (!r)
		memcpy(out, res, n);
	ualg_wipe(res, sizeof(res));
	return r ? r : (int)n;
}

const struct alg_type afalg_type_kpp = {
	.name = "kpp",
	.alg_type = UALG_ALG_KPP,
	.ctxsize = sizeof(struct afalg_tx),
	.accept = kpp_accept,
	.send = kpp_send,
	.recv = kpp_recv,
	.poll = afalg_tx_poll,
	.send_copies = true,
	.release = afalg_tx_release,
	.release_tfm = kpp_release_tfm,
	.setsockopt = kpp_setsockopt,
};
