/* /dev/crypto sessions: CIOCGSESSION(2) makes one from the module's
 * algorithm numbers or (CIOCGSESSION2) the kernel's names, CIOCFSESSION
 * frees it, CIOCGSESSINFO names its drivers and CIOCCPHASH copies its
 * hash state; and a session's hash state as the operations use it. */
#include "cryptodev_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

void cdev_session_free(struct session *s)
{
	ualg_hash_exit(&s->desc);
	if (s->hash)
		ualg_tfm_free(s->hash);
	if (s->cipher)
		ualg_tfm_free(s->cipher);
	ualg_wipe(s, sizeof(*s));
	free(s);
}

struct session *cdev_find_session(struct cdev_file *f, uint32_t sid)
{
	for (struct session *s = f->sessions; s; s = s->next)
		if (s->sid == sid)
			return s;
	return NULL;
}

static const char *cipher_name(uint32_t id, bool *stream, bool *aead)
{
	*stream = *aead = false;
	switch (id) {
	case CRYPTO_DES_CBC: return "cbc(des)";
	case CRYPTO_3DES_CBC: return "cbc(des3_ede)";
	case CRYPTO_BLF_CBC: return "cbc(blowfish)";
	case CRYPTO_AES_CBC: return "cbc(aes)";
	case CRYPTO_AES_ECB: return "ecb(aes)";
	case CRYPTO_AES_XTS: return "xts(aes)";
	case CRYPTO_CAMELLIA_CBC: return "cbc(camellia)";
	case CRYPTO_AES_CTR: *stream = true; return "ctr(aes)";
	case CRYPTO_AES_GCM: *stream = *aead = true; return "gcm(aes)";
	case CRYPTO_NULL: *stream = true; return "ecb(cipher_null)";
	default: return NULL;
	}
}

static const char *mac_name(uint32_t id, bool *hmac)
{
	*hmac = true;
	switch (id) {
	case CRYPTO_MD5_HMAC: return "hmac(md5)";
	case CRYPTO_RIPEMD160_HMAC: return "hmac(rmd160)";
	case CRYPTO_SHA1_HMAC: return "hmac(sha1)";
	case CRYPTO_SHA2_224_HMAC: return "hmac(sha224)";
	case CRYPTO_SHA2_256_HMAC: return "hmac(sha256)";
	case CRYPTO_SHA2_384_HMAC: return "hmac(sha384)";
	case CRYPTO_SHA2_512_HMAC: return "hmac(sha512)";
	default: break;
	}
	*hmac = false;
	switch (id) {
	case CRYPTO_MD5: return "md5";
	case CRYPTO_RIPEMD160: return "rmd160";
	case CRYPTO_SHA1: return "sha1";
	case CRYPTO_SHA2_224: return "sha224";
	case CRYPTO_SHA2_256: return "sha256";
	case CRYPTO_SHA2_384: return "sha384";
	case CRYPTO_SHA2_512: return "sha512";
	default: return NULL;
	}
}

/* A transform of name and type, keyed: 0, or the module's -EINVAL for any
 * failure (by_name: -ENOENT for an unknown name, as AF_ALG's bind). */
static int make_tfm(enum ualg_alg_type type, const char *name, const uint8_t *key, size_t keylen,
		    bool setkey, bool by_name, struct ualg_tfm **out)
{
	int err = 0;
	struct ualg_alg *alg = ualg_alg_lookup(type, name, &err);

	if (!alg)
		return by_name && err == ENOENT ? -ENOENT : -EINVAL;
	struct ualg_tfm *t = ualg_tfm_new(alg, &err);
	ualg_alg_put(alg);
	if (!t)
		return err == ENOMEM ? -ENOMEM : -EINVAL;
	if (setkey && ualg_tfm_setkey(t, key, keylen) < 0) {
		ualg_tfm_free(t);
		return -EINVAL;
	}
	*out = t;
	return 0;
}

