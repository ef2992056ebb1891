/* adiantum(STREAM,BLOCK[,HASH]), as crypto/adiantum.c: the Adiantum
 * length-preserving (wide-block) cipher of disk and file encryption
 * (fscrypt, dm-crypt) over the stream cipher xchacha12 or xchacha20, a
 * block cipher of 16-byte blocks taking a 32-byte key (aes) and the hash
 * nhpoly1305 (the third argument, "nhpoly1305" when left out).
 *
 * A request of at least 16 bytes is split into its bulk (all but the last
 * 16 bytes, P_L) and its last block (P_R); the 32-byte IV is the tweak T:
 *   P_M = P_R + H(T, P_L)               (mod 2^128, little-endian)
 *   C_M = E(P_M)
 *   C_L = P_L ^ XChaCha(K_S, nonce C_M || 1 || 0^7)
 *   C_R = C_M - H(T, C_L)
 * where H(T, M) is Poly1305 without its final addition, keyed with K_T,
 * over the bulk's length in bits (a 16-byte block) and T, plus
 * nhpoly1305(K_N, M).  The key is the stream cipher's; the keystream of
 * nonce 1 || 0^23 gives the block cipher key, K_T and K_N.  Decryption
 * runs the same steps backwards.  The IV is left as it was.
 *
 * The spawns are looked up by the core (generic or driver names); the
 * instance's driver name lists all three, as the kernel's does, so a name
 * of two driver names is not its own ("adiantum(xchacha12-generic,aes-
 * generic)" is refused, as on Linux).  Poly1305 for the header is
 * OpenSSL's (EVP_MAC "POLY1305") keyed with r and a zero s, which over
 * whole blocks is the kernel's poly1305_core without a nonce. */
#include "../template.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#define BLOCK_SIZE 16
#define BLOCK_KEY 32
#define NHPOLY_KEY 1088			/* NHPOLY1305_KEY_SIZE */
#define TWEAK_SIZE 32
#define DERIVED (BLOCK_KEY + 16 + NHPOLY_KEY)

struct adiantum_ctx {
	struct ualg_tfm *stream, *block, *hash;
	EVP_MAC_CTX *header_mac;	/* rekeyed with header_key per request */
	uint8_t header_key[32];		/* K_T (r), then a zero s */
};

static EVP_MAC *poly1305_mac;

static int adiantum_init_tfm(struct ualg_tfm *tfm)
{
	struct adiantum_ctx *c = tfm->ctx;
	int err = 0;

	if (!(c->stream = ualg_tfm_new(tfm->alg->spawns[0], &err)) ||
	    !(c->block = ualg_tfm_new(tfm->alg->spawns[1], &err)) ||
	    !(c->hash = ualg_tfm_new(tfm->alg->spawns[2], &err)) ||
	    !(c->header_mac = EVP_MAC_CTX_new(poly1305_mac))) {
		ualg_tfm_free(c->stream);
		ualg_tfm_free(c->block);
		ualg_tfm_free(c->hash);
		return err ? -err : -ENOMEM;
	}
	return 0;
}

static void adiantum_exit_tfm(struct ualg_tfm *tfm)
{
	struct adiantum_ctx *c = tfm->ctx;

	ualg_tfm_free(c->stream);
	ualg_tfm_free(c->block);
	ualg_tfm_free(c->hash);
	EVP_MAC_CTX_free(c->header_mac);
}

static int adiantum_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct adiantum_ctx *c = tfm->ctx;
	uint8_t iv[TWEAK_SIZE] = { 1 }, derived[DERIVED] = { 0 };
	int r = ualg_tfm_setkey(c->stream, key, len);

	if (!r)
		r = ualg_skcipher_crypt(c->stream, true, iv, derived, derived, sizeof(derived));
	if (!r)
		r = ualg_tfm_setkey(c->block, derived, BLOCK_KEY);
	if (!r) {
		memcpy(c->header_key, derived + BLOCK_KEY, 16);
		memset(c->header_key + 16, 0, 16);
		r = ualg_tfm_setkey(c->hash, derived + BLOCK_KEY + 16, NHPOLY_KEY);
	}
	ualg_wipe(derived, sizeof(derived));
	return r;
}

/* Little-endian 128-bit r = a + b or a - b. */
static void le128_addsub(uint8_t r[16], const uint8_t a[16], const uint8_t b[16], bool sub)
{
	unsigned carry = sub;

	for (int i = 0; i < 16; i++) {
		const unsigned s = (unsigned)a[i] + (uint8_t)(sub ? ~b[i] : b[i]) + carry;
		r[i] = (uint8_t)s;
		carry = s >> 8;
	}
}

/* H(T, M): the header hash of the bulk's length and the tweak, plus
 * nhpoly1305 of the bulk. */
static int adiantum_hash(struct adiantum_ctx *c, const uint8_t *tweak, const uint8_t *bulk,
			 size_t bulk_len, uint8_t out[16])
{
	uint8_t header[16] = { 0 }, hh[16], nh[16];
	const uint64_t bits = (uint64_t)bulk_len * 8;
	EVP_MAC_CTX *mac = c->header_mac;
	size_t outl;
	int r = -EINVAL;

	for (int i = 0; i < 8; i++)
		header[i] = (uint8_t)(bits >> (8 * i));
	if (EVP_MAC_init(mac, c->header_key, sizeof(c->header_key), NULL) &&
	    EVP_MAC_update(mac, header, sizeof(header)) && EVP_MAC_update(mac, tweak, TWEAK_SIZE) &&
	    EVP_MAC_final(mac, hh, &outl, sizeof(hh)))
		r = ualg_hash_digest(c->hash, bulk, bulk_len, nh);
	if (!r)
		le128_addsub(out, hh, nh, false);
	ualg_wipe(hh, sizeof(hh));
	ualg_wipe(nh, sizeof(nh));
	return r;
}

