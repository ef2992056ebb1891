/* Drivers over Crypto++ (through cxx_libs.h) for what only it has: the MAC
 * vmac64(aes), VMAC-64 (draft-krovetz-vmac-01) over AES-128.
 *
 * Kernel semantics (crypto/vmac.c): the key is the 16-byte AES key, any
 * other length is EINVAL; the first 16 bytes of the data are the nonce,
 * the rest the message; final is EINVAL unless the whole nonce came and
 * its first bit is 0.  The 8-byte tag is big-endian; the block size is
 * the cipher's (16). */
#include "others.h"
#include "openssl.h"
#include "cxx_libs.h"

#include <errno.h>
#include <string.h>

#define MODULE "cryptopp"
#define VMAC_KEYBYTES 16
#define VMAC_NONCEBYTES 16

struct vmac_ctx {
	uint8_t key[VMAC_KEYBYTES];
};

struct vmac_state {
	uint8_t nonce[VMAC_NONCEBYTES];
	size_t nonce_len;
	struct ualg_cxx_vmac64 *mac;	/* from the nonce on; NULL for a bad nonce */
};

static bool nonce_ok(const struct vmac_state *st)
{
	return st->nonce_len == VMAC_NONCEBYTES && !(st->nonce[0] & 0x80);
}

static int vmac_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct vmac_ctx *c = tfm->ctx;

	if (len != VMAC_KEYBYTES)
		return -EINVAL;
	memcpy(c->key, key, len);
	return 0;
}

static int vmac_init(struct ualg_hash_desc *desc)
{
	struct vmac_state *st = desc->state;

	st->nonce_len = 0;
	st->mac = NULL;
	return 0;
}

/* The nonce first; Crypto++'s VMAC starts once it is whole.  A bad
 * nonce's message is not hashed: final refuses it anyway. */
static int vmac_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	const struct vmac_ctx *c = desc->tfm->ctx;
	struct vmac_state *st = desc->state;

	if (st->nonce_len < VMAC_NONCEBYTES) {
		size_t n = VMAC_NONCEBYTES - st->nonce_len;

		if (n > len)
			n = len;
		memcpy(st->nonce + st->nonce_len, data, n);
		st->nonce_len += n;
		data += n;
		len -= n;
		if (nonce_ok(st)) {
			int r = ualg_cxx_vmac64_new(&st->mac, c->key, st->nonce);
			if (r)
				return r;
		}
	}
	return st->mac && len ? ualg_cxx_vmac64_update(st->mac, data, len) : 0;
}

static int vmac_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct vmac_state *st = desc->state;

	if (!nonce_ok(st) || !st->mac)
		return -EINVAL;
	return ualg_cxx_vmac64_final(st->mac, out);
}

static int vmac_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	struct vmac_state *d = dst->state;
	const struct vmac_state *s = src->state;

	memcpy(d->nonce, s->nonce, sizeof(d->nonce));
	d->nonce_len = s->nonce_len;
	d->mac = NULL;
	return s->mac ? ualg_cxx_vmac64_clone(&d->mac, s->mac) : 0;
}

static void vmac_exit(struct ualg_hash_desc *desc)
{
	struct vmac_state *st = desc->state;

	ualg_cxx_vmac64_free(st->mac);
	st->mac = NULL;
}

int ualg_cryptopp_register(void)
{
	struct ualg_alg *a = ualg_openssl_alloc("vmac64(aes)", "vmac64(aes-cryptopp)", UALG_ALG_SHASH,
						UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->module = MODULE;
	a->blocksize = 16;
	a->ctxsize = sizeof(struct vmac_ctx);
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = 8,
		.msg_key_len = 16, .msg_key_clear = 0x80,
		.descsize = sizeof(struct vmac_state),
		.setkey = vmac_setkey,
		.init = vmac_init, .update = vmac_update, .final = vmac_final,
		.clone = vmac_clone, .exit = vmac_exit,
	};
	return ualg_openssl_reg(a);
}
