/* Transforms: an algorithm instance with its key, and the type-specific
 * entry points the daemon calls.  Checks that every driver would otherwise
 * repeat (key sizes, missing keys, lengths) live here, once. */
#include "crypto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

/* explicit_bzero(): a memset the compiler keeps, at memset's speed
 * (OPENSSL_cleanse's loop took a tenth of algd's time on 64 KiB parts). */
void ualg_wipe(void *p, size_t len)
{
	if (p && len)
		explicit_bzero(p, len);
}

static bool alg_keyed(const struct ualg_alg *alg)
{
	switch (alg->type) {
	case UALG_ALG_CIPHER: return true;
	/* skcipher_set_needkey(): not ecb(cipher_null), whose key is empty */
	case UALG_ALG_SKCIPHER: return alg->u.skcipher.max_keysize != 0;
	case UALG_ALG_SHASH: return alg->u.shash.setkey && !alg->u.shash.optional_key;
	case UALG_ALG_AEAD: return true;
	case UALG_ALG_RNG: return false;	/* seeding is optional */
	case UALG_ALG_AKCIPHER: return true;
	case UALG_ALG_KPP: return true;
	case UALG_ALG_COMP: return false;
	}
	return false;
}

/* A secure section around work on a keyed transform; unkeyed ones (plain
 * hashes) stay out of the locked heap, which is small. */
static bool keyed_begin(const struct ualg_alg *alg)
{
	if (!alg_keyed(alg))
		return false;
	ualg_secure_begin();
	return true;
}

static int keyed_end(bool begun)
{
	return begun ? ualg_secure_end() : 0;
}

/* A keyed transform's context, and whatever OpenSSL allocates for it, is
 * key memory (secmem.c). */
static void *ctx_alloc(const struct ualg_alg *alg)
{
	const size_t n = alg->ctxsize ? alg->ctxsize : 1;

	return alg_keyed(alg) ? ualg_secure_zalloc(n) : calloc(1, n);
}

static void ctx_free(void *ctx, size_t len)
{
	ualg_wipe(ctx, len);
	ualg_secure_free(ctx);	/* either heap */
}

struct ualg_tfm *ualg_tfm_new(struct ualg_alg *alg, int *err)
{
	struct ualg_tfm *tfm = calloc(1, sizeof(*tfm));

	if (!tfm || !(tfm->ctx = ctx_alloc(alg))) {
		free(tfm);
		*err = ENOMEM;
		return NULL;
	}
	tfm->alg = alg;
	tfm->refs = 1;
	tfm->need_key = alg_keyed(alg);
	if (alg->type == UALG_ALG_AEAD)
		tfm->authsize = alg->u.aead.maxauthsize;
	if (alg->init_tfm) {
		bool begun = keyed_begin(alg);
		int r = alg->init_tfm(tfm);
		int full = keyed_end(begun);
		if (!r && full) {
			if (alg->exit_tfm)
				alg->exit_tfm(tfm);
			r = full;
		}
		if (r) {
			ctx_free(tfm->ctx, alg->ctxsize);
			free(tfm);
			*err = -r;
			return NULL;
		}
	}
	ualg_alg_get(alg);
	return tfm;
}

struct ualg_tfm *ualg_tfm_get(struct ualg_tfm *tfm)
{
	tfm->refs++;
	return tfm;
}

void ualg_tfm_free(struct ualg_tfm *tfm)
{
	if (!tfm || --tfm->refs)
		return;
	if (tfm->alg->exit_tfm)
		tfm->alg->exit_tfm(tfm);
	ctx_free(tfm->ctx, tfm->alg->ctxsize);
	ualg_alg_put(tfm->alg);
	free(tfm);
}

bool ualg_tfm_has_setkey(const struct ualg_tfm *tfm)
{
	const struct ualg_alg *alg = tfm->alg;

	return alg_keyed(alg) || alg->type == UALG_ALG_RNG || alg->type == UALG_ALG_SKCIPHER ||
	       (alg->type == UALG_ALG_SHASH && alg->u.shash.setkey);
}

/* A length outside the algorithm's range is refused before the key is
 * touched, so the old key stays usable (crypto_skcipher_setkey()). */
