/* crypto_user's operations (crypto/crypto_user_base.c) over the registry.
 * algd answers in its own frames; the shim turns them into netlink
 * messages and algctl into text. */
#include "admin.h"
#include "config.h"
#include "crypto.h"
#include "msg.h"
#include "proto.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The kernel's CRYPTO_ALG_TYPE_* of each core type. */
static uint32_t kernel_type(enum ualg_alg_type type)
{
	switch (type) {
	case UALG_ALG_CIPHER: return 0x1;
	case UALG_ALG_SHASH: return 0xe;
	case UALG_ALG_SKCIPHER: return 0x5;
	case UALG_ALG_AEAD: return 0x3;
	case UALG_ALG_RNG: return 0xc;
	case UALG_ALG_AKCIPHER: return 0xd;
	case UALG_ALG_KPP: return 0x8;
	case UALG_ALG_COMP: return 0xb;	/* CRYPTO_ALG_TYPE_SCOMPRESS */
	}
	return 0;
}

static uint32_t kernel_flags(const struct ualg_alg *a)
{
	return kernel_type(a->type) |
	       (a->selftest == UALG_SELFTEST_PASSED ? UALG_KFLAG_TESTED : 0) |
	       (ualg_alg_is_instance(a) ? UALG_KFLAG_INSTANCE : 0) |
	       (a->fips_internal ? UALG_KFLAG_FIPS_INTERNAL : 0);
}

static void fill_rec(const struct ualg_alg *a, struct ualg_alg_rec *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", a->name);
	snprintf(r->driver, sizeof(r->driver), "%s", a->driver);
	snprintf(r->module, sizeof(r->module), "%s", a->module);
	r->kflags = kernel_flags(a);
	r->type = a->type;
	r->priority = a->priority;
	r->refcnt = a->refcnt + 1;
	r->selftest = a->selftest;
	r->disabled = a->disabled;
	r->blocksize = a->blocksize;
	r->fips = !ualg_fips_enabled() ? UALG_FIPS_OFF :
		  a->fips_internal ? UALG_FIPS_NOT_APPROVED : UALG_FIPS_APPROVED;
	switch (a->type) {
	case UALG_ALG_SHASH:
		r->digestsize = a->u.shash.digestsize;
		break;
	case UALG_ALG_CIPHER:
		r->min_keysize = a->u.cipher.min_keysize;
		r->max_keysize = a->u.cipher.max_keysize;
		break;
	case UALG_ALG_SKCIPHER:
		r->min_keysize = a->u.skcipher.min_keysize;
		r->max_keysize = a->u.skcipher.max_keysize;
		r->ivsize = a->u.skcipher.ivsize;
		r->chunksize = a->u.skcipher.chunksize;
		break;
	case UALG_ALG_AEAD:
		r->ivsize = a->u.aead.ivsize;
		r->maxauthsize = a->u.aead.maxauthsize;
		break;
	case UALG_ALG_RNG:
		r->seedsize = a->u.rng.seedsize;
		break;
	case UALG_ALG_AKCIPHER:
	case UALG_ALG_KPP:
	case UALG_ALG_COMP:
		break;	/* their reports carry the type name only */
	}
	r->ops = a->stats.ops;
	r->bytes = a->stats.bytes;
	r->errors = a->stats.errors;
}

/* crypto_alg_match(): the kernel's list holds the newest first, so the
 * last match in registration order is the one it finds. */
static struct ualg_alg *match(const struct ualg_alg_req *q, bool exact)
{
	const struct ualg_alg *found = NULL;
	char driver[UALG_MAX_ALG_NAME];

	/* A kernel driver name is the algorithm that stands in for it, as
	 * bind() finds it. */
	ualg_driver_canon(q->driver, driver);
	for (const struct ualg_alg *a = ualg_alg_next(NULL); a; a = ualg_alg_next(a)) {
		if ((kernel_flags(a) ^ q->type) & q->mask)
			continue;
		if (q->driver[0] ? !strcmp(a->driver, driver) : !exact && !strcmp(a->name, q->name))
			found = a;
	}
	return (struct ualg_alg *)found;
}

static size_t registry_size(void)
{
	size_t n = 0;

	for (const struct ualg_alg *a = ualg_alg_next(NULL); a; a = ualg_alg_next(a))
		n++;
	return n;
}

