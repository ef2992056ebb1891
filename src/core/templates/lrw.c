/* lrw(cipher), Liskov-Rivest-Wagner as crypto/lrw.c: the key is K1 || K2
 * with K2 the last 16 bytes; block i of a request is
 *   C = E_K1(P xor T) xor T,  T = (IV + i) * K2  in GF(2^128),
 * the IV being a big-endian block index, and the IV is left advanced past
 * the request's blocks, as the kernel does.
 *
 * The field multiplication is Nettle's (its GCM hash, which multiplies one
 * block by the hash key).  LRW writes field elements big-endian, the
 * kernel's "bbe" order; GCM writes the same field bit-reversed, so the
 * operands and the product are bit-reversed around the call. */
#include "../modes.h"
#include "../template.h"

#include <errno.h>
#include <string.h>

#include <nettle/gcm.h>

#define LRW_BLOCK 16

struct lrw_ctx {
	struct ualg_tfm *child;		/* first, for ualg_tmpl_child() */
	struct gcm_key k2;		/* K2, bit-reversed, as Nettle's hash key */
};

/* Reverses the order of all 128 bits. */
static void bit_reverse(uint8_t *dst, const uint8_t *src)
{
	for (int i = 0; i < LRW_BLOCK; i++) {
		uint8_t b = src[LRW_BLOCK - 1 - i], r = 0;
		for (int j = 0; j < 8; j++, b >>= 1)
			r = (uint8_t)(r << 1 | (b & 1));
		dst[i] = r;
	}
}

static void answer_key(const void *h, size_t length, uint8_t *dst, const uint8_t *src)
{
	(void)src;	/* Nettle asks for E(0): the hash key itself */
	memcpy(dst, h, length);
}

/* t = x * K2 in LRW's order. */
static void mul_k2(const struct lrw_ctx *c, uint8_t *t, const uint8_t *x)
{
	static const uint8_t zero_iv[GCM_IV_SIZE];
	struct gcm_ctx g;
	uint8_t rx[LRW_BLOCK];

	gcm_set_iv(&g, &c->k2, sizeof(zero_iv), zero_iv);
	bit_reverse(rx, x);
	gcm_update(&g, &c->k2, LRW_BLOCK, rx);	/* 0 xor rx, times the key */
	bit_reverse(t, g.x.b);
	ualg_wipe(&g, sizeof(g));
	ualg_wipe(rx, sizeof(rx));
}

static int lrw_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct lrw_ctx *c = tfm->ctx;
	uint8_t rk2[LRW_BLOCK];
	int r = ualg_tfm_setkey(c->child, key, len - LRW_BLOCK);

	if (r)
		return r;
	bit_reverse(rk2, key + len - LRW_BLOCK);
	gcm_set_key(&c->k2, rk2, answer_key);
	ualg_wipe(rk2, sizeof(rk2));
	return 0;
}

static int lrw_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv, const uint8_t *src,
		     uint8_t *dst, size_t len)
{
	const struct lrw_ctx *c = tfm->ctx;
	uint8_t t[LRW_BLOCK], block[LRW_BLOCK];

	if (len % LRW_BLOCK)
		return -EINVAL;
	for (size_t off = 0; off < len; off += LRW_BLOCK) {
		mul_k2(c, t, iv);
		ualg_xor(block, src + off, t, LRW_BLOCK);
		(enc ? ualg_cipher_encrypt_one : ualg_cipher_decrypt_one)(c->child, block, block);
		ualg_xor(dst + off, block, t, LRW_BLOCK);
		ualg_ctr_add(iv, LRW_BLOCK, 1);
	}
	ualg_wipe(t, sizeof(t));
	ualg_wipe(block, sizeof(block));
	return 0;
}

static int lrw_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return lrw_crypt(tfm, true, iv, src, dst, len);
}

static int lrw_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return lrw_crypt(tfm, false, iv, src, dst, len);
}

static struct ualg_alg *lrw_create(const char *const *args, unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *cipher = ualg_alg_lookup(UALG_ALG_CIPHER, args[0], err);
	if (!cipher)
		return NULL;
	struct ualg_alg *inst = NULL;
	if (cipher->blocksize != LRW_BLOCK) {
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc("lrw", UALG_ALG_SKCIPHER, &cipher, 1, err))) {
		inst->ctxsize = sizeof(struct lrw_ctx);
		inst->init_tfm = ualg_tmpl_init_child;
		inst->exit_tfm = ualg_tmpl_exit_child;
		inst->u.skcipher = (struct ualg_skcipher_ops){
			.min_keysize = cipher->u.cipher.min_keysize + LRW_BLOCK,
			.max_keysize = cipher->u.cipher.max_keysize + LRW_BLOCK,
			.ivsize = LRW_BLOCK,
			.chunksize = LRW_BLOCK,
			.setkey = lrw_setkey,
			.encrypt = lrw_encrypt,
			.decrypt = lrw_decrypt,
		};
	}
	ualg_alg_put(cipher);
	return inst;
}

const struct ualg_template ualg_tmpl_lrw = { .name = "lrw", .create = lrw_create };
