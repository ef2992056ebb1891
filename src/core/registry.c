/* The algorithm registry: registration with self-tests, lookup by priority,
 * and on-demand template instantiation (the kernel's crypto/api.c, algapi.c
 * and algboss.c in one small file, since there is no module loading here). */
#include "backend.h"
#include "crypto.h"
#include "template.h"

#include "drivers/nettle.h"
#include "drivers/openssl.h"
#include "drivers/others.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static struct ualg_alg *alg_list;
static struct ualg_alg **alg_tail = &alg_list;

/* Templates building an instance look up its spawns at depth > 0; those
 * lookups may return FIPS-internal algorithms, as crypto_grab_spawn()
 * passes CRYPTO_ALG_FIPS_INTERNAL. */
static unsigned spawn_depth;
/* ualg_alg_lookup_exportable(): hashes that cannot export are left out,
 * in the lookup and in the spawns of what it builds. */
static bool want_export;
static const struct ualg_alg *fips_failed;
static uint32_t builder = UALG_BUILDER_NONE;
#define RANK_INSTANCE UINT8_MAX
static uint8_t registering_rank = RANK_INSTANCE;
static bool listing;
static unsigned builder_cap;
static void (*fips_fatal_hook)(const struct ualg_alg *failed);

const struct ualg_alg *ualg_fips_failure(void)
{
	return fips_failed;
}

void ualg_fips_set_fatal_hook(void (*hook)(const struct ualg_alg *failed))
{
	fips_fatal_hook = hook;
}

/* ualg_selftest_defer(): a driver is tested when first looked up, not
 * when registered. */
static bool defer_tests;

void ualg_selftest_defer(void)
{
	defer_tests = true;
}

static void ensure_tested(struct ualg_alg *a)
{
	if (defer_tests && a->selftest == UALG_SELFTEST_UNKNOWN)
		a->selftest = ualg_selftest_run(a) ? UALG_SELFTEST_FAILED : UALG_SELFTEST_PASSED;
}

/* Tested, not disabled, and in FIPS mode approved unless wanted as a spawn. */
static bool usable(struct ualg_alg *a)
{
	ensure_tested(a);
	return a->selftest == UALG_SELFTEST_PASSED && !a->disabled &&
	       (!a->fips_internal || spawn_depth) &&
	       (!want_export || a->type != UALG_ALG_SHASH || (a->u.shash.export && a->u.shash.import));
}

static const struct ualg_template *const templates[] = {
	&ualg_tmpl_hmac, &ualg_tmpl_ecb, &ualg_tmpl_cbc,
	&ualg_tmpl_ctr, &ualg_tmpl_xts, &ualg_tmpl_cts,
	&ualg_tmpl_rfc4106, &ualg_tmpl_rfc4309, &ualg_tmpl_rfc4543, &ualg_tmpl_rfc7539esp,
	&ualg_tmpl_authenc, &ualg_tmpl_authencesn, &ualg_tmpl_seqiv, &ualg_tmpl_echainiv,
	&ualg_tmpl_pcbc, &ualg_tmpl_cfb, &ualg_tmpl_ofb,
	&ualg_tmpl_cmac, &ualg_tmpl_xcbc, &ualg_tmpl_essiv, &ualg_tmpl_xctr, &ualg_tmpl_lrw,
	&ualg_tmpl_cbcmac, &ualg_tmpl_gcm, &ualg_tmpl_kw, &ualg_tmpl_rfc3686,
	&ualg_tmpl_pcrypt, &ualg_tmpl_cryptd,
	&ualg_tmpl_adiantum,
};

const struct ualg_template *ualg_tmpl_find(const char *name)
{
	for (size_t i = 0; i < sizeof(templates) / sizeof(templates[0]); i++)
		if (!strcmp(templates[i]->name, name))
			return templates[i];
	return NULL;
}

const char *ualg_alg_type_name(enum ualg_alg_type type)
{
	switch (type) {
	case UALG_ALG_CIPHER: return "cipher";
	case UALG_ALG_SHASH: return "shash";
	case UALG_ALG_SKCIPHER: return "skcipher";
	case UALG_ALG_AEAD: return "aead";
	case UALG_ALG_RNG: return "rng";
	case UALG_ALG_AKCIPHER: return "akcipher";
	case UALG_ALG_KPP: return "kpp";
	case UALG_ALG_COMP: return "scomp";
	}
	return "unknown";
}

