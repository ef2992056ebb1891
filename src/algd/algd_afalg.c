/* algd as the AF_ALG layer's host: who may bind what (policy.c) and keys
 * by name (keystore.c). */
#include "algd_afalg.h"
#include "keystore.h"
#include "policy.h"

#include <errno.h>

static bool alg_allowed(const struct ualg_alg *alg, const struct key_caller *c)
{
	return policy_alg_allowed(alg, c->uid, c->gid, c->groups, c->ngroups);
}

struct key *afalg_named_key(const struct afalg_optval *v, int *err)
{
	size_t len = v->len;
	if (len && v->data[len - 1] == '\0')
		len--;	/* a C string with its NUL */
	*err = EACCES;
	return v->caller ? keystore_find((const char *)v->data, len, v->caller, err) : NULL;
}

static int setkey_by_name(struct ualg_tfm *tfm, const struct afalg_optval *v)
{
	int err;
	struct key *k = afalg_named_key(v, &err);
	if (!k)
		return -err;
	if (!ualg_tfm_has_setkey(tfm))
		return -ENOSYS;
	return keystore_setkey(tfm, k);
}

static const struct afalg_host algd_host = {
	.alg_allowed = alg_allowed,
	.setkey_by_name = setkey_by_name,
};

void algd_afalg_host_init(void)
{
	afalg_set_host(&algd_host);
}
