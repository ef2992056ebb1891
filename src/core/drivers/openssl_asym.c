/* Asymmetric drivers over OpenSSL's EVP_PKEY: the kernel's rsa and
 * pkcs1pad(rsa,sha256) (crypto/rsa.c, rsa-pkcs1pad.c), ecdsa-nist-p256
 * (crypto/ecdsa.c, verification only as in 6.1), dh and ecdh-nist-p256/p384
 * (crypto/dh.c, ecdh.c).  Keys come in the formats those files parse; every
 * computation is libcrypto's.
 *
 * This file: what they share (the key context, the curves, EC keys from
 * octets) and their registration.  The akciphers are in openssl_akcipher.c,
 * the key agreements in openssl_kpp.c. */
#include "openssl_asym.h"
#include "others.h"

#include <openssl/core_names.h>
#include <openssl/param_build.h>

void ualg_pkey_rsa_clear(struct pkey_ctx *c)
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

void ualg_pkey_exit_tfm(struct ualg_tfm *tfm)
{
	struct pkey_ctx *c = tfm->ctx;

	EVP_PKEY_free(c->pkey);
	c->pkey = NULL;
	ualg_pkey_rsa_clear(c);
}

void ualg_pkey_replace(struct pkey_ctx *c, EVP_PKEY *k, bool priv, unsigned size)
{
	EVP_PKEY_free(c->pkey);
	c->pkey = k;
	c->priv = priv;
	c->size = size;
}

unsigned ualg_pkey_size(const struct ualg_tfm *tfm)
{
	return ((const struct pkey_ctx *)tfm->ctx)->size;
}

EVP_PKEY *ualg_pkey_fromdata(const char *type, OSSL_PARAM_BLD *b, bool pushed, bool priv)
{
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *pc = NULL;
	EVP_PKEY *k = NULL;

	if (!b || !pushed || !(params = OSSL_PARAM_BLD_to_param(b)) ||
	    !(pc = EVP_PKEY_CTX_new_from_name(NULL, type, NULL)) || EVP_PKEY_fromdata_init(pc) <= 0 ||
	    EVP_PKEY_fromdata(pc, &k, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) <= 0)
		k = NULL;
	EVP_PKEY_CTX_free(pc);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(b);
	return k;
}

/* ---- EC keys --------------------------------------------------------- */

EVP_PKEY *ualg_ec_key_from(const char *group, const uint8_t *pub, size_t publen,
			   const BIGNUM *priv)
{
	OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
	const bool pushed = b && OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) &&
			    OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, pub, publen) &&
			    (!priv || OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PRIV_KEY, priv));

	return ualg_pkey_fromdata("EC", b, pushed, priv != NULL);
}

/* EVP_PKEY_fromdata() takes any octets of the right form; the point must
 * also lie on the curve (ecc_is_pubkey_valid_full()). */
bool ualg_ec_pub_valid(EVP_PKEY *k)
{
	EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(NULL, k, NULL);
	bool ok = pc && EVP_PKEY_public_check(pc) > 0;

	EVP_PKEY_CTX_free(pc);
	return ok;
}

const struct ec_curve ualg_ec_p256 = { "prime256v1", 32, 2 };
const struct ec_curve ualg_ec_p384 = { "secp384r1", 48, 3 };

/* ---- registration ------------------------------------------------------ */

struct ualg_alg *ualg_pkey_alg(const char *name, const char *driver, enum ualg_alg_type type,
			       const void *priv)
{
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, type, UALG_OPENSSL_PRIO_PRIMITIVE);

	if (a) {
		a->priv = priv;
		a->ctxsize = sizeof(struct pkey_ctx);
		a->exit_tfm = ualg_pkey_exit_tfm;
	}
	return a;
}

int ualg_asym_register(void)
{
	int r = ualg_asym_register_akcipher();

	if (!r)
		r = ualg_asym_register_kpp();
	return r;
}
