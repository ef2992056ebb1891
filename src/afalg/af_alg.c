/* The generic part of AF_ALG (crypto/af_alg.c): bind, setsockopt, accept,
 * the key/children bookkeeping and dispatch to the socket's type. */
#include "afalg.h"
#include "kabi.h"
#include "proto.h"
#include "ualg_afalg.h"	/* UALG_SET_KEY_BY_NAME */

#include <errno.h>
#include <linux/if_alg.h>
#include <stdlib.h>
#include <string.h>

static const struct alg_type *const types[] = {
	&afalg_type_hash, &afalg_type_skcipher, &afalg_type_aead, &afalg_type_rng,
	&afalg_type_akcipher, &afalg_type_kpp, &afalg_type_comp,
};

static const struct afalg_host no_host;
static const struct afalg_host *host = &no_host;

void afalg_set_host(const struct afalg_host *h)
{
	host = h ? h : &no_host;
}

struct alg_sock *afalg_sock_new(void)
{
	struct alg_sock *sk = calloc(1, sizeof(*sk));

	if (sk)
		sk->ref = 1;
	return sk;
}

void afalg_sock_put(struct alg_sock *sk)
{
	if (!sk || --sk->ref)
		return;
	if (sk->connected) {
		struct alg_sock *parent = sk->parent;
		sk->type->release(sk);
		ualg_wipe(sk->ctx, sk->type->ctxsize);
		free(sk->ctx);
		ualg_tfm_free(sk->own_tfm);
		if (sk->nokey)
			parent->nokey_children--;
		parent->children--;
		afalg_sock_put(parent);
	} else {
		if (sk->type && sk->type->release_tfm)
			sk->type->release_tfm(sk);
		ualg_tfm_free(sk->tfm);		/* wipes the key */
		if (sk->mode)
			sk->mode->release(sk->mode_priv);
	}
	free(sk);
}

static const struct alg_type *find_type(const char *name)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i]->name, name))
			return types[i];
	return NULL;
}

int afalg_bind(struct alg_sock *sk, const char *type_name, uint32_t feat, uint32_t mask,
	       const char *name, const struct key_caller *caller)
{
	int err = 0;

	if (sk->connected)
		return -EINVAL;
	if ((feat & ~KABI_SALG_ALLOWED_FEAT) || (mask & ~KABI_SALG_ALLOWED_FEAT))
		return -EINVAL;
	const struct alg_type *type = sk->mode ? sk->mode->find_type(type_name) : find_type(type_name);
	if (!type)
		return -ENOENT;
	/* No driver here is a hardware-only one, so the flag selects
	 * nothing: requesting it in feat (with the mask) finds nothing. */
	if (feat & mask & KABI_SALG_ALLOWED_FEAT)
		return -ENOENT;
	/* RFC hashes must export their partial states. */
	struct ualg_alg *alg = sk->mode && sk->mode->exportable_hashes && type->alg_type == UALG_ALG_SHASH
				       ? ualg_alg_lookup_exportable(type->alg_type, name, &err)
				       : ualg_alg_lookup(type->alg_type, name, &err);
	if (!alg)
		return -err;
	if (caller && host->alg_allowed && !host->alg_allowed(alg, caller)) {
		ualg_alg_put(alg);
		return -EACCES;	/* as an LSM refusing the bind */
	}
	struct ualg_tfm *tfm = ualg_tfm_new(alg, &err);
	ualg_alg_put(alg);
	if (!tfm)
		return -err;
	if (sk->children) {
		ualg_tfm_free(tfm);
		return -EBUSY;
	}
	/* The last algorithm's type state (a DH group or curve) goes. */
	if (sk->type && sk->type->release_tfm)
		sk->type->release_tfm(sk);
	ualg_tfm_free(sk->tfm);
	sk->tfm = tfm;
	sk->type = type;
	sk->key_gen++;
	sk->keyed = false;
	return sk->mode ? sk->mode->bound(sk) : 0;
}

/* What every key option answers before its value is looked at: op
 * sockets have no setsockopt, then sock_kmalloc's and copy-in's errors. */
int afalg_opt_copy_in(const struct alg_sock *sk, const struct afalg_optval *v)
{
	if (sk->connected)
		return -ENOPROTOOPT;
	if (v->too_big)
		return -ENOMEM;
	return v->fault ? -EFAULT : 0;
}