static struct ualg_alg *find_registered(const char *name)
{
	for (struct ualg_alg *a = alg_list; a; a = a->next)
		if (!strcmp(a->driver, name) || !strcmp(a->name, name))
			return a;
	return NULL;
}

/* Exact driver-name matches win; otherwise the highest priority among
 * generic-name matches, as __crypto_alg_lookup does.  Algorithms that
 * failed their self-test are never returned. */
#define ANY_TYPE (-1)	/* crypto_user's NEWALG asks for a name of any type */

static bool type_matches(const struct ualg_alg *a, int type)
{
	return type == ANY_TYPE || a->type == (enum ualg_alg_type)type;
}

static struct ualg_alg *best_match(int type, const char *name)
{
	struct ualg_alg *best = NULL;

	for (struct ualg_alg *a = alg_list; a; a = a->next) {
		const bool driver = !strcmp(a->driver, name);
		if (!type_matches(a, type) || (!driver && strcmp(a->name, name)) || !usable(a))
			continue;
		if (driver)
			return a;
		if (!best || a->priority > best->priority ||
		    (a->priority == best->priority && a->rank < best->rank))
			best = a;
	}
	return best;
}

/* Programs written for Linux sometimes bind to a kernel driver name
 * ("sha256-generic", "cbc-aes-aesni").  Those implementations do not exist
 * here; our driver of the same algorithm ("sha256-openssl",
 * "crc32c-isal": the base, a dash, the module) stands in for them. */
static const char *const kernel_driver_suffixes[] = {
	"-generic", "-aesni", "-ssse3", "-avx", "-avx2", "-ni", "-asm", "-x86_64", "-lib",
};

/* Kernel drivers whose names do not follow the suffix pattern, with the
 * algorithm that stands in for them here (a template name is built). */
static const struct {
	const char *kernel, *ours;
} kernel_driver_names[] = {
	{ "generic-gcm-aesni", "gcm-aes-openssl" },
	{ "rfc4106-gcm-aesni", "rfc4106(gcm-aes-openssl)" },
};

static struct ualg_alg *lookup(int type, const char *name, int *err);

static struct ualg_alg *kernel_driver_alias(int type, const char *name)
{
	const size_t len = strlen(name);
	char alias[UALG_MAX_ALG_NAME + 8];

	for (size_t i = 0; i < sizeof(kernel_driver_names) / sizeof(kernel_driver_names[0]); i++) {
		if (strcmp(name, kernel_driver_names[i].kernel))
			continue;
		int err;
		struct ualg_alg *a = lookup(type, kernel_driver_names[i].ours, &err);
		if (a)
			ualg_alg_put(a);	/* registered: the caller takes its own */
		return a;
	}

	for (size_t i = 0; i < sizeof(kernel_driver_suffixes) / sizeof(kernel_driver_suffixes[0]); i++) {
		const size_t sl = strlen(kernel_driver_suffixes[i]);
		if (len <= sl || strcmp(name + len - sl, kernel_driver_suffixes[i]))
			continue;
		ualg_backend_want_all();	/* any module may stand in */
		for (struct ualg_alg *a = alg_list; a; a = a->next) {
			snprintf(alias, sizeof(alias), "%.*s-%s", (int)(len - sl), name, a->module);
			if (type_matches(a, type) && !strcmp(a->driver, alias) && usable(a))
				return a;
		}
	}
	return NULL;
}

/* Algorithms registered whole under a template's name, whose template is
 * not provided here, with the arguments the kernel's template takes as
 * spawns: crypto_grab_*() finds those by driver name as well.  The other
 * arguments are names the template compares as they are (pkcs1pad's hash,
 * rsa_lookup_asn1()), so a driver name there is no match. */
static const struct {
	const char *tmpl;
	unsigned spawns;	/* bit i: argument i is a spawn */
} whole_templates[] = {
	{ "pkcs1pad", 1u << 0 },
	{ "vmac64", 1u << 0 },
};

/* The generic name of such an algorithm written with driver names for its
 * spawns, written to out ("pkcs1pad(rsa-generic,sha256)":
 * "pkcs1pad(rsa,sha256)"); false if name is not one, or a spawn is not
 * found. */
