/* What the asymmetric OpenSSL drivers share (openssl_asym.c): the
 * transform's key context, the NIST curves, and the EC key helpers that
 * ecdsa (openssl_akcipher.c) and ecdh (openssl_kpp.c) both use. */
#ifndef UALG_CORE_DRIVERS_OPENSSL_ASYM_H
#define UALG_CORE_DRIVERS_OPENSSL_ASYM_H

#include "openssl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

struct pkey_ctx {
	EVP_PKEY *pkey;
	BIGNUM *n, *e, *d;	/* rsa: the key as the kernel keeps it */
	BN_MONT_CTX *mont;	/* rsa: Montgomery form of an odd n */
	bool priv;		/* the private half is there */
	unsigned size;		/* kpp: output size; akcipher: modulus bytes */
};

struct ec_curve {
	const char *group;	/* OpenSSL's name */
	unsigned nbytes;	/* field and order size */
	unsigned kernel_id;	/* ECC_CURVE_NIST_* */
};

extern const struct ec_curve ualg_ec_p256, ualg_ec_p384;

/* Drops the rsa fields (n, e, d, the Montgomery form), size and priv. */
void ualg_pkey_rsa_clear(struct pkey_ctx *c);
/* Every driver's exit_tfm: the EVP_PKEY and the rsa fields. */
void ualg_pkey_exit_tfm(struct ualg_tfm *tfm);
/* The context takes k (freeing the old key), its privacy and size. */
void ualg_pkey_replace(struct pkey_ctx *c, EVP_PKEY *k, bool priv, unsigned size);
/* The context's size: akcipher's max_size, dh's. */
unsigned ualg_pkey_size(const struct ualg_tfm *tfm);

/* The key of type ("EC", "DH") made from the parameters pushed on b, which
 * it frees: NULL when b is NULL, a push failed (pushed false) or OpenSSL
 * refuses them.  priv: they include the private half. */
EVP_PKEY *ualg_pkey_fromdata(const char *type, OSSL_PARAM_BLD *b, bool pushed, bool priv);
/* An EC key of the named group from its octets: the public point
 * (uncompressed, 0x04 || X || Y) and optionally the private scalar. */
EVP_PKEY *ualg_ec_key_from(const char *group, const uint8_t *pub, size_t publen,
			   const BIGNUM *priv);
/* EVP_PKEY_fromdata() takes any octets of the right form; the point must
 * also lie on the curve (ecc_is_pubkey_valid_full()). */
bool ualg_ec_pub_valid(EVP_PKEY *k);

/* A driver of type (UALG_ALG_AKCIPHER, UALG_ALG_KPP) over a struct
 * pkey_ctx, with priv (a curve, or NULL) as its alg->priv; the caller sets
 * its operations and registers it (ualg_openssl_reg()). */
struct ualg_alg *ualg_pkey_alg(const char *name, const char *driver, enum ualg_alg_type type,
			       const void *priv);

/* The drivers of each file, registered in this order by ualg_asym_register(). */
int ualg_asym_register_akcipher(void);	/* openssl_akcipher.c: rsa, pkcs1pad, ecdsa */
int ualg_asym_register_kpp(void);	/* openssl_kpp.c: dh, ecdh */

#endif