static bool key_length_ok(const struct ualg_alg *alg, size_t len)
{
	switch (alg->type) {
	case UALG_ALG_CIPHER:
		return len >= alg->u.cipher.min_keysize && len <= alg->u.cipher.max_keysize;
	case UALG_ALG_SKCIPHER:
		return len >= alg->u.skcipher.min_keysize && len <= alg->u.skcipher.max_keysize;
	default:
		return true;	/* each AEAD checks its own key format */
	}
}

static int driver_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct ualg_alg *alg = tfm->alg;

	switch (alg->type) {
	case UALG_ALG_CIPHER: return alg->u.cipher.setkey(tfm, key, len);
	case UALG_ALG_SKCIPHER: return alg->u.skcipher.setkey(tfm, key, len);
	case UALG_ALG_SHASH: return alg->u.shash.setkey(tfm, key, len);
	case UALG_ALG_AEAD: return alg->u.aead.setkey(tfm, key, len);
	case UALG_ALG_AKCIPHER:
		return alg->u.akcipher.set_priv_key ? alg->u.akcipher.set_priv_key(tfm, key, len)
						    : -ENOSYS;	/* akcipher_default_set_key */
	case UALG_ALG_KPP: return alg->u.kpp.set_secret(tfm, key, len);
	default: return -EINVAL;
	}
}

/* A failed setkey by the driver leaves the transform needing a key, as the
 * kernel's CRYPTO_TFM_NEED_KEY: no operation may run on a half-set key.
 * Whatever the driver allocates meanwhile is key memory (secmem.c). */
int ualg_tfm_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct ualg_alg *alg = tfm->alg;

	if (alg->type == UALG_ALG_RNG)	/* a seed, not a key: nothing to lose on failure */
		return ualg_rng_seed(tfm, key, len);
	if (alg->type == UALG_ALG_SHASH && !alg->u.shash.setkey)
		return -ENOSYS;
	if (!key_length_ok(alg, len))
		return -EINVAL;
	if (ualg_fips_check_key(alg, key, len)) {
		/* Refused inside the kernel's setkey, which leaves the
		 * transform needing a key. */
		tfm->need_key = alg_keyed(alg);
		return -EINVAL;
	}
	ualg_secure_begin();
	int r = driver_setkey(tfm, key, len);
	int full = ualg_secure_end();
	if (full)
		r = full;	/* the kernel's setkey would fail its kmalloc */
	/* An optional key that failed leaves the hash usable, as the kernel's
	 * shash_set_needkey() does only for algorithms that need one. */
	tfm->need_key = r != 0 && alg_keyed(alg);
	return r;
}

static bool counting;	/* ualg_core_count_stats() */

void ualg_core_count_stats(bool on)
{
	counting = on;
}

/* Counts one request of an algorithm in its statistics, where they are
 * kept; returns r.  Atomic: transforms of one algorithm run in several
 * ring workers.  A locked add costs as much as hashing a few dozen bytes:
 * none is made for nothing. */
static int account(struct ualg_alg *alg, bool request, size_t bytes, int r)
{
	if (!counting)
		return r;
	if (request)
		__atomic_fetch_add(&alg->stats.ops, 1, __ATOMIC_RELAXED);
	if (bytes)
		__atomic_fetch_add(&alg->stats.bytes, bytes, __ATOMIC_RELAXED);
	if (r < 0)
		__atomic_fetch_add(&alg->stats.errors, 1, __ATOMIC_RELAXED);
	return r;
}

/* A batch of n requests of bytes in all, res[i] each's result: one
 * atomic add per counter (one per request would cost a device's small
 * requests a tenth of algd's time). */
static void account_many(struct ualg_alg *alg, unsigned n, uint64_t bytes, const int *res)
{
	uint64_t errors = 0;
	for (unsigned i = 0; i < n; i++)
		errors += res[i] < 0;
	__atomic_fetch_add(&alg->stats.ops, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&alg->stats.bytes, bytes, __ATOMIC_RELAXED);
	if (errors)
		__atomic_fetch_add(&alg->stats.errors, errors, __ATOMIC_RELAXED);
}

static uint64_t aead_bytes(unsigned n, const struct ualg_aead_req *reqs)
{
	uint64_t bytes = 0;
	for (unsigned i = 0; i < n; i++)
		bytes += reqs[i].assoclen + reqs[i].cryptlen;
	return bytes;
}

