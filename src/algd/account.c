/* Per-uid budgets (account.h).  Accounts are made and looked up on the
 * event loop only; their counters are charged from any thread. */
#include "account.h"

#include <stdlib.h>

static struct account *accounts;
static size_t mem_max = ACCOUNT_MEM_MAX_DEFAULT;
static size_t key_heap = ACCOUNT_KEY_HEAP_DEFAULT;
static unsigned fd_max;	/* server.c sets it */
static unsigned max_sockets = 4096;

void account_set_max_sockets(unsigned n)
{
	max_sockets = n;
}

bool account_sockets_full(const struct account *a)
{
	return a->sockets >= max_sockets;
}

void account_set_limits(size_t mem, size_t keys, unsigned fds)
{
	if (mem)
		mem_max = mem;
	if (keys)
		key_heap = keys;
	if (fds)
		fd_max = fds;
}

struct account *account_get(uid_t uid)
{
	struct account *a;

	for (a = accounts; a; a = a->next)
		if (a->uid == uid)
			return a;
	if (!(a = calloc(1, sizeof(*a))))
		return NULL;
	a->uid = uid;
	a->mem.max = mem_max;
	a->keys.max = key_heap;
	a->fds.max = fd_max;
	a->next = accounts;
	accounts = a;
	return a;
}
