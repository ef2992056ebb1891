/* Asymmetric drivers over OpenSSL's EVP_PKEY: the kernel's rsa and
 * pkcs1pad(rsa,sha256) (crypto/rsa.c, rsa-pkcs1pad.c), ecdsa-nist-p256
 * (crypto/ecdsa.c, verification only as in 6.1), dh and ecdh-nist-p256/p384
 * (crypto/dh.c, ecdh.c).  Keys come in the formats those files parse; every
 * computation is libcrypto's. */
#include "openssl.h"
#include "others.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/dh.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

struct pkey_ctx {
	EVP_PKEY *pkey;
	BIGNUM *n, *e, *d;	/* rsa: the key as the kernel keeps it */
	BN_MONT_CTX *mont;	/* rsa: Montgomery form of an odd n */
	bool priv;		/* the private half is there */
	unsigned size;		/* kpp: output size; akcipher: modulus bytes */
};

static void rsa_clear(struct pkey_ctx *c)
{
	BN_free(c->n);
	BN_free(c->e);
	BN_clear_free(c->d);
	BN_MONT_CTX_free(c->mont);
	c->n = c->e = c->d = NULL;
	c->mont = NULL;
	c->priv = false;
	c->size = 0;
}

static void pkey_exit_tfm(struct ualg_tfm *tfm)
{
	struct pkey_ctx *c = tfm->ctx;

	EVP_PKEY_free(c->pkey);
	c->pkey = NULL;
	rsa_clear(c);
}

static void pkey_replace(struct pkey_ctx *c, EVP_PKEY *k, bool priv, unsigned size)
{
	EVP_PKEY_free(c->pkey);
	c->pkey = k;
	c->priv = priv;
	c->size = size;
}

static unsigned pkey_size(const struct ualg_tfm *tfm)
{
	return ((const struct pkey_ctx *)tfm->ctx)->size;
}

/* ---- rsa, pkcs1pad(rsa,sha256) ---------------------------------------- */

/* rsa_check_key_length() of Linux 6.1, by the modulus' byte length. */
static bool rsa_size_ok(unsigned bytes)
{
	switch (bytes * 8) {
	case 512: case 1024: case 1536: case 2048: case 3072: case 4096:
		return true;
	}
	return false;
}

/* rsa_set_priv_key(), rsa_set_pub_key(): n, e and (private) d as
 * rsa_helper.c finds them, whatever the version and the CRT fields; the
 * old key is gone first, whatever the new one's fate. */
static int rsa_set_key(struct ualg_tfm *tfm, const uint8_t *key, size_t len, bool priv)
{
	struct pkey_ctx *c = tfm->ctx;
	struct ualg_rsa_raw_key raw;

	rsa_clear(c);
	int r = ualg_rsa_parse_key(key, len, priv, &raw);
	if (r)
		return r;
	c->n = BN_bin2bn(raw.n, (int)raw.n_len, NULL);
	c->e = BN_bin2bn(raw.e, (int)raw.e_len, NULL);
	if (priv && (c->d = BN_secure_new()) && !BN_bin2bn(raw.d, (int)raw.d_len, c->d)) {
		BN_clear_free(c->d);
		c->d = NULL;
	}
	if (!c->n || !c->e || (priv && !c->d)) {
		rsa_clear(c);
		return -ENOMEM;
	}
	if (!rsa_size_ok((unsigned)BN_num_bytes(c->n))) {
		rsa_clear(c);
		return -EINVAL;
	}
	BN_CTX *bc = BN_is_odd(c->n) ? BN_CTX_new() : NULL;
	if (bc && (c->mont = BN_MONT_CTX_new()) && !BN_MONT_CTX_set(c->mont, c->n, bc)) {
		BN_MONT_CTX_free(c->mont);
		c->mont = NULL;
	}
	BN_CTX_free(bc);
	if (BN_is_odd(c->n) && !c->mont) {
		rsa_clear(c);
		return -ENOMEM;
	}
	c->size = (unsigned)BN_num_bytes(c->n);
	c->priv = priv;
	return 0;
}

static int rsa_set_priv_key(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	return rsa_set_key(tfm, key, len, true);
}

static int rsa_set_pub_key(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	return rsa_set_key(tfm, key, len, false);
}

