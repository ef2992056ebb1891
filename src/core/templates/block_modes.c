/* ecb, cbc and ctr over a single-block cipher, as crypto/ecb.c, cbc.c and
 * ctr.c.  Slow by design (one cipher call per block): these are the generic
 * fallbacks and the reference that whole-mode drivers are checked against.
 *
 * Also pcbc, cfb and ofb, as crypto/pcbc.c, cfb.c and ofb.c of Linux 6.1,
 * output IVs included:
 *   pcbc: P xor C of the last block;
 *   cfb:  the last whole ciphertext block (a final partial block uses the
 *         keystream of the IV without replacing it);
 *   ofb:  the last keystream block, partial final block included.
 * And xctr, HCTR2's counter mode (crypto/xctr.c), for 16-byte blocks.
 * ctr, cfb, ofb and xctr are stream modes: block size 1, any length. */
#include "../modes.h"
#include "../template.h"

#include <errno.h>
#include <string.h>

static int child_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	return ualg_tfm_setkey(ualg_tmpl_child(tfm), key, len);
}

static int ecb_crypt(struct ualg_tfm *tfm, bool enc, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(tfm);
	const size_t bs = child->alg->blocksize;

	if (len % bs)
		return -EINVAL;
	for (size_t off = 0; off < len; off += bs)
		(enc ? ualg_cipher_encrypt_one : ualg_cipher_decrypt_one)(child, dst + off, src + off);
	return 0;
}

static int ecb_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	(void)iv;
	return ecb_crypt(tfm, true, src, dst, len);
}

static int ecb_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	(void)iv;
	return ecb_crypt(tfm, false, src, dst, len);
}

static int cbc_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(tfm);
	const size_t bs = child->alg->blocksize;
	uint8_t block[UALG_MAX_BLOCKSIZE];

	if (len % bs)
		return -EINVAL;
	for (size_t off = 0; off < len; off += bs) {
		ualg_xor(block, src + off, iv, bs);
		ualg_cipher_encrypt_one(child, dst + off, block);
		memcpy(iv, dst + off, bs);
	}
	return 0;
}

static int cbc_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(tfm);
	const size_t bs = child->alg->blocksize;
	uint8_t block[UALG_MAX_BLOCKSIZE], next[UALG_MAX_BLOCKSIZE];

	if (len % bs)
		return -EINVAL;
	for (size_t off = 0; off < len; off += bs) {
		memcpy(next, src + off, bs);	/* src may be dst */
		ualg_cipher_decrypt_one(child, block, src + off);
		ualg_xor(dst + off, block, iv, bs);
		memcpy(iv, next, bs);
	}
	return 0;
}

/* Counter mode is its own inverse; a final partial block uses part of the
 * keystream and still advances the counter, as crypto/ctr.c. */
static int ctr_crypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(tfm);
	const size_t bs = child->alg->blocksize;
	uint8_t ks[UALG_MAX_BLOCKSIZE];

	for (size_t off = 0; off < len; off += bs) {
		size_t n = len - off < bs ? len - off : bs;
		ualg_cipher_encrypt_one(child, ks, iv);
		ualg_xor(dst + off, src + off, ks, n);
		ualg_ctr_add(iv, bs, 1);
	}
	ualg_wipe(ks, sizeof(ks));
	return 0;
}

static size_t child_bs(const struct ualg_tfm *tfm)
{
	return ualg_tmpl_child(tfm)->alg->blocksize;
}

static int pcbc_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(tfm);
	const size_t bs = child_bs(tfm);
	uint8_t p[UALG_MAX_BLOCKSIZE];

	if (len % bs)
		return -EINVAL;
	for (size_t off = 0; off < len; off += bs) {
		memcpy(p, src + off, bs);	/* src may be dst */
		ualg_xor(iv, iv, p, bs);
		ualg_cipher_encrypt_one(child, dst + off, iv);
		ualg_xor(iv, dst + off, p, bs);
	}
	ualg_wipe(p, sizeof(p));
	return 0;
}

static int pcbc_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(tfm);
	const size_t bs = child_bs(tfm);
	uint8_t c[UALG_MAX_BLOCKSIZE];

	if (len % bs)
		return -EINVAL;
	for (size_t off = 0; off < len; off += bs) {
		memcpy(c, src + off, bs);
		ualg_cipher_decrypt_one(child, dst + off, c);
		ualg_xor(dst + off, dst + off, iv, bs);
		ualg_xor(iv, dst + off, c, bs);
	}
	ualg_wipe(c, sizeof(c));
	return 0;
}

static int cfb_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(tfm);
	const size_t bs = child_bs(tfm);
	uint8_t ks[UALG_MAX_BLOCKSIZE], c[UALG_MAX_BLOCKSIZE];

	for (size_t off = 0; off < len; off += bs) {
		const size_t n = len - off < bs ? len - off : bs;
		ualg_cipher_encrypt_one(child, ks, iv);
		if (!enc)
			memcpy(c, src + off, n);
		ualg_xor(dst + off, src + off, ks, n);
		if (n == bs)
			memcpy(iv, enc ? dst + off : c, bs);
	}
	ualg_wipe(ks, sizeof(ks));
	return 0;
}

static int cfb_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return cfb_crypt(tfm, true, iv, src, dst, len);
}

static int cfb_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return cfb_crypt(tfm, false, iv, src, dst, len);
}

