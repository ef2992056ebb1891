/* epoll on emulated sockets.  An op fd is an AF_UNIX socket to algd, whose
 * own readiness says nothing about the AF_ALG socket's, so a registration
 * of an emulated fd is kept here and answered from algd (as poll() is),
 * while the real fd is registered with no events: the kernel still does
 * every argument check (EBADF, EEXIST, ENOENT, EINVAL, ELOOP) and reports
 * a hang-up of algd.  Sets without emulated fds cost one atomic load. */
#include "shim.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

struct ep_reg {
	int epfd, fd;
	struct afd *a;		/* the socket registered, to notice a reused fd number */
	uint32_t events;
	uint64_t data;
	uint32_t last;		/* EPOLLET: the mask last reported */
	bool disabled;		/* EPOLLONESHOT after its event */
};

static struct ep_reg *regs;
static size_t nregs, capregs;
static atomic_size_t nregs_any;	/* lock-free fast path for other programs */
static pthread_mutex_t regs_lock = PTHREAD_MUTEX_INITIALIZER;

static struct ep_reg *find(int epfd, int fd)
{
	for (size_t i = 0; i < nregs; i++)
		if (regs[i].epfd == epfd && regs[i].fd == fd)
			return &regs[i];
	return NULL;
}

static void drop(struct ep_reg *r)
{
	*r = regs[--nregs];
	atomic_store(&nregs_any, nregs);
}

static int add(int epfd, int fd, struct afd *a, const struct epoll_event *ev)
{
	if (nregs == capregs) {
		size_t cap = capregs ? capregs * 2 : 16;
		struct ep_reg *n = realloc(regs, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		regs = n;
		capregs = cap;
	}
	regs[nregs++] = (struct ep_reg){ epfd, fd, a, ev->events, ev->data.u64, 0, false };
	atomic_store(&nregs_any, nregs);
	return 0;
}

void epoll_forget(int fd)
{
	if (!atomic_load(&nregs_any))
		return;
	pthread_mutex_lock(&regs_lock);
	for (size_t i = nregs; i-- > 0;)
		if (regs[i].fd == fd || regs[i].epfd == fd)
			drop(&regs[i]);
	pthread_mutex_unlock(&regs_lock);
}

EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	/* Only its identity is kept: the table says whether it is still fd's. */
	const bool here = a && a->nl_peer < 0;
	afd_put(a);
	if (!here)
		return (int)syscall(SYS_epoll_ctl, epfd, op, fd, ev);
	struct epoll_event mine = { 0 }, none = { 0 };
	if (op != EPOLL_CTL_DEL && (!ev || copy_in(&mine, ev, sizeof(mine)))) {
		errno = EFAULT;
		return -1;
	}
	/* Only the flags that change how the kernel registers it. */
	none.events = mine.events & (EPOLLEXCLUSIVE | EPOLLET | EPOLLONESHOT | EPOLLWAKEUP);
	none.data = mine.data;
	if (syscall(SYS_epoll_ctl, epfd, op, fd, op == EPOLL_CTL_DEL ? NULL : &none))
		return -1;
	pthread_mutex_lock(&regs_lock);
	struct ep_reg *r = find(epfd, fd);
	int err = 0;
	if (op == EPOLL_CTL_ADD) {
		if (r)
			drop(r);	/* a stale entry of a closed and reused fd */
		err = add(epfd, fd, a, &mine);
	} else if (op == EPOLL_CTL_MOD && r) {
		*r = (struct ep_reg){ epfd, fd, a, mine.events, mine.data.u64, 0, false };
	} else if (op == EPOLL_CTL_DEL && r) {
		drop(r);
	}
	pthread_mutex_unlock(&regs_lock);
	if (err) {
		syscall(SYS_epoll_ctl, epfd, EPOLL_CTL_DEL, fd, NULL);
		errno = -err;
		return -1;
	}
	return 0;
}

/* The events of emulated sockets registered in epfd, as level- or
 * edge-triggered epoll reports them. */
static int ready_ours(int epfd, struct epoll_event *out, int max)
{
	int k = 0;

	pthread_mutex_lock(&regs_lock);
	for (size_t i = nregs; i-- > 0 && k < max;) {
		struct ep_reg *r = &regs[i];
		if (r->epfd != epfd || r->disabled)
			continue;
		struct afd *a = afd_get(r->fd);
		if (a != r->a) {
			afd_put(a);
			drop(r);
			continue;
		}
		uint32_t m = (uint16_t)shim_alg_revents(r->fd, a, (short)(r->events & 0xffff));
		afd_put(a);
		bool edge = r->events & EPOLLET;
		uint32_t fresh = edge ? m & ~r->last : m;
		r->last = m;
		if (!fresh)
			continue;
		out[k].events = edge ? fresh : m;
		out[k].data.u64 = r->data;
		k++;
		if (r->events & EPOLLONESHOT)
			r->disabled = true;
	}
	pthread_mutex_unlock(&regs_lock);
	return k;
}

static int do_epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
	if (!atomic_load(&nregs_any) || max <= 0)
		return (int)shim_cancellable(SYS_epoll_pwait, epfd, (long)ev, max, timeout, (long)mask, _NSIG / 8);
	int k = ready_ours(epfd, ev, max);
	if (k == max)
		return k;
	int r = (int)shim_cancellable(SYS_epoll_pwait, epfd, (long)(ev + k), max - k, k ? 0 : timeout,
				     (long)mask, _NSIG / 8);
	if (r < 0)
		return k ? k : -1;
	return k + r;
}

EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	shim_resolve();
	return do_epoll_wait(epfd, ev, max, timeout, NULL);
}

EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
	shim_resolve();
	return do_epoll_wait(epfd, ev, max, timeout, mask);
}