/* RSAEP/RSAVP1 (x^e mod n) or RSADP/RSASP1 (x^d mod n) of rsa.c, with
 * libcrypto's modular exponentiation (constant time for d): the input,
 * any length up to the modulus', must be below n (EINVAL); the output has
 * the modulus' size. */
static int rsa_exp(const struct pkey_ctx *c, bool private_op, const uint8_t *in, size_t inlen,
		   uint8_t *out)
{
	BN_CTX *bc = BN_CTX_secure_new();
	BIGNUM *x = BN_secure_new(), *y = BN_secure_new(), *d = BN_new();
	int r = -ENOMEM;

	if (bc && x && y && d && BN_bin2bn(in, (int)inlen, x)) {
		r = -EINVAL;
		if (BN_cmp(x, c->n) < 0) {
			int ok;
			if (private_op && c->mont) {
				BN_with_flags(d, c->d, BN_FLG_CONSTTIME);
				ok = BN_mod_exp_mont_consttime(y, x, d, c->n, bc, c->mont);
			} else if (c->mont) {
				ok = BN_mod_exp_mont(y, x, c->e, c->n, bc, c->mont);
			} else {	/* an even n: no Montgomery form */
				ok = BN_mod_exp(y, x, private_op ? c->d : c->e, c->n, bc);
			}
			r = ok && BN_bn2binpad(y, out, (int)c->size) == (int)c->size ? 0 : -ENOMEM;
		}
	}
	BN_free(d);
	BN_clear_free(x);
	BN_clear_free(y);
	BN_CTX_free(bc);
	return r;
}

/* Textbook RSA: encrypt and verify are m^e, decrypt and sign c^d, over
 * inputs up to the modulus size, as rsa_enc()/rsa_dec(). */
static int rsa_run(struct ualg_tfm *tfm, enum ualg_akcipher_op op, const uint8_t *src,
		   size_t slen, uint8_t *dst, size_t *dlen)
{
	struct pkey_ctx *c = tfm->ctx;
	const bool private_op = op == UALG_AK_DECRYPT || op == UALG_AK_SIGN;

	if (!c->n || (private_op && !c->priv))
		return -EINVAL;
	if (slen > c->size)
		return -EINVAL;
	if (*dlen < c->size)
		return -EOVERFLOW;
	int r = rsa_exp(c, private_op, src, slen, dst);
	if (!r)
		*dlen = c->size;
	return r;
}

/* RFC 8017 section 9.2, note 1: the DER DigestInfo prefix of SHA-256. */
static const uint8_t sha256_prefix[] = {
	0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
	0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
};
#define SHA256_SIZE 32

/* pkcs1pad is a template over rsa (rsa-pkcs1pad.c): the encoding of RFC
 * 8017 7.2.1 / 9.2 around the raw operation above.  The padding string
 * of encryption: nonzero random octets from libcrypto's generator. */
static int nonzero_random(uint8_t *p, size_t n)
{
	if (RAND_bytes(p, (int)n) != 1)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		while (!p[i])
			if (RAND_bytes(p + i, 1) != 1)
				return -ENOMEM;
	return 0;
}

/* The encoded message em (UALG_AKCIPHER_MAX_OUT bytes, of which the
 * modulus' size are used) through the raw operation unless r already
 * says it failed; em is wiped. */
static int em_exp(const struct pkey_ctx *c, bool private_op, uint8_t *em, int r, uint8_t *dst,
		  size_t *dlen)
{
	if (!r)
		r = rsa_exp(c, private_op, em, c->size, dst);
	ualg_wipe(em, UALG_AKCIPHER_MAX_OUT);
	if (!r)
		*dlen = c->size;
	return r;
}

/* EM = 0x00 || 0x02 || PS || 0x00 || M, then m^e. */
static int pkcs1pad_encrypt(struct pkey_ctx *c, const uint8_t *src, size_t slen, uint8_t *dst,
			    size_t *dlen)
{
	uint8_t em[UALG_AKCIPHER_MAX_OUT];
	const size_t ps = c->size - slen - 3;

	if (slen > c->size - 11)
		return -EOVERFLOW;
	em[0] = 0x00;
	em[1] = 0x02;
	int r = nonzero_random(em + 2, ps);
	em[2 + ps] = 0x00;
	memcpy(em + 3 + ps, src, slen);
	return em_exp(c, false, em, r, dst, dlen);
}

