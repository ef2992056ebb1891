/* xts(cipher): IEEE 1619 XEX with ciphertext stealing, as crypto/xts.c.
 * The key is key1 (data) || key2 (tweak); the IV is the tweak input and is
 * left as it was, since XTS requests do not chain. */
#include "../modes.h"
#include "../template.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define XTS_BS 16

struct xts_tctx {
	struct ualg_tfm *data, *tweak;
};

static int xts_init_tfm(struct ualg_tfm *tfm)
{
	struct xts_tctx *c = tfm->ctx;
	int err = 0;

	c->data = ualg_tfm_new(tfm->alg->spawns[0], &err);
	if (c->data)
		c->tweak = ualg_tfm_new(tfm->alg->spawns[0], &err);
	if (!c->tweak) {
		ualg_tfm_free(c->data);
		return -err;
	}
	return 0;
}

static void xts_exit_tfm(struct ualg_tfm *tfm)
{
	struct xts_tctx *c = tfm->ctx;

	ualg_tfm_free(c->data);
	ualg_tfm_free(c->tweak);
}

/* Like the kernel (outside FIPS mode), equal halves are accepted. */
static int xts_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct xts_tctx *c = tfm->ctx;

	if (len % 2)
		return -EINVAL;
	int r = ualg_tfm_setkey(c->data, key, len / 2);
	return r ? r : ualg_tfm_setkey(c->tweak, key + len / 2, len / 2);
}

static void xex(struct ualg_tfm *data, bool enc, const uint8_t *t, const uint8_t *in, uint8_t *out)
{
	uint8_t b[XTS_BS];

	ualg_xor(b, in, t, XTS_BS);
	(enc ? ualg_cipher_encrypt_one : ualg_cipher_decrypt_one)(data, b, b);
	ualg_xor(out, b, t, XTS_BS);
	ualg_wipe(b, sizeof(b));
}

static int xts_crypt(struct ualg_tfm *tfm, bool enc, const uint8_t *iv,
		     const uint8_t *src, uint8_t *dst, size_t len)
{
	struct xts_tctx *c = tfm->ctx;
	uint8_t t[XTS_BS], t_next[XTS_BS], cc[XTS_BS];
	const size_t tail = len % XTS_BS;
	/* With stealing, the last full block is handled with the tail. */
	const size_t full = tail ? len - tail - XTS_BS : len;
	size_t off;

	if (len < XTS_BS)
		return -EINVAL;
	ualg_cipher_encrypt_one(c->tweak, t, iv);
	for (off = 0; off < full; off += XTS_BS) {
		xex(c->data, enc, t, src + off, dst + off);
		ualg_xts_mul_x(t);
	}
	if (tail) {
		/* Decryption uses the two last tweaks in swapped order. */
		memcpy(t_next, t, XTS_BS);
		ualg_xts_mul_x(t_next);
		const uint8_t *t1 = enc ? t : t_next, *t2 = enc ? t_next : t;
		uint8_t last[XTS_BS];

		xex(c->data, enc, t1, src + off, cc);
		memcpy(last, src + off + XTS_BS, tail);
		memcpy(dst + off + XTS_BS, cc, tail);
		memcpy(last + tail, cc + tail, XTS_BS - tail);
		xex(c->data, enc, t2, last, dst + off);
		ualg_wipe(last, sizeof(last));
	}
	ualg_wipe(t, sizeof(t));
	ualg_wipe(t_next, sizeof(t_next));
	ualg_wipe(cc, sizeof(cc));
	return 0;
}

static int xts_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return xts_crypt(tfm, true, iv, src, dst, len);
}

static int xts_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return xts_crypt(tfm, false, iv, src, dst, len);
}

static struct ualg_alg *xts_create(const char *const *args, unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	/* The kernel's xts takes "ecb(cipher)" as well as "cipher". */
	char name[UALG_MAX_ALG_NAME];
	const size_t alen = strlen(args[0]);
	if (alen > 5 && !strncmp(args[0], "ecb(", 4) && args[0][alen - 1] == ')')
		snprintf(name, sizeof(name), "%.*s", (int)(alen - 5), args[0] + 4);
	else
		snprintf(name, sizeof(name), "%s", args[0]);
	struct ualg_alg *cipher = ualg_alg_lookup(UALG_ALG_CIPHER, name, err);
	if (!cipher)
		return NULL;
	struct ualg_alg *inst = NULL;
	if (cipher->blocksize != XTS_BS) {
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc("xts", UALG_ALG_SKCIPHER, &cipher, 1, err))) {
		inst->ctxsize = sizeof(struct xts_tctx);
		inst->init_tfm = xts_init_tfm;
		inst->exit_tfm = xts_exit_tfm;
		inst->u.skcipher = (struct ualg_skcipher_ops){
			.min_keysize = 2 * cipher->u.cipher.min_keysize,
			.max_keysize = 2 * cipher->u.cipher.max_keysize,
			.ivsize = XTS_BS, .chunksize = XTS_BS,
			.setkey = xts_setkey, .encrypt = xts_encrypt, .decrypt = xts_decrypt,
		};
	}
	ualg_alg_put(cipher);
	return inst;
}

const struct ualg_template ualg_tmpl_xts = { .name = "xts", .create = xts_create };
