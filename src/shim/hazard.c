/* The data path's reference on an fd's entry: a hazard pointer.
 *
 * A send or a read holds its socket for the length of the call.  A
 * reference count (afd_get) costs two atomic read-modify-writes per call,
 * a quarter of a 64-byte hash's whole cost in the in-process engine.  So
 * the calls that move data publish the entry in a slot of their thread
 * instead (afd_enter): a plain store, then the table is read again.
 *
 * The other side pays.  An entry whose last reference went (afd_put) is
 * retired, not released: the releasing thread makes every thread's pending
 * stores visible (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), skipped
 * when no other thread ever held a slot) and releases it unless some slot
 * holds it; the holder then releases it when it leaves.  Where membarrier
 * is refused, enter pays a full fence instead.
 *
 * Everything here is lock-free: a signal handler may close an fd that the
 * code it interrupted is using.  A thread already holding its slot (a
 * handler inside a call) takes a counted reference instead. */
#include "interpose.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static void reclaim(void);

/* One thread's slot.  Records are never freed: a thread's exit returns
 * its record for another thread to take, and a scan may walk them all. */
struct hazard {
	_Atomic(struct afd *) held;
	atomic_bool in_use;
	struct hazard *next;
};

static _Atomic(struct hazard *) records;
static atomic_uint users;		/* records in use */
static atomic_bool fence_mode;		/* membarrier refused: enter fences */
static bool have_key;			/* no exit key: no slots, counted references */
static pthread_key_t exit_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static __thread struct hazard *self __attribute__((tls_model("initial-exec")));
static __thread volatile sig_atomic_t busy __attribute__((tls_model("initial-exec")));

/* Retired entries (linked through free_next), and a flag for the one
 * thread that reclaims at a time; a reclaim asked for meanwhile is run by
 * that thread before it lets go. */
static _Atomic(struct afd *) retired;
static atomic_flag reclaiming = ATOMIC_FLAG_INIT;
static atomic_bool reclaim_asked;

static long membarrier(int cmd)
{
	return syscall(SYS_membarrier, cmd, 0, 0);
}

/* The thread's end, also by cancellation inside a call: the slot is let
 * go, and what it held released if it was retired meanwhile. */
static void thread_exit(void *p)
{
	struct hazard *h = p;
	struct afd *a = atomic_exchange(&h->held, NULL);

	busy = 0;
	if (a && !atomic_load(&a->refs))
		reclaim();
	atomic_store(&h->in_use, false);
	atomic_fetch_sub(&users, 1);
	self = NULL;
}

/* In the child of fork() only the forking thread is left. */
static void after_fork_child(void)
{
	unsigned n = 0;

	for (struct hazard *h = atomic_load(&records); h; h = h->next)
		if (h != self) {
			atomic_store(&h->held, NULL);
			atomic_store(&h->in_use, false);
		} else {
			n = 1;
		}
	atomic_store(&users, n);
	atomic_flag_clear(&reclaiming);
}

static void init(void)
{
	have_key = !pthread_key_create(&exit_key, thread_exit);
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		atomic_store(&fence_mode, true);
	pthread_atfork(NULL, NULL, after_fork_child);
}

static __attribute__((noinline)) struct hazard *take_record(void)
{
	pthread_once(&once, init);
	if (!have_key)
		return NULL;
	struct hazard *h;
	for (h = atomic_load(&records); h; h = h->next) {
		bool no = false;
		if (atomic_compare_exchange_strong(&h->in_use, &no, true))
			break;
	}
	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return NULL;
		atomic_init(&h->in_use, true);
		h->next = atomic_load(&records);
		while (!atomic_compare_exchange_weak(&records, &h->next, h))
			;
	}
	if (pthread_setspecific(exit_key, h)) {
		atomic_store(&h->in_use, false);
		return NULL;
	}
	/* A sequentially consistent increment: a releasing thread that read
	 * the count before it saw this thread's first table read since. */
	atomic_fetch_add(&users, 1);
	return self = h;
}

