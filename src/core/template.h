/* Templates: algorithms built from other algorithms, as the kernel's
 * crypto_template.  "cbc(aes)" asks the "cbc" template for an instance over
 * the cipher "aes"; the instance is registered (and self-tested) like any
 * driver and found by later lookups. */
#ifndef UALG_CORE_TEMPLATE_H
#define UALG_CORE_TEMPLATE_H

#include "crypto.h"

#define UALG_TMPL_MAX_ARGS 3

struct ualg_template {
	const char *name;
	/* Builds an unregistered instance over args (generic or driver names)
	 * or returns NULL with *err a positive errno. */
	struct ualg_alg *(*create)(const char *const *args, unsigned nargs, int *err);
	/* Its instances keep their spawn's generic name (pcrypt, cryptd). */
	bool keeps_name;
	/* Its instances' names are not the template over their arguments'
	 * (adiantum's driver name lists a spawn its generic name leaves
	 * out): a name builds one only when it is its generic name or
	 * stands for its driver name, as the kernel's larval is satisfied. */
	bool exact_name;
};

/* Splits "tmpl(arg1,arg2)" into its parts, checking the kernel's name
 * grammar.  Returns 0, or -1 for a name that is not a template call. */
int ualg_tmpl_parse(const char *name, char *tmpl, size_t tmpl_size,
		    char args[UALG_TMPL_MAX_ARGS][UALG_MAX_ALG_NAME], unsigned *nargs);

const struct ualg_template *ualg_tmpl_find(const char *name);

/* Allocates an instance of type over spawns[0..nspawns), named
 * "tmpl(spawn names)" and "tmpl(spawn drivers)", inheriting the first
 * spawn's priority and taking a reference on each spawn.  The template
 * fills in the ops; the registry frees it with ualg_instance_free. */
struct ualg_alg *ualg_instance_alloc(const char *tmpl, enum ualg_alg_type type,
				     struct ualg_alg **spawns, unsigned nspawns, int *err);
void ualg_instance_free(struct ualg_alg *inst);

/* Convenience for templates: a transform of an instance whose context
 * starts with the child transform of its first spawn. */
int ualg_tmpl_init_child(struct ualg_tfm *tfm);
void ualg_tmpl_exit_child(struct ualg_tfm *tfm);
static inline struct ualg_tfm *ualg_tmpl_child(const struct ualg_tfm *tfm)
{
	return *(struct ualg_tfm **)tfm->ctx;
}

extern const struct ualg_template ualg_tmpl_hmac, ualg_tmpl_ecb, ualg_tmpl_cbc,
	ualg_tmpl_ctr, ualg_tmpl_xts, ualg_tmpl_cts, ualg_tmpl_rfc4106, ualg_tmpl_rfc4309,
	ualg_tmpl_rfc4543, ualg_tmpl_rfc7539esp, ualg_tmpl_authenc, ualg_tmpl_authencesn,
	ualg_tmpl_seqiv, ualg_tmpl_echainiv;
extern const struct ualg_template ualg_tmpl_pcbc, ualg_tmpl_cfb, ualg_tmpl_ofb,
	ualg_tmpl_cmac, ualg_tmpl_xcbc, ualg_tmpl_essiv, ualg_tmpl_xctr,
	ualg_tmpl_lrw;
extern const struct ualg_template ualg_tmpl_cbcmac, ualg_tmpl_gcm, ualg_tmpl_kw,
	ualg_tmpl_rfc3686;
extern const struct ualg_template ualg_tmpl_adiantum;
extern const struct ualg_template ualg_tmpl_pcrypt, ualg_tmpl_cryptd;

#endif
