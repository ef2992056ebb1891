/* The table of emulated fds: a two-level array indexed by fd, so that the
 * check on every read()/write()/close() of the program costs one or two
 * atomic loads and never a system call or a lock.  A call holds a reference
 * on its fd's entry (afd_get/afd_put, or hazard.c's afd_enter/afd_leave on
 * the data path) for as long as it uses it. */
#include "interpose.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#define L2_BITS AFD_L2_BITS
#define L2_SIZE (1u << L2_BITS)
#define L1_SIZE AFD_L1_SIZE

_Atomic(struct afd *) *_Atomic afd_table[L1_SIZE];
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;

static _Atomic(struct afd *) *slot(int fd, bool create)
{
	_Atomic(struct afd *) *l2 = afd_slot(fd);
	if (l2 || !create || fd < 0 || (unsigned)fd >= L1_SIZE * L2_SIZE)
		return l2;
	pthread_mutex_lock(&grow_lock);
	l2 = atomic_load(&afd_table[fd >> L2_BITS]);
	if (!l2) {
		l2 = calloc(L2_SIZE, sizeof(*l2));
		if (l2)
			atomic_store_explicit(&afd_table[fd >> L2_BITS], l2, memory_order_release);
	}
	pthread_mutex_unlock(&grow_lock);
	return l2 ? &l2[fd & (L2_SIZE - 1)] : NULL;
}

/* Entries whose last reference went: recycled, never freed, so that a
 * thread that read a pointer from the table just before another closed
 * the fd can still try a reference on it (refs 0: it is gone). */
static struct afd *free_list;
static atomic_uint live;	/* sockets tracked, for afd_any() */

bool afd_any(void)
{
	return atomic_load_explicit(&live, memory_order_relaxed) != 0;
}
static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;

static struct afd *afd_alloc(void)
{
	pthread_mutex_lock(&free_lock);
	struct afd *a = free_list;
	if (a)
		free_list = a->free_next;
	pthread_mutex_unlock(&free_lock);
	if (!a)
		a = calloc(1, sizeof(*a));	/* refs 0 */
	return a;
}

static void afd_recycle(struct afd *a)
{
	pthread_mutex_lock(&free_lock);
	a->free_next = free_list;
	free_list = a;
	pthread_mutex_unlock(&free_lock);
}

/* A reference on a unless its count already reached 0. */
static bool try_ref(struct afd *a)
{
	unsigned r = atomic_load_explicit(&a->refs, memory_order_relaxed);
	while (r)
		if (atomic_compare_exchange_weak_explicit(&a->refs, &r, r + 1, memory_order_acquire,
							  memory_order_relaxed))
			return true;
	return false;
}

struct afd *afd_get(int fd)
{
	_Atomic(struct afd *) *s = slot(fd, false);
	if (!s)
		return NULL;
	for (;;) {
		struct afd *a = atomic_load_explicit(s, memory_order_acquire);
		if (!a)
			return NULL;
		if (try_ref(a)) {
			/* Still fd's socket, not an entry recycled meanwhile. */
			if (atomic_load_explicit(s, memory_order_acquire) == a)
				return a;
			afd_put(a);
		}
	}
}

bool afd_is_ours(int fd)
{
	_Atomic(struct afd *) *s = slot(fd, false);

	return s && atomic_load_explicit(s, memory_order_relaxed);
}

/* The last reference went: retired until no call holds it (hazard.c). */
void afd_put(struct afd *a)
{
	if (a && atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1)
		afd_retire(a);
}

void afd_release(struct afd *a)
{
	pool_put(a);
	if (a->nl_peer >= 0)
		real.close(a->nl_peer);
	shm_forget(a);
	client_forget(a);
	client_gather_drop(a);
	client_drop_channel(a);
	local_forget(a);
	inproc_forget(a);
	pthread_mutex_destroy(&a->shm_lock);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cond);
	atomic_fetch_sub_explicit(&live, 1, memory_order_relaxed);
	afd_recycle(a);
}

static void set_slot(int fd, struct afd *a)
{
	_Atomic(struct afd *) *s = slot(fd, a != NULL);

	if (s)
		afd_put(atomic_exchange(s, a));
	else
		afd_put(a);
}

