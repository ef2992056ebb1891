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

/* NULL file and line: a full secure heap must not push an OpenSSL error,
 * whose state would be allocated here again. */
static void *secure_or_plain(size_t n, bool secure)
{
	if (!secure || !secure_ready())
		return malloc(n);
	void *p = CRYPTO_secure_malloc(n, NULL, 0);
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

size_t ualg_secure_used(void)
{
	return secure_ready() ? CRYPTO_secure_used() : 0;
}
