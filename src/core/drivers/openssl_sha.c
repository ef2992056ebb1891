/* OpenSSL's SHA-1, SHA-2 and Whirlpool through their low-level contexts,
 * whose layout libcrypto publishes (<openssl/sha.h>, <openssl/whrlpool.h>):
 * the same code as the EVP drivers, but with a state that can be exported
 * and imported, which the EVP interface does not allow.  They rank below
 * the EVP drivers and Botan's Whirlpool, so that ordinary lookups keep
 * those, and above Nettle's, so that a lookup for an exporting driver (RFC
 * mode, the in-process engine's hashes) gets the fastest one.  The
 * low-level interface is deprecated in OpenSSL 3.0 but still part of its
 * ABI. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "openssl.h"
#include "../crypto.h"

#include <errno.h>
#include <openssl/sha.h>
#include <openssl/whrlpool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIO 260	/* between UALG_NETTLE_PRIO_PRIMITIVE and UALG_OPENSSL_PRIO_PRIMITIVE */

struct lowlevel {
	const char *name;
	unsigned digestsize, blocksize;
	size_t ctxsize;
	int (*init)(void *);
	int (*update)(void *, const void *, size_t);
	int (*final)(unsigned char *, void *);	/* fullsize bytes */
	unsigned fullsize;
	/* Whether an imported context is one update and final may use:
	 * the fields that address memory, and the one that decides how much
	 * final writes. */
	bool (*sane)(const struct lowlevel *l, const uint8_t *ctx);
};

static int sha1_init(void *c) { return SHA1_Init(c); }
static int sha224_init(void *c) { return SHA224_Init(c); }
static int sha256_init(void *c) { return SHA256_Init(c); }
static int sha384_init(void *c) { return SHA384_Init(c); }
static int sha512_init(void *c) { return SHA512_Init(c); }
static int wp_init(void *c) { return WHIRLPOOL_Init(c); }
static int sha1_update(void *c, const void *p, size_t n) { return SHA1_Update(c, p, n); }
static int sha256_update(void *c, const void *p, size_t n) { return SHA256_Update(c, p, n); }
static int sha512_update(void *c, const void *p, size_t n) { return SHA512_Update(c, p, n); }
static int wp_update(void *c, const void *p, size_t n) { return WHIRLPOOL_Update(c, p, n); }
static int sha1_final(unsigned char *md, void *c) { return SHA1_Final(md, c); }
static int sha256_final(unsigned char *md, void *c) { return SHA256_Final(md, c); }
static int sha512_final(unsigned char *md, void *c) { return SHA512_Final(md, c); }
static int wp_final(unsigned char *md, void *c) { return WHIRLPOOL_Final(md, c); }

#define FIELD(ctx, type, field) ({ __typeof__(((type *)0)->field) v_; \
	memcpy(&v_, (ctx) + offsetof(type, field), sizeof(v_)); v_; })

static bool sha1_sane(const struct lowlevel *l, const uint8_t *ctx)
{
	return FIELD(ctx, SHA_CTX, num) < l->blocksize;
}

static bool sha256_sane(const struct lowlevel *l, const uint8_t *ctx)
{
	return FIELD(ctx, SHA256_CTX, num) < l->blocksize && FIELD(ctx, SHA256_CTX, md_len) == l->digestsize;
}

static bool sha512_sane(const struct lowlevel *l, const uint8_t *ctx)
{
	return FIELD(ctx, SHA512_CTX, num) < l->blocksize && FIELD(ctx, SHA512_CTX, md_len) == l->digestsize;
}

/* bitoff: the bits buffered in data[], which update and final index by. */
static bool wp_sane(const struct lowlevel *l, const uint8_t *ctx)
{
	(void)l;
	return FIELD(ctx, WHIRLPOOL_CTX, bitoff) < WHIRLPOOL_BBLOCK;
}

/* wp384 and wp256 are wp512's digest cut short (crypto/wp512.c). */
static const struct lowlevel algs[] = {
	{ "sha1", SHA_DIGEST_LENGTH, SHA_CBLOCK, sizeof(SHA_CTX), sha1_init, sha1_update, sha1_final,
	  SHA_DIGEST_LENGTH, sha1_sane },
	{ "sha224", SHA224_DIGEST_LENGTH, SHA256_CBLOCK, sizeof(SHA256_CTX), sha224_init, sha256_update,
	  sha256_final, SHA224_DIGEST_LENGTH, sha256_sane },
	{ "sha256", SHA256_DIGEST_LENGTH, SHA256_CBLOCK, sizeof(SHA256_CTX), sha256_init, sha256_update,
	  sha256_final, SHA256_DIGEST_LENGTH, sha256_sane },
	{ "sha384", SHA384_DIGEST_LENGTH, SHA512_CBLOCK, sizeof(SHA512_CTX), sha384_init, sha512_update,
	  sha512_final, SHA384_DIGEST_LENGTH, sha512_sane },
	{ "sha512", SHA512_DIGEST_LENGTH, SHA512_CBLOCK, sizeof(SHA512_CTX), sha512_init, sha512_update,
	  sha512_final, SHA512_DIGEST_LENGTH, sha512_sane },
	{ "wp512", 64, WHIRLPOOL_BBLOCK / 8, sizeof(WHIRLPOOL_CTX), wp_init, wp_update, wp_final,
	  WHIRLPOOL_DIGEST_LENGTH, wp_sane },
	{ "wp384", 48, WHIRLPOOL_BBLOCK / 8, sizeof(WHIRLPOOL_CTX), wp_init, wp_update, wp_final,
	  WHIRLPOOL_DIGEST_LENGTH, wp_sane },
	{ "wp256", 32, WHIRLPOOL_BBLOCK / 8, sizeof(WHIRLPOOL_CTX), wp_init, wp_update, wp_final,
	  WHIRLPOOL_DIGEST_LENGTH, wp_sane },
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
	return ll_of(desc)->update(desc->state, data, len) ? 0 : -EINVAL;
}

static int ll_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct lowlevel *l = ll_of(desc);
	if (l->fullsize == l->digestsize)
		return l->final(out, desc->state) ? 0 : -EINVAL;
	uint8_t full[WHIRLPOOL_DIGEST_LENGTH];
	const int ok = l->final(full, desc->state);
	memcpy(out, full, l->digestsize);
	explicit_bzero(full, sizeof(full));
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

/* A forged state must not make an update write past the context's block,
 * nor final write more than the digest. */
static int ll_import(struct ualg_hash_desc *desc, const uint8_t *in)
{
	const struct lowlevel *l = ll_of(desc);
	if (!l->sane(l, in))
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
