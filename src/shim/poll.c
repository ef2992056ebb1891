/* poll, ppoll, select and pselect over sets that hold emulated sockets:
 * those are answered from algd (or the in-process engine), the others
 * polled for real. */
#include "interpose.h"

#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>

/* The poll mask of fd when it is ours and not a real socket's; -1 when the
 * real poll answers it. */
static int our_revents(int fd, short events)
{
	struct afd *a = fd >= 0 ? afd_get(fd) : NULL;
	int m = -1;
	if (a && a->ops->revents)
		AFD_HELD(a, m, a->ops->revents(fd, a, events));
	else
		afd_put(a);
	return m;
}

/* Whether fd is ours, answered without the real poll. */
static bool polled_here(int fd)
{
	struct afd *a = fd >= 0 ? afd_get(fd) : NULL;
	bool here = a && a->ops->revents;
	afd_put(a);
	return here;
}

/* Emulated sockets are answered from algd; the others are polled for real,
 * without waiting when an emulated one is ready.  An emulated socket that
 * is not ready cannot become ready while this process sleeps here, except
 * through another process sharing it. */
static int do_poll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	int ready = 0, small_fd[64];
	short small_mine[64];
	bool ours = false;

	for (nfds_t i = 0; i < n && !ours; i++)
		ours = polled_here(fds[i].fd);
	if (!ours)
		return (int)shim_cancellable(SYS_ppoll, (long)fds, (long)n, (long)ts, (long)mask, _NSIG / 8, 0);
	int *saved_fd = small_fd;
	short *mine = small_mine;
	if (n > 64) {
		saved_fd = malloc(n * sizeof(*saved_fd));
		mine = malloc(n * sizeof(*mine));
		if (!saved_fd || !mine) {
			free(saved_fd);
			free(mine);
			return fail(ENOMEM);
		}
	}
	for (nfds_t i = 0; i < n; i++) {
		int m = our_revents(fds[i].fd, fds[i].events);
		saved_fd[i] = fds[i].fd;
		mine[i] = 0;
		if (m < 0)
			continue;
		mine[i] = (short)m;
		ready += mine[i] != 0;
		fds[i].fd = -1;		/* poll ignores it */
	}
	struct timespec zero = { 0, 0 };
	int r = (int)shim_cancellable(SYS_ppoll, (long)fds, (long)n, (long)(ready ? &zero : ts), (long)mask,
				       _NSIG / 8, 0);
	int err = errno;
	for (nfds_t i = 0; i < n; i++) {
		if (fds[i].fd < 0 && saved_fd[i] >= 0)
			fds[i].revents = mine[i];
		fds[i].fd = saved_fd[i];
	}
	if (saved_fd != small_fd) {
		free(saved_fd);
		free(mine);
	}
	if (r < 0) {
		errno = err;
		return ready ? ready : -1;
	}
	return r + ready;
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	shim_resolve();
	struct timespec ts = { timeout / 1000, (timeout % 1000) * 1000000L };
	return do_poll(fds, n, timeout < 0 ? NULL : &ts, NULL);
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	shim_resolve();
	return do_poll(fds, n, ts, mask);
}

EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < n)
		abort();
	return poll(fds, n, timeout);
}

/* select() and pselect() with an emulated socket in a set become a poll
 * over the set fds, mapped back as the kernel's do_select() maps a poll
 * mask; without one they are the real calls. */
#define SELECT_IN (POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR)
#define SELECT_OUT (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR)
#define SELECT_EX POLLPRI

static bool in_set(int fd, const fd_set *s)
{
	return s && FD_ISSET(fd, s);
}

static bool selects_ours(int n, const fd_set *r, const fd_set *w, const fd_set *e)
{
	for (int fd = 0; fd < n && fd < FD_SETSIZE; fd++)
		if ((in_set(fd, r) || in_set(fd, w) || in_set(fd, e)) && afd_is_ours(fd))
			return true;
	return false;
}

static int select_as_poll(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
			  const sigset_t *mask)
{
	struct pollfd *p = calloc((size_t)n, sizeof(*p));
	nfds_t np = 0;
	if (!p)
		return fail(ENOMEM);
	for (int fd = 0; fd < n; fd++) {
		short ev = (short)((in_set(fd, r) ? POLLIN : 0) | (in_set(fd, w) ? POLLOUT : 0) |
				   (in_set(fd, e) ? POLLPRI : 0));
		if (ev)
			p[np++] = (struct pollfd){ .fd = fd, .events = ev };
	}
	int k = do_poll(p, np, ts, mask);
	if (k < 0) {
		free(p);
		return -1;
	}
	int count = 0;
	for (nfds_t i = 0; i < np; i++)
		if (p[i].revents & POLLNVAL) {
			free(p);
			return fail(EBADF);
		}
	for (nfds_t i = 0; i < np; i++) {
		int fd = p[i].fd;
		short rev = p[i].revents;
		struct { fd_set *set; short bits; } m[3] = { { r, SELECT_IN }, { w, SELECT_OUT }, { e, SELECT_EX } };
		for (int j = 0; j < 3; j++) {
			if (!in_set(fd, m[j].set))
				continue;
			if (rev & m[j].bits)
				count++;
			else
				FD_CLR(fd, m[j].set);
		}
	}
	free(p);
	return count;
}

static int do_select(int n, fd_set *r, fd_set *w, fd_set *e, struct timespec *ts, const sigset_t *mask,
		     bool update_ts)
{
	if (n < 0 || n > FD_SETSIZE || !selects_ours(n, r, w, e))
		return -2;	/* the real call decides */
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int k = select_as_poll(n, r, w, e, ts, mask);
	if (ts && update_ts) {	/* Linux's select() leaves the time not slept */
		struct timespec t1, left;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long long ns = (ts->tv_sec - (t1.tv_sec - t0.tv_sec)) * 1000000000LL +
			       (ts->tv_nsec - (t1.tv_nsec - t0.tv_nsec));
		if (ns < 0)
			ns = 0;
		left.tv_sec = ns / 1000000000LL;
		left.tv_nsec = ns % 1000000000LL;
		*ts = left;
	}
	return k;
}

EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	shim_resolve();
	struct timespec ts, *tsp = NULL;
	if (tv) {
		if (tv->tv_sec < 0 || tv->tv_usec < 0)
			return fail(EINVAL);
		ts.tv_sec = tv->tv_sec + tv->tv_usec / 1000000;
		ts.tv_nsec = (tv->tv_usec % 1000000) * 1000;
		tsp = &ts;
	}
	int k = do_select(n, r, w, e, tsp, NULL, true);
	if (k == -2)
		return (int)shim_cancellable(SYS_select, n, (long)r, (long)w, (long)e, (long)tv, 0);
	if (tv) {
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	return k;
}

EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts, const sigset_t *mask)
{
	shim_resolve();
	struct timespec copy, *tsp = NULL;
	if (ts) {
		copy = *ts;
		tsp = &copy;
	}
	int k = do_select(n, r, w, e, tsp, mask, false);
	if (k != -2)
		return k;
	struct { const sigset_t *ss; size_t len; } data = { mask, _NSIG / 8 };
	return (int)shim_cancellable(SYS_pselect6, n, (long)r, (long)w, (long)e, (long)tsp,
				    (long)(mask ? &data : NULL));
}
