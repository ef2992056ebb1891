/* OpenSSL's kpp drivers: the kernel's dh (crypto/dh.c) and
 * ecdh-nist-p256/p384 (ecdh.c), with keys in the kpp_secret encodings
 * those files parse. */
#include "openssl_asym.h"

#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/dh.h>
#include <openssl/ec.h>
#include <openssl/param_build.h>

/* struct kpp_secret of include/crypto/kpp.h, then the type's fields, all
 * in host byte order (crypto_dh_encode_key(), crypto_ecdh_encode_key()). */
#define KPP_SECRET_DH 1
#define KPP_SECRET_ECDH 2
#define DH_MAX_P_BYTES UALG_DH_MAX_BYTES	/* 8192 bits: bounds a client's work */

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static bool secret_header_ok(const uint8_t *buf, size_t len, uint16_t type)
{
	return len >= 4 && get16(buf) == type && get16(buf + 2) == len;
}

static EVP_PKEY *dh_key_from(const BIGNUM *p, const BIGNUM *g, const BIGNUM *pub,
			     const BIGNUM *priv)
{
	OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
	const bool pushed = b && OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_FFC_P, p) &&
			    OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_FFC_G, g) &&
			    OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PUB_KEY, pub) &&
			    (!priv || OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PRIV_KEY, priv));

	return ualg_pkey_fromdata("DH", b, pushed, priv != NULL);
}

/* A private key for the group: OpenSSL's DH key generation over p and g. */
static BIGNUM *dh_generate_priv(const BIGNUM *p, const BIGNUM *g)
{
	BIGNUM *one = BN_new(), *x = NULL;
	EVP_PKEY *dom = NULL, *k = NULL;
	EVP_PKEY_CTX *pc = NULL;

	if (one && BN_one(one) && (dom = dh_key_from(p, g, one, NULL)) &&
	    (pc = EVP_PKEY_CTX_new_from_pkey(NULL, dom, NULL)) && EVP_PKEY_keygen_init(pc) > 0 &&
	    EVP_PKEY_generate(pc, &k) > 0)
		EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_PRIV_KEY, &x);
	EVP_PKEY_CTX_free(pc);
	EVP_PKEY_free(k);
	EVP_PKEY_free(dom);
	BN_free(one);
	return x;
}

/* dh_set_secret(): p of 1536 bits or more (dh_check_params_length()),
 * 0 < x < p; the public value g^x mod p goes with the key. */
static int dh_make_key(struct ualg_tfm *tfm, BIGNUM *p, BIGNUM *g, BIGNUM *x)
{
	BIGNUM *y = BN_new();
	BN_CTX *bc = BN_CTX_new();
	EVP_PKEY *k = NULL;
	int r = -EINVAL;

	if (!y || !bc)
		r = -ENOMEM;
	else if (BN_num_bits(p) < 1536 || BN_num_bytes(p) > DH_MAX_P_BYTES || BN_is_zero(g) ||
		 BN_cmp(g, p) >= 0 || BN_is_zero(x) || BN_cmp(x, p) >= 0)
		r = -EINVAL;
	else if (BN_mod_exp_mont_consttime(y, g, x, p, bc, NULL) &&
		 (k = dh_key_from(p, g, y, x))) {
		ualg_pkey_replace(tfm->ctx, k, true, (unsigned)BN_num_bytes(p));
		r = 0;
	}
	BN_CTX_free(bc);
	BN_free(y);
	return r;
}

static int dh_set_secret(struct ualg_tfm *tfm, const uint8_t *buf, size_t len)
{
	if (!secret_header_ok(buf, len, KPP_SECRET_DH) || len < 16)
		return -EINVAL;
	const uint64_t ks = get32(buf + 4), ps = get32(buf + 8), gs = get32(buf + 12);
	if (16 + ks + ps + gs != len)
		return -EINVAL;
	const uint8_t *key = buf + 16, *pb = key + ks, *gb = pb + ps;
	BIGNUM *p = BN_bin2bn(pb, (int)ps, NULL), *g = BN_bin2bn(gb, (int)gs, NULL);
	BIGNUM *x = NULL;
	int r = -ENOMEM;
	if (p && g) {
		r = -EINVAL;
		if (BN_num_bits(p) >= 1536 && BN_num_bytes(p) <= DH_MAX_P_BYTES)
			x = ks ? BN_secure_new() : dh_generate_priv(p, g);
		if (x && ks && !BN_bin2bn(key, (int)ks, x)) {
			BN_clear_free(x);
			x = NULL;
		}
		if (x)
			r = dh_make_key(tfm, p, g, x);
	}
	BN_clear_free(x);
	BN_free(p);
	BN_free(g);
	return r;
}