/* c^d, then the encoding checked as pkcs1pad_decrypt_complete(): EINVAL
 * for anything but 0x00 0x02, eight or more nonzero octets and 0x00. */
static int pkcs1pad_decrypt(struct pkey_ctx *c, const uint8_t *src, size_t slen, uint8_t *dst,
			    size_t *dlen)
{
	uint8_t em[UALG_AKCIPHER_MAX_OUT];
	size_t pos = 2;

	if (!c->priv || slen != c->size)
		return -EINVAL;
	int r = rsa_exp(c, true, src, slen, em);
	if (!r) {
		while (pos < c->size && em[pos])
			pos++;
		if (em[0] || em[1] != 0x02 || pos < 10 || pos == c->size)
			r = -EINVAL;
	}
	if (!r) {
		const size_t mlen = c->size - pos - 1;
		if (*dlen < mlen) {
			r = -EOVERFLOW;
		} else {
			memcpy(dst, em + pos + 1, mlen);
			*dlen = mlen;
		}
	}
	ualg_wipe(em, sizeof(em));
	return r;
}

/* pkcs1pad(rsa,sha256) signing: the input is the digest (any length, as
 * pkcs1pad_sign() does not check it), signed behind the DigestInfo:
 * EM = 0x00 || 0x01 || 0xff... || 0x00 || DigestInfo || digest, then EM^d. */
static int pkcs1pad_sign(struct pkey_ctx *c, const uint8_t *src, size_t slen, uint8_t *dst,
			 size_t *dlen)
{
	uint8_t em[UALG_AKCIPHER_MAX_OUT];
	const size_t tlen = sizeof(sha256_prefix) + slen;

	if (!c->priv)
		return -EINVAL;
	if (tlen > c->size - 11)
		return -EOVERFLOW;
	em[0] = 0x00;
	em[1] = 0x01;
	memset(em + 2, 0xff, c->size - tlen - 3);
	em[c->size - tlen - 1] = 0x00;
	memcpy(em + c->size - tlen, sha256_prefix, sizeof(sha256_prefix));
	memcpy(em + c->size - slen, src, slen);
	return em_exp(c, true, em, 0, dst, dlen);
}

/* Verification recovers the DigestInfo; given the signature alone the
 * digest is the answer, given signature || digest the two are compared.
 * Anything but a well-formed encoding of a SHA-256 digest is EBADMSG. */
static int pkcs1pad_verify(struct pkey_ctx *c, const uint8_t *src, size_t slen, uint8_t *dst,
			   size_t *dlen)
{
	uint8_t em[UALG_AKCIPHER_MAX_OUT];
	const size_t tlen = sizeof(sha256_prefix) + SHA256_SIZE;

	if (slen != c->size && slen != c->size + SHA256_SIZE)
		return -EINVAL;
	if (rsa_exp(c, false, src, c->size, em))
		return -EBADMSG;
	size_t pos = 2;
	while (pos < c->size && em[pos] == 0xff)
		pos++;
	if (em[0] || em[1] != 0x01 || pos < 10 || pos == c->size || em[pos] ||
	    c->size - pos - 1 != tlen || memcmp(em + pos + 1, sha256_prefix, sizeof(sha256_prefix)))
		return -EBADMSG;
	const uint8_t *digest = em + c->size - SHA256_SIZE;
	if (slen > c->size) {
		*dlen = 0;
		return ualg_memneq(digest, src + c->size, SHA256_SIZE) ? -EBADMSG : 0;
	}
	if (*dlen < SHA256_SIZE)
		return -EOVERFLOW;
	memcpy(dst, digest, SHA256_SIZE);
	*dlen = SHA256_SIZE;
	return 0;
}

