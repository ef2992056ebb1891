/* Backends linked in (backend.h): algd, the tools and the tests register
 * every backend at ualg_core_init(), as before any module existed. */
#include "backend.h"
#include "drivers/others.h"

#include <errno.h>
#include <string.h>

static const struct {
	const char *name;
	int (*reg)(void);
} linked[] = {
	{ "checksum", ualg_checksum_register }, { "sodium", ualg_sodium_register },
	{ "ipsecmb", ualg_ipsecmb_register }, { "compress", ualg_comp_register },
	{ "botan", ualg_botan_register }, { "cryptopp", ualg_cryptopp_register },
};

int ualg_backend_start(const char *backend)
{
	for (size_t i = 0; i < sizeof(linked) / sizeof(linked[0]); i++)
		if (!strcmp(linked[i].name, backend))
			return ualg_backend_register(backend, linked[i].reg);
	return -ENOENT;
}

void ualg_backend_want(const char *name)
{
	(void)name;
}

void ualg_backend_want_all(void)
{
}
