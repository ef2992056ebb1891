/* The table of emulated fds: a two-level array indexed by fd, so that the
 * check on every read()/write()/close() of the program costs one or two
 * atomic loads and never a system call or a lock. */
#include "shim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define L2_BITS 10
#define L2_SIZE (1u << L2_BITS)
#define L1_SIZE 1024u		/* fds up to 1M */

static _Atomic(struct afd *) *_Atomic table[L1_SIZE];
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;

static _Atomic(struct afd *) *slot(int fd, bool create)
{
	if (fd < 0 || (unsigned)fd >= L1_SIZE * L2_SIZE)
		return NULL;
	_Atomic(struct afd *) *l2 = atomic_load_explicit(&table[fd >> L2_BITS], memory_order_acquire);
	if (l2 || !create)
		return l2 ? &l2[fd & (L2_SIZE - 1)] : NULL;
	pthread_mutex_lock(&grow_lock);
	l2 = atomic_load(&table[fd >> L2_BITS]);
	if (!l2) {
		l2 = calloc(L2_SIZE, sizeof(*l2));
		if (l2)
			atomic_store_explicit(&table[fd >> L2_BITS], l2, memory_order_release);
	}
	pthread_mutex_unlock(&grow_lock);
	return l2 ? &l2[fd & (L2_SIZE - 1)] : NULL;
}

struct afd *afd_get(int fd)
{
	_Atomic(struct afd *) *s = slot(fd, false);

	return s ? atomic_load_explicit(s, memory_order_acquire) : NULL;
}

static void afd_put(struct afd *a)
{
	if (a && atomic_fetch_sub(&a->refs, 1) == 1) {
		if (a->nl_peer >= 0)
			real.close(a->nl_peer);
		shm_forget(a);
		client_forget(a);
		inproc_forget(a);
		pthread_mutex_destroy(&a->shm_lock);
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->cond);
		free(a);
	}
}

static void set_slot(int fd, struct afd *a)
{
	_Atomic(struct afd *) *s = slot(fd, a != NULL);

	if (s)
		afd_put(atomic_exchange(s, a));
	else
		afd_put(a);
}

int afd_track(int fd, bool op, const char *type)
{
	struct afd *a = calloc(1, sizeof(*a));

	if (!a || !slot(fd, true)) {
		free(a);
		return -ENOMEM;
	}
	usermem_guard_init();	/* user memory without system calls from now on */
	atomic_init(&a->refs, 1);
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	pthread_mutex_init(&a->shm_lock, NULL);
	atomic_init(&a->shm_state, SHM_NONE);
	atomic_init(&a->nonblock, -1);
	a->op = op;
	a->gen = client_gen();
	a->nl_peer = -1;
	if (type)
		memcpy(a->type, type, sizeof(a->type));
	set_slot(fd, a);
	return 0;
}

void afd_share(int newfd, struct afd *a)
{
	atomic_fetch_add(&a->refs, 1);
	set_slot(newfd, a);
}

void afd_untrack(int fd)
{
	_Atomic(struct afd *) *s = slot(fd, false);

	if (s)
		afd_put(atomic_exchange(s, NULL));
}

int afd_find_fd_of_ipo(const struct inproc_op *ipo)
{
	for (unsigned i = 0; i < L1_SIZE; i++) {
		_Atomic(struct afd *) *l2 = atomic_load_explicit(&table[i], memory_order_acquire);
		for (unsigned j = 0; l2 && j < L2_SIZE; j++) {
			struct afd *a = atomic_load_explicit(&l2[j], memory_order_acquire);
			if (a && a->ipo == ipo)
				return (int)(i << L2_BITS | j);
		}
	}
	return -1;
}

void afd_for_each(void (*fn)(int fd, struct afd *a))
{
	for (unsigned i = 0; i < L1_SIZE; i++) {
		_Atomic(struct afd *) *l2 = atomic_load_explicit(&table[i], memory_order_acquire);
		for (unsigned j = 0; l2 && j < L2_SIZE; j++) {
			struct afd *a = atomic_load_explicit(&l2[j], memory_order_acquire);
			if (a)
				fn((int)(i << L2_BITS | j), a);
		}
	}
}