/* Its own inverse. */
static int ofb_crypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(tfm);
	const size_t bs = child_bs(tfm);

	for (size_t off = 0; off < len; off += bs) {
		const size_t n = len - off < bs ? len - off : bs;
		ualg_cipher_encrypt_one(child, iv, iv);
		ualg_xor(dst + off, src + off, iv, n);
	}
	return 0;
}

/* XCTR: block i of a request, counting from 1, is E(IV xor le32(i)) with
 * the counter over the IV's first four bytes.  The IV is left unchanged
 * and every request counts from 1 again, as the kernel's byte_ctr. */
static int xctr_crypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *child = ualg_tmpl_child(tfm);
	const size_t bs = child_bs(tfm);
	uint8_t block[UALG_MAX_BLOCKSIZE], ks[UALG_MAX_BLOCKSIZE];
	uint32_t ctr = 1;

	for (size_t off = 0; off < len; off += bs, ctr++) {
		const size_t n = len - off < bs ? len - off : bs;
		memcpy(block, iv, bs);
		for (int i = 0; i < 4; i++)
			block[i] ^= (uint8_t)(ctr >> (8 * i));
		ualg_cipher_encrypt_one(child, ks, block);
		ualg_xor(dst + off, src + off, ks, n);
	}
	ualg_wipe(ks, sizeof(ks));
	return 0;
}

enum block_mode { ECB, CBC, CTR, PCBC, CFB, OFB, XCTR };

static const struct {
	int (*encrypt)(struct ualg_tfm *, uint8_t *, const uint8_t *, uint8_t *, size_t);
	int (*decrypt)(struct ualg_tfm *, uint8_t *, const uint8_t *, uint8_t *, size_t);
	bool stream;
} mode_ops[] = {
	[ECB] = { ecb_encrypt, ecb_decrypt, false },
	[CBC] = { cbc_encrypt, cbc_decrypt, false },
	[CTR] = { ctr_crypt, ctr_crypt, true },
	[PCBC] = { pcbc_encrypt, pcbc_decrypt, false },
	[CFB] = { cfb_encrypt, cfb_decrypt, true },
	[OFB] = { ofb_crypt, ofb_crypt, true },
	[XCTR] = { xctr_crypt, xctr_crypt, true },
};

static struct ualg_alg *mode_create(const char *tmpl, enum block_mode mode,
				    const char *const *args, unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *cipher = ualg_alg_lookup(UALG_ALG_CIPHER, args[0], err);
	if (!cipher)
		return NULL;
	struct ualg_alg *inst = NULL;
	const unsigned bs = cipher->blocksize;
	if (bs > UALG_MAX_BLOCKSIZE || (mode == XCTR && bs != 16)) {
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc(tmpl, UALG_ALG_SKCIPHER, &cipher, 1, err))) {
		inst->ctxsize = sizeof(struct ualg_tfm *);
		inst->init_tfm = ualg_tmpl_init_child;
		inst->exit_tfm = ualg_tmpl_exit_child;
		inst->blocksize = mode_ops[mode].stream ? 1 : bs;
		inst->u.skcipher = (struct ualg_skcipher_ops){
			.min_keysize = cipher->u.cipher.min_keysize,
			.max_keysize = cipher->u.cipher.max_keysize,
			.ivsize = mode == ECB ? 0 : bs,
			.chunksize = bs,
			.setkey = child_setkey,
			.encrypt = mode_ops[mode].encrypt,
			.decrypt = mode_ops[mode].decrypt,
		};
	}
	ualg_alg_put(cipher);
	return inst;
}

static struct ualg_alg *ecb_create(const char *const *args, unsigned nargs, int *err)
{
	return mode_create("ecb", ECB, args, nargs, err);
}

static struct ualg_alg *cbc_create(const char *const *args, unsigned nargs, int *err)
{
	return mode_create("cbc", CBC, args, nargs, err);
}

static struct ualg_alg *ctr_create(const char *const *args, unsigned nargs, int *err)
{
	return mode_create("ctr", CTR, args, nargs, err);
}

const struct ualg_template ualg_tmpl_ecb = { .name = "ecb", .create = ecb_create };
const struct ualg_template ualg_tmpl_cbc = { .name = "cbc", .create = cbc_create };
const struct ualg_template ualg_tmpl_ctr = { .name = "ctr", .create = ctr_create };

static struct ualg_alg *pcbc_create(const char *const *args, unsigned nargs, int *err)
{
	return mode_create("pcbc", PCBC, args, nargs, err);
}

static struct ualg_alg *cfb_create(const char *const *args, unsigned nargs, int *err)
{
	return mode_create("cfb", CFB, args, nargs, err);
}

static struct ualg_alg *ofb_create(const char *const *args, unsigned nargs, int *err)
{
	return mode_create("ofb", OFB, args, nargs, err);
}

const struct ualg_template ualg_tmpl_pcbc = { .name = "pcbc", .create = pcbc_create };
const struct ualg_template ualg_tmpl_cfb = { .name = "cfb", .create = cfb_create };
const struct ualg_template ualg_tmpl_ofb = { .name = "ofb", .create = ofb_create };

static struct ualg_alg *xctr_create(const char *const *args, unsigned nargs, int *err)
{
	return mode_create("xctr", XCTR, args, nargs, err);
}

const struct ualg_template ualg_tmpl_xctr = { .name = "xctr", .create = xctr_create };