/* The pos-th algorithm of the kernel's order (newest first). */
static const struct ualg_alg *nth_newest(size_t pos)
{
	size_t n = registry_size(), i = 0;

	if (pos >= n)
		return NULL;
	const struct ualg_alg *a = ualg_alg_next(NULL);
	for (; i < n - 1 - pos; i++)
		a = ualg_alg_next(a);
	return a;
}

static int do_get(const struct ualg_alg_req *q, uint8_t *out, size_t *outlen)
{
	const struct ualg_alg *a = match(q, q->flags & UALG_ALG_REQ_EXACT);

	if (!a)
		return -ENOENT;
	fill_rec(a, (struct ualg_alg_rec *)out);
	*outlen = sizeof(struct ualg_alg_rec);
	return 0;
}

static int do_dump(const struct ualg_alg_req *q, uint8_t *out, size_t outsize, size_t *outlen)
{
	int n = 0;
	const struct ualg_alg *a;

	while ((size_t)(n + 1) * sizeof(struct ualg_alg_rec) <= outsize &&
	       (a = nth_newest(q->start + (size_t)n))) {
		struct ualg_alg_rec r;
		fill_rec(a, &r);
		memcpy(out + (size_t)n * sizeof(r), &r, sizeof(r));
		n++;
	}
	*outlen = (size_t)n * sizeof(struct ualg_alg_rec);
	return n;
}

/* crypto_update_alg(): a priority needs a driver name; with or without
 * one, the instances built on the algorithm are rebuilt on next use. */
static int do_update(const struct ualg_alg_req *q)
{
	if ((q->flags & UALG_ALG_REQ_PRIORITY) && !q->driver[0])
		return -EINVAL;
	struct ualg_alg *a = match(q, true);
	if (!a)
		return -ENOENT;
	ualg_alg_set_priority(a, (q->flags & UALG_ALG_REQ_PRIORITY) ? (int)q->priority : a->priority);
	return 0;
}

/* crypto_add_alg(): only what is not registered yet; a priority needs a
 * driver name. */
static int do_new(const struct ualg_alg_req *q)
{
	const bool exact = q->driver[0] != '\0';

	if ((q->flags & UALG_ALG_REQ_PRIORITY) && !exact)
		return -EINVAL;
	if (match(q, exact))
		return -EEXIST;
	int r = ualg_alg_instantiate(exact ? q->driver : q->name);
	if (r)
		return r;
	struct ualg_alg *a = match(q, exact);
	if (a && (q->flags & UALG_ALG_REQ_PRIORITY))
		ualg_alg_set_priority(a, (int)q->priority);
	return 0;
}

static int do_del(const struct ualg_alg_req *q)
{
	struct ualg_alg *a = match(q, true);

	return a ? ualg_alg_unregister(a) : -ENOENT;
}

static int do_disable(const struct ualg_alg_req *q)
{
	struct ualg_alg *a = match(q, true);

	if (!a)
		return -ENOENT;
	if (q->priority > 1)
		return -EINVAL;
	a->disabled = q->priority;
	ualg_alg_changed();
	return 0;
}

int admin_request(uint16_t type, const uint8_t *body, size_t len, bool privileged,
		  uint8_t *out, size_t outsize, size_t *outlen)
{
	struct ualg_alg_req q;

	*outlen = 0;
	if (ualg_decode_alg_req(body, len, &q))
		return ADMIN_BAD_FRAME;
	if (type == UALG_MSG_ALG_GET)
		return do_get(&q, out, outlen);
	if (type == UALG_MSG_ALG_DUMP)
		return do_dump(&q, out, outsize, outlen);
	if (!privileged)
		return -EPERM;
	switch (type) {
	case UALG_MSG_ALG_UPDATE: return do_update(&q);
	case UALG_MSG_ALG_NEW: return do_new(&q);
	case UALG_MSG_ALG_DEL: return do_del(&q);
	case UALG_MSG_ALG_SAVE: return config_save();
	case UALG_MSG_ALG_DISABLE: return do_disable(&q);
	case UALG_MSG_ALG_CHECK_ADMIN: return 0;
	case UALG_MSG_ALG_ENGINE:
		if (q.priority > 1)
			return -EINVAL;
		return config_engine(q.name[0] ? q.name : q.driver[0] ? q.driver : NULL, q.priority);
	}
	return ADMIN_BAD_FRAME;
}
