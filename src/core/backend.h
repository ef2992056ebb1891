/* Backends: the drivers built on one library beyond OpenSSL and Nettle
 * (ISA-L and xxHash, libsodium, ipsec-mb, the compressors, Botan, Crypto++).
 *
 * The core registers its own drivers and then each backend, in one fixed
 * order (ualg_core_init()).  How a backend arrives is the host's choice:
 *   - linked (backends_linked.c): algd, the tools and the tests link every
 *     backend in and register it at once;
 *   - loaded (backends_loaded.c): the in-process engine registers none at
 *     start, and loads a backend's module (libualg-backend-NAME.so, beside
 *     the engine) when a lookup first wants a name that backend registers,
 *     so that a program pays for the libraries of the algorithms it uses.
 * Which backend registers which name is listed at build time from the
 * registrations themselves (backend_list.c).
 *
 * Lookups answer the same either way: among equal priorities the earlier
 * backend in the order wins (struct ualg_alg's rank), not the one loaded
 * first.
 *
 * A module reaches the core only through struct ualg_core_api, which the
 * host hands to its entry point (as OpenSSL hands a provider its core's
 * functions): it links no copy of the core. */
#ifndef UALG_CORE_BACKEND_H
#define UALG_CORE_BACKEND_H

#include "crypto.h"

#include <stdbool.h>

/* ---- the host's side (registry.c calls these) --------------------------- */

/* At ualg_core_init(), in order: the backend named registers now (linked)
 * or when wanted (loaded).  0 or -errno. */
int ualg_backend_start(const char *backend);
/* Before a lookup of name (a generic or driver name): a loaded host loads
 * every backend that registers it. */
void ualg_backend_want(const char *name);
/* Every backend, for whoever lists the whole registry. */
void ualg_backend_want_all(void);

/* The registry's side of a loading host: registers backend's drivers by
 * calling reg() at its place in the order.  0 or -errno. */
int ualg_backend_register(const char *backend, int (*reg)(void));

/* The backend that registered alg, or NULL for the core's own drivers
 * and for instances. */
const char *ualg_backend_of(const struct ualg_alg *alg);

/* True while backend_list lists the names: a backend registers the drivers
 * it would register on any machine (ipsec-mb's need AES-NI to run, not to
 * be listed). */
bool ualg_backend_listing(void);
void ualg_backend_set_listing(void);

/* What backend_list found: the backend that registers a name or driver. */
struct ualg_backend_name {
	const char *backend, *name, *driver;
};
extern const struct ualg_backend_name ualg_backend_names[];
extern const size_t ualg_backend_names_count;

/* ---- the module's side ---------------------------------------------------- */

/* The core functions a backend's drivers call. */
struct ualg_core_api {
	size_t size;			/* sizeof(struct ualg_core_api) */
	struct ualg_alg *(*alloc)(const char *name, const char *driver, enum ualg_alg_type type,
				  int prio);
	int (*reg)(struct ualg_alg *alg);
	bool (*listing)(void);
	void (*wipe)(void *p, size_t len);
	int (*memneq)(const void *a, const void *b, size_t len);
	struct ualg_alg *(*alg_lookup)(enum ualg_alg_type type, const char *name, int *err);
	void (*alg_put)(struct ualg_alg *alg);
	struct ualg_tfm *(*tfm_new)(struct ualg_alg *alg, int *err);
	void (*tfm_free)(struct ualg_tfm *tfm);
	int (*tfm_setkey)(struct ualg_tfm *tfm, const uint8_t *key, size_t len);
	int (*hash_init)(struct ualg_hash_desc *desc, struct ualg_tfm *tfm);
	int (*hash_update)(struct ualg_hash_desc *desc, const uint8_t *data, size_t len);
	int (*hash_final)(struct ualg_hash_desc *desc, uint8_t *out);
	int (*hash_clone)(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src);
	void (*hash_exit)(struct ualg_hash_desc *desc);
	int (*hash_digest)(struct ualg_tfm *tfm, const uint8_t *data, size_t len, uint8_t *out);
};

/* A module's one exported symbol (UALG_BACKEND_SYMBOL): its name, and its
 * registration, which gets the core's functions first. */
struct ualg_backend_module {
	size_t api_size;		/* the struct ualg_core_api it was built with */
	const char *name;
	int (*init)(const struct ualg_core_api *core);
};
#define UALG_BACKEND_SYMBOL "ualg_backend_module"
#define UALG_BACKEND_FILE_PREFIX "libualg-backend-"

#endif