static bool whole_generic_name(const char *name, char out[UALG_MAX_ALG_NAME])
{
	char tname[UALG_MAX_ALG_NAME];
	char args[UALG_TMPL_MAX_ARGS][UALG_MAX_ALG_NAME];
	unsigned nargs, spawns = 0;
	size_t i;

	if (ualg_tmpl_parse(name, tname, sizeof(tname), args, &nargs) || ualg_tmpl_find(tname))
		return false;
	for (i = 0; i < sizeof(whole_templates) / sizeof(whole_templates[0]); i++)
		if (!strcmp(whole_templates[i].tmpl, tname))
			break;
	if (i == sizeof(whole_templates) / sizeof(whole_templates[0]))
		return false;
	spawns = whole_templates[i].spawns;
	int off = snprintf(out, UALG_MAX_ALG_NAME, "%s(", tname);
	for (unsigned a = 0; a < nargs; a++) {
		const char *arg = args[a];
		struct ualg_alg *spawn = NULL;
		int err;
		if (spawns & 1u << a) {
			spawn_depth++;
			spawn = lookup(ANY_TYPE, arg, &err);
			spawn_depth--;
			if (!spawn)
				return false;
			arg = spawn->name;
		}
		if (off < UALG_MAX_ALG_NAME)
			off += snprintf(out + off, UALG_MAX_ALG_NAME - (size_t)off, "%s%s",
					a ? "," : "", arg);
		ualg_alg_put(spawn);
	}
	if (off + 1 >= UALG_MAX_ALG_NAME)
		return false;
	out[off] = ')';
	out[off + 1] = '\0';
	return strcmp(out, name) != 0;
}

/* The driver name here of a kernel driver name, written to out: a
 * registered driver's own name, the stand-in for a kernel driver
 * ("sha1-generic": "sha1-openssl"), and for a template instance the
 * template over its arguments' ("hmac(sha1-generic)": "hmac(sha1-openssl)"),
 * which is the driver name the instance gets when that name builds it.
 * Anything else is copied as it is. */
void ualg_driver_canon(const char *name, char out[UALG_MAX_ALG_NAME])
{
	char tname[UALG_MAX_ALG_NAME];
	char args[UALG_TMPL_MAX_ARGS][UALG_MAX_ALG_NAME];
	unsigned nargs;
	const size_t len = strnlen(name, UALG_MAX_ALG_NAME - 1);

	snprintf(out, UALG_MAX_ALG_NAME, "%.*s", (int)len, name);
	ualg_backend_want(out);
	for (const struct ualg_alg *a = alg_list; a; a = a->next)
		if (!strcmp(a->driver, out))
			return;
	char generic[UALG_MAX_ALG_NAME];
	if (whole_generic_name(out, generic)) {
		ualg_backend_want(generic);
		const struct ualg_alg *a = best_match(ANY_TYPE, generic);
		if (a)
			snprintf(out, UALG_MAX_ALG_NAME, "%s", a->driver);
		return;
	}
	if (!ualg_tmpl_parse(out, tname, sizeof(tname), args, &nargs)) {
		char buf[UALG_MAX_ALG_NAME], arg[UALG_MAX_ALG_NAME];
		int off = snprintf(buf, sizeof(buf), "%s(", tname);
		for (unsigned i = 0; i < nargs && off < (int)sizeof(buf); i++) {
			ualg_driver_canon(args[i], arg);
			off += snprintf(buf + off, sizeof(buf) - (size_t)off, "%s%s", i ? "," : "", arg);
		}
		if (off + 1 < (int)sizeof(buf)) {
			buf[off] = ')';
			buf[off + 1] = '\0';
			memcpy(out, buf, sizeof(buf));
		}
		return;
	}
	for (size_t i = 0; i < sizeof(kernel_driver_names) / sizeof(kernel_driver_names[0]); i++)
		if (!strcmp(out, kernel_driver_names[i].kernel)) {
			ualg_driver_canon(kernel_driver_names[i].ours, out);
			return;
		}
	for (size_t i = 0; i < sizeof(kernel_driver_suffixes) / sizeof(kernel_driver_suffixes[0]); i++) {
		const size_t sl = strlen(kernel_driver_suffixes[i]);
		if (len <= sl || strcmp(name + len - sl, kernel_driver_suffixes[i]))
			continue;
		ualg_backend_want_all();
		for (struct ualg_alg *a = alg_list; a; a = a->next) {
			char alias[UALG_MAX_ALG_NAME + 8];
			snprintf(alias, sizeof(alias), "%.*s-%s", (int)(len - sl), name, a->module);
			if (!strcmp(a->driver, alias) && usable(a)) {
				snprintf(out, UALG_MAX_ALG_NAME, "%s", a->driver);
				return;
			}
		}
	}
}