/* ualg's own option (ualg_afalg.h): as ALG_SET_KEY with a stored key's
 * bytes, the host's lookup of the name taking the place of the copy-in. */
static int setkey_by_name(struct alg_sock *sk, const struct afalg_optval *v)
{
	return host->setkey_by_name ? host->setkey_by_name(sk->tfm, v) : -ENOPROTOOPT;
}

int afalg_setsockopt(struct alg_sock *sk, int level, int optname, const struct afalg_optval *v)
{
	int err;

	const struct afalg_mode *mode = afalg_mode_of(sk);
	if (mode)
		return mode->setsockopt(sk, level, optname, v);
	if (sk->children != sk->nokey_children)
		return -EBUSY;
	if (level != KABI_SOL_ALG || !sk->type)
		return -ENOPROTOOPT;
	if (sk->type->setsockopt && (err = sk->type->setsockopt(sk, optname, v)) != AFALG_OPT_GENERIC)
		return err;
	switch (optname) {
	case ALG_SET_KEY:
	case KABI_ALG_SET_KEY_BY_KEY_SERIAL:	/* Linux 6.2's, see ualg(7) */
		/* alg_setkey(): sock_kmalloc, copy in, then the type's setkey;
		 * by serial, the key's payload as the shim read it. */
		if ((err = afalg_opt_copy_in(sk, v)))
			return err;
		if (v->keyref_err)
			return -(int)v->keyref_err;
		if (!ualg_tfm_has_setkey(sk->tfm))
			return -ENOSYS;
		sk->key_gen++;
		sk->keyed = true;
		return ualg_tfm_setkey(sk->tfm, v->data, v->len);
	case UALG_SET_KEY_BY_NAME:
		if ((err = afalg_opt_copy_in(sk, v)))
			return err;
		sk->key_gen++;
		sk->keyed = true;
		return setkey_by_name(sk, v);
	case ALG_SET_AEAD_AUTHSIZE:
		/* The size is optlen itself; the value is not read. */
		if (sk->connected || sk->type != &afalg_type_aead)
			return -ENOPROTOOPT;
		return ualg_aead_setauthsize(sk->tfm, v->optlen);
	default:
		return -ENOPROTOOPT;
	}
}

static int accept_from(struct alg_sock *parent, const struct alg_sock *from,
		       struct alg_sock **out)
{
	if (!parent->type)
		return -EINVAL;
	struct alg_sock *op = afalg_sock_new();
	if (!op || !(op->ctx = calloc(1, parent->type->ctxsize))) {
		free(op);
		return -ENOMEM;
	}
	op->connected = true;
	op->type = parent->type;
	op->parent = parent;
	op->mem = parent->mem;
	/* A clone's state belongs to its source's transform, which may be the
	 * source's own (afalg_import_tfm): the clone shares it. */
	if (from && from->own_tfm)
		op->own_tfm = ualg_tfm_get(from->own_tfm);
	op->fresh = !from || from->fresh;
	op->nokey = afalg_tfm(op)->need_key;
	int r = parent->type->accept(op, from);
	if (r) {
		ualg_tfm_free(op->own_tfm);
		free(op->ctx);
		free(op);
		return r;
	}
	parent->ref++;
	parent->children++;
	parent->nokey_children += op->nokey;
	*out = op;
	return 0;
}

int afalg_accept(struct alg_sock *sk, struct alg_sock **out)
{
	int r;
	if (!sk->connected && sk->mode && (r = sk->mode->accept_check(sk)))
		return r;
	if (!sk->connected)
		return accept_from(sk, NULL, out);
	if (!sk->type->accept_on_op)
		return -EOPNOTSUPP;
	r = afalg_check_key(sk);
	return r ? r : accept_from(sk->parent, sk, out);
}

void afalg_engine_info(const struct alg_sock *op, struct ualg_engine_info *out)
{
	memset(out, 0, sizeof(*out));
	out->key_gen = op->connected ? op->parent->key_gen : op->key_gen;
	if (!op->connected)
		return;
	const struct ualg_tfm *tfm = afalg_tfm(op);
	out->flags = (ualg_tfm_has_setkey(tfm) ? UALG_ENGINE_TAKES_KEY : 0) |
		     (tfm->need_key ? UALG_ENGINE_NOKEY : 0) |
		     (!op->parent->keyed ? UALG_ENGINE_UNKEYED : 0);
	if (tfm->alg->type == UALG_ALG_SHASH) {
		out->msg_key_len = tfm->alg->u.shash.msg_key_len;
		out->msg_key_clear = tfm->alg->u.shash.msg_key_clear;
	}
}

