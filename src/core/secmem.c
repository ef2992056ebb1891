/* Key memory.  Everything that holds key material in algd lives in
 * OpenSSL's secure heap: one mmap'ed arena that is mlock'ed (never swapped),
 * MADV_DONTDUMP (never in a core) and between guard pages, whose blocks are
 * cleansed on free.  Our own key-bearing state (transform contexts, keyed
 * hash states) is allocated there directly.  OpenSSL's internal copies (the
 * key schedules inside EVP contexts) are routed there by an allocator hook:
 * while a key is being set or a keyed state created ("secure section"),
 * every OpenSSL allocation comes from the secure heap.  Outside sections
 * OpenSSL allocates from malloc, and the hook wipes each block when it is
 * freed or moved, so no freed OpenSSL memory keeps old bytes either. */
#include "crypto.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

static _Thread_local unsigned secure_depth;	/* nesting of secure sections, per thread */
static _Thread_local bool secure_exhausted;	/* a section's allocation found the heap full */

static bool secure_ready(void)
{
	return CRYPTO_secure_malloc_initialized();
}

static bool is_secure(const void *p)
{
	return secure_ready() && CRYPTO_secure_allocated(p);
}

static size_t block_size(const void *p)
{
	return is_secure(p) ? CRYPTO_secure_actual_size((void *)p) : malloc_usable_size((void *)p);
}

/* ---- per-owner shares of the heap ----------------------------------
 * Each charged block is remembered with its budget in an open-addressing
 * table (linear probing, backward-shift deletion), so that a free on any
 * thread uncharges the owner that allocated it. */
static _Thread_local struct ualg_budget *secure_budget;

struct charge {
	const void *p;
	struct ualg_budget *b;
	size_t n;
};

static pthread_mutex_t charges_lock = PTHREAD_MUTEX_INITIALIZER;
static struct charge *charges;
static size_t charges_cap, charges_used;	/* cap: a power of two */

static size_t charge_slot(const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (charges_cap - 1);
}

static void charges_put(struct charge c)
{
	size_t i = charge_slot(c.p);
	while (charges[i].p)
		i = (i + 1) & (charges_cap - 1);
	charges[i] = c;
	charges_used++;
}

/* Under charges_lock: room for one more entry, or false. */
static bool charges_reserve(void)
{
	if ((charges_used + 1) * 2 <= charges_cap)
		return true;
	struct charge *old = charges;
	const size_t old_cap = charges_cap;
	size_t cap = old_cap ? old_cap * 2 : 1024;
	struct charge *t = calloc(cap, sizeof(*t));
	if (!t)
		return false;
	charges = t;
	charges_cap = cap;
	charges_used = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].p)
			charges_put(old[i]);
	free(old);
	return true;
}

/* Removes p's entry, if any, and uncharges its owner. */
static void charges_drop(const void *p)
{
	pthread_mutex_lock(&charges_lock);
	if (!charges_used) {
		pthread_mutex_unlock(&charges_lock);
		return;
	}
	size_t i = charge_slot(p);
	while (charges[i].p && charges[i].p != p)
		i = (i + 1) & (charges_cap - 1);
	if (charges[i].p) {
		ualg_budget_uncharge(charges[i].b, charges[i].n);
		charges[i].p = NULL;
		charges_used--;
		/* Backward shift: later entries of the run move up. */
		for (size_t j = (i + 1) & (charges_cap - 1); charges[j].p; j = (j + 1) & (charges_cap - 1)) {
			const size_t home = charge_slot(charges[j].p);
			if (((j - home) & (charges_cap - 1)) >= ((j - i) & (charges_cap - 1))) {
				charges[i] = charges[j];
				charges[j].p = NULL;
				i = j;
			}
		}
	}
	pthread_mutex_unlock(&charges_lock);
}

void ualg_secure_set_budget(struct ualg_budget *b)
{
	secure_budget = b;
}

/* A secure block for the thread's budget, if it has room. */
static void *secure_charged(size_t n)
{
	struct ualg_budget *b = secure_budget;
	if (!b)
		return CRYPTO_secure_malloc(n, NULL, 0);
	pthread_mutex_lock(&charges_lock);
	void *p = NULL;
	if (charges_reserve() && (p = CRYPTO_secure_malloc(n, NULL, 0))) {
		const size_t size = CRYPTO_secure_actual_size(p);
		if (ualg_budget_charge(b, size)) {
			charges_put((struct charge){ p, b, size });
		} else {
			CRYPTO_secure_free(p, NULL, 0);
			p = NULL;
		}
	}
	pthread_mutex_unlock(&charges_lock);
	return p;
}

/* NULL file and line: a full secure heap must not push an OpenSSL error,
 * whose state would be allocated here again. */
static void *secure_or_plain(size_t n, bool secure)
{
	if (!secure || !secure_ready())
		return malloc(n);
	void *p = secure_charged(n);
	if (!p)
		secure_exhausted = true;
	return p;
}

static void hook_free(void *p, const char *file, int line)
{
	(void)file, (void)line;
	if (!p)
		return;
	if (is_secure(p)) {
		charges_drop(p);
		CRYPTO_secure_free(p, NULL, 0);	/* cleanses the block */
		return;
	}
	explicit_bzero(p, malloc_usable_size(p));
	free(p);
}

static void *hook_malloc(size_t n, const char *file, int line)
{
	(void)file, (void)line;
	return secure_or_plain(n, secure_depth > 0);
}

/* Never realloc() in place: the old block would be freed unwiped.  A
 * secure block stays secure. */
static void *hook_realloc(void *p, size_t n, const char *file, int line)
{
	if (!p)
		return hook_malloc(n, file, line);
	if (!n) {
		hook_free(p, file, line);
		return NULL;
	}
	const size_t old = block_size(p);
	void *q = secure_or_plain(n, secure_depth > 0 || is_secure(p));
	if (!q)
		return NULL;
	memcpy(q, p, old < n ? old : n);
	hook_free(p, file, line);
	return q;
}

int ualg_secmem_init(size_t heap_size)
{
	/* Must precede OpenSSL's first allocation. */
	if (!CRYPTO_set_mem_functions(hook_malloc, hook_realloc, hook_free))
		return -1;
	switch (CRYPTO_secure_malloc_init(heap_size, 32)) {
	case 1: return 0;
	case 2: return 1;	/* usable, but mlock or madvise failed */
	default: return -1;
	}
}

void ualg_secure_begin(void)
{
	if (secure_depth++ == 0)
		secure_exhausted = false;
}

int ualg_secure_end(void)
{
	secure_depth--;
	return secure_depth == 0 && secure_exhausted ? -ENOMEM : 0;
}

bool ualg_secure_active(void)
{
	return secure_depth > 0;
}

void *ualg_secure_zalloc(size_t n)
{
	void *p = secure_or_plain(n ? n : 1, true);

	if (p)
		memset(p, 0, n ? n : 1);
	return p;
}

void ualg_secure_free(void *p)
{
	hook_free(p, NULL, 0);
}