static int pkcs1pad_run(struct ualg_tfm *tfm, enum ualg_akcipher_op op, const uint8_t *src,
			size_t slen, uint8_t *dst, size_t *dlen)
{
	struct pkey_ctx *c = tfm->ctx;

	if (!c->n)
		return -EINVAL;
	if (*dlen < c->size && op != UALG_AK_VERIFY)
		return -EOVERFLOW;
	switch (op) {
	case UALG_AK_ENCRYPT:
		return pkcs1pad_encrypt(c, src, slen, dst, dlen);
	case UALG_AK_DECRYPT:
		return pkcs1pad_decrypt(c, src, slen, dst, dlen);
	case UALG_AK_SIGN:
		return pkcs1pad_sign(c, src, slen, dst, dlen);
	case UALG_AK_VERIFY:
		return pkcs1pad_verify(c, src, slen, dst, dlen);
	}
	return -EINVAL;
}

/* ---- ecdsa-nist-p256 (verification) ----------------------------------- */

/* An EC key of the named group from its octets: the public point
 * (uncompressed, 0x04 || X || Y) and optionally the private scalar. */
static EVP_PKEY *ec_key_from(const char *group, const uint8_t *pub, size_t publen,
			     const BIGNUM *priv)
{
	OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *pc = NULL;
	EVP_PKEY *k = NULL;

	if (!b || !OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, pub, publen) ||
	    (priv && !OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PRIV_KEY, priv)) ||
	    !(params = OSSL_PARAM_BLD_to_param(b)) ||
	    !(pc = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) || EVP_PKEY_fromdata_init(pc) <= 0 ||
	    EVP_PKEY_fromdata(pc, &k, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) <= 0)
		k = NULL;
	EVP_PKEY_CTX_free(pc);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(b);
	return k;
}

/* EVP_PKEY_fromdata() takes any octets of the right form; the point must
 * also lie on the curve (ecc_is_pubkey_valid_full()). */
static bool ec_pub_valid(EVP_PKEY *k)
{
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(NULL, k, NULL);
	bool ok = pc && EVP_PKEY_public_check(pc) > 0;

	EVP_PKEY_CTX_free(pc);
	return ok;
}

struct ec_curve {
	const char *group;	/* OpenSSL's name */
	unsigned nbytes;	/* field and order size */
	unsigned kernel_id;	/* ECC_CURVE_NIST_* */
};

static const struct ec_curve p256 = { "prime256v1", 32, 2 };
static const struct ec_curve p384 = { "secp384r1", 48, 3 };

/* ecdsa_set_pub_key(): 0x04 || X || Y of the curve's size. */
static int ecdsa_set_pub_key(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct ec_curve *cv = tfm->alg->priv;

	if (len != 1 + 2 * cv->nbytes || key[0] != 0x04)
		return -EINVAL;
	EVP_PKEY *k = ec_key_from(cv->group, key, len, NULL);
	if (!k || !ec_pub_valid(k)) {
		EVP_PKEY_free(k);
		return -EINVAL;
	}
	pkey_replace(tfm->ctx, k, false, cv->nbytes);
	return 0;
}

/* The length of the DER SEQUENCE at the start of src, or 0. */
static size_t der_seq_len(const uint8_t *src, size_t slen)
{
	if (slen < 2 || src[0] != 0x30)
		return 0;
	if (src[1] < 0x80)
		return 2 + (size_t)src[1] <= slen ? 2 + (size_t)src[1] : 0;
	if (src[1] == 0x81 && slen >= 3 && src[2] >= 0x80)
		return 3 + (size_t)src[2] <= slen ? 3 + (size_t)src[2] : 0;
	return 0;
}

/* Verification of a DER Ecdsa-Sig-Value followed by the digest. */
static int ecdsa_run(struct ualg_tfm *tfm, enum ualg_akcipher_op op, const uint8_t *src,
		     size_t slen, uint8_t *dst, size_t *dlen)
{
	struct pkey_ctx *c = tfm->ctx;

	(void)dst;
	if (op != UALG_AK_VERIFY)
		return -ENOSYS;	/* akcipher_default_op */
	const size_t siglen = der_seq_len(src, slen);
	if (!siglen || siglen == slen)
		return -EBADMSG;
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(NULL, c->pkey, NULL);
	if (!pc)
		return -ENOMEM;
	const size_t mlen = slen - siglen < c->size ? slen - siglen : c->size;
	int ok = EVP_PKEY_verify_init(pc) > 0 &&
		 EVP_PKEY_verify(pc, src, siglen, src + siglen, mlen) == 1;
	EVP_PKEY_CTX_free(pc);
	*dlen = 0;
	return ok ? 0 : -EBADMSG;
}

