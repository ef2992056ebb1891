/* OpenSSL's SHA-1 and SHA-2 through their low-level contexts, whose layout
 * libcrypto publishes (<openssl/sha.h>): the same assembly as the EVP
 * drivers, but with a state that can be exported and imported, which the
 * EVP interface does not allow.  They rank below the EVP drivers, so that
 * ordinary lookups keep those, and above Nettle's, so that a lookup for an
 * exporting driver (RFC mode, the in-process engine's hashes) gets the
 * fastest one.  The low-level interface is deprecated in OpenSSL 3.0 but
 * still part of its ABI. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "openssl.h"
#include "../crypto.h"

#include <errno.h>
#include <openssl/sha.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIO 260	/* between UALG_NETTLE_PRIO_PRIMITIVE and UALG_OPENSSL_PRIO_PRIMITIVE */

struct lowlevel {
	const char *name;
	unsigned digestsize, blocksize;
	size_t ctxsize;
	bool sha512;		/* SHA512_CTX, else SHA256_CTX (sha1: SHA_CTX) */
	bool sha1;
	int (*init)(void *);
};

static int sha1_init(void *c) { return SHA1_Init(c); }
static int sha224_init(void *c) { return SHA224_Init(c); }
static int sha256_init(void *c) { return SHA256_Init(c); }
static int sha384_init(void *c) { return SHA384_Init(c); }
static int sha512_init(void *c) { return SHA512_Init(c); }

static const struct lowlevel algs[] = {
	{ "sha1", SHA_DIGEST_LENGTH, SHA_CBLOCK, sizeof(SHA_CTX), false, true, sha1_init },
	{ "sha224", SHA224_DIGEST_LENGTH, SHA256_CBLOCK, sizeof(SHA256_CTX), false, false, sha224_init },
	{ "sha256", SHA256_DIGEST_LENGTH, SHA256_CBLOCK, sizeof(SHA256_CTX), false, false, sha256_init },
	{ "sha384", SHA384_DIGEST_LENGTH, SHA512_CBLOCK, sizeof(SHA512_CTX), true, false, sha384_init },
	{ "sha512", SHA512_DIGEST_LENGTH, SHA512_CBLOCK, sizeof(SHA512_CTX), true, false, sha512_init },
};

static const struct lowlevel *ll_of(const struct ualg_hash_desc *desc)
{
	return desc->tfm->alg->priv;
}

static int ll_init(struct ualg_hash_desc *desc)
{
	return ll_of(desc)->init(desc->state) ? 0 : -EINVAL;
}

static int ll_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	const struct lowlevel *l = ll_of(desc);
	int ok = l->sha1 ? SHA1_Update(desc->state, data, len)
		 : l->sha512 ? SHA512_Update(desc->state, data, len)
			     : SHA256_Update(desc->state, data, len);
	return ok ? 0 : -EINVAL;
}

static int ll_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct lowlevel *l = ll_of(desc);
	int ok = l->sha1 ? SHA1_Final(out, desc->state)
		 : l->sha512 ? SHA512_Final(out, desc->state)
			     : SHA256_Final(out, desc->state);
	return ok ? 0 : -EINVAL;
}

/* The contexts hold no pointers: a copy is a clone, and the export. */
static int ll_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	memcpy(dst->state, src->state, ll_of(src)->ctxsize);
	return 0;
}

static void ll_exit(struct ualg_hash_desc *desc)
{
	(void)desc;	/* tfm.c wipes the state */
}

static int ll_export(const struct ualg_hash_desc *desc, uint8_t *out)
{
	memcpy(out, desc->state, ll_of(desc)->ctxsize);
	return 0;
}

/* A forged state must not make an update write past the context's block:
 * num (bytes buffered) is the only field that addresses memory; md_len
 * decides how much final writes. */
static int ll_import(struct ualg_hash_desc *desc, const uint8_t *in)
{
	const struct lowlevel *l = ll_of(desc);
	unsigned num, md_len = l->digestsize;

	if (l->sha1) {
		memcpy(&num, in + offsetof(SHA_CTX, num), sizeof(num));
	} else if (l->sha512) {
		memcpy(&num, in + offsetof(SHA512_CTX, num), sizeof(num));
		memcpy(&md_len, in + offsetof(SHA512_CTX, md_len), sizeof(md_len));
	} else {
		memcpy(&num, in + offsetof(SHA256_CTX, num), sizeof(num));
		memcpy(&md_len, in + offsetof(SHA256_CTX, md_len), sizeof(md_len));
	}
	if (num >= l->blocksize || md_len != l->digestsize)
		return -EINVAL;
	memcpy(desc->state, in, l->ctxsize);
	return 0;
}

static void destroy(struct ualg_alg *alg)
{
	free(alg);
}

int ualg_openssl_sha_register(void)
{
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		const struct lowlevel *l = &algs[i];
		struct ualg_alg *alg = calloc(1, sizeof(*alg));
		if (!alg)
			return -ENOMEM;
		snprintf(alg->name, sizeof(alg->name), "%s", l->name);
		snprintf(alg->driver, sizeof(alg->driver), "%s-openssl-ll", l->name);
		alg->type = UALG_ALG_SHASH;
		alg->priority = PRIO;
		alg->module = "openssl";
		alg->blocksize = l->blocksize;
		alg->priv = (void *)l;
		alg->destroy = destroy;
		alg->u.shash = (struct ualg_shash_ops){
			.digestsize = l->digestsize, .descsize = l->ctxsize,
			.init = ll_init, .update = ll_update, .final = ll_final,
			.clone = ll_clone, .exit = ll_exit,
			.statesize = l->ctxsize, .export = ll_export, .import = ll_import,
		};
		int r = ualg_register(alg);
		if (r) {
			free(alg);
			return r;
		}
	}
	return 0;
}
