/* The glue in each backend module (backend.h): the module's one exported
 * symbol, and the core functions its drivers call, each forwarded to the
 * host's through the table it was handed.  UALG_BACKEND is the module's
 * name, UALG_BACKEND_REGISTER its drivers' registration. */
#include "backend.h"
#include "drivers/openssl.h"
#include "drivers/others.h"

#include <errno.h>

static const struct ualg_core_api *core;

static int init(const struct ualg_core_api *api)
{
	if (api->size != sizeof(*api))
		return -EPROTO;
	core = api;
	return UALG_BACKEND_REGISTER();
}

__attribute__((visibility("default")))
const struct ualg_backend_module ualg_backend_module = {
	.api_size = sizeof(struct ualg_core_api),
	.name = UALG_BACKEND,
	.init = init,
};

struct ualg_alg *ualg_openssl_alloc(const char *name, const char *driver, enum ualg_alg_type type,
				    int prio)
{
	return core->alloc(name, driver, type, prio);
}

int ualg_openssl_reg(struct ualg_alg *alg)
{
	return core->reg(alg);
}

bool ualg_backend_listing(void)
{
	return core->listing();
}

void ualg_wipe(void *p, size_t len)
{
	core->wipe(p, len);
}

int ualg_memneq(const void *a, const void *b, size_t len)
{
	return core->memneq(a, b, len);
}

struct ualg_alg *ualg_alg_lookup(enum ualg_alg_type type, const char *name, int *err)
{
	return core->alg_lookup(type, name, err);
}

void ualg_alg_put(struct ualg_alg *alg)
{
	core->alg_put(alg);
}

struct ualg_tfm *ualg_tfm_new(struct ualg_alg *alg, int *err)
{
	return core->tfm_new(alg, err);
}

void ualg_tfm_free(struct ualg_tfm *tfm)
{
	core->tfm_free(tfm);
}

int ualg_tfm_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	return core->tfm_setkey(tfm, key, len);
}

int ualg_hash_init(struct ualg_hash_desc *desc, struct ualg_tfm *tfm)
{
	return core->hash_init(desc, tfm);
}

int ualg_hash_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	return core->hash_update(desc, data, len);
}

int ualg_hash_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	return core->hash_final(desc, out);
}

int ualg_hash_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	return core->hash_clone(dst, src);
}

void ualg_hash_exit(struct ualg_hash_desc *desc)
{
	core->hash_exit(desc);
}

int ualg_hash_digest(struct ualg_tfm *tfm, const uint8_t *data, size_t len, uint8_t *out)
{
	return core->hash_digest(tfm, data, len, out);
}