bool afalg_send_ok(const struct alg_sock *op, const struct afalg_send *s)
{
	return op->connected && !(op->nokey && afalg_tfm(op)->need_key) && op->type->send_ok &&
	       op->type->send_ok(op, s);
}

int afalg_check_key(struct alg_sock *op)
{
	if (!op->nokey)
		return 0;
	if (afalg_tfm(op)->need_key)
		return -ENOKEY;
	op->nokey = false;
	op->parent->nokey_children--;
	return 0;
}

int afalg_send(struct alg_sock *sk, const struct afalg_send *s, struct afalg_progress *p)
{
	if (!sk->connected)
		return -EOPNOTSUPP;	/* sock_no_sendmsg on the transform socket */
	int r = afalg_check_key(sk);
	sk->fresh = false;
	return r ? r : sk->type->send(sk, s, p);
}

int afalg_recv(struct alg_sock *sk, uint8_t *out, size_t len, bool dontwait, bool *trunc,
	       struct afalg_progress *p)
{
	if (!sk->connected)
		return -EOPNOTSUPP;
	int r = afalg_check_key(sk);
	sk->fresh = false;
	return r ? r : sk->type->recv(sk, out, len, dontwait, trunc, p);
}

unsigned afalg_poll(const struct alg_sock *sk)
{
	/* Transform sockets and hash sockets have no poll method. */
	return sk->connected && sk->type->poll ? sk->type->poll(sk) : 0;
}

bool afalg_knows_ready(const struct alg_sock *sk)
{
	return sk->connected && sk->type->ready;
}

/* The checks before the type's send() and recv() answer without waiting. */
bool afalg_ready(const struct alg_sock *sk, bool send, size_t len)
{
	return !sk->connected || (sk->type->ready && sk->type->ready(sk, send, len));
}

bool afalg_movable(const struct alg_sock *op)
{
	if (!op->connected || !op->type->export || op->parent->mode)
		return false;
	/* A hash moves as its exported state. */
	return op->type->alg_type != UALG_ALG_SHASH || ualg_hash_statesize(afalg_tfm(op));
}

int afalg_export(const struct alg_sock *op, struct afalg_state *st)
{
	memset(st, 0, sizeof(*st));
	return afalg_movable(op) ? op->type->export(op, st) : -EOPNOTSUPP;
}

bool afalg_adoptable(const struct alg_sock *op)
{
	return op->connected && op->fresh;
}

int afalg_import(struct alg_sock *op, const struct afalg_state *st, bool part)
{
	if (!afalg_movable(op))
		return -EOPNOTSUPP;
	if (!op->fresh)
		return -EBUSY;
	if (st->flags & ~AFALG_STATE_FLAGS_ALL)
		return -EINVAL;
	int r = op->type->import(op, st, part);
	if (!part || r)
		op->fresh = false;	/* one state, once */
	return r;
}

void afalg_state_free(struct afalg_state *st)
{
	if (st->data) {
		ualg_wipe(st->data, st->len);
		free(st->data);
	}
	ualg_wipe(st, sizeof(*st));
}

int afalg_import_tfm(struct alg_sock *op, struct ualg_alg *alg, const uint8_t *key, size_t keylen)
{
	if (!op->connected || op->own_tfm || op->type->alg_type != UALG_ALG_SHASH)
		return -EINVAL;
	if (ualg_hash_statesize(afalg_tfm(op)))
		return keylen ? -EINVAL : 0;	/* the parent's own driver takes it */
	/* The same algorithm, under another driver. */
	if (alg->type != UALG_ALG_SHASH || strcmp(alg->name, op->parent->tfm->alg->name))
		return -EINVAL;
	int err;
	struct ualg_tfm *tfm = ualg_tfm_new(alg, &err);
	if (!tfm)
		return -err;
	int r = 0;
	if (keylen)
		r = ualg_tfm_has_setkey(tfm) ? ualg_tfm_setkey(tfm, key, keylen) : -EINVAL;
	if (r) {
		ualg_tfm_free(tfm);
		return r;
	}
	op->own_tfm = tfm;
	return 0;
}
