/* ansi_cprng, as crypto/ansi_cprng.c: the ANSI X9.31 Appendix A.2.4
 * generator with AES-128, registered as "stdrng" (below the DRBGs'
 * priorities, so that only its driver name picks it).  The block cipher is
 * OpenSSL's AES-128 (EVP, ECB); the generator around it is three cipher
 * calls per 16-byte block:
 *   I = E(DT); R = E(I ^ V); V = E(R ^ I); DT += 1 (big-endian)
 * with R the output.  As the kernel's:
 *  - the seed is V || key || DT: under 32 bytes is refused (EINVAL) and
 *    leaves the generator as it was; 32 to 47 bytes set V and the key with
 *    DT zero; from 48 on, DT is bytes 32..47 and the rest is ignored;
 *  - before the first seeding, reads fail with EINVAL;
 *  - output is a byte stream: a read takes what is left of the last block
 *    before making new ones;
 *  - the continuity test: a block equal to the previous one (or, first
 *    after seeding, to 16 zero bytes) fails the read with EINVAL, and
 *    every read fails until the generator is seeded again.
 * No library in Debian implements this generator with the kernel's
 * semantics (Crypto++'s X917RNG discards a first block and works in
 * whole blocks). */
#include "others.h"
#include "openssl.h"
#include "../modes.h"

#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

#define BLK 16			/* DEFAULT_BLK_SZ, DEFAULT_PRNG_KSZ */
#define CPRNG_SEEDSIZE (2 * BLK + BLK)
#define CPRNG_PRIO 100		/* as the kernel's */

struct cprng_ctx {
	EVP_CIPHER_CTX *aes;
	uint8_t rand_data[BLK];	/* the last block made */
	uint8_t last[BLK];	/* the block before it: the continuity test's */
	uint8_t dt[BLK], v[BLK];
	unsigned used;		/* bytes of rand_data already handed out */
	bool need_reset;	/* unseeded, or the continuity test failed */
};

static void cprng_exit_tfm(struct ualg_tfm *tfm)
{
	struct cprng_ctx *c = tfm->ctx;

	EVP_CIPHER_CTX_free(c->aes);	/* wipes the key schedule */
	c->aes = NULL;
}

static int cprng_init_tfm(struct ualg_tfm *tfm)
{
	struct cprng_ctx *c = tfm->ctx;

	c->need_reset = true;	/* as cprng_init(): no default seed is usable */
	c->used = BLK;
	return 0;
}

static int aes_block(struct cprng_ctx *c, uint8_t *out, const uint8_t *in)
{
	int outl;

	return EVP_EncryptUpdate(c->aes, out, &outl, in, BLK) == 1 && outl == BLK ? 0 : -EINVAL;
}

/* A fresh AES-128 context for key, in key memory (secmem.c). */
static int cprng_setkey(struct cprng_ctx *c, const uint8_t *key)
{
	EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);

	if (cipher && ualg_openssl_engine_routed(cipher)) {
		EVP_CIPHER_free(cipher);
		return -EBUSY;	/* see openssl.h */
	}
	ualg_secure_begin();
	EVP_CIPHER_CTX *aes = EVP_CIPHER_CTX_new();
	int ok = cipher && aes && EVP_EncryptInit_ex2(aes, cipher, key, NULL, NULL);
	int full = ualg_secure_end();
	EVP_CIPHER_free(cipher);
	if (!ok || full) {
		EVP_CIPHER_CTX_free(aes);
		return full ? full : -EINVAL;
	}
	EVP_CIPHER_CTX_set_padding(aes, 0);
	EVP_CIPHER_CTX_free(c->aes);
	c->aes = aes;
	return 0;
}

/* cprng_reset(). */
static int cprng_seed(struct ualg_tfm *tfm, const uint8_t *seed, size_t len)
{
	struct cprng_ctx *c = tfm->ctx;

	if (len < 2 * BLK)
		return -EINVAL;
	c->need_reset = true;
	memcpy(c->v, seed, BLK);
	if (len >= CPRNG_SEEDSIZE)
		memcpy(c->dt, seed + 2 * BLK, BLK);
	else
		memset(c->dt, 0, BLK);
	memset(c->rand_data, 0, BLK);
	memset(c->last, 0, BLK);
	c->used = BLK;
	int r = cprng_setkey(c, seed + BLK);
	if (r)
		return r;
	c->need_reset = false;
	return 0;
}

/* One new block into rand_data (_get_more_prng_bytes()). */
static int next_block(struct cprng_ctx *c)
{
	uint8_t i[BLK], tmp[BLK];
	int r = aes_block(c, i, c->dt);

	if (!r) {
		ualg_xor(tmp, i, c->v, BLK);
		r = aes_block(c, c->rand_data, tmp);
	}
	if (!r && !ualg_memneq(c->rand_data, c->last, BLK))
		r = -EINVAL;	/* the continuity test */
	if (!r) {
		memcpy(c->last, c->rand_data, BLK);
		ualg_xor(tmp, c->rand_data, i, BLK);
		r = aes_block(c, c->v, tmp);
	}
	ualg_wipe(i, sizeof(i));
	ualg_wipe(tmp, sizeof(tmp));
	if (r) {
		c->need_reset = true;
		return r;
	}
	for (int k = BLK - 1; k >= 0 && !++c->dt[k]; k--)
		;
	c->used = 0;
	return 0;
}

/* get_prng_bytes(): a failed read leaves zeros in out. */
static int cprng_generate(struct ualg_tfm *tfm, uint8_t *out, size_t len)
{
	struct cprng_ctx *c = tfm->ctx;
	size_t done = 0;

	if (c->need_reset)
		return -EINVAL;
	while (done < len) {
		if (c->used == BLK && next_block(c)) {
			memset(out, 0, len);
			return -EINVAL;
		}
		size_t n = BLK - c->used < len - done ? BLK - c->used : len - done;
		memcpy(out + done, c->rand_data + c->used, n);
		c->used += (unsigned)n;
		done += n;
	}
	return 0;
}

int ualg_ansi_cprng_register(void)
{
	struct ualg_alg *a = ualg_openssl_alloc("stdrng", "ansi_cprng", UALG_ALG_RNG, CPRNG_PRIO);

	if (!a)
		return -ENOMEM;
	a->module = "ansi_cprng";
	a->ctxsize = sizeof(struct cprng_ctx);
	a->init_tfm = cprng_init_tfm;
	a->exit_tfm = cprng_exit_tfm;
	a->u.rng = (struct ualg_rng_ops){
		.seedsize = CPRNG_SEEDSIZE,
		.seed = cprng_seed,
		.generate = cprng_generate,
	};
	return ualg_openssl_reg(a);
}