/* ---- dh, ecdh ---------------------------------------------------------- */

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
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *pc = NULL;
	EVP_PKEY *k = NULL;

	if (!b || !OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_FFC_P, p) ||
	    !OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_FFC_G, g) ||
	    !OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PUB_KEY, pub) ||
	    (priv && !OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PRIV_KEY, priv)) ||
	    !(params = OSSL_PARAM_BLD_to_param(b)) ||
	    !(pc = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL)) || EVP_PKEY_fromdata_init(pc) <= 0 ||
	    EVP_PKEY_fromdata(pc, &k, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) <= 0)
		k = NULL;
	EVP_PKEY_CTX_free(pc);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(b);
	return k;
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
		pkey_replace(tfm->ctx, k, true, (unsigned)BN_num_bytes(p));
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
 * checks it as dh_is_pubkey_valid() does), padded to the size of p. */
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
	if (y && plen <= c->size && EVP_PKEY_get_bn_param(c->pkey, OSSL_PKEY_PARAM_FFC_P, &p) &&
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
		pkey_replace(tfm->ctx, k, true, cv->nbytes);
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
		    (k = ec_key_from(cv->group, pub, 1 + 2 * cv->nbytes, d))) {
			pkey_replace(tfm->ctx, k, true, cv->nbytes);
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
	EVP_PKEY *pk = ec_key_from(cv->group, pub, 1 + plen, NULL);
	if (!pk || !ec_pub_valid(pk)) {
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

static int reg_akcipher(const char *name, const char *driver, const void *priv,
			const struct ualg_akcipher_ops *ops)
{
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, UALG_ALG_AKCIPHER,
						UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->priv = priv;
	a->ctxsize = sizeof(struct pkey_ctx);
	a->exit_tfm = pkey_exit_tfm;
	a->u.akcipher = *ops;
	return ualg_openssl_reg(a);
}

static int reg_kpp(const char *name, const char *driver, const void *priv,
		   const struct ualg_kpp_ops *ops)
{
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, UALG_ALG_KPP,
						UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->priv = priv;
	a->ctxsize = sizeof(struct pkey_ctx);
	a->exit_tfm = pkey_exit_tfm;
	a->u.kpp = *ops;
	return ualg_openssl_reg(a);
}

static unsigned ecdh_max_size(const struct ualg_tfm *tfm)
{
	return ecdh_size(tfm);
}

int ualg_asym_register(void)
{
	static const struct ualg_akcipher_ops rsa = {
		rsa_set_pub_key, rsa_set_priv_key, pkey_size, rsa_run };
	static const struct ualg_akcipher_ops pkcs1pad = {
		rsa_set_pub_key, rsa_set_priv_key, pkey_size, pkcs1pad_run };
	static const struct ualg_akcipher_ops ecdsa = {
		ecdsa_set_pub_key, NULL, pkey_size, ecdsa_run };
	static const struct ualg_kpp_ops dh = {
		dh_set_secret, pkey_size, dh_gen_pubkey, dh_compute_ss };
	static const struct ualg_kpp_ops ecdh = {
		ecdh_set_secret, ecdh_max_size, ecdh_gen_pubkey, ecdh_compute_ss };
	int r = reg_akcipher("rsa", "rsa-openssl", NULL, &rsa);

	if (!r)
		r = reg_akcipher("pkcs1pad(rsa,sha256)", "pkcs1pad-rsa-sha256-openssl", NULL,
				 &pkcs1pad);
	if (!r)
		r = reg_akcipher("ecdsa-nist-p256", "ecdsa-nist-p256-openssl", &p256, &ecdsa);
	if (!r)
		r = reg_kpp("dh", "dh-openssl", NULL, &dh);
	if (!r)
		r = reg_kpp("ecdh-nist-p256", "ecdh-nist-p256-openssl", &p256, &ecdh);
	if (!r)
		r = reg_kpp("ecdh-nist-p384", "ecdh-nist-p384-openssl", &p384, &ecdh);
	return r;
}
