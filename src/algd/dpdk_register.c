/* A device's capabilities as drivers under the kernel's names
 * (dpdk_impl.h): what each name promises, whether the device does all of
 * it, and the registration. */
#include "dpdk_impl.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODULE "dpdk"

const struct desc dpdk_descs[] = {
	{ "ecb(aes)", "ecb-aes", K_CIPHER, RTE_CRYPTO_CIPHER_AES_ECB, M_ECB, 16, 0, 0, { 16, 24, 32 }, NULL },
	{ "cbc(aes)", "cbc-aes", K_CIPHER, RTE_CRYPTO_CIPHER_AES_CBC, M_CBC, 16, 16, 0, { 16, 24, 32 }, NULL },
	{ "ctr(aes)", "ctr-aes", K_CIPHER, RTE_CRYPTO_CIPHER_AES_CTR, M_CTR, 1, 16, 0, { 16, 24, 32 }, NULL },
	{ "xts(aes)", "xts-aes", K_CIPHER, RTE_CRYPTO_CIPHER_AES_XTS, M_XTS, 16, 16, 0, { 32, 64 }, NULL },
	{ "gcm(aes)", "gcm-aes", K_AEAD, RTE_CRYPTO_AEAD_AES_GCM, M_NONE, 1, 12, 16, { 16, 24, 32 }, NULL },
	{ "rfc7539(chacha20,poly1305)", "rfc7539-chacha20-poly1305", K_AEAD,
	  RTE_CRYPTO_AEAD_CHACHA20_POLY1305, M_NONE, 1, 12, 16, { 32 }, NULL },
	{ "sha1", "sha1", K_HASH, RTE_CRYPTO_AUTH_SHA1, M_NONE, 64, 0, 20, { 0 }, NULL },
	{ "sha224", "sha224", K_HASH, RTE_CRYPTO_AUTH_SHA224, M_NONE, 64, 0, 28, { 0 }, NULL },
	{ "sha256", "sha256", K_HASH, RTE_CRYPTO_AUTH_SHA256, M_NONE, 64, 0, 32, { 0 }, NULL },
	{ "sha384", "sha384", K_HASH, RTE_CRYPTO_AUTH_SHA384, M_NONE, 128, 0, 48, { 0 }, NULL },
	{ "sha512", "sha512", K_HASH, RTE_CRYPTO_AUTH_SHA512, M_NONE, 128, 0, 64, { 0 }, NULL },
	{ "hmac(sha1)", "hmac-sha1", K_HMAC, RTE_CRYPTO_AUTH_SHA1_HMAC, M_NONE, 64, 0, 20, { 0 }, "SHA1" },
	{ "hmac(sha224)", "hmac-sha224", K_HMAC, RTE_CRYPTO_AUTH_SHA224_HMAC, M_NONE, 64, 0, 28, { 0 }, "SHA224" },
	{ "hmac(sha256)", "hmac-sha256", K_HMAC, RTE_CRYPTO_AUTH_SHA256_HMAC, M_NONE, 64, 0, 32, { 0 }, "SHA256" },
	{ "hmac(sha384)", "hmac-sha384", K_HMAC, RTE_CRYPTO_AUTH_SHA384_HMAC, M_NONE, 128, 0, 48, { 0 }, "SHA384" },
	{ "hmac(sha512)", "hmac-sha512", K_HMAC, RTE_CRYPTO_AUTH_SHA512_HMAC, M_NONE, 128, 0, 64, { 0 }, "SHA512" },
};

const size_t dpdk_ndescs = sizeof(dpdk_descs) / sizeof(dpdk_descs[0]);

