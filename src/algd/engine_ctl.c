/* algd as the in-process engine's control plane (proto.h, UALG_MSG_ENGINE
 * and UALG_MSG_ADOPT): which op sockets the shim may serve in the program,
 * and taking them back when they become shared. */
#include "engine_ctl.h"
#include "algd_afalg.h"
#include "config.h"
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

/* Only the types whose state can come back here (afalg_movable), and for
 * hashes a driver that can export it: the highest-priority such driver of
 * the same algorithm. */
int engine_ctl_info(const struct alg_sock *op, struct ualg_engine_info *out)
{
	memset(out, 0, sizeof(*out));
	out->key_gen = op->connected ? op->parent->key_gen : op->key_gen;
	if (!op->connected || op->nokey || afalg_is_rfc(op) || ualg_fips_enabled())
		return 0;
	const struct ualg_tfm *tfm = afalg_tfm(op);
	const struct ualg_alg *alg = tfm->alg;
	const enum ualg_alg_type t = op->type->alg_type;
	if ((t != UALG_ALG_SHASH && t != UALG_ALG_SKCIPHER && t != UALG_ALG_AEAD) ||
	    !op->type->export || kept_here(alg))
		return 0;
	const char *driver = alg->driver;
	struct ualg_alg *exp = NULL;
	if (t == UALG_ALG_SHASH && !ualg_hash_statesize(tfm)) {
		int err;
		exp = ualg_alg_lookup_exportable(t, alg->name, &err);
		if (!exp)
			return 0;
		driver = exp->driver;
	}
	out->flags = UALG_ENGINE_INPROC | (ualg_tfm_has_setkey(tfm) ? UALG_ENGINE_TAKES_KEY : 0);
	out->authsize = t == UALG_ALG_AEAD ? tfm->authsize : 0;
	snprintf((char *)out->type, sizeof(out->type), "%s", op->type->name);
	snprintf(out->driver, sizeof(out->driver), "%s", driver);
	ualg_alg_put(exp);
	return 0;
}

/* Returns the request's result, or -1 for a frame that does not parse. */
int engine_ctl_adopt(struct alg_sock *op, const uint8_t *body, size_t len)
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
	int r = op->connected ? 0 : -EOPNOTSUPP;
	if (!r && m.driver[0])
		r = afalg_import_tfm(op, m.driver, key, m.keylen);
	else if (!r && m.keylen)
		r = -EINVAL;
	if (!r)
		r = afalg_import(op, &st, m.flags & UALG_ADOPT_PART);
	memset(&st, 0, sizeof(st));
	ualg_wipe(&m, sizeof(m));
	return r;
}
