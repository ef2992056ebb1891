/* The /dev/crypto session layer (see cryptodev.h), answering as the
 * cryptodev-linux module does: its ioctl.c, main.c and authenc.c decide
 * each errno and the order of the checks.  The module's zero-copy path
 * pins the caller's pages; here the data goes through a bounce buffer
 * (what the module does with COP_FLAG_NO_ZC), CHUNK bytes at a time where
 * the operation allows it.  Asynchronous requests run when submitted and
 * wait in the file's queue for CIOCASYNCFETCH, as if the module's worker
 * had run at once. */
#include "cryptodev.h"
#include "crypto.h"
#include "ualg_cryptodev.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define CHUNK (64u * 1024)
#define QUEUE_MAX 64		/* MAX_COP_RINGSIZE */
#define AUTH_MAX 4096		/* PAGE_SIZE: the module's limit on auth_len */
#define SRTP_DIFF_MAX 256	/* MAX_SRTP_AUTH_DATA_DIFF */

struct session {
	uint32_t sid;
	struct ualg_tfm *cipher;	/* skcipher, or aead when aead */
	bool aead, stream;
	unsigned blocksize, ivsize;
	uint8_t iv[UALG_MAX_IVSIZE];
	struct ualg_tfm *hash;
	struct ualg_hash_desc desc;
	bool desc_live;			/* an open hash state */
	struct session *next;
};

/* A request in flight: the crypt_op and what its completion copies out. */
struct kop {
	struct crypt_op cop;
	unsigned ivlen, digestsize;
	uint8_t iv[UALG_MAX_IVSIZE];
	uint8_t digest[UALG_MAX_DIGESTSIZE];
};

struct done {
	struct kop k;
	int result;
	struct done *next;
};

struct cdev_file {
	unsigned refs;
	struct session *sessions;
	struct done *head, *tail;
	unsigned queued;
};

/* One lock for every file: the core's registry has one owner at a time. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int init_result = 1;

static uint64_t uptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

int cdev_init(void)
{
	pthread_mutex_lock(&lock);
	if (init_result > 0)
		init_result = ualg_core_init();
	int r = init_result;
	pthread_mutex_unlock(&lock);
	return r;
}

struct cdev_file *cdev_open(void)
{
	struct cdev_file *f = calloc(1, sizeof(*f));

	if (f)
		f->refs = 1;
	return f;
}

void cdev_get(struct cdev_file *f)
{
	pthread_mutex_lock(&lock);
	f->refs++;
	pthread_mutex_unlock(&lock);
}

static void session_free(struct session *s)
{
	ualg_hash_exit(&s->desc);
	if (s->hash)
		ualg_tfm_free(s->hash);
	if (s->cipher)
		ualg_tfm_free(s->cipher);
	ualg_wipe(s, sizeof(*s));
	free(s);
}

void cdev_put(struct cdev_file *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&lock);
	if (--f->refs == 0) {
		while (f->sessions) {
			struct session *s = f->sessions;
			f->sessions = s->next;
			session_free(s);
		}
		while (f->head) {
			struct done *d = f->head;
			f->head = d->next;
			ualg_wipe(d, sizeof(*d));
			free(d);
		}
		free(f);
	}
	pthread_mutex_unlock(&lock);
}

static struct session *find(struct cdev_file *f, uint32_t sid)
{
	for (struct session *s = f->sessions; s; s = s->next)
		if (s->sid == sid)
			return s;
	return NULL;
}

/* ---- sessions ------------------------------------------------------- */

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

static int create_session(struct cdev_file *f, struct session2_op *sop, bool named,
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
	} while (find(f, s->sid));
	s->next = f->sessions;
	f->sessions = s;
	sop->ses = s->sid;
	return 0;
fail:
	ualg_wipe(key, sizeof(key));
	session_free(s);
	return r;
}