/* Whether the device does everything the kernel's name promises. */
static bool dev_has(const struct dev *d, const struct desc *ds)
{
	struct rte_cryptodev_sym_capability_idx idx;
	memset(&idx, 0, sizeof(idx));
	switch (ds->kind) {
	case K_CIPHER:
		idx.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
		idx.algo.cipher = (enum rte_crypto_cipher_algorithm)ds->algo;
		break;
	case K_HASH:
	case K_HMAC:
		idx.type = RTE_CRYPTO_SYM_XFORM_AUTH;
		idx.algo.auth = (enum rte_crypto_auth_algorithm)ds->algo;
		break;
	case K_AEAD:
		idx.type = RTE_CRYPTO_SYM_XFORM_AEAD;
		idx.algo.aead = (enum rte_crypto_aead_algorithm)ds->algo;
		break;
	}
	const struct rte_cryptodev_symmetric_capability *cap = rte_cryptodev_sym_capability_get(d->id, &idx);
	if (!cap)
		return false;
	switch (ds->kind) {
	case K_CIPHER:
		for (unsigned i = 0; i < 3 && ds->keys[i]; i++)
			if (rte_cryptodev_sym_capability_check_cipher(cap, (uint16_t)ds->keys[i], (uint16_t)ds->ivsize))
				return false;
		return true;
	case K_HASH:
		return !rte_cryptodev_sym_capability_check_auth(cap, 0, (uint16_t)ds->digestsize, 0);
	case K_HMAC:
		return !rte_cryptodev_sym_capability_check_auth(cap, (uint16_t)ds->blocksize,
								 (uint16_t)ds->digestsize, 0);
	case K_AEAD:
		for (unsigned i = 0; i < 3 && ds->keys[i]; i++)
			if (rte_cryptodev_sym_capability_check_aead(cap, (uint16_t)ds->keys[i], 16, 0,
								    (uint16_t)ds->ivsize))
				return false;
		/* gcm: every tag length crypto_gcm_check_authsize() takes */
		for (unsigned as = 4; ds->algo == RTE_CRYPTO_AEAD_AES_GCM && as <= 16; as++)
			if ((as == 4 || as == 8 || as >= 12) &&
			    rte_cryptodev_sym_capability_check_aead(cap, 16, (uint16_t)as, 0,
								    (uint16_t)ds->ivsize))
				return false;
		return true;
	}
	return false;
}

static void alg_destroy(struct ualg_alg *a)
{
	free((void *)a->priv);
	free(a);
}

static int register_alg(struct dev *d, const struct desc *ds, int prio)
{
	struct ualg_alg *a = calloc(1, sizeof(*a));
	struct priv *p = calloc(1, sizeof(*p));
	if (!a || !p) {
		free(a);
		free(p);
		return -ENOMEM;
	}
	p->dev = d;
	p->desc = ds;
	snprintf(a->name, sizeof(a->name), "%s", ds->name);
	snprintf(a->driver, sizeof(a->driver), "%s-dpdk-%s", ds->driver, d->name);
	a->module = MODULE;
	a->priority = prio;
	a->priv = p;
	a->blocksize = ds->blocksize;
	a->ctxsize = sizeof(struct ctx);
	a->init_tfm = dpdk_init_tfm;
	a->exit_tfm = dpdk_exit_tfm;
	a->destroy = alg_destroy;
	switch (ds->kind) {
	case K_CIPHER:
		dpdk_skcipher_ops(a, ds);
		break;
	case K_HASH:
	case K_HMAC:
		dpdk_hash_ops(a, ds);
		break;
	case K_AEAD:
		dpdk_aead_ops(a, ds);
		break;
	}
	int r = ualg_register(a);
	if (r) {
		alg_destroy(a);
		return r;
	}
	if (a->selftest != UALG_SELFTEST_PASSED)
		algd_log(LOG_WARNING, "dpdk: %s (%s) failed its self-test", a->name, a->driver);
	d->algs[d->nalgs++] = a;
	return 0;
}

unsigned dpdk_register_dev(struct dev *d, int prio)
{
	unsigned count = 0;

	for (size_t i = 0; i < dpdk_ndescs && d->nalgs < MAX_ALGS_PER_DEV; i++)
		if (dev_has(d, &dpdk_descs[i]) && !register_alg(d, &dpdk_descs[i], prio))
			count++;
	return count;
}