unsigned ualg_hash_digestsize(const struct ualg_tfm *tfm)
{
	return tfm->alg->u.shash.digestsize;
}

/* A keyed hash's state holds key-derived values (HMAC's padded states);
 * so does any state made while a key is set (hmac template's ipad/opad). */
static int desc_alloc(struct ualg_hash_desc *desc, struct ualg_tfm *tfm)
{
	const size_t n = tfm->alg->u.shash.descsize ? tfm->alg->u.shash.descsize : 1;

	desc->tfm = tfm;
	desc->state = alg_keyed(tfm->alg) || ualg_secure_active() ? ualg_secure_zalloc(n)
								   : calloc(1, n);
	return desc->state ? 0 : -ENOMEM;
}

/* Ends the section around a keyed hash operation that made a state. */
static int keyed_state_done(struct ualg_hash_desc *desc, int r, bool begun)
{
	int full = keyed_end(begun);

	if (!r && full) {
		ualg_hash_exit(desc);
		r = full;
	}
	return r;
}

/* (Re)starts a hash; an existing state is released first. */
int ualg_hash_init(struct ualg_hash_desc *desc, struct ualg_tfm *tfm)
{
	if (tfm->need_key)
		return -ENOKEY;
	bool begun = keyed_begin(tfm->alg);
	int r = 0;
	if (desc->state && desc->tfm == tfm) {
		tfm->alg->u.shash.exit(desc);
	} else {
		ualg_hash_exit(desc);
		r = desc_alloc(desc, tfm);
	}
	if (!r && (r = tfm->alg->u.shash.init(desc)))
		ualg_hash_exit(desc);
	return keyed_state_done(desc, r, begun);
}

int ualg_hash_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	struct ualg_alg *alg = desc->tfm->alg;

	return account(alg, false, len, alg->u.shash.update(desc, data, len));
}

int ualg_hash_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	struct ualg_alg *alg = desc->tfm->alg;

	return account(alg, true, 0, alg->u.shash.final(desc, out));
}

int ualg_hash_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	ualg_hash_exit(dst);
	bool begun = keyed_begin(src->tfm->alg);
	int r = desc_alloc(dst, src->tfm);
	if (!r && (r = src->tfm->alg->u.shash.clone(dst, src)))
		ualg_hash_exit(dst);
	return keyed_state_done(dst, r, begun);
}

size_t ualg_hash_statesize(const struct ualg_tfm *tfm)
{
	const struct ualg_shash_ops *o = &tfm->alg->u.shash;

	return tfm->alg->type == UALG_ALG_SHASH && o->export && o->import ? o->statesize : 0;
}

int ualg_hash_export(const struct ualg_hash_desc *desc, uint8_t *out)
{
	if (!desc->state || !ualg_hash_statesize(desc->tfm))
		return -EINVAL;
	return desc->tfm->alg->u.shash.export(desc, out);
}

/* init first: the state is allocated (in the secure heap when keyed) and
 * holds the key-derived start, which import then overwrites. */
int ualg_hash_import(struct ualg_hash_desc *desc, struct ualg_tfm *tfm, const uint8_t *in, size_t len)
{
	const size_t n = ualg_hash_statesize(tfm);
	if (!n || len != n)
		return -EINVAL;
	int r = ualg_hash_init(desc, tfm);
	if (!r && (r = tfm->alg->u.shash.import(desc, in)))
		ualg_hash_exit(desc);
	return r;
}

void ualg_hash_exit(struct ualg_hash_desc *desc)
{
	if (!desc->state)
		return;
	desc->tfm->alg->u.shash.exit(desc);
	ctx_free(desc->state, desc->tfm->alg->u.shash.descsize);
	desc->state = NULL;
}

static bool release_states;	/* ualg_core_release_hash_states() */

void ualg_core_release_hash_states(bool on)
{
	release_states = on;
}

void ualg_hash_done(struct ualg_hash_desc *desc)
{
	if (release_states && desc->state && alg_keyed(desc->tfm->alg))
		ualg_hash_exit(desc);
}

bool ualg_hash_has_many(const struct ualg_tfm *tfm)
{
	return tfm->alg->type == UALG_ALG_SHASH && tfm->alg->u.shash.digest_many;
}

