/* libFuzzer: algorithm names (src/core/template.c's grammar, then the
 * registry's lookup, which instantiates templates).  Any byte string is a
 * candidate name, as a client's bind() sends it. */
#include "crypto.h"
#include "template.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return ualg_core_init() ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[256];
	char tmpl[UALG_MAX_ALG_NAME], args[UALG_TMPL_MAX_ARGS][UALG_MAX_ALG_NAME];
	unsigned nargs;

	if (size >= sizeof(name))
		return -1;	/* longer than any name the protocol carries */
	memcpy(name, data, size);
	name[size] = '\0';
	ualg_tmpl_parse(name, tmpl, sizeof(tmpl), args, &nargs);
	for (enum ualg_alg_type t = UALG_ALG_CIPHER; t <= UALG_ALG_SHASH; t++) {
		int err = 0;
		struct ualg_alg *alg = ualg_alg_lookup(t, name, &err);
		if (alg)
			ualg_alg_put(alg);
	}
	return 0;
}