void afd_set_kind(struct afd *a, enum afd_kind kind)
{
	static const struct afd_ops *const ops[] = {
		[AFD_TFM] = &afd_tfm_ops, [AFD_OP] = &afd_op_ops,
		[AFD_RFC_TFM] = &afd_rfc_tfm_ops, [AFD_RFC_OP] = &afd_rfc_op_ops,
		[AFD_NETLINK] = &afd_netlink_ops,
		[AFD_LOCAL_TFM] = &afd_local_tfm_ops, [AFD_LOCAL_OP] = &afd_local_op_ops,
	};
	a->ops = ops[kind];
	a->op = kind == AFD_OP || kind == AFD_RFC_OP || kind == AFD_LOCAL_OP;
	a->rfc = kind == AFD_RFC_TFM || kind == AFD_RFC_OP;
}

void afd_set_type(struct afd *a, const char *salg_type)
{
	static const char *const names[] = {
		[ALG_TYPE_HASH] = "hash", [ALG_TYPE_SKCIPHER] = "skcipher", [ALG_TYPE_AEAD] = "aead",
		[ALG_TYPE_RNG] = "rng", [ALG_TYPE_AKCIPHER] = "akcipher", [ALG_TYPE_KPP] = "kpp",
		[ALG_TYPE_COMPRESSION] = "compression",
	};
	a->type = ALG_TYPE_OTHER;
	for (unsigned i = ALG_TYPE_HASH; i < ALG_TYPE_OTHER; i++)
		if (!strcmp(salg_type, names[i]))
			a->type = (enum afd_alg)i;
}

struct afd *afd_track(int fd, enum afd_kind kind)
{
	struct afd *a = afd_alloc();

	if (!a || !slot(fd, true)) {
		if (a)
			afd_recycle(a);
		return NULL;
	}
	usermem_guard_init();	/* user memory without system calls from now on */
	/* refs is 0 here and stays the only field a stale reader looks at. */
	memset((char *)a + offsetof(struct afd, free_next), 0,
	       sizeof(*a) - offsetof(struct afd, free_next));
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	pthread_mutex_init(&a->shm_lock, NULL);
	atomic_init(&a->shm_state, SHM_NONE);
	atomic_init(&a->nonblock, -1);
	atomic_init(&a->notify_state, NOTIFY_NONE);
	a->notify = NULL;
	atomic_init(&a->fast_state, NOTIFY_NONE);
	afd_set_kind(a, kind);
	atomic_fetch_add_explicit(&live, 1, memory_order_relaxed);
	a->gen = client_gen();
	a->nl_peer = -1;
	a->pool_fd = -1;
	atomic_store_explicit(&a->refs, 2, memory_order_release);	/* the table's and the caller's */
	set_slot(fd, a);
	return a;
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

int afd_replace_file(struct afd *a, int newfd)
{
	bool first = true;
	for (unsigned i = 0; i < L1_SIZE; i++) {
		_Atomic(struct afd *) *l2 = atomic_load_explicit(&afd_table[i], memory_order_acquire);
		for (unsigned j = 0; l2 && j < L2_SIZE; j++) {
			if (atomic_load_explicit(&l2[j], memory_order_acquire) != a)
				continue;
			const int fd = (int)(i << L2_BITS | j);
			if (first) {	/* the open file's status flags */
				int fl = real.fcntl(fd, F_GETFL);
				if (fl >= 0 && (fl & O_NONBLOCK) && real.fcntl(newfd, F_SETFL, O_NONBLOCK))
					return -errno;
				first = false;
			}
			int fdfl = real.fcntl(fd, F_GETFD);
			if (real.dup3(newfd, fd, fdfl >= 0 && (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
				return -errno;
		}
	}
	return 0;
}

int afd_find_fd_of_ipo(const struct inproc_op *ipo)
{
	for (unsigned i = 0; i < L1_SIZE; i++) {
		_Atomic(struct afd *) *l2 = atomic_load_explicit(&afd_table[i], memory_order_acquire);
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
		_Atomic(struct afd *) *l2 = atomic_load_explicit(&afd_table[i], memory_order_acquire);
		for (unsigned j = 0; l2 && j < L2_SIZE; j++) {
			if (!atomic_load_explicit(&l2[j], memory_order_relaxed))
				continue;
			const int fd = (int)(i << L2_BITS | j);
			struct afd *a = afd_get(fd);
			if (a)
				fn(fd, a);
			afd_put(a);
		}
	}
}

void afd_put_cleanup(void *a)
{
	afd_put(a);
}