int ualg_hash_digest_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_digest_req *reqs, int *res)
{
	if (tfm->need_key)
		return -ENOKEY;
	if (!ualg_hash_has_many(tfm))
		return -EINVAL;
	int r = tfm->alg->u.shash.digest_many(tfm, n, reqs, res);
	if (!r && counting) {
		uint64_t bytes = 0;
		for (unsigned i = 0; i < n; i++)
			bytes += reqs[i].len;
		account_many(tfm->alg, n, bytes, res);
	}
	return r;
}

int ualg_hash_digest(struct ualg_tfm *tfm, const uint8_t *data, size_t len, uint8_t *out)
{
	struct ualg_hash_desc desc = { 0 };
	int r = ualg_hash_init(&desc, tfm);

	if (!r)
		r = ualg_hash_update(&desc, data, len);
	if (!r)
		r = ualg_hash_final(&desc, out);
	ualg_hash_exit(&desc);
	return r;
}

int ualg_skcipher_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv,
			const uint8_t *src, uint8_t *dst, size_t len)
{
	const struct ualg_skcipher_ops *ops = &tfm->alg->u.skcipher;

	if (tfm->need_key)
		return -ENOKEY;
	return account(tfm->alg, true, len,
		       enc ? ops->encrypt(tfm, iv, src, dst, len) : ops->decrypt(tfm, iv, src, dst, len));
}

bool ualg_skcipher_has_many(const struct ualg_tfm *tfm)
{
	return tfm->alg->type == UALG_ALG_SKCIPHER && tfm->alg->u.skcipher.crypt_many;
}

int ualg_skcipher_crypt_many(struct ualg_tfm *tfm, bool enc, unsigned n, const struct ualg_skcipher_req *reqs,
			     int *res)
{
	if (tfm->need_key)
		return -ENOKEY;
	if (!ualg_skcipher_has_many(tfm))
		return -EINVAL;
	int r = tfm->alg->u.skcipher.crypt_many(tfm, enc, n, reqs, res);
	if (!r && counting) {
		uint64_t bytes = 0;
		for (unsigned i = 0; i < n; i++)
			bytes += reqs[i].len;
		account_many(tfm->alg, n, bytes, res);
	}
	return r;
}

void ualg_cipher_encrypt_one(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	account(tfm->alg, true, tfm->alg->blocksize, 0);
	tfm->alg->u.cipher.encrypt(tfm, dst, src);
}

void ualg_cipher_decrypt_one(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src)
{
	account(tfm->alg, true, tfm->alg->blocksize, 0);
	tfm->alg->u.cipher.decrypt(tfm, dst, src);
}

/* crypto_aead_setauthsize(): zero only for algorithms without a tag. */
int ualg_aead_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	const struct ualg_aead_ops *ops = &tfm->alg->u.aead;

	if ((!authsize && ops->maxauthsize) || authsize > ops->maxauthsize)
		return -EINVAL;
	if (ops->setauthsize) {
		int r = ops->setauthsize(tfm, authsize);
		if (r)
			return r;
	}
	tfm->authsize = authsize;
	return 0;
}

bool ualg_aead_takes_src(const struct ualg_tfm *tfm)
{
	return tfm->alg->type == UALG_ALG_AEAD && tfm->alg->u.aead.src_ok;
}

int ualg_aead_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	if (tfm->need_key)
		return -ENOKEY;
	return account(tfm->alg, true, req->assoclen + req->cryptlen, tfm->alg->u.aead.encrypt(tfm, req));
}

bool ualg_aead_has_encrypt_many(const struct ualg_tfm *tfm)
{
	return tfm->alg->type == UALG_ALG_AEAD && tfm->alg->u.aead.encrypt_many;
}

bool ualg_aead_has_decrypt_many(const struct ualg_tfm *tfm)
{
	return tfm->alg->type == UALG_ALG_AEAD && tfm->alg->u.aead.decrypt_many;
}

int ualg_aead_encrypt_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_aead_req *reqs, int *res)
{
	if (tfm->need_key)
		return -ENOKEY;
	if (!ualg_aead_has_encrypt_many(tfm))
		return -EINVAL;
	int r = tfm->alg->u.aead.encrypt_many(tfm, n, reqs, res);
	if (!r && counting)
		account_many(tfm->alg, n, aead_bytes(n, reqs), res);
	return r;
}