/* An output as a big-endian number of exactly size bytes. */
static int bn_out(const BIGNUM *v, unsigned size, uint8_t *dst, size_t *dlen)
{
	if (*dlen < size)
		return -EOVERFLOW;
	if (BN_bn2binpad(v, dst, (int)size) < 0)
		return -EINVAL;
	*dlen = size;
	return 0;
}

static int dh_gen_pubkey(struct ualg_tfm *tfm, uint8_t *dst, size_t *dlen)
{
	struct pkey_ctx *c = tfm->ctx;
	BIGNUM *y = NULL;

	if (!EVP_PKEY_get_bn_param(c->pkey, OSSL_PKEY_PARAM_PUB_KEY, &y))
		return -ENOMEM;
	int r = bn_out(y, c->size, dst, dlen);
	BN_free(y);
	return r;
}

/* The shared secret with a peer key of the same group (EVP_PKEY_derive
 * checks it as dh_is_pubkey_valid() does), padded to the size of p.  The
 * peer's value is read as mpi_read_raw_from_sgl() reads it, whatever its
 * length: leading zero bytes count for nothing. */
static int derive(EVP_PKEY *own, EVP_PKEY *peer, bool dh_pad, uint8_t *dst, size_t *dlen)
{
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(NULL, own, NULL);
	int ok = pc && EVP_PKEY_derive_init(pc) > 0 &&
		 (!dh_pad || EVP_PKEY_CTX_set_dh_pad(pc, 1) > 0) &&
		 EVP_PKEY_derive_set_peer(pc, peer) > 0 && EVP_PKEY_derive(pc, dst, dlen) > 0;

	EVP_PKEY_CTX_free(pc);
	return ok ? 0 : -EINVAL;
}

static int dh_compute_ss(struct ualg_tfm *tfm, const uint8_t *peer, size_t plen, uint8_t *dst,
			 size_t *dlen)
{
	struct pkey_ctx *c = tfm->ctx;
	BIGNUM *p = NULL, *g = NULL, *y = BN_bin2bn(peer, (int)plen, NULL);
	EVP_PKEY *pk = NULL;
	int r = -EINVAL;

	if (*dlen < c->size)
		return -EOVERFLOW;
	if (y && EVP_PKEY_get_bn_param(c->pkey, OSSL_PKEY_PARAM_FFC_P, &p) &&
	    EVP_PKEY_get_bn_param(c->pkey, OSSL_PKEY_PARAM_FFC_G, &g) &&
	    (pk = dh_key_from(p, g, y, NULL))) {
		size_t n = c->size;
		r = derive(c->pkey, pk, true, dst, &n);
		if (!r)
			*dlen = n;
	}
	EVP_PKEY_free(pk);
	BN_free(p);
	BN_free(g);
	BN_free(y);
	return r;
}

static unsigned ecdh_size(const struct ualg_tfm *tfm)
{
	return 2 * ((const struct ec_curve *)tfm->alg->priv)->nbytes;
}

/* ecdh_set_secret(): no key generates one; a key is the private scalar,
 * big-endian, of the curve's size, in [1, n-1]. */