/* FIPS mode: marks what is not approved; an approved algorithm failing
 * its self-test is what makes the kernel panic (alg_test()). */
static void fips_judge(struct ualg_alg *alg)
{
	alg->fips_internal = !ualg_fips_alg_approved(alg);
	if (alg->fips_internal || alg->selftest != UALG_SELFTEST_FAILED || fips_failed)
		return;
	fips_failed = alg;
	fprintf(stderr, "ualg: FIPS mode: self-test of %s (%s) failed\n", alg->name, alg->driver);
	if (fips_fatal_hook)
		fips_fatal_hook(alg);
}

static _Atomic uint32_t registry_gen;

uint32_t ualg_registry_gen(void)
{
	return atomic_load_explicit(&registry_gen, memory_order_relaxed);
}

void ualg_alg_changed(void)
{
	atomic_fetch_add_explicit(&registry_gen, 1, memory_order_relaxed);
}

int ualg_register(struct ualg_alg *alg)
{
	for (struct ualg_alg *a = alg_list; a; a = a->next)
		if (!strcmp(a->driver, alg->driver))
			return -EEXIST;
	if (!defer_tests)
		alg->selftest = ualg_selftest_run(alg) ? UALG_SELFTEST_FAILED : UALG_SELFTEST_PASSED;
	alg->rank = registering_rank;
	alg->next = NULL;
	ualg_alg_changed();
	*alg_tail = alg;
	alg_tail = &alg->next;
	if (ualg_fips_enabled())
		fips_judge(alg);
	return 0;
}

static void retire(struct ualg_alg *inst);

void ualg_instances_cap(unsigned cap)
{
	builder_cap = cap;
}

void ualg_set_builder(uint32_t id)
{
	builder = id;
}

static unsigned built_by(uint32_t id)
{
	unsigned n = 0;

	for (const struct ualg_alg *a = alg_list; a; a = a->next)
		n += ualg_alg_is_instance(a) && a->builder == id;
	return n;
}

/* The oldest unused instance id built, unregistered; false if none. */
static bool retire_one(uint32_t id)
{
	for (struct ualg_alg *a = alg_list; a; a = a->next)
		if (ualg_alg_is_instance(a) && a->builder == id && !a->refcnt) {
			retire(a);
			return true;
		}
	return false;
}

unsigned ualg_instances_reclaim(uint32_t id)
{
	unsigned n = 0;

	while (id != UALG_BUILDER_NONE && retire_one(id))
		n++;
	return n;
}

/* Room for one more instance of the current builder. */
static bool builder_room(void)
{
	if (builder == UALG_BUILDER_NONE || !builder_cap)
		return true;
	while (built_by(builder) >= builder_cap)
		if (!retire_one(builder))
			return false;
	return true;
}

static struct ualg_alg *instantiate(int type, const char *name, int *err)
{
	char tname[UALG_MAX_ALG_NAME];
	char args[UALG_TMPL_MAX_ARGS][UALG_MAX_ALG_NAME];
	const char *argv[UALG_TMPL_MAX_ARGS];
	unsigned nargs;

