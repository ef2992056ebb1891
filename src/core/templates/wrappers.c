/* pcrypt(aead) and cryptd(hash|skcipher|aead): the kernel's scheduling
 * wrappers (crypto/pcrypt.c, crypto/cryptd.c) run the inner algorithm on
 * other CPUs.  Here they compute exactly what the inner algorithm does: an
 * instance keeps the inner algorithm's generic name, its ops and spawns,
 * and is named "pcrypt(inner driver)" with the kernel's priority bump. */
#include "../template.h"

#include <errno.h>
#include <string.h>

static struct ualg_alg *wrap(const char *tmpl, int bump, bool any_type, const char *const *args,
			     unsigned nargs, int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	struct ualg_alg *inner = ualg_alg_lookup_any(args[0], err);
	if (!inner)
		return NULL;
	struct ualg_alg *inst = NULL;
	const bool ok = inner->type == UALG_ALG_AEAD ||
			(any_type && (inner->type == UALG_ALG_SHASH || inner->type == UALG_ALG_SKCIPHER));
	if (!ok) {
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc(tmpl, inner->type, &inner, 1, err))) {
		memcpy(inst->name, inner->name, sizeof(inst->name));
		inst->priority = inner->priority + bump;
		inst->blocksize = inner->blocksize;
		inst->ctxsize = inner->ctxsize;
		inst->priv = inner->priv;
		inst->init_tfm = inner->init_tfm;
		inst->exit_tfm = inner->exit_tfm;
		inst->u = inner->u;
		if (ualg_alg_is_instance(inner)) {
			/* The inner instance's ops use its spawns through the
			 * transform's algorithm: give them the same. */
			ualg_alg_put(inst->spawns[0]);
			for (unsigned i = 0; i < 2; i++) {
				inst->spawns[i] = inner->spawns[i];
				if (inst->spawns[i])
					ualg_alg_get(inst->spawns[i]);
			}
		}
	}
	ualg_alg_put(inner);
	return inst;
}

static struct ualg_alg *pcrypt_create(const char *const *args, unsigned nargs, int *err)
{
	return wrap("pcrypt", 100, false, args, nargs, err);
}

static struct ualg_alg *cryptd_create(const char *const *args, unsigned nargs, int *err)
{
	return wrap("cryptd", 50, true, args, nargs, err);
}

const struct ualg_template ualg_tmpl_pcrypt = { .name = "pcrypt", .create = pcrypt_create, .keeps_name = true };
const struct ualg_template ualg_tmpl_cryptd = { .name = "cryptd", .create = cryptd_create, .keeps_name = true };
