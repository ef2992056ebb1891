/* /dev/crypto's CIOCCRYPT (a cipher, a hash or both over one buffer,
 * CHUNK bytes at a time) and its asynchronous form: CIOCASYNCCRYPT runs
 * the request at once and queues its completion, CIOCASYNCFETCH hands it
 * back, and the host's eventfd counts what waits. */
#include "cryptodev_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (64u * 1024)
#define QUEUE_MAX 64		/* MAX_COP_RINGSIZE */

/* fill_kcop_from_cop(): the session and the IV. */
static int kop_fill(struct cdev_file *f, struct kop *k, const struct cdev_mem *m)
{
	struct session *s = cdev_find_session(f, k->cop.ses);

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
	struct session *s = cdev_find_session(f, cop->ses);
	if (!s)
		return -EINVAL;
	if (s->aead)
		return -EINVAL;	/* AEAD sessions work through CIOCAUTHCRYPT */
	int r;
	if (s->hash && (cop->flags == 0 || (cop->flags & COP_FLAG_RESET)) && (r = cdev_hash_reset(s)) < 0)
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
			if (s->hash && enc && (r = cdev_hash_update(s, buf, n)) < 0)
				break;
			if (s->cipher && (r = ualg_skcipher_crypt(s->cipher, enc, s->iv, buf, buf, n)) < 0)
				break;
			if (s->hash && !enc && (r = cdev_hash_update(s, buf, n)) < 0)
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
		if ((r = cdev_hash_final(s, k->digest)) < 0)
			return r;
		k->digestsize = ualg_hash_digestsize(s->hash);
	}
	return 0;
}

int cdev_crypt_ioctl(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m)
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

int cdev_async_crypt(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m, int evfd)
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

int cdev_async_fetch(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m, int evfd)
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
