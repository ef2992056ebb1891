/* OpenSSL's akcipher drivers: the kernel's rsa (crypto/rsa.c, textbook
 * RSA), pkcs1pad(rsa,sha256) (rsa-pkcs1pad.c: RFC 8017's encodings around
 * it) and ecdsa-nist-p256 (crypto/ecdsa.c, verification only as in 6.1). */
#include "openssl_asym.h"

#include <errno.h>
#include <string.h>

#include <openssl/rand.h>

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

	ualg_pkey_rsa_clear(c);
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
		ualg_pkey_rsa_clear(c);
		return -ENOMEM;
	}
	if (!rsa_size_ok((unsigned)BN_num_bytes(c->n))) {
		ualg_pkey_rsa_clear(c);
		return -EINVAL;
	}
	BN_CTX *bc = BN_is_odd(c->n) ? BN_CTX_new() : NULL;
	if (bc && (c->mont = BN_MONT_CTX_new()) && !BN_MONT_CTX_set(c->mont, c->n, bc)) {
		BN_MONT_CTX_free(c->mont);
		c->mont = NULL;
	}
	BN_CTX_free(bc);
	if (BN_is_odd(c->n) && !c->mont) {
		ualg_pkey_rsa_clear(c);
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

/* ecdsa_set_pub_key(): 0x04 || X || Y of the curve's size. */
static int ecdsa_set_pub_key(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct ec_curve *cv = tfm->alg->priv;

	if (len != 1 + 2 * cv->nbytes || key[0] != 0x04)
		return -EINVAL;
	EVP_PKEY *k = ualg_ec_key_from(cv->group, key, len, NULL);
	if (!k || !ualg_ec_pub_valid(k)) {
		EVP_PKEY_free(k);
		return -EINVAL;
	}
	ualg_pkey_replace(tfm->ctx, k, false, cv->nbytes);
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

/* ---- registration ------------------------------------------------------ */

static int reg_akcipher(const char *name, const char *driver, const void *priv,
			const struct ualg_akcipher_ops *ops)
{
	struct ualg_alg *a = ualg_pkey_alg(name, driver, UALG_ALG_AKCIPHER, priv);

	if (!a)
		return -ENOMEM;
	a->u.akcipher = *ops;
	return ualg_openssl_reg(a);
}

int ualg_asym_register_akcipher(void)
{
	static const struct ualg_akcipher_ops rsa = {
		rsa_set_pub_key, rsa_set_priv_key, ualg_pkey_size, rsa_run };
	static const struct ualg_akcipher_ops pkcs1pad = {
		rsa_set_pub_key, rsa_set_priv_key, ualg_pkey_size, pkcs1pad_run };
	static const struct ualg_akcipher_ops ecdsa = {
		ecdsa_set_pub_key, NULL, ualg_pkey_size, ecdsa_run };
	int r = reg_akcipher("rsa", "rsa-openssl", NULL, &rsa);

	if (!r)
		r = reg_akcipher("pkcs1pad(rsa,sha256)", "pkcs1pad-rsa-sha256-openssl", NULL,
				 &pkcs1pad);
	if (!r)
		r = reg_akcipher("ecdsa-nist-p256", "ecdsa-nist-p256-openssl", &ualg_ec_p256, &ecdsa);
	return r;
}
