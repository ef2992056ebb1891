/* Backends loaded when wanted (backend.h): the in-process engine's.  A
 * lookup of a name that an unloaded backend registers (ualg_backend_names,
 * listed at build time) loads that backend's module from the directory of
 * the library this file is linked into, and registers its drivers at
 * their place in the order.  A module that cannot be loaded is reported
 * once with $UALG_DEBUG and left out: its names are then served by the
 * other drivers or by algd. */
#include "backend.h"
#include "drivers/openssl.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const backends[] = {
	"checksum", "sodium", "ipsecmb", "compress", "botan", "cryptopp",
};
#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

static bool tried[NBACKENDS];	/* under lock */
static unsigned left = NBACKENDS;
/* Recursive: a module may look a name up as it registers. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static const struct ualg_core_api api = {
	.size = sizeof(api),
	.alloc = ualg_openssl_alloc,
	.reg = ualg_openssl_reg,
	.listing = ualg_backend_listing,
	.wipe = ualg_wipe,
	.memneq = ualg_memneq,
	.alg_lookup = ualg_alg_lookup,
	.alg_put = ualg_alg_put,
	.tfm_new = ualg_tfm_new,
	.tfm_free = ualg_tfm_free,
	.tfm_setkey = ualg_tfm_setkey,
	.hash_init = ualg_hash_init,
	.hash_update = ualg_hash_update,
	.hash_final = ualg_hash_final,
	.hash_clone = ualg_hash_clone,
	.hash_exit = ualg_hash_exit,
	.hash_digest = ualg_hash_digest,
};

static void report(const char *backend, const char *why)
{
	if (secure_getenv("UALG_DEBUG"))
		fprintf(stderr, "ualg: backend %s: %s\n", backend, why);
}

/* The module's path: beside the library that holds this function. */
static bool module_path(const char *backend, char *path, size_t size)
{
	Dl_info info;
	if (!dladdr((const void *)module_path, &info) || !info.dli_fname)
		return false;
	const char *slash = strrchr(info.dli_fname, '/');
	const int dir = slash ? (int)(slash - info.dli_fname + 1) : 0;
	const int n = snprintf(path, size, "%.*s" UALG_BACKEND_FILE_PREFIX "%s.so", dir,
			       info.dli_fname, backend);
	return n > 0 && (size_t)n < size;
}

static const struct ualg_backend_module *module;	/* the one loading */

static int module_register(void)
{
	return module->init(&api);
}

static void load(size_t i)
{
	char path[4096];
	tried[i] = true;
	left--;
	if (!module_path(backends[i], path, sizeof(path))) {
		report(backends[i], "no path beside the engine");
		return;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	const struct ualg_backend_module *m = h ? dlsym(h, UALG_BACKEND_SYMBOL) : NULL;
	if (!m || m->api_size != sizeof(struct ualg_core_api) || strcmp(m->name, backends[i])) {
		report(backends[i], h ? "not a module of this engine" : dlerror());
		return;	/* never closed: a half-registered module may hold drivers */
	}
	module = m;
	const int r = ualg_backend_register(backends[i], module_register);
	module = NULL;
	if (r)
		report(backends[i], strerror(-r));
}

static void load_named(const char *backend)
{
	for (size_t i = 0; i < NBACKENDS; i++)
		if (!tried[i] && !strcmp(backends[i], backend))
			load(i);
}

int ualg_backend_start(const char *backend)
{
	(void)backend;
	return 0;
}

void ualg_backend_want(const char *name)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; left && i < ualg_backend_names_count; i++) {
		const struct ualg_backend_name *e = &ualg_backend_names[i];
		if (!strcmp(e->name, name) || !strcmp(e->driver, name))
			load_named(e->backend);
	}
	pthread_mutex_unlock(&lock);
}

void ualg_backend_want_all(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; left && i < NBACKENDS; i++)
		if (!tried[i])
			load(i);
	pthread_mutex_unlock(&lock);
}
