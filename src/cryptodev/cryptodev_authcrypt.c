/* /dev/crypto's CIOCAUTHCRYPT: a plain AEAD (gcm), TLS 1.0-1.2's
 * MAC-then-encrypt with the record's padding, or SRTP's encrypt-then-MAC,
 * as the module's authenc.c. */
#include "cryptodev_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define AUTH_MAX 4096		/* PAGE_SIZE: the module's limit on auth_len */
#define SRTP_DIFF_MAX 256	/* MAX_SRTP_AUTH_DATA_DIFF */

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
			if ((alen && (r = cdev_hash_update(s, auth, alen)) < 0) ||
			    (len && (r = cdev_hash_update(s, buf, len)) < 0) || (r = cdev_hash_final(s, mac)) < 0)
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
			if ((alen && (r = cdev_hash_update(s, auth, alen)) < 0) ||
			    (len && (r = cdev_hash_update(s, buf, len)) < 0) || (r = cdev_hash_final(s, mac)) < 0)
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
			if ((r = cdev_hash_update(s, buf, c->auth_len)) < 0 || (r = cdev_hash_final(s, mac)) < 0)
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
			if ((r = cdev_hash_update(s, buf, c->auth_len)) < 0 || (r = cdev_hash_final(s, mac)) < 0)
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

int cdev_authcrypt_ioctl(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m)
{
	struct crypt_auth_op c;
	uint8_t iv[UALG_MAX_IVSIZE];
	int r = m->read(m->ctx, arg, &c, sizeof(c));

	if (r)
		return r;
	/* fill_kcaop_from_caop() */
	struct session *s = cdev_find_session(f, c.ses);
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
	if (s->hash && (r = cdev_hash_reset(s)) < 0)
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
