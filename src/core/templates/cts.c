/* cts(cbc(cipher)): CBC with ciphertext stealing, the CS3 (Kerberos) layout
 * of RFC 3962 that crypto/cts.c implements: the last two blocks are always
 * swapped, and a single block is plain CBC. */
#include "../modes.h"
#include "../template.h"

#include <errno.h>
#include <string.h>

static int cts_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	return ualg_tfm_setkey(ualg_tmpl_child(tfm), key, len);
}

/* Layout: head (whole blocks) | pair: block X then tail bytes.
 * Ciphertext: C(head) | Y | X[0..tail) where X = last CBC block over
 * head+P(n-1) and Y = CBC(pad(P(n)), X). */
static int cts_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *cbc = ualg_tmpl_child(tfm);
	const size_t bs = cbc->alg->blocksize;
	uint8_t x[UALG_MAX_BLOCKSIZE], y[UALG_MAX_BLOCKSIZE] = { 0 };

	if (len < bs)
		return -EINVAL;
	if (len == bs)
		return ualg_skcipher_crypt(cbc, true, iv, src, dst, len);
	const size_t offset = (len - 1) / bs * bs, tail = len - offset;
	memcpy(y, src + offset, tail);		/* read before dst may overwrite */
	int r = ualg_skcipher_crypt(cbc, true, iv, src, dst, offset);
	if (r)
		return r;
	memcpy(x, dst + offset - bs, bs);	/* iv == x now */
	r = ualg_skcipher_crypt(cbc, true, iv, y, y, bs);	/* iv == y after */
	memcpy(dst + offset - bs, y, bs);
	memcpy(dst + offset, x, tail);
	ualg_wipe(x, sizeof(x));
	ualg_wipe(y, sizeof(y));
	return r;
}

static int cts_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	struct ualg_tfm *cbc = ualg_tmpl_child(tfm);
	const size_t bs = cbc->alg->blocksize;
	uint8_t x[UALG_MAX_BLOCKSIZE], dy[UALG_MAX_BLOCKSIZE], prev[UALG_MAX_BLOCKSIZE];
	uint8_t zero_iv[UALG_MAX_BLOCKSIZE] = { 0 };

	if (len < bs)
		return -EINVAL;
	if (len == bs)
		return ualg_skcipher_crypt(cbc, false, iv, src, dst, len);
	const size_t offset = (len - 1) / bs * bs, tail = len - offset;
	const size_t ypos = offset - bs;

	/* D(Y) = pad(P(n)) ^ X; its tail bytes are X's, which stealing dropped. */
	int r = ualg_skcipher_crypt(cbc, false, zero_iv, src + ypos, dy, bs);
	if (r)
		return r;
	memcpy(x, src + offset, tail);
	memcpy(x + tail, dy + tail, bs - tail);
	uint8_t pn[UALG_MAX_BLOCKSIZE];
	ualg_xor(pn, dy, x, tail);

	/* CBC over head | X; X chains from the block before Y, or the IV. */
	memcpy(prev, ypos ? src + ypos - bs : iv, bs);
	uint8_t next_iv[UALG_MAX_BLOCKSIZE];
	memcpy(next_iv, src + ypos, bs);	/* the kernel leaves Y in the IV */
	r = ualg_skcipher_crypt(cbc, false, iv, src, dst, ypos);
	if (!r)
		r = ualg_skcipher_crypt(cbc, false, prev, x, dst + ypos, bs);
	memcpy(dst + offset, pn, tail);
	memcpy(iv, next_iv, bs);
	ualg_wipe(x, sizeof(x));
	ualg_wipe(dy, sizeof(dy));
	ualg_wipe(pn, sizeof(pn));
	return r;
}

static struct ualg_alg *cts_create(const char *const *args, unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *cbc = ualg_alg_lookup(UALG_ALG_SKCIPHER, args[0], err);
	if (!cbc)
		return NULL;
	struct ualg_alg *inst = NULL;
	/* Only CBC has the chaining this construction relies on. */
	if (strncmp(cbc->name, "cbc(", 4) || cbc->u.skcipher.ivsize != cbc->blocksize ||
	    cbc->blocksize > UALG_MAX_BLOCKSIZE) {
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc("cts", UALG_ALG_SKCIPHER, &cbc, 1, err))) {
		inst->ctxsize = sizeof(struct ualg_tfm *);
		inst->init_tfm = ualg_tmpl_init_child;
		inst->exit_tfm = ualg_tmpl_exit_child;
		inst->u.skcipher = cbc->u.skcipher;
		inst->u.skcipher.setkey = cts_setkey;
		inst->u.skcipher.encrypt = cts_encrypt;
		inst->u.skcipher.decrypt = cts_decrypt;
		inst->u.skcipher.crypt_many = NULL;	/* cbc's would skip the stealing */
	}
	ualg_alg_put(cbc);
	return inst;
}

const struct ualg_template ualg_tmpl_cts = { .name = "cts", .create = cts_create };
