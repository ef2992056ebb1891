/* What each client uid may hold in algd, whatever the number of its
 * connections (see algd(8), "Resource limits"):
 *
 *   memory   queued data, receive remainders, parked requests, payload
 *            areas, ring memory and scratch buffers: --uid-mem-max bytes,
 *            past which the request that would allocate fails with ENOMEM,
 *            as the kernel's sock_kmalloc() does when optmem is spent;
 *   keys     the uid's share of the locked key heap: --uid-key-heap
 *            bytes; a transform or key past it gets ENOMEM;
 *   fds      descriptors algd holds for it (connections, op sockets,
 *            a ring's memfd and eventfds): --uid-fd-max, by default a quarter
 *            of algd's RLIMIT_NOFILE; past it EMFILE.
 *
 * An account lives as long as algd (one per uid that ever connected), so
 * nothing charged to it can outlive it. */
#ifndef UALG_ALGD_ACCOUNT_H
#define UALG_ALGD_ACCOUNT_H

#include "crypto.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ACCOUNT_MEM_MAX_DEFAULT (64u << 20)
/* Of the key heap (SECURE_HEAP_SIZE, 4 MiB): a quarter. */
#define ACCOUNT_KEY_HEAP_DEFAULT (1u << 20)

struct account {
	uid_t uid;
	struct ualg_budget mem;		/* bytes */
	struct ualg_budget keys;	/* bytes of the key heap */
	struct ualg_budget fds;		/* descriptors */
	unsigned sockets;		/* AF_ALG sockets and ring transforms (event loop) */
	uint64_t offload_turn;		/* offload.c's, under its lock: when last served */
	struct account *next;
};

/* Limits for accounts made from now on; 0 keeps the default. */
void account_set_limits(size_t mem_max, size_t key_heap, unsigned fd_max);
/* --max-sockets: AF_ALG sockets (transform and op) plus ring transforms. */
void account_set_max_sockets(unsigned n);
bool account_sockets_full(const struct account *a);
/* The uid's account (made on first use); NULL only when out of memory. */
struct account *account_get(uid_t uid);

/* Charges n descriptors: 0, or -EMFILE past the uid's budget. */
static inline int account_fds(struct account *a, unsigned n)
{
	return ualg_budget_charge(&a->fds, n) ? 0 : -EMFILE;
}

/* Charges n descriptors algd holds already and must still close: past
 * the budget too, so that the uid's next requests for more fail. */
static inline void account_fds_hold(struct account *a, unsigned n)
{
	__atomic_fetch_add(&a->fds.used, n, __ATOMIC_RELAXED);
}

static inline void account_fds_put(struct account *a, unsigned n)
{
	ualg_budget_uncharge(&a->fds, n);
}

#endif