int cdev_create_session(struct cdev_file *f, struct session2_op *sop, bool named,
			const struct cdev_mem *m)
{
	bool stream = false, aead = false, hmac = false;
	const char *cname = NULL, *hname = NULL;
	bool cipher_by_name = named && sop->alg_name[0];
	bool mac_by_name = named && sop->mac_name[0];

	if (named && (!memchr(sop->alg_name, 0, sizeof(sop->alg_name)) ||
		      !memchr(sop->mac_name, 0, sizeof(sop->mac_name))))
		return -ENAMETOOLONG;
	if (!sop->cipher && !sop->mac && !cipher_by_name && !mac_by_name)
		return -EINVAL;
	if (cipher_by_name)
		cname = sop->alg_name;
	else if (sop->cipher && !(cname = cipher_name(sop->cipher, &stream, &aead)))
		return -EINVAL;
	if (mac_by_name) {
		hname = sop->mac_name;
		hmac = sop->mackeylen != 0;
	} else if (sop->mac && !(hname = mac_name(sop->mac, &hmac))) {
		return -EINVAL;
	}

	struct session *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	uint8_t key[CRYPTO_HMAC_MAX_KEY_LEN] = { 0 };	/* a NULL mackey: zeros */
	int r = 0;
	if (cname) {
		if (sop->keylen > CRYPTO_CIPHER_MAX_KEY_LEN) {
			r = -EINVAL;
			goto fail;
		}
		if ((r = m->read(m->ctx, uptr(sop->key), key, sop->keylen)))
			goto fail;
		if (cipher_by_name) {
			r = make_tfm(UALG_ALG_SKCIPHER, cname, key, sop->keylen, true, true, &s->cipher);
			if (r == -ENOENT) {
				r = make_tfm(UALG_ALG_AEAD, cname, key, sop->keylen, true, true, &s->cipher);
				aead = r == 0;
			}
		} else {
			r = make_tfm(aead ? UALG_ALG_AEAD : UALG_ALG_SKCIPHER, cname, key, sop->keylen, true,
				     false, &s->cipher);
		}
		if (r)
			goto fail;
		s->aead = aead;
		s->blocksize = s->cipher->alg->blocksize ? s->cipher->alg->blocksize : 1;
		s->stream = cipher_by_name ? s->blocksize == 1 : stream;
		s->ivsize = aead ? s->cipher->alg->u.aead.ivsize : s->cipher->alg->u.skcipher.ivsize;
	}
	if (hname && !s->aead) {
		if (sop->mackeylen > CRYPTO_HMAC_MAX_KEY_LEN) {
			r = -EINVAL;
			goto fail;
		}
		if (sop->mackey && (r = m->read(m->ctx, uptr(sop->mackey), key, sop->mackeylen)))
			goto fail;
		if ((r = make_tfm(UALG_ALG_SHASH, hname, key, sop->mackeylen, hmac, mac_by_name, &s->hash)))
			goto fail;
		if (ualg_hash_init(&s->desc, s->hash) < 0) {
			r = -EINVAL;
			goto fail;
		}
		s->desc_live = true;
	}
	ualg_wipe(key, sizeof(key));
	do {
		if (getrandom(&s->sid, sizeof(s->sid), 0) != sizeof(s->sid))
			s->sid = (uint32_t)rand();
	} while (cdev_find_session(f, s->sid));
	s->next = f->sessions;
	f->sessions = s;
	sop->ses = s->sid;
	return 0;
fail:
	ualg_wipe(key, sizeof(key));
	cdev_session_free(s);
	return r;
}

int cdev_finish_session(struct cdev_file *f, uint32_t sid)
{
	for (struct session **p = &f->sessions; *p; p = &(*p)->next) {
		if ((*p)->sid == sid) {
			struct session *s = *p;
			*p = s->next;
			cdev_session_free(s);
			return 0;
		}
	}
	/* The module's crypto_finish_session() never finds its list's end
	 * NULL, so an unknown session is freed "successfully". */
	return 0;
}

static void alg_info(struct alg_info *out, const struct ualg_tfm *t)
{
	/* snprintf's "%.*s": the module's truncation at 63 characters */
	snprintf(out->cra_name, sizeof(out->cra_name), "%.*s", (int)sizeof(out->cra_name) - 1,
		 t->alg->name);
	snprintf(out->cra_driver_name, sizeof(out->cra_driver_name), "%.*s",
		 (int)sizeof(out->cra_driver_name) - 1, t->alg->driver);
}

int cdev_session_info(struct cdev_file *f, struct session_info_op *si)
{
	struct session *s = cdev_find_session(f, si->ses);

	if (!s)
		return -EINVAL;
	si->flags = 0;	/* software drivers: never SIOP_FLAG_KERNEL_DRIVER_ONLY */
	if (s->cipher)
		alg_info(&si->cipher_info, s->cipher);
	if (s->hash)
		alg_info(&si->hash_info, s->hash);
	si->alignmask = 0;
	return 0;
}

int cdev_copy_hash_state(struct cdev_file *f, uint32_t dst_sid, uint32_t src_sid)
{
	if (dst_sid == src_sid)
		return -EDEADLK;
	struct session *d = cdev_find_session(f, dst_sid), *s = cdev_find_session(f, src_sid);
	if (!d || !s)
		return -ENOENT;
	if (!d->hash || !s->hash || d->hash->alg != s->hash->alg)
		return -EINVAL;
	if (!s->desc_live) {
		int r = ualg_hash_init(&s->desc, s->hash);
		if (r < 0)
			return r;
		s->desc_live = true;
	}
	/* As the module's crypto_ahash_export()/import(): the state moves,
	 * the destination keeps its own transform (and key). */
	size_t n = ualg_hash_statesize(s->hash);
	uint8_t state[1024];
	int r;
	if (n && n <= sizeof(state)) {
		if ((r = ualg_hash_export(&s->desc, state)) == 0)
			r = ualg_hash_import(&d->desc, d->hash, state, n);
		ualg_wipe(state, n);
	} else {
		/* A driver without export: a copy of the state, rebound to
		 * the destination's transform (the same algorithm). */
		if ((r = ualg_hash_clone(&d->desc, &s->desc)) == 0)
			d->desc.tfm = d->hash;
	}
	d->desc_live = r == 0;
	return r < 0 ? -EINVAL : 0;
}

/* ---- the hash state ------------------------------------------------- */

int cdev_hash_reset(struct session *s)
{
	int r = ualg_hash_init(&s->desc, s->hash);

	s->desc_live = r == 0;
	return r;
}

int cdev_hash_update(struct session *s, const uint8_t *p, size_t n)
{
	if (!s->desc_live) {
		int r = cdev_hash_reset(s);
		if (r < 0)
			return r;
	}
	return ualg_hash_update(&s->desc, p, n);
}

int cdev_hash_final(struct session *s, uint8_t *out)
{
	if (!s->desc_live) {
		int r = cdev_hash_reset(s);
		if (r < 0)
			return r;
	}
	int r = ualg_hash_final(&s->desc, out);
	s->desc_live = false;
	return r;
}
