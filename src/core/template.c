/* Template name parsing and instance construction. */
#include "template.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* The grammar of cryptomgr_schedule_probe(): NAME '(' ARG (',' ARG)* ')'
 * where an ARG is a NAME optionally followed by a balanced "(...)".
 * Unlike the kernel we also insist that nothing follows the final ')'. */
int ualg_tmpl_parse(const char *name, char *tmpl, size_t tmpl_size,
		    char args[UALG_TMPL_MAX_ARGS][UALG_MAX_ALG_NAME], unsigned *nargs)
{
	const char *p = name;

	while (name_char(*p))
		p++;
	size_t len = (size_t)(p - name);
	if (!len || *p != '(' || len >= tmpl_size)
		return -1;
	memcpy(tmpl, name, len);
	tmpl[len] = '\0';

	*nargs = 0;
	for (;;) {
		const char *arg = ++p;
		while (name_char(*p))
			p++;
		if (*p == '(') {
			int depth = 0;
			for (p++; *p; p++) {
				if (*p == '(')
					depth++;
				else if (*p == ')' && !depth--)
					break;
			}
			if (!*p)
				return -1;
			p++;
		}
		len = (size_t)(p - arg);
		if (!len || len >= UALG_MAX_ALG_NAME || *nargs == UALG_TMPL_MAX_ARGS)
			return -1;
		memcpy(args[*nargs], arg, len);
		args[*nargs][len] = '\0';
		(*nargs)++;
		if (*p == ')')
			break;
		if (*p != ',')
			return -1;
	}
	return p[1] == '\0' ? 0 : -1;
}

static void instance_destroy(struct ualg_alg *inst)
{
	free(inst);
}

/* Joins "tmpl(" + field of each spawn + ")" into out; -1 if too long. */
static int compose_name(char out[UALG_MAX_ALG_NAME], const char *tmpl,
			struct ualg_alg **spawns, unsigned n, bool driver)
{
	size_t off = 0;
	int w = snprintf(out, UALG_MAX_ALG_NAME, "%s(", tmpl);

	if (w < 0 || w >= UALG_MAX_ALG_NAME)
		return -1;
	off = (size_t)w;
	for (unsigned i = 0; i < n; i++) {
		w = snprintf(out + off, UALG_MAX_ALG_NAME - off, "%s%s", i ? "," : "",
			     driver ? spawns[i]->driver : spawns[i]->name);
		if (w < 0 || (size_t)w >= UALG_MAX_ALG_NAME - off)
			return -1;
		off += (size_t)w;
	}
	if (off + 2 > UALG_MAX_ALG_NAME)
		return -1;
	out[off++] = ')';
	out[off] = '\0';
	return 0;
}

struct ualg_alg *ualg_instance_alloc(const char *tmpl, enum ualg_alg_type type,
				     struct ualg_alg **spawns, unsigned nspawns, int *err)
{
	struct ualg_alg *inst = calloc(1, sizeof(*inst));

	if (!inst) {
		*err = ENOMEM;
		return NULL;
	}
	if (compose_name(inst->name, tmpl, spawns, nspawns, false) ||
	    compose_name(inst->driver, tmpl, spawns, nspawns, true)) {
		free(inst);
		*err = ENAMETOOLONG;
		return NULL;
	}
	inst->type = type;
	inst->module = "kernel";
	inst->priority = spawns[0]->priority;
	inst->blocksize = spawns[0]->blocksize;
	inst->destroy = instance_destroy;
	for (unsigned i = 0; i < nspawns && i < UALG_MAX_SPAWNS; i++) {
		inst->spawns[i] = spawns[i];
		ualg_alg_get(spawns[i]);
	}
	return inst;
}

void ualg_instance_free(struct ualg_alg *inst)
{
	for (unsigned i = 0; i < UALG_MAX_SPAWNS; i++)
		ualg_alg_put(inst->spawns[i]);
	inst->destroy(inst);
}

int ualg_tmpl_init_child(struct ualg_tfm *tfm)
{
	int err = 0;
	struct ualg_tfm *child = ualg_tfm_new(tfm->alg->spawns[0], &err);

	if (!child)
		return -err;
	*(struct ualg_tfm **)tfm->ctx = child;
	return 0;
}

void ualg_tmpl_exit_child(struct ualg_tfm *tfm)
{
	ualg_tfm_free(ualg_tmpl_child(tfm));
}