static int adiantum_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv, const uint8_t *src,
			  uint8_t *dst, size_t len)
{
	struct adiantum_ctx *c = tfm->ctx;
	uint8_t rbuf[16], stream_iv[TWEAK_SIZE] = { 0 }, digest[16];
	int r;

	if (len < BLOCK_SIZE)
		return -EINVAL;
	const size_t bulk_len = len - BLOCK_SIZE;
	/* First hash step: P_M = P_R + H(T, P_L), or C_M from C_R. */
	if ((r = adiantum_hash(c, iv, src, bulk_len, digest)))
		return r;
	le128_addsub(rbuf, src + bulk_len, digest, false);
	if (enc)
		ualg_cipher_encrypt_one(c->block, rbuf, rbuf);
	/* The stream cipher's IV: C_M, 1, then zeros. */
	memcpy(stream_iv, rbuf, 16);
	stream_iv[16] = 1;
	r = ualg_skcipher_crypt(c->stream, true, stream_iv, src, dst, bulk_len);
	if (!r && !enc)
		ualg_cipher_decrypt_one(c->block, rbuf, rbuf);
	/* Second hash step: C_R = C_M - H(T, C_L), or P_R from P_M. */
	if (!r)
		r = adiantum_hash(c, iv, dst, bulk_len, digest);
	if (!r)
		le128_addsub(dst + bulk_len, rbuf, digest, true);
	ualg_wipe(rbuf, sizeof(rbuf));
	ualg_wipe(stream_iv, sizeof(stream_iv));
	ualg_wipe(digest, sizeof(digest));
	return r;
}

static int adiantum_encrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return adiantum_crypt(tfm, true, iv, src, dst, len);
}

static int adiantum_decrypt(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len)
{
	return adiantum_crypt(tfm, false, iv, src, dst, len);
}

/* adiantum_supported_algorithms(). */
static bool supported(const struct ualg_alg *stream, const struct ualg_alg *block,
		      const struct ualg_alg *hash)
{
	return (!strcmp(stream->name, "xchacha12") || !strcmp(stream->name, "xchacha20")) &&
	       block->u.cipher.min_keysize <= BLOCK_KEY && block->u.cipher.max_keysize >= BLOCK_KEY &&
	       block->blocksize == BLOCK_SIZE && !strcmp(hash->name, "nhpoly1305");
}

static struct ualg_alg *adiantum_create(const char *const *args, unsigned nargs, int *err)
{
	if (nargs < 2 || nargs > 3) {
		*err = EINVAL;
		return NULL;
	}
	if (!poly1305_mac && !(poly1305_mac = EVP_MAC_fetch(NULL, "POLY1305", NULL))) {
		*err = ENOENT;
		return NULL;
	}
	struct ualg_alg *spawns[3] = { ualg_alg_lookup(UALG_ALG_SKCIPHER, args[0], err), NULL, NULL };
	struct ualg_alg *inst = NULL;

	if (spawns[0] && (spawns[1] = ualg_alg_lookup(UALG_ALG_CIPHER, args[1], err)) &&
	    (spawns[2] = ualg_alg_lookup(UALG_ALG_SHASH, nargs == 3 ? args[2] : "nhpoly1305", err))) {
		if (!supported(spawns[0], spawns[1], spawns[2]))
			*err = EINVAL;
		else
			inst = ualg_instance_alloc("adiantum", UALG_ALG_SKCIPHER, spawns, 3, err);
	}
	char name[2 * UALG_MAX_ALG_NAME + 16];
	if (inst && (size_t)snprintf(name, sizeof(name), "adiantum(%s,%s)", spawns[0]->name,
				     spawns[1]->name) >= sizeof(inst->name)) {
		ualg_instance_free(inst);
		inst = NULL;
		*err = ENAMETOOLONG;
	}
	if (inst) {
		/* The generic name names the stream and block ciphers only. */
		memcpy(inst->name, name, strlen(name) + 1);
		inst->priority = (4 * spawns[0]->priority + 2 * spawns[2]->priority +
				  spawns[1]->priority) / 7;
		inst->blocksize = BLOCK_SIZE;
		inst->ctxsize = sizeof(struct adiantum_ctx);
		inst->init_tfm = adiantum_init_tfm;
		inst->exit_tfm = adiantum_exit_tfm;
		inst->u.skcipher = (struct ualg_skcipher_ops){
			.min_keysize = spawns[0]->u.skcipher.min_keysize,
			.max_keysize = spawns[0]->u.skcipher.max_keysize,
			.ivsize = TWEAK_SIZE, .chunksize = BLOCK_SIZE,
			.setkey = adiantum_setkey, .encrypt = adiantum_encrypt, .decrypt = adiantum_decrypt,
		};
	}
	for (int i = 0; i < 3; i++)
		ualg_alg_put(spawns[i]);
	return inst;
}

const struct ualg_template ualg_tmpl_adiantum = {
	.name = "adiantum", .create = adiantum_create, .exact_name = true,
};