struct afd *afd_enter(int fd, struct afd_hold *hold)
{
	_Atomic(struct afd *) *s = afd_slot(fd);

	hold->a = NULL;
	if (!s || !atomic_load_explicit(s, memory_order_relaxed))
		return NULL;	/* not ours: the program's own fds pay this */
	struct hazard *h = self;
	if (busy || (!h && !(h = take_record()))) {
		hold->hazard = false;
		return hold->a = afd_get(fd);
	}
	busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	struct afd *a, *missed = NULL;
	while ((a = atomic_load_explicit(s, memory_order_acquire))) {
		atomic_store_explicit(&h->held, a, memory_order_relaxed);
		if (atomic_load_explicit(&fence_mode, memory_order_relaxed))
			atomic_thread_fence(memory_order_seq_cst);
		else
			atomic_signal_fence(memory_order_seq_cst);	/* membarrier orders it */
		if (atomic_load_explicit(s, memory_order_acquire) == a)
			break;
		missed = a;	/* closed meanwhile: its releaser may have seen the slot */
	}
	if (!a) {
		atomic_store_explicit(&h->held, NULL, memory_order_release);
		atomic_signal_fence(memory_order_seq_cst);
		busy = 0;
	}
	if (missed && !atomic_load_explicit(&missed->refs, memory_order_relaxed))
		reclaim();
	hold->hazard = true;
	return hold->a = a;
}

void afd_leave(struct afd_hold *hold)
{
	struct afd *a = hold->a;

	if (!a)
		return;
	hold->a = NULL;
	if (!hold->hazard) {
		afd_put(a);
		return;
	}
	atomic_store_explicit(&self->held, NULL, memory_order_release);
	atomic_signal_fence(memory_order_seq_cst);
	busy = 0;
	/* Retired while held: its releaser saw this slot (entries are never
	 * freed, so refs is there to read). */
	if (!atomic_load_explicit(&a->refs, memory_order_relaxed))
		reclaim();
}

void afd_leave_cleanup(void *hold)
{
	afd_leave(hold);
}

/* Every other thread's slot store before now is visible after this. */
static void sync_threads(void)
{
	const unsigned n = atomic_load(&users);
	if (!n || (n == 1 && self))
		return;
	if (atomic_load(&fence_mode))
		return;		/* enter fenced; so did the decrement that retired */
	long r = membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
	if (r && errno == EPERM)	/* a fork child registers again */
		r = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) ? r :
		    membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
	if (r)	/* refused since (a seccomp filter): fences from now on */
		atomic_store(&fence_mode, true);
}

static bool held_anywhere(const struct afd *a)
{
	for (struct hazard *h = atomic_load(&records); h; h = h->next)
		if (atomic_load_explicit(&h->held, memory_order_acquire) == a)
			return true;
	return false;
}

static void push(struct afd *first, struct afd *last)
{
	last->free_next = atomic_load(&retired);
	while (!atomic_compare_exchange_weak(&retired, &last->free_next, first))
		;
}

static void reclaim_once(void)
{
	struct afd *a = atomic_exchange(&retired, NULL);
	if (!a)
		return;
	sync_threads();
	struct afd *keep = NULL, *keep_last = NULL;
	while (a) {
		struct afd *next = a->free_next;
		if (held_anywhere(a)) {
			a->free_next = keep;
			keep = a;
			if (!keep_last)
				keep_last = a;
		} else {
			afd_release(a);
		}
		a = next;
	}
	if (keep)
		push(keep, keep_last);
}

static void reclaim(void)
{
	const int err = errno;	/* the call that dropped it keeps its own */

	atomic_store(&reclaim_asked, true);
	while (atomic_load(&reclaim_asked) && !atomic_flag_test_and_set(&reclaiming)) {
		atomic_store(&reclaim_asked, false);
		reclaim_once();
		atomic_flag_clear(&reclaiming);
	}
	errno = err;
}

void afd_retire(struct afd *a)
{
	push(a, a);
	reclaim();
}
