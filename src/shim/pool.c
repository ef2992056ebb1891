/* Connections to algd kept for the next op socket.  An op socket that is
 * the program's own connection (local.c, ACCEPT_HERE) is, once closed, a
 * connection algd can make a fresh socket of (proto.h, RESET): the next
 * accept() under UALG_ENGINE=algd takes it instead of connecting anew,
 * which spares a connection made and ended in both processes per one-shot
 * use.
 *
 * Only a connection that is this process's alone and as it would be anew
 * goes back to algd this way:
 *   - one the process made itself, with the same credentials before and
 *     after the connect (what algd knows of its opener, SO_PEERCRED and
 *     SO_PEERGROUPS, was fixed then), never passed (SCM_RIGHTS) nor
 *     shared by a fork, alive at no exec or spawn (a new program may
 *     inherit it), closed by its last fd here outside a vfork() child;
 *   - with no state of its open file that a new socket would not have
 *     (fdops.c and sockopt.c clear poolable: O_ASYNC, an owner, a
 *     SOL_SOCKET option of the real socket, an ioctl);
 *   - with nothing in flight once the last call on it ended: no reply
 *     owed to a request sent ahead or written behind, none that a call
 *     stopped waiting for (client.c clears poolable), no request waiting.
 * close() frees the fd number at once, as the kernel's: the connection
 * stays open on a duplicate above POOL_FD_MIN, close-on-exec, until the
 * socket is released (hazard.c) and RESET sent.  accept() takes it while
 * the process still has the same pid and credentials and the fd is still
 * that socket, and moves it to the lowest free number, as a new fd. */
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define POOL_MAX 2
#define POOL_FD_MIN 256

struct pooled {
	int fd;			/* -1: empty */
	pid_t pid;		/* the process that kept it */
	ino_t ino;
	bool nonblock;		/* O_NONBLOCK of its open file */
	struct pool_creds creds;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct pooled pool[POOL_MAX] = { { .fd = -1 }, { .fd = -1 } };
_Static_assert(POOL_MAX == 2, "every entry of pool[] starts empty (fd -1)");

bool pool_creds_now(struct pool_creds *c)
{
	int n = getgroups(POOL_GROUPS_MAX, c->groups);
	if (n < 0)
		return false;	/* more groups than a pooled connection records */
	c->ngroups = n;
	c->uid = geteuid();
	c->gid = getegid();
	return true;
}

static bool creds_same(const struct pool_creds *a, const struct pool_creds *b)
{
	return a->uid == b->uid && a->gid == b->gid && a->ngroups == b->ngroups &&
	       !memcmp(a->groups, b->groups, (size_t)a->ngroups * sizeof(a->groups[0]));
}

/* Closes an entry's fd if it is still the connection kept there (a
 * program may have closed it, and reused the number). */
static void drop(struct pooled *p)
{
	if (p->fd >= 0 && client_sock_ino(p->fd) == p->ino)
		real.close(p->fd);
	p->fd = -1;
}

void pool_keep(int fd, struct afd *a)
{
	if (!a->poolable || a->gen != client_gen() || atomic_load(&a->refs) != 2 ||
	    client_in_vfork_child())
		return;
	a->pool_fd = real.fcntl(fd, F_DUPFD_CLOEXEC, POOL_FD_MIN);
}

/* Whether nothing of the socket is in flight on its connection. */
static bool idle(const struct afd *a)
{
	return !a->owed && !a->behind && !a->peeking &&
	       !a->expect[0] && !a->expect[1] && !a->expect[2];
}

void pool_put(struct afd *a)
{
	const int fd = a->pool_fd;
	if (fd < 0)
		return;
	a->pool_fd = -1;
	ino_t ino = client_sock_ino(fd);
	int nonblock = atomic_load(&a->nonblock);	/* as the process last set it */
	if (nonblock < 0) {
		int fl = real.fcntl(fd, F_GETFL);
		nonblock = fl < 0 ? -1 : (fl & O_NONBLOCK) != 0;
	}
	/* poolable may have gone since close(): a call that was still in
	 * flight failed after it. */
	if (!a->poolable || !idle(a) || !ino || nonblock < 0 || client_send(fd, UALG_MSG_RESET, NULL, 0)) {
		real.close(fd);
		return;
	}
	struct pooled in = { .fd = fd, .pid = client_self(), .ino = ino, .nonblock = nonblock,
			     .creds = a->creds };
	/* A signal handler's close() may release a socket while the code it
	 * interrupted holds the lock: the connection then just ends. */
	if (pthread_mutex_trylock(&lock)) {
		real.close(fd);
		return;
	}
	struct pooled out = pool[POOL_MAX - 1];
	memmove(&pool[1], &pool[0], (POOL_MAX - 1) * sizeof(pool[0]));
	pool[0] = in;
	pthread_mutex_unlock(&lock);
	drop(&out);
}

int pool_take(int type_flags, struct pool_creds *creds)
{
	struct pooled p = { .fd = -1 };
	if (pthread_mutex_trylock(&lock))
		return -1;
	for (unsigned i = 0; i < POOL_MAX && p.fd < 0; i++) {
		if (pool[i].fd >= 0 && pool[i].pid == client_self()) {
			p = pool[i];
			pool[i].fd = -1;
		}
	}
	pthread_mutex_unlock(&lock);
	if (p.fd < 0)
		return -1;
	if (client_sock_ino(p.fd) != p.ino)
		return -1;	/* not ours any more: the number is the program's */
	struct pool_creds now;
	if (!pool_creds_now(&now) || !creds_same(&now, &p.creds)) {
		/* Another identity: no connection kept is its. */
		real.close(p.fd);
		pool_drop_all();
		return -1;
	}
	int nfd = real.fcntl(p.fd, type_flags & SOCK_CLOEXEC ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
	real.close(p.fd);
	if (nfd < 0)
		return -1;
	const bool nonblock = (type_flags & SOCK_NONBLOCK) != 0;
	if (nonblock != p.nonblock && real.fcntl(nfd, F_SETFL, nonblock ? O_NONBLOCK : 0)) {
		real.close(nfd);
		return -1;
	}
	*creds = p.creds;
	return nfd;
}

void pool_connect(int type_flags, bool reuse, struct pool_conn *c)
{
	c->owed = false;
	c->fd = reuse ? pool_take(type_flags, &c->creds) : -1;
	c->reused = c->poolable = c->fd >= 0;
	if (c->reused)
		return;
	/* The credentials algd learns at the connect, if the same on both
	 * sides of it. */
	struct pool_creds after;
	const bool before = pool_creds_now(&c->creds);
	c->fd = client_connect_ahead(type_flags, &c->owed);
	c->poolable = before && c->fd >= 0 && pool_creds_now(&after) && creds_same(&c->creds, &after);
}

void pool_drop_all(void)
{
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < POOL_MAX; i++)
		drop(&pool[i]);
	pthread_mutex_unlock(&lock);
}

static void never_keep(int fd, struct afd *a)
{
	(void)fd;
	a->poolable = false;
}

void pool_before_sharing(void)
{
	afd_for_each(never_keep);
}

/* A fork child's copies are the parent's connections. */
static void after_fork_child(void)
{
	pthread_mutex_init(&lock, NULL);
	pool_drop_all();
}

void pool_init(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}
