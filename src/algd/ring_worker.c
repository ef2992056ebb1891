/* The ring workers: threads, one per core by default, each polling its
 * rings' submission queues and sleeping on their eventfds when idle; rings
 * come and go through a worker's command queue (see ring_impl.h). */
#include "ring_impl.h"
#include "clock.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define POLL_US_MIN 2u
#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#endif
/* A ring whose completion queue is full is looked at again after this
 * long, doubling while it stays full: its worker sleeps meanwhile. */
#define CQ_FULL_WAIT_MIN_MS 1
#define CQ_FULL_WAIT_MAX_MS 64

static unsigned n_workers_wanted;
static unsigned poll_us_max = 50;
static struct worker *workers;
static unsigned n_workers, next_worker;

void ring_set_workers(unsigned n)
{
	n_workers_wanted = n;
}

void ring_set_poll_us(unsigned us)
{
	poll_us_max = us;
}

unsigned ring_poll_us(void)
{
	return poll_us_max;
}

/* Under cmd_lock throughout: a ring just added may already be queued for
 * removal, which rewrites its cmd_next. */
static void worker_commands(struct worker *w)
{
	pthread_mutex_lock(&w->cmd_lock);
	for (struct ring *r = w->adds; r; r = r->cmd_next) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = r };
		epoll_ctl(w->epfd, EPOLL_CTL_ADD, r->sq_efd, &ev);
		r->next = w->rings;
		w->rings = r;
	}
	for (struct ring *r = w->removes, *next; r; r = next) {
		next = r->cmd_next;
		for (struct ring **p = &w->rings; *p; p = &(*p)->next)
			if (*p == r) {
				*p = r->next;
				break;
			}
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, r->sq_efd, NULL);
		ring_free(r);
	}
	w->adds = w->removes = NULL;
	__atomic_store_n(&w->pending, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&w->cmd_lock);
}

/* Tells every ring's client to kick us, then checks once more that
 * nothing arrived meanwhile.  Returns true when it is safe to sleep. */
static bool worker_may_sleep(struct worker *w, bool sleeping)
{
	for (struct ring *r = w->rings; r; r = r->next) {
		if (sleeping)
			__atomic_fetch_or(&r->sh->algd_flags, UALG_RING_SQ_SLEEPING, __ATOMIC_SEQ_CST);
		else
			__atomic_fetch_and(&r->sh->algd_flags, ~UALG_RING_SQ_SLEEPING, __ATOMIC_SEQ_CST);
	}
	if (!sleeping)
		return false;
	for (struct ring *r = w->rings; r; r = r->next)
		if (!r->broken && !r->cq_full &&
		    __atomic_load_n(&r->sh->sq_tail, __ATOMIC_ACQUIRE) != r->sq_head)
			return false;
	return !__atomic_load_n(&w->pending, __ATOMIC_ACQUIRE);
}

static void worker_sleep(struct worker *w)
{
	struct epoll_event evs[64];

	bool full = false;
	for (struct ring *r = w->rings; r; r = r->next)
		full |= r->cq_full && !r->broken;
	if (!full)
		w->cq_full_wait_ms = CQ_FULL_WAIT_MIN_MS;
	if (worker_may_sleep(w, true)) {
		const uint64_t start = now_us();
		/* A full completion queue gets room when its client reaps,
		 * which kicks no one: look again after a while. */
		int n = epoll_wait(w->epfd, evs, 64, full ? w->cq_full_wait_ms : -1);
		if (full && w->cq_full_wait_ms < CQ_FULL_WAIT_MAX_MS)
			w->cq_full_wait_ms *= 2;
		for (int i = 0; i < n; i++) {
			uint64_t v;
			int fd = evs[i].data.ptr ? ((struct ring *)evs[i].data.ptr)->sq_efd : w->cmd_efd;
			(void)!read(fd, &v, sizeof(v));
		}
		/* Woken soon after giving up: polling longer would have
		 * caught it.  Woken late: poll less next time. */
		const uint64_t slept = now_us() - start;
		if (slept < poll_us_max)
			w->poll_us = w->poll_us * 2 < poll_us_max ? w->poll_us * 2 : poll_us_max;
		else if (w->poll_us / 2 >= POLL_US_MIN)
			w->poll_us /= 2;
	}
	worker_may_sleep(w, false);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t last_work = now_us();

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&w->pending, __ATOMIC_ACQUIRE))
			worker_commands(w);
		unsigned done = 0;
		for (struct ring *r = w->rings; r; r = r->next)
			done += ring_service(r);
		if (done) {
			last_work = now_us();
		} else if (now_us() - last_work >= w->poll_us) {
			worker_sleep(w);
			last_work = now_us();
		} else if (now_us() - last_work > POLL_US_MIN) {
			/* A client spinning on this core must get to run,
			 * or polling would only delay it. */
			sched_yield();
		} else {
			cpu_relax();
		}
	}
	worker_commands(w);
	return NULL;
}

void ring_worker_command(struct worker *w, struct ring *r, bool add)
{
	pthread_mutex_lock(&w->cmd_lock);
	struct ring **list = add ? &w->adds : &w->removes;
	r->cmd_next = *list;
	*list = r;
	__atomic_store_n(&w->pending, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&w->cmd_lock);
	uint64_t one = 1;
	(void)!write(w->cmd_efd, &one, sizeof(one));
}

/* Lets the workers go at exit, so that every ring is freed (and leak
 * checkers stay quiet). */
static void workers_stop(void)
{
	for (unsigned i = 0; i < n_workers; i++) {
		struct worker *w = &workers[i];
		__atomic_store_n(&w->stop, true, __ATOMIC_RELEASE);
		uint64_t one = 1;
		(void)!write(w->cmd_efd, &one, sizeof(one));
		pthread_join(w->thread, NULL);
		close(w->epfd);
		close(w->cmd_efd);
	}
	free(workers);
}

static int workers_start(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = n_workers_wanted ? n_workers_wanted : cpus > 0 ? (unsigned)cpus : 1;

	workers = calloc(n, sizeof(*workers));
	if (!workers)
		return -ENOMEM;
	for (; n_workers < n; n_workers++) {
		struct worker *w = &workers[n_workers];
		w->poll_us = poll_us_max;
		w->cq_full_wait_ms = CQ_FULL_WAIT_MIN_MS;
		w->epfd = epoll_create1(EPOLL_CLOEXEC);
		w->cmd_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
		if (w->epfd < 0 || w->cmd_efd < 0 || epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->cmd_efd, &ev) ||
		    pthread_mutex_init(&w->cmd_lock, NULL) ||
		    pthread_create(&w->thread, NULL, worker_main, w)) {
			if (w->epfd >= 0)
				close(w->epfd);
			if (w->cmd_efd >= 0)
				close(w->cmd_efd);
			break;
		}
	}
	atexit(workers_stop);
	return n_workers ? 0 : -EAGAIN;
}

int ring_workers_start(void)
{
	return workers ? 0 : workers_start();
}

struct worker *ring_worker_pick(void)
{
	return &workers[next_worker++ % n_workers];
}