	if (ualg_tmpl_parse(name, tname, sizeof(tname), args, &nargs)) {
		*err = ENOENT;
		return NULL;
	}
	const struct ualg_template *tmpl = ualg_tmpl_find(tname);
	if (!tmpl) {
		*err = ENOENT;
		return NULL;
	}
	for (unsigned i = 0; i < nargs; i++)
		argv[i] = args[i];
	if (!builder_room()) {
		*err = ENOMEM;
		return NULL;
	}
	spawn_depth++;
	struct ualg_alg *inst = tmpl->create(argv, nargs, err);
	spawn_depth--;
	if (!inst) {
		/* A template that cannot be built over its arguments is, to
		 * the caller, an algorithm that does not exist. */
		if (*err != ENOMEM && *err != ENAMETOOLONG)
			*err = ENOENT;
		return NULL;
	}
	inst->builder = builder;
	if (tmpl->keeps_name || tmpl->exact_name) {
		/* The instance has its spawn's generic name (pcrypt,
		 * cryptd): only its driver name finds it, as the kernel's
		 * larval waits for an algorithm of the name asked for; an
		 * exact_name template's by either of its names.  (The
		 * kernel keeps the instance it built; it is dropped here.) */
		char want[UALG_MAX_ALG_NAME];
		ualg_driver_canon(name, want);
		if (strcmp(inst->driver, want) && (tmpl->keeps_name || strcmp(inst->name, name))) {
			ualg_instance_free(inst);
			*err = ENOENT;
			return NULL;
		}
	}
	if (ualg_register(inst)) {
		/* The same instance reached by another spelling (driver names
		 * of the spawns): use the registered one. */
		struct ualg_alg *dup = find_registered(inst->driver);
		ualg_instance_free(inst);
		inst = dup;
	}
	ensure_tested(inst);
	if (!type_matches(inst, type) || inst->selftest != UALG_SELFTEST_PASSED) {
		*err = inst->selftest == UALG_SELFTEST_FAILED ? ELIBBAD : ENOENT;
		return NULL;
	}
	if (inst->fips_internal && !spawn_depth) {
		*err = ENOENT;	/* built and registered, but disallowed in FIPS mode */
		return NULL;
	}
	return inst;
}

static struct ualg_alg *lookup(int type, const char *name, int *err)
{
	if (strnlen(name, UALG_MAX_ALG_NAME) >= UALG_MAX_ALG_NAME) {
		*err = ENAMETOOLONG;
		return NULL;
	}
	ualg_backend_want(name);
	struct ualg_alg *alg = best_match(type, name);
	char generic[UALG_MAX_ALG_NAME];
	if (!alg)
		alg = kernel_driver_alias(type, name);
	if (!alg && whole_generic_name(name, generic)) {
		ualg_backend_want(generic);
		alg = best_match(type, generic);
	}
	if (!alg) {
		/* Present but failed its self-test: ELIBBAD, as the kernel.
		 * (In FIPS mode the kernel does not test what it refuses.) */
		for (struct ualg_alg *a = alg_list; a; a = a->next)
			if (type_matches(a, type) && a->selftest == UALG_SELFTEST_FAILED &&
			    (!a->fips_internal || spawn_depth) &&
			    (!strcmp(a->driver, name) || !strcmp(a->name, name))) {
				*err = ELIBBAD;
				return NULL;
			}
		alg = instantiate(type, name, err);
		if (!alg)
			return NULL;
	}
	ualg_alg_get(alg);
	return alg;
}

struct ualg_alg *ualg_alg_lookup(enum ualg_alg_type type, const char *name, int *err)
{
	return lookup((int)type, name, err);
}

struct ualg_alg *ualg_alg_lookup_any(const char *name, int *err)
{
	return lookup(ANY_TYPE, name, err);
}

struct ualg_alg *ualg_alg_lookup_exportable(enum ualg_alg_type type, const char *name, int *err)
{
	want_export = true;
	struct ualg_alg *alg = lookup((int)type, name, err);
	want_export = false;
	return alg;
}

int ualg_alg_instantiate(const char *name)
{
	int err = 0;
	struct ualg_alg *alg = lookup(ANY_TYPE, name, &err);

	ualg_alg_put(alg);
	return alg ? 0 : -err;
}

void ualg_alg_get(struct ualg_alg *alg)
{
	alg->refcnt++;
}

void ualg_alg_put(struct ualg_alg *alg)
{
	if (alg && alg->refcnt && !--alg->refcnt && alg->dead)
		ualg_instance_free(alg);
}

static void unlink_alg(struct ualg_alg *alg)
{
	ualg_alg_changed();
	for (struct ualg_alg **p = &alg_list; *p; p = &(*p)->next)
		if (*p == alg) {
			*p = alg->next;
			if (alg_tail == &alg->next)
				alg_tail = p;
			alg->next = NULL;
			return;
		}
}