static int ecdh_set_secret(struct ualg_tfm *tfm, const uint8_t *buf, size_t len)
{
	const struct ec_curve *cv = tfm->alg->priv;

	if (!secret_header_ok(buf, len, KPP_SECRET_ECDH) || len < 6 || 6u + get16(buf + 4) != len)
		return -EINVAL;
	const size_t ks = get16(buf + 4);
	if (ks && ks != cv->nbytes)
		return -EINVAL;
	if (!ks) {
		EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", cv->group);
		if (!k)
			return -ENOMEM;
		ualg_pkey_replace(tfm->ctx, k, true, cv->nbytes);
		return 0;
	}
	EC_GROUP *grp = EC_GROUP_new_by_curve_name(OBJ_sn2nid(cv->group));
	BIGNUM *d = BN_secure_new();
	EC_POINT *q = grp ? EC_POINT_new(grp) : NULL;
	uint8_t pub[1 + 2 * 48];
	EVP_PKEY *k = NULL;
	int r = -ENOMEM;
	if (grp && d && q && BN_bin2bn(buf + 6, (int)ks, d)) {
		r = -EINVAL;
		if (!BN_is_zero(d) && BN_cmp(d, EC_GROUP_get0_order(grp)) < 0 &&
		    EC_POINT_mul(grp, q, d, NULL, NULL, NULL) &&
		    EC_POINT_point2oct(grp, q, POINT_CONVERSION_UNCOMPRESSED, pub,
				       1 + 2 * cv->nbytes, NULL) == 1 + 2 * cv->nbytes &&
		    (k = ualg_ec_key_from(cv->group, pub, 1 + 2 * cv->nbytes, d))) {
			ualg_pkey_replace(tfm->ctx, k, true, cv->nbytes);
			r = 0;
		}
	}
	EC_POINT_free(q);
	BN_clear_free(d);
	EC_GROUP_free(grp);
	return r;
}

/* The public key as X || Y (ecdh_compute_value() without a peer). */
static int ecdh_gen_pubkey(struct ualg_tfm *tfm, uint8_t *dst, size_t *dlen)
{
	struct pkey_ctx *c = tfm->ctx;
	uint8_t pub[1 + 2 * 48];
	size_t n = 0;

	if (*dlen < 2 * c->size)
		return -EOVERFLOW;
	if (!EVP_PKEY_get_octet_string_param(c->pkey, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof(pub),
					     &n) || n != 1 + 2 * c->size || pub[0] != 0x04)
		return -EINVAL;
	memcpy(dst, pub + 1, 2 * c->size);
	*dlen = 2 * c->size;
	return 0;
}

/* The peer's X || Y must be a point of the curve; the secret is the x
 * coordinate of the product. */
static int ecdh_compute_ss(struct ualg_tfm *tfm, const uint8_t *peer, size_t plen, uint8_t *dst,
			   size_t *dlen)
{
	struct pkey_ctx *c = tfm->ctx;
	const struct ec_curve *cv = tfm->alg->priv;
	uint8_t pub[1 + 2 * 48];

	if (plen != 2 * c->size)
		return -EINVAL;
	if (*dlen < c->size)
		return -EOVERFLOW;
	pub[0] = 0x04;
	memcpy(pub + 1, peer, plen);
	EVP_PKEY *pk = ualg_ec_key_from(cv->group, pub, 1 + plen, NULL);
	if (!pk || !ualg_ec_pub_valid(pk)) {
		EVP_PKEY_free(pk);
		return -EINVAL;
	}
	size_t n = c->size;
	int r = derive(c->pkey, pk, false, dst, &n);
	EVP_PKEY_free(pk);
	if (!r)
		*dlen = n;
	return r;
}

/* ---- registration ------------------------------------------------------ */

static int reg_kpp(const char *name, const char *driver, const void *priv,
		   const struct ualg_kpp_ops *ops)
{
	struct ualg_alg *a = ualg_pkey_alg(name, driver, UALG_ALG_KPP, priv);

	if (!a)
		return -ENOMEM;
	a->u.kpp = *ops;
	return ualg_openssl_reg(a);
}

static unsigned ecdh_max_size(const struct ualg_tfm *tfm)
{
	return ecdh_size(tfm);
}

int ualg_asym_register_kpp(void)
{
	static const struct ualg_kpp_ops dh = {
		dh_set_secret, ualg_pkey_size, dh_gen_pubkey, dh_compute_ss };
	static const struct ualg_kpp_ops ecdh = {
		ecdh_set_secret, ecdh_max_size, ecdh_gen_pubkey, ecdh_compute_ss };
	int r = reg_kpp("dh", "dh-openssl", NULL, &dh);

	if (!r)
		r = reg_kpp("ecdh-nist-p256", "ecdh-nist-p256-openssl", &ualg_ec_p256, &ecdh);
	if (!r)
		r = reg_kpp("ecdh-nist-p384", "ecdh-nist-p384-openssl", &ualg_ec_p384, &ecdh);
	return r;
}
