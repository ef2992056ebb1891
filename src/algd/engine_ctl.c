/* algd as the in-process engine's control plane (proto.h, UALG_MSG_ENGINE
 * and UALG_MSG_ADOPT): which op sockets the shim may serve in the program,
 * and taking them back when they become shared. */
#include "engine_ctl.h"
#include "algd_afalg.h"
#include "config.h"
#include "keystore.h"
#include "policy.h"
#include "msg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* algd.conf's "engine algd" (or algd --engine algd) keeps every socket
 * here, "engine-algd NAME" those of one algorithm or driver. */
static bool kept_here(const struct ualg_alg *alg)
{
	const struct algd_config *c = config_get();
	if (config_engine_all_algd())
		return true;
	for (unsigned i = 0; i < c->n_engine_keep; i++)
		if (!strcmp(c->engine_keep[i], alg->name) || !strcmp(c->engine_keep[i], alg->driver))
			return true;
	return false;
}

/* The driver the program may serve op with, one reference held: only the
 * types whose state can come back here (afalg_movable), and for hashes a
 * driver that can export it, the highest-priority such driver of the same
 * algorithm.  NULL: the socket stays here. */
static struct ualg_alg *inproc_driver(const struct alg_sock *op)
{
	if (!op->connected || afalg_is_rfc(op) || ualg_fips_enabled())
		return NULL;
	const struct ualg_tfm *tfm = afalg_tfm(op);
	struct ualg_alg *alg = tfm->alg;
	const enum ualg_alg_type t = op->type->alg_type;
	if ((t != UALG_ALG_SHASH && t != UALG_ALG_SKCIPHER && t != UALG_ALG_AEAD) ||
	    !op->type->export || kept_here(alg))
		return NULL;
	if (t == UALG_ALG_SHASH && !ualg_hash_statesize(tfm)) {
		int err;
		return ualg_alg_lookup_exportable(t, alg->name, &err);
	}
	ualg_alg_get(alg);
	return alg;
}

int engine_ctl_info(const struct alg_sock *op, struct ualg_engine_info *out)
{
	/* An op socket's transform, whoever serves it: the shim's
	 * write-behind reads these too (src/shim/client.c). */
	afalg_engine_info(op, out);
	struct ualg_alg *drv = inproc_driver(op);
	if (!drv)
		return 0;
	out->flags |= UALG_ENGINE_INPROC;
	out->authsize = op->type->alg_type == UALG_ALG_AEAD ? afalg_tfm(op)->authsize : 0;
	snprintf((char *)out->type, sizeof(out->type), "%s", op->type->name);
	snprintf(out->driver, sizeof(out->driver), "%s", drv->driver);
	ualg_alg_put(drv);
	return 0;
}

/* Only what ENGINE would allow now: a socket the program may serve, a
 * hash's state from the driver ENGINE names, which the caller's driver
 * rules must admit as they would a bind of it. */
static int adopt_driver(const struct alg_sock *op, const char *driver,
			const struct key_caller *who, struct ualg_alg **out)
{
	struct ualg_alg *drv = inproc_driver(op);
	*out = NULL;
	if (!drv)
		return -EACCES;
	int r = 0;
	if (driver[0] && strcmp(driver, drv->driver))
		r = -EINVAL;
	else if (driver[0] && policy_has_alg_rules() &&
		 !policy_alg_allowed(drv, who->uid, who->gid, who->groups, who->ngroups))
		r = -EACCES;
	if (!r && driver[0])
		*out = drv;
	else
		ualg_alg_put(drv);
	return r;
}

/* Returns the request's result, or -1 for a frame that does not parse. */
int engine_ctl_adopt(struct alg_sock *op, const struct key_caller *who, const uint8_t *body,
		     size_t len)
{
	struct ualg_adopt_msg am;

	if (ualg_decode_adopt(body, len, &am)) {
		ualg_wipe(&am, sizeof(am));
		return -1;
	}
	const uint8_t *key = am.key, *data = am.data;
	struct ualg_adopt m = am.hdr;
	ualg_wipe(&am.hdr, sizeof(am.hdr));
	struct afalg_state st = { .flags = m.state, .op = m.op, .assoclen = m.assoclen,
				  .data = (uint8_t *)data, .len = m.len };
	_Static_assert(sizeof(m.iv) == sizeof(st.iv) && sizeof(m.result) == sizeof(st.result),
		       "ualg_adopt matches afalg_state");
	memcpy(st.iv, m.iv, sizeof(st.iv));
	memcpy(st.result, m.result, sizeof(st.result));
	struct ualg_alg *drv = NULL;
	int r = !op->connected ? -EOPNOTSUPP : !afalg_adoptable(op) ? -EBUSY
		: adopt_driver(op, m.driver, who, &drv);
	if (!r && drv)
		r = afalg_import_tfm(op, drv, key, m.keylen);
	else if (!r && m.keylen)
		r = -EINVAL;
	ualg_alg_put(drv);
	if (!r)
		r = afalg_import(op, &st, m.flags & UALG_ADOPT_PART);
	memset(&st, 0, sizeof(st));
	ualg_wipe(&m, sizeof(m));
	return r;
}