int ualg_aead_decrypt_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_aead_req *reqs, int *res)
{
	if (tfm->need_key)
		return -ENOKEY;
	if (!ualg_aead_has_decrypt_many(tfm))
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (reqs[i].cryptlen < tfm->authsize)
			return -EINVAL;
	int r = tfm->alg->u.aead.decrypt_many(tfm, n, reqs, res);
	if (!r && counting)
		account_many(tfm->alg, n, aead_bytes(n, reqs), res);
	return r;
}

int ualg_aead_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	if (tfm->need_key)
		return -ENOKEY;
	if (req->cryptlen < tfm->authsize)
		return -EINVAL;
	return account(tfm->alg, true, req->assoclen + req->cryptlen, tfm->alg->u.aead.decrypt(tfm, req));
}

int ualg_rng_seed(struct ualg_tfm *tfm, const uint8_t *seed, size_t len)
{
	return tfm->alg->u.rng.seed(tfm, seed, len);
}

int ualg_rng_generate(struct ualg_tfm *tfm, uint8_t *out, size_t len)
{
	return account(tfm->alg, true, len, tfm->alg->u.rng.generate(tfm, out, len));
}


int ualg_memneq(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) != 0;
}

/* ---- akcipher, kpp, compression ------------------------------------- */

/* A public key is no secret, but it replaces the key as the private one
 * does: a failure leaves the transform without one. */
int ualg_akcipher_set_pub_key(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct ualg_akcipher_ops *ops = &tfm->alg->u.akcipher;

	if (!ops->set_pub_key)
		return -ENOSYS;
	ualg_secure_begin();	/* the driver drops the private key it may hold */
	int r = ops->set_pub_key(tfm, key, len);
	int full = ualg_secure_end();
	if (full)
		r = full;
	tfm->need_key = r != 0;
	return r;
}

unsigned ualg_akcipher_max_size(const struct ualg_tfm *tfm)
{
	return tfm->need_key ? 0 : tfm->alg->u.akcipher.max_size(tfm);
}

int ualg_akcipher_run(struct ualg_tfm *tfm, enum ualg_akcipher_op op, const uint8_t *src,
		      size_t slen, uint8_t *dst, size_t *dlen)
{
	if (tfm->need_key)
		return -EINVAL;	/* the kernel's rsa_enc() without n */
	ualg_secure_begin();
	int r = tfm->alg->u.akcipher.run(tfm, op, src, slen, dst, dlen);
	int full = ualg_secure_end();
	return account(tfm->alg, true, slen, full ? full : r);
}

unsigned ualg_kpp_max_size(const struct ualg_tfm *tfm)
{
	return tfm->need_key ? 0 : tfm->alg->u.kpp.max_size(tfm);
}

int ualg_kpp_gen_pubkey(struct ualg_tfm *tfm, uint8_t *dst, size_t *dlen)
{
	if (tfm->need_key)
		return -EINVAL;
	ualg_secure_begin();
	int r = tfm->alg->u.kpp.gen_pubkey(tfm, dst, dlen);
	int full = ualg_secure_end();
	return account(tfm->alg, true, 0, full ? full : r);
}

int ualg_kpp_compute_ss(struct ualg_tfm *tfm, const uint8_t *peer, size_t plen, uint8_t *dst,
			size_t *dlen)
{
	if (tfm->need_key)
		return -EINVAL;
	ualg_secure_begin();
	int r = tfm->alg->u.kpp.compute_ss(tfm, peer, plen, dst, dlen);
	int full = ualg_secure_end();
	return account(tfm->alg, true, plen, full ? full : r);
}

int ualg_comp_run(struct ualg_tfm *tfm, bool compress, const uint8_t *src, size_t slen,
		  uint8_t *dst, size_t *dlen)
{
	static const uint8_t empty[1];
	const struct ualg_comp_ops *ops = &tfm->alg->u.comp;

	/* No input: no stream to decode; the libraries may read one byte. */
	if (!slen) {
		if (!compress)
			return account(tfm->alg, true, 0, -EBADMSG);
		src = empty;
	}
	int r = compress ? ops->compress(tfm, src, slen, dst, dlen)
			 : ops->decompress(tfm, src, slen, dst, dlen);
	return account(tfm->alg, true, slen, r);
}
