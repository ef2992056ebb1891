/* The SP 800-90A DRBGs of the kernel's crypto/drbg.c, from OpenSSL's
 * EVP_RAND (HMAC-DRBG, HASH-DRBG, CTR-DRBG with derivation function), under
 * the kernel's driver names and priorities so that "stdrng" picks the same
 * kind of generator.  Entropy comes from OpenSSL's seed source (the
 * kernel's getrandom()); the seed a caller gives is the personalization
 * string, as drbg_kcapi_seed() uses it.  Prediction-resistant variants
 * reseed from the entropy source on every request. */
#include "openssl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

struct drbg_desc {
	const char *driver;	/* kernel driver name, e.g. drbg_nopr_hmac_sha256 */
	const char *evp;	/* EVP_RAND name */
	const char *param_name;	/* digest or cipher parameter */
	const char *param;	/* its value */
	bool pr;
	int priority;		/* as Linux 6.1 registers them */
};

#define HMAC(pr, d, e, p) { "drbg_" pr "_hmac_" d, "HMAC-DRBG", OSSL_DRBG_PARAM_DIGEST, e, pr[0] == 'p', p }
#define HASH(pr, d, e, p) { "drbg_" pr "_" d, "HASH-DRBG", OSSL_DRBG_PARAM_DIGEST, e, pr[0] == 'p', p }
#define CTR(pr, k, p) { "drbg_" pr "_ctr_aes" #k, "CTR-DRBG", OSSL_DRBG_PARAM_CIPHER, "AES-" #k "-CTR", \
			pr[0] == 'p', p }

static const struct drbg_desc drbgs[] = {
	CTR("pr", 128, 200), CTR("pr", 192, 201), CTR("pr", 256, 202),
	HASH("pr", "sha1", "SHA1", 203), HASH("pr", "sha384", "SHA384", 204),
	HASH("pr", "sha512", "SHA512", 205), HASH("pr", "sha256", "SHA256", 206),
	HMAC("pr", "sha1", "SHA1", 207), HMAC("pr", "sha384", "SHA384", 208),
	HMAC("pr", "sha256", "SHA256", 209), HMAC("pr", "sha512", "SHA512", 210),
	CTR("nopr", 128, 211), CTR("nopr", 192, 212), CTR("nopr", 256, 213),
	HASH("nopr", "sha1", "SHA1", 214), HASH("nopr", "sha384", "SHA384", 215),
	HASH("nopr", "sha512", "SHA512", 216), HASH("nopr", "sha256", "SHA256", 217),
	HMAC("nopr", "sha1", "SHA1", 218), HMAC("nopr", "sha384", "SHA384", 219),
	HMAC("nopr", "sha256", "SHA256", 220), HMAC("nopr", "sha512", "SHA512", 221),
};

struct drbg_ctx {
	EVP_RAND_CTX *rand;
	bool seeded;		/* the kernel's DRBG refuses to generate before */
};

static const struct drbg_desc *desc_of(const struct ualg_tfm *tfm)
{
	return tfm->alg->priv;
}

static void drbg_exit_tfm(struct ualg_tfm *tfm)
{
	struct drbg_ctx *c = tfm->ctx;

	EVP_RAND_CTX_free(c->rand);	/* zeroizes its state */
	c->rand = NULL;
}

static int drbg_init_tfm(struct ualg_tfm *tfm)
{
	const struct drbg_desc *d = desc_of(tfm);
	struct drbg_ctx *c = tfm->ctx;
	EVP_RAND *rand = EVP_RAND_fetch(NULL, d->evp, NULL);
	int use_df = 1;
	OSSL_PARAM params[4], *p = params;

	if (!rand)
		return -ENOENT;
	c->rand = EVP_RAND_CTX_new(rand, NULL);
	EVP_RAND_free(rand);
	*p++ = OSSL_PARAM_construct_utf8_string(d->param_name, (char *)d->param, 0);
	if (!strcmp(d->evp, "HMAC-DRBG"))
		*p++ = OSSL_PARAM_construct_utf8_string(OSSL_DRBG_PARAM_MAC, "HMAC", 0);
	if (!strcmp(d->evp, "CTR-DRBG"))
		*p++ = OSSL_PARAM_construct_int(OSSL_DRBG_PARAM_USE_DF, &use_df);
	*p = OSSL_PARAM_construct_end();
	if (!c->rand || !EVP_RAND_CTX_set_params(c->rand, params)) {
		drbg_exit_tfm(tfm);
		return -ENOMEM;
	}
	return 0;
}

/* drbg_kcapi_seed(): a fresh instantiation with the seed as
 * personalization string. */
static int drbg_seed(struct ualg_tfm *tfm, const uint8_t *seed, size_t len)
{
	struct drbg_ctx *c = tfm->ctx;

	if (c->seeded)
		EVP_RAND_uninstantiate(c->rand);
	c->seeded = EVP_RAND_instantiate(c->rand, EVP_RAND_get_strength(c->rand), desc_of(tfm)->pr,
					 len ? seed : NULL, len, NULL) == 1;
	return c->seeded ? 0 : -EINVAL;
}

static int drbg_generate(struct ualg_tfm *tfm, uint8_t *out, size_t len)
{
	struct drbg_ctx *c = tfm->ctx;

	if (!c->seeded)
		return -EINVAL;
	return EVP_RAND_generate(c->rand, out, len, EVP_RAND_get_strength(c->rand), desc_of(tfm)->pr,
				 NULL, 0) == 1 ? 0 : -EINVAL;
}

int ualg_openssl_register_rng(void)
{
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(drbgs) / sizeof(drbgs[0]); i++) {
		struct ualg_alg *alg = ualg_openssl_alloc("stdrng", drbgs[i].driver, UALG_ALG_RNG,
							  drbgs[i].priority);
		if (!alg)
			return -ENOMEM;
		alg->ctxsize = sizeof(struct drbg_ctx);
		alg->priv = &drbgs[i];
		alg->init_tfm = drbg_init_tfm;
		alg->exit_tfm = drbg_exit_tfm;
		alg->u.rng = (struct ualg_rng_ops){
			.seedsize = 0,
			.seed = drbg_seed,
			.generate = drbg_generate,
		};
		r = ualg_openssl_reg(alg);
	}
	return r;
}