/* Unregisters an instance, freeing it now or when its last user goes. */
static void retire(struct ualg_alg *inst)
{
	unlink_alg(inst);
	inst->dead = true;
	if (!inst->refcnt)
		ualg_instance_free(inst);
}

static void remove_spawns(struct ualg_alg *alg)
{
	for (struct ualg_alg *a = alg_list; a;) {
		bool built_on = false;
		for (unsigned i = 0; i < UALG_MAX_SPAWNS; i++)
			built_on |= a->spawns[i] == alg;
		if (!built_on) {
			a = a->next;
			continue;
		}
		remove_spawns(a);
		retire(a);
		a = alg_list;	/* the list changed under us */
	}
}

void ualg_alg_set_priority(struct ualg_alg *alg, int priority)
{
	remove_spawns(alg);
	alg->priority = priority;
	ualg_alg_changed();
}

int ualg_alg_unregister(struct ualg_alg *alg)
{
	if (!ualg_alg_is_instance(alg))
		return -EINVAL;
	if (alg->refcnt)
		return -EBUSY;
	retire(alg);
	return 0;
}

const struct ualg_alg *ualg_alg_next(const struct ualg_alg *prev)
{
	if (!prev)
		ualg_backend_want_all();
	return prev ? prev->next : alg_list;
}

/* FIPS mode: every approved name we can build is built now, so that its
 * self-test runs before algd serves anyone (the kernel tests each on
 * registration; FIPS 140 wants them before first use).  Names we have no
 * implementation for (rsa, lz4, kw(aes)...) fail to build and are skipped. */
static int fips_power_on_tests(void)
{
	const char *const *names;
	const size_t n = ualg_fips_approved_names(&names);

	for (size_t i = 0; i < n && !fips_failed; i++) {
		int err = 0;
		ualg_alg_put(lookup(ANY_TYPE, names[i], &err));
	}
	return fips_failed ? -ELIBBAD : 0;
}

/* The order of registration: the core's drivers and the backends
 * (backend.h), which the host registers now or when first wanted. */
static const struct {
	int (*reg)(void);	/* the core's own */
	const char *backend;	/* or a backend's */
} order[] = {
	{ ualg_openssl_register, NULL }, { ualg_openssl_sha_register, NULL },
	{ ualg_nettle_register, NULL }, { NULL, "checksum" }, { NULL, "sodium" },
	{ ualg_nettle_more_register, NULL }, { NULL, "ipsecmb" }, { ualg_asym_register, NULL },
	{ NULL, "compress" }, { ualg_null_register, NULL }, { NULL, "botan" },
	{ NULL, "cryptopp" }, { ualg_jitter_register, NULL },
	{ ualg_fcrypt_register, NULL }, { ualg_michael_mic_register, NULL },
	{ ualg_ansi_cprng_register, NULL },
	{ ualg_own_register, NULL },
};

static int register_ranked(uint8_t rank, int (*reg)(void))
{
	const uint8_t saved = registering_rank;
	registering_rank = rank;
	int r = reg();
	registering_rank = saved;
	return r;
}

int ualg_backend_register(const char *backend, int (*reg)(void))
{
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (order[i].backend && !strcmp(order[i].backend, backend))
			return register_ranked((uint8_t)i, reg);
	return -ENOENT;
}

const char *ualg_backend_of(const struct ualg_alg *alg)
{
	return alg->rank < sizeof(order) / sizeof(order[0]) ? order[alg->rank].backend : NULL;
}

bool ualg_backend_listing(void)
{
	return listing;
}

void ualg_backend_set_listing(void)
{
	listing = true;
}

int ualg_core_init(void)
{
	int r = 0;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]) && !r; i++)
		r = order[i].reg ? register_ranked((uint8_t)i, order[i].reg)
				 : ualg_backend_start(order[i].backend);
	/* After every driver: the power-on tests cover them all. */
	if (!r && ualg_fips_enabled())
		r = fips_power_on_tests();
	return r;
}

/* Frees everything at once: instances are not unlinked from their spawns
 * first, since the spawns go too. */
void ualg_core_exit(void)
{
	struct ualg_alg *a = alg_list;

	alg_list = NULL;
	alg_tail = &alg_list;
	fips_failed = NULL;
	while (a) {
		struct ualg_alg *next = a->next;
		if (a->destroy)
			a->destroy(a);
		a = next;
	}
	ualg_openssl_unregister();
}