static int finish_session(struct cdev_file *f, uint32_t sid)
{
	for (struct session **p = &f->sessions; *p; p = &(*p)->next) {
		if ((*p)->sid == sid) {
			struct session *s = *p;
			*p = s->next;
			session_free(s);
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

static int session_info(struct cdev_file *f, struct session_info_op *si)
{
	struct session *s = find(f, si->ses);

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

static int copy_hash_state(struct cdev_file *f, uint32_t dst_sid, uint32_t src_sid)
{
	if (dst_sid == src_sid)
		return -EDEADLK;
	struct session *d = find(f, dst_sid), *s = find(f, src_sid);
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

/* ---- CIOCCRYPT ------------------------------------------------------ */

static int hash_reset(struct session *s)
{
	int r = ualg_hash_init(&s->desc, s->hash);

	s->desc_live = r == 0;
	return r;
}

static int hash_update(struct session *s, const uint8_t *p, size_t n)
{
	if (!s->desc_live) {
		int r = hash_reset(s);
		if (r < 0)
			return r;
	}
	return ualg_hash_update(&s->desc, p, n);
}

static int hash_final(struct session *s, uint8_t *out)
{
	if (!s->desc_live) {
		int r = hash_reset(s);
		if (r < 0)
			return r;
	}
	int r = ualg_hash_final(&s->desc, out);
	s->desc_live = false;
	return r;
}

/* fill_kcop_from_cop(): the session and the IV. */
static int kop_fill(struct cdev_file *f, struct kop *k, const struct cdev_mem *m)
{
	struct session *s = find(f, k->cop.ses);

	if (!s)
		return -EINVAL;
	k->ivlen = k->cop.iv ? s->ivsize : 0;
	k->digestsize = 0;
	return k->ivlen ? m->read(m->ctx, uptr(k->cop.iv), k->iv, k->ivlen) : 0;
}

static int kop_to_user(const struct kop *k, uint64_t arg, const struct cdev_mem *m)
{
	int r = 0;

	if (k->digestsize)
		r = m->write(m->ctx, uptr(k->cop.mac), k->digest, k->digestsize);
	if (!r && k->ivlen && (k->cop.flags & COP_FLAG_WRITE_IV))
		r = m->write(m->ctx, uptr(k->cop.iv), k->iv, k->ivlen);
	if (!r)
		r = m->write(m->ctx, arg, &k->cop, sizeof(k->cop));
	return r;
}

/* crypto_run() */
static int run(struct cdev_file *f, struct kop *k, const struct cdev_mem *m)
{
	struct crypt_op *cop = &k->cop;

	if (cop->op != COP_ENCRYPT && cop->op != COP_DECRYPT)
		return -EINVAL;
	struct session *s = find(f, cop->ses);
	if (!s)
		return -EINVAL;
	if (s->aead)
		return -EINVAL;	/* AEAD sessions work through CIOCAUTHCRYPT */
	int r;
	if (s->hash && (cop->flags == 0 || (cop->flags & COP_FLAG_RESET)) && (r = hash_reset(s)) < 0)
		return r;
	if (s->cipher) {
		if (cop->len % s->blocksize)
			return -EINVAL;
		if (k->ivlen)
			memcpy(s->iv, k->iv, k->ivlen < s->ivsize ? k->ivlen : s->ivsize);
	}
	if (cop->len) {
		size_t bufsize = cop->len < CHUNK ? cop->len : CHUNK;
		uint8_t *buf = malloc(bufsize);
		if (!buf)
			return -ENOMEM;
		bool enc = cop->op == COP_ENCRYPT;
		r = 0;
		for (size_t done = 0; done < cop->len && !r; done += bufsize) {
			size_t n = cop->len - done < bufsize ? cop->len - done : bufsize;
			if ((r = m->read(m->ctx, uptr(cop->src) + done, buf, n)))
				break;
			if (s->hash && enc && (r = hash_update(s, buf, n)) < 0)
				break;
			if (s->cipher && (r = ualg_skcipher_crypt(s->cipher, enc, s->iv, buf, buf, n)) < 0)
				break;
			if (s->hash && !enc && (r = hash_update(s, buf, n)) < 0)
				break;
			if (s->cipher)
				r = m->write(m->ctx, uptr(cop->dst) + done, buf, n);
		}
		ualg_wipe(buf, bufsize);
		free(buf);
		if (r)
			return r;
	}
	if (s->cipher && k->ivlen)
		memcpy(k->iv, s->iv, k->ivlen < s->ivsize ? k->ivlen : s->ivsize);
	if (s->hash && ((cop->flags & COP_FLAG_FINAL) || !(cop->flags & COP_FLAG_UPDATE) || !cop->len)) {
		if ((r = hash_final(s, k->digest)) < 0)
			return r;
		k->digestsize = ualg_hash_digestsize(s->hash);
	}
	return 0;
}

static int crypt_ioctl(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m)
{
	struct kop k;
	int r = m->read(m->ctx, arg, &k.cop, sizeof(k.cop));

	if (!r)
		r = kop_fill(f, &k, m);
	if (!r)
		r = run(f, &k, m);
	if (!r)
		r = kop_to_user(&k, arg, m);
	ualg_wipe(&k, sizeof(k));
	return r;
}

/* ---- asynchronous requests ------------------------------------------ */

static void ev_add(int evfd)
{
	uint64_t one = 1;

	if (evfd >= 0 && write(evfd, &one, sizeof(one)) < 0) {
		/* the counter cannot overflow at QUEUE_MAX */
	}
}

/* One off the counter, never waiting: the program may have read the
 * eventfd itself (a blocking one would then wait forever). */
static void ev_take(int evfd)
{
	struct pollfd p = { .fd = evfd, .events = POLLIN };
	uint64_t v;

	if (evfd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLIN) && read(evfd, &v, sizeof(v)) < 0) {
		/* another reader took it first */
	}
}

static int async_crypt(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m, int evfd)
{
	struct done *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	int r = m->read(m->ctx, arg, &d->k.cop, sizeof(d->k.cop));
	if (!r)
		r = kop_fill(f, &d->k, m);
	if (!r && (d->k.cop.flags & COP_FLAG_NO_ZC))
		r = -EINVAL;
	if (!r && f->queued >= QUEUE_MAX)
		r = -EBUSY;
	if (r) {
		free(d);
		return r;
	}
	d->result = run(f, &d->k, m);
	if (f->tail)
		f->tail->next = d;
	else
		f->head = d;
	f->tail = d;
	f->queued++;
	ev_add(evfd);
	return 0;
}

static int async_fetch(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m, int evfd)
{
	struct done *d = f->head;

	if (!d)
		return -EBUSY;
	f->head = d->next;
	if (!f->head)
		f->tail = NULL;
	f->queued--;
	ev_take(evfd);
	int r = d->result ? d->result : kop_to_user(&d->k, arg, m);
	ualg_wipe(d, sizeof(*d));
	free(d);
	return r;
}

/* ---- CIOCAUTHCRYPT -------------------------------------------------- */

/* The associated data into auth; *n its length (none without auth_src). */
static int read_auth(const struct crypt_auth_op *c, uint8_t *auth, size_t *n, const struct cdev_mem *m)
{
	*n = c->auth_src ? c->auth_len : 0;
	return *n ? m->read(m->ctx, uptr(c->auth_src), auth, *n) : 0;
}

/* Plain AEAD (gcm): dst is the ciphertext and its tag. */
static int auth_aead(struct session *s, struct crypt_auth_op *c, uint8_t *iv, const struct cdev_mem *m)
{
	if (!s->stream && !s->aead)
		return -EINVAL;
	if (c->auth_len > AUTH_MAX)
		return -EINVAL;
	if (!s->aead)
		return -EINVAL;	/* a stream skcipher has no tag to give */
	unsigned max = s->cipher->alg->u.aead.maxauthsize;
	if (c->tag_len > max)
		return -EINVAL;
	if (c->tag_len && ualg_aead_setauthsize(s->cipher, c->tag_len) < 0)
		return -EINVAL;
	if (!c->tag_len)
		c->tag_len = max;
	bool enc = c->op == COP_ENCRYPT;
	if (!enc && c->len < c->tag_len)
		return -EINVAL;
	size_t textlen = (size_t)c->len + (enc ? c->tag_len : 0);
	uint8_t auth[AUTH_MAX];
	uint8_t *text = malloc(textlen ? textlen : 1);
	if (!text)
		return -ENOMEM;
	size_t alen;
	int r = read_auth(c, auth, &alen, m);
	if (!r && c->len)
		r = m->read(m->ctx, uptr(c->src), text, c->len);
	if (!r) {
		struct ualg_aead_req req = { .aad = auth, .assoclen = alen, .text = text,
					     .cryptlen = c->len, .iv = iv };
		r = enc ? ualg_aead_encrypt(s->cipher, &req) : ualg_aead_decrypt(s->cipher, &req);
	}
	size_t out = enc ? textlen : c->len - c->tag_len;
	if (!r && out)
		r = m->write(m->ctx, uptr(c->dst), text, out);
	if (!r) {
		c->tag = c->dst + out;
		c->len = (uint32_t)out;
	}
	ualg_wipe(text, textlen);
	free(text);
	return r;
}

/* TLS 1.0-1.2 MAC-then-encrypt with the record's padding, in place. */
static int auth_tls(struct session *s, struct crypt_auth_op *c, const struct cdev_mem *m)
{
	if (s->aead || c->auth_len > AUTH_MAX)
		return -EINVAL;
	bool enc = c->op == COP_ENCRYPT;
	size_t bs = s->blocksize, dst_len = c->len;
	if (enc) {
		dst_len += c->tag_len;
		dst_len += bs - dst_len % bs;
	}
	if (!c->dst || !dst_len)
		return -EINVAL;
	uint8_t auth[AUTH_MAX], mac[UALG_MAX_DIGESTSIZE], want[UALG_MAX_DIGESTSIZE];
	uint8_t *buf = malloc(dst_len);
	if (!buf)
		return -ENOMEM;
	size_t len = c->len, alen;
	int r = read_auth(c, auth, &alen, m);
	if (!r)
		r = m->read(m->ctx, uptr(c->dst), buf, len);
	if (r)
		goto out;
	if (enc) {
		if (s->hash) {
			if ((alen && (r = hash_update(s, auth, alen)) < 0) ||
			    (len && (r = hash_update(s, buf, len)) < 0) || (r = hash_final(s, mac)) < 0)
				goto out;
			memcpy(buf + len, mac, c->tag_len);
			len += c->tag_len;
		}
		if (bs > 1) {
			size_t pad = bs - len % bs;
			memset(buf + len, (int)(pad - 1), pad);
			len += pad;
		}
		if ((r = ualg_skcipher_crypt(s->cipher, true, s->iv, buf, buf, len)) < 0)
			goto out;
		r = m->write(m->ctx, uptr(c->dst), buf, len);
	} else {
		bool fail = false;
		if ((r = ualg_skcipher_crypt(s->cipher, false, s->iv, buf, buf, len)) < 0)
			goto out;
		if ((r = m->write(m->ctx, uptr(c->dst), buf, len)))
			goto out;
		if (bs > 1) {
			unsigned pad = len ? buf[len - 1] : 0;
			bool bad = !len || pad + 1 > len;
			for (unsigned i = 0; !bad && i < pad; i++)
				bad = buf[len - pad - 1 + i] != pad;
			if (bad)
				fail = true;
			else
				len -= pad + 1;
		}
		if (s->hash) {
			if (c->tag_len > UALG_MAX_DIGESTSIZE || c->tag_len > len) {
				r = -EINVAL;
				goto out;
			}
			memcpy(want, buf + len - c->tag_len, c->tag_len);
			len -= c->tag_len;
			if ((alen && (r = hash_update(s, auth, alen)) < 0) ||
			    (len && (r = hash_update(s, buf, len)) < 0) || (r = hash_final(s, mac)) < 0)
				goto out;
			if (ualg_memneq(want, mac, c->tag_len) || fail) {
				r = -EBADMSG;
				goto out;
			}
		}
	}
	c->len = (uint32_t)len;
out:
	ualg_wipe(buf, dst_len);
	free(buf);
	return r;
}

/* SRTP: the MAC covers auth_src (which holds the payload at src). */
static int auth_srtp(struct session *s, struct crypt_auth_op *c, const struct cdev_mem *m)
{
	if (!s->stream || s->aead)
		return -EINVAL;
	if (!c->dst && !c->auth_src)
		return -EINVAL;
	if (!c->len || !c->auth_len)
		return -EINVAL;
	int64_t diff = (int64_t)(uptr(c->src) - uptr(c->auth_src));
	if (diff > SRTP_DIFF_MAX || diff < 0 || (uint64_t)diff + c->len > c->auth_len)
		return -EINVAL;
	uint8_t mac[UALG_MAX_DIGESTSIZE], want[UALG_MAX_DIGESTSIZE];
	uint8_t *buf = malloc(c->auth_len);
	if (!buf)
		return -ENOMEM;
	int r = m->read(m->ctx, uptr(c->auth_src), buf, c->auth_len);
	if (r)
		goto out;
	if (c->op == COP_ENCRYPT) {
		if ((r = ualg_skcipher_crypt(s->cipher, true, s->iv, buf + diff, buf + diff, c->len)) < 0)
			goto out;
		if (s->hash) {
			if ((r = hash_update(s, buf, c->auth_len)) < 0 || (r = hash_final(s, mac)) < 0)
				goto out;
			if ((r = m->write(m->ctx, uptr(c->tag), mac, c->tag_len)))
				goto out;
		}
	} else {
		if (s->hash) {
			if (c->tag_len > UALG_MAX_DIGESTSIZE || c->tag_len > c->len) {
				r = -EINVAL;
				goto out;
			}
			if ((r = m->read(m->ctx, uptr(c->tag), want, c->tag_len)))
				goto out;
			if ((r = hash_update(s, buf, c->auth_len)) < 0 || (r = hash_final(s, mac)) < 0)
				goto out;
			if (ualg_memneq(want, mac, c->tag_len)) {
				r = -EBADMSG;
				goto out;
			}
		}
		if ((r = ualg_skcipher_crypt(s->cipher, false, s->iv, buf + diff, buf + diff, c->len)) < 0)
			goto out;
	}
	r = m->write(m->ctx, uptr(c->auth_src) + (uint64_t)diff, buf + diff, c->len);
out:
	ualg_wipe(buf, c->auth_len);
	free(buf);
	return r;
}

static int authcrypt_ioctl(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m)
{
	struct crypt_auth_op c;
	uint8_t iv[UALG_MAX_IVSIZE];
	int r = m->read(m->ctx, arg, &c, sizeof(c));

	if (r)
		return r;
	/* fill_kcaop_from_caop() */
	struct session *s = find(f, c.ses);
	if (!s)
		return -EINVAL;
	bool typed = c.flags & (COP_FLAG_AEAD_TLS_TYPE | COP_FLAG_AEAD_SRTP_TYPE);
	if (typed && c.src != c.dst)
		return -EINVAL;
	if (!c.tag_len)
		c.tag_len = s->hash ? ualg_hash_digestsize(s->hash)
			  : s->aead ? s->cipher->alg->u.aead.maxauthsize : 0;
	unsigned ivlen = c.iv && s->cipher ? s->ivsize : 0;
	if (ivlen && (r = m->read(m->ctx, uptr(c.iv), iv, ivlen)))
		return r;
	/* crypto_auth_run() */
	if (c.op != COP_ENCRYPT && c.op != COP_DECRYPT)
		return -EINVAL;
	if (!s->cipher)
		return -EINVAL;
	if (s->hash && (r = hash_reset(s)) < 0)
		return r;
	if (ivlen)
		memcpy(s->iv, iv, ivlen);
	if (c.flags & COP_FLAG_AEAD_SRTP_TYPE)
		r = auth_srtp(s, &c, m);
	else if (c.flags & COP_FLAG_AEAD_TLS_TYPE)
		r = auth_tls(s, &c, m);
	else
		r = auth_aead(s, &c, s->iv, m);
	if (r)
		return r;
	if (ivlen && (c.flags & COP_FLAG_WRITE_IV) && (r = m->write(m->ctx, uptr(c.iv), s->iv, ivlen)))
		return r;
	return m->write(m->ctx, arg, &c, sizeof(c));
}

/* ---- the ioctl switch ----------------------------------------------- */

static long dispatch(struct cdev_file *f, unsigned long cmd, uint64_t arg, const struct cdev_mem *m,
		     int evfd)
{
	int r;

	switch (cmd) {
	case CIOCASYMFEAT: {
		uint32_t zero = 0;
		return m->write(m->ctx, arg, &zero, sizeof(zero));
	}
	case CIOCGSESSION: case CIOCGSESSION2: {
		struct session2_op sop;
		bool named = cmd == CIOCGSESSION2;
		size_t size = named ? sizeof(struct session2_op) : sizeof(struct session_op);
		memset(&sop, 0, sizeof(sop));
		if ((r = m->read(m->ctx, arg, &sop, size)))
			return r;
		if ((r = create_session(f, &sop, named, m)))
			return r;
		if ((r = m->write(m->ctx, arg, &sop, size))) {
			finish_session(f, sop.ses);
			return -EFAULT;
		}
		return 0;
	}
	case CIOCFSESSION: {
		uint32_t ses;
		if ((r = m->read(m->ctx, arg, &ses, sizeof(ses))))
			return r;
		return finish_session(f, ses);
	}
	case CIOCGSESSINFO: {
		struct session_info_op si;
		if ((r = m->read(m->ctx, arg, &si, sizeof(si))))
			return r;
		if ((r = session_info(f, &si)))
			return r;
		return m->write(m->ctx, arg, &si, sizeof(si));
	}
	case CIOCCPHASH: {
		struct cphash_op cp;
		if ((r = m->read(m->ctx, arg, &cp, sizeof(cp))))
			return r;
		return copy_hash_state(f, cp.dst_ses, cp.src_ses);
	}
	case CIOCCRYPT:
		return crypt_ioctl(f, arg, m);
	case CIOCAUTHCRYPT:
		return authcrypt_ioctl(f, arg, m);
	case CIOCASYNCCRYPT:
		return async_crypt(f, arg, m, evfd);
	case CIOCASYNCFETCH:
		return async_fetch(f, arg, m, evfd);
	case CRIOGET:
		return -ENOTTY;
	default:
		return -EINVAL;
	}
}

long cdev_ioctl(struct cdev_file *f, unsigned long cmd, uint64_t arg, const struct cdev_mem *m, int evfd)
{
	pthread_mutex_lock(&lock);
	long r = dispatch(f, cmd, arg, m, evfd);
	pthread_mutex_unlock(&lock);
	return r;
}
