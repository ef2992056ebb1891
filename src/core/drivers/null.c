/* The null algorithms of crypto/crypto_null.c: cipher_null (a one-byte
 * block cipher that copies), ecb(cipher_null) (an skcipher that copies,
 * with an empty key and no IV) and digest_null (a hash whose digest is
 * empty).  IPsec's "null encryption" (RFC 2410) is authenc(hmac(...),
 * ecb(cipher_null)).  Nothing is computed, so no library is behind them. */
#include "others.h"
#include "openssl.h"

#include <errno.h>
#include <string.h>

#define MODULE "crypto_null"
#define NULL_PRIO 100	/* as the kernel's */

/* Any key is accepted by the kernel's setkeys; the length checks (0 for
 * the ciphers) come before them. */
static int null_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	(void)tfm, (void)key, (void)len;
	return 0;
}

static void null_block(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	(void)tfm;
	*dst = *src;
}

static int null_crypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	(void)tfm, (void)iv;
	if (dst != src)
		memmove(dst, src, len);
	return 0;
}

static int null_hash_init(struct ualg_hash_desc *desc)
{
	(void)desc;
	return 0;
}

static int null_hash_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	(void)desc, (void)data, (void)len;
	return 0;
}

static int null_hash_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	(void)desc, (void)out;
	return 0;
}

static int null_hash_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	(void)dst, (void)src;
	return 0;
}

/* Nothing to move: one zero byte, so that the state can (statesize 1). */
static int null_hash_export(const struct ualg_hash_desc *desc, uint8_t *out)
{
	(void)desc;
	*out = 0;
	return 0;
}

static int null_hash_import(struct ualg_hash_desc *desc, const uint8_t *in)
{
	(void)desc;
	return *in ? -EINVAL : 0;
}

static void null_hash_exit(struct ualg_hash_desc *desc)
{
	(void)desc;
}

static struct ualg_alg *null_alloc(const char *name, const char *driver, enum ualg_alg_type type)
{
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, type, NULL_PRIO);

	if (a) {
		a->module = MODULE;
		a->blocksize = 1;
	}
	return a;
}

int ualg_null_register(void)
{
	struct ualg_alg *a = null_alloc("cipher_null", "cipher_null-generic", UALG_ALG_CIPHER);
	int r;

	if (!a)
		return -ENOMEM;
	a->u.cipher = (struct ualg_cipher_ops){
		.min_keysize = 0, .max_keysize = 0,
		.setkey = null_setkey, .encrypt = null_block, .decrypt = null_block,
	};
	if ((r = ualg_openssl_reg(a)))
		return r;

	if (!(a = null_alloc("ecb(cipher_null)", "ecb-cipher_null", UALG_ALG_SKCIPHER)))
		return -ENOMEM;
	a->u.skcipher = (struct ualg_skcipher_ops){
		.min_keysize = 0, .max_keysize = 0, .ivsize = 0, .chunksize = 1,
		.setkey = null_setkey, .encrypt = null_crypt, .decrypt = null_crypt,
	};
	if ((r = ualg_openssl_reg(a)))
		return r;

	if (!(a = null_alloc("digest_null", "digest_null-generic", UALG_ALG_SHASH)))
		return -ENOMEM;
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = 0, .descsize = 1,
		.setkey = null_setkey,	/* needed, as the kernel's: ENOKEY without */
		.init = null_hash_init, .update = null_hash_update, .final = null_hash_final,
		.clone = null_hash_clone, .exit = null_hash_exit,
		.statesize = 1, .export = null_hash_export, .import = null_hash_import,
	};
	return ualg_openssl_reg(a);
}
