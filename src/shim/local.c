/* Sockets algd has not seen: socket(), bind(), setsockopt() and accept()
 * of the hash, skcipher and aead sockets the in-process engine serves make
 * no round trip to algd.
 *
 * algd stays the control plane.  What it answered to an accept() (the
 * engine verdict: whether the program may serve the socket, with which
 * driver) is kept here per bind address, with the generation of algd's
 * control page (proto.h, CONTROL_SETUP) under which the bind was made.  A
 * later bind() of the same address applies it without asking while the
 * page shows the same generation.  A driver registered, disabled or
 * reprioritised, or a change of algd's configuration (--alg-allow rules,
 * engine-algd, algctl), moves it, and the next bind() asks algd again, as
 * the kernel's next bind() sees the change.  The first socket() of a
 * process connects to algd and verifies it; later ones are local once the
 * page is mapped.
 *
 * A local socket's fd is a real socket of its own (AF_UNIX, SOCK_DGRAM,
 * never connected: no hang-up to report), so dup, close-on-exec, fcntl,
 * poll and epoll work on it as on any fd; its state is the in-process
 * engine's (inproc.c).  When algd must see it (a call only algd answers,
 * fork, exec), its whole transform tree is shared: a connection to algd is
 * made and set up as the program set the socket up (bind, key by value,
 * tag length; an op socket accepted there), and dup3() puts that
 * connection's file in place of the local one on every fd of the socket.
 * From then on it is an ordinary socket (afd_tfm_ops, afd_op_ops), served
 * in the program until fork or exec hands its state to algd. */
#include "interpose.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static atomic_uint nlocal;	/* local sockets alive: fork and exec look only if some are */

static bool is_local(const struct afd *a)
{
	const struct afd_ops *ops = a->ops;
	return ops == &afd_local_tfm_ops || ops == &afd_local_op_ops;
}

/* ---- what algd publishes ------------------------------------------------ */

enum { CONTROL_NONE, CONTROL_BUSY, CONTROL_READY, CONTROL_NEVER };
static atomic_int control_state;
static const struct ualg_control *_Atomic control;

/* The live page's generation.  The page of an algd that stopped is left
 * mapped (another thread may be reading it) and the next algd's asked
 * for. */
static bool control_gen(uint32_t *gen)
{
	if (atomic_load_explicit(&control_state, memory_order_acquire) != CONTROL_READY)
		return false;
	const struct ualg_control *c = atomic_load_explicit(&control, memory_order_acquire);
	*gen = atomic_load_explicit(&c->gen, memory_order_acquire);
	if (atomic_load_explicit(&c->magic, memory_order_acquire) == UALG_CONTROL_MAGIC)
		return true;
	int s = CONTROL_READY;
	atomic_compare_exchange_strong(&control_state, &s, CONTROL_NONE);
	return false;
}

bool local_control(struct afd *a, int fd, uint32_t *gen)
{
	int s = CONTROL_NONE;
	if (atomic_compare_exchange_strong(&control_state, &s, CONTROL_BUSY)) {
		struct xact x = { .type = UALG_MSG_CONTROL_SETUP, .want_fd = true, .cloexec = true };
		const void *map = NULL;
		if (client_xact(a, fd, &x) || x.rfd < 0 ||
		    ualg_memfd_map_published(x.rfd, UALG_CONTROL_SIZE, &map))
			map = NULL;
		if (x.rfd >= 0)
			real.close(x.rfd);
		if (map && atomic_load(&((const struct ualg_control *)map)->magic) != UALG_CONTROL_MAGIC) {
			munmap((void *)map, UALG_CONTROL_SIZE);
			map = NULL;
		}
		atomic_store_explicit(&control, map, memory_order_release);
		atomic_store_explicit(&control_state, map ? CONTROL_READY : CONTROL_NEVER,
				      memory_order_release);
	}
	return control_gen(gen);
}

bool local_control_ready(void)
{
	uint32_t gen;
	return control_gen(&gen);
}

/* ---- what algd answered --------------------------------------------------- */

#define VERDICTS 64	/* bind addresses remembered, the oldest replaced */

struct verdict {
	bool used;
	uint32_t gen;
	struct shim_bind bind;
	struct ualg_engine_info info;
};

static struct verdict verdicts[VERDICTS];
static unsigned verdicts_next;
static pthread_mutex_t verdicts_lock = PTHREAD_MUTEX_INITIALIZER;

static struct verdict *verdict_of(const struct shim_bind *b)
{
	for (unsigned i = 0; i < VERDICTS; i++)
		if (verdicts[i].used && !memcmp(&verdicts[i].bind, b, sizeof(*b)))
			return &verdicts[i];
	return NULL;
}

void local_learn(const struct shim_bind *b, uint32_t gen, const struct ualg_engine_info *verdict)
{
	pthread_mutex_lock(&verdicts_lock);
	struct verdict *v = verdict_of(b);
	if (!v)
		v = &verdicts[verdicts_next++ % VERDICTS];
	v->used = true;
	v->gen = gen;
	v->bind = *b;
	v->info = *verdict;
	v->info.type[sizeof(v->info.type) - 1] = 0;
	v->info.driver[sizeof(v->info.driver) - 1] = 0;
	pthread_mutex_unlock(&verdicts_lock);
}

/* A bind algd answered: its verdict, once an accept() gives one, is
 * learnt over it (local_learn()); one known already stays. */
void local_bind_learn(const struct shim_bind *b, uint32_t gen)
{
	pthread_mutex_lock(&verdicts_lock);
	struct verdict *v = verdict_of(b);
	if (!v || v->gen != gen) {
		v = v ? v : &verdicts[verdicts_next++ % VERDICTS];
		*v = (struct verdict){ .used = true, .gen = gen, .bind = *b };
	}
	pthread_mutex_unlock(&verdicts_lock);
}

bool local_bind_known(const struct shim_bind *b, uint32_t gen)
{
	uint32_t now;
	if (!control_gen(&now) || now != gen)
		return false;
	pthread_mutex_lock(&verdicts_lock);
	const struct verdict *v = verdict_of(b);
	const bool known = v && v->gen == gen;
	pthread_mutex_unlock(&verdicts_lock);
	return known;
}

/* What algd would answer to a bind of b now, if it is known: the program
 * may serve its sockets, with out's driver. */
static bool decided(const struct shim_bind *b, struct ualg_engine_info *out)
{
	uint32_t gen;
	if (!control_gen(&gen) || !inproc_may_hold())
		return false;
	pthread_mutex_lock(&verdicts_lock);
	const struct verdict *v = verdict_of(b);
	const bool known = v && v->gen == gen && (v->info.flags & UALG_ENGINE_INPROC);
	if (known)
		*out = v->info;
	pthread_mutex_unlock(&verdicts_lock);
	return known;
}

/* ---- sharing with algd ---------------------------------------------------- */

static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;

/* The local sockets of one tree, with a reference each (share_lock held). */
struct member {
	int fd;
	struct afd *a;
};
static struct {
	const void *tree;	/* the tree's, or (never bound) only self */
	const struct afd *self;
	struct member *m;
	size_t n, cap;
	struct member child;	/* an op socket algd serves for the tree, or none */
} scan;

static void collect(int fd, struct afd *a)
{
	if (scan.tree && a->spt == scan.tree && !scan.child.a) {
		atomic_fetch_add(&a->refs, 1);
		scan.child = (struct member){ fd, a };
	}
	if (!is_local(a) || (scan.tree ? inproc_tree(a) != scan.tree : a != scan.self))
		return;
	for (size_t i = 0; i < scan.n; i++)
		if (scan.m[i].a == a)
			return;	/* another fd of it */
	if (scan.n == scan.cap) {
		size_t cap = scan.cap ? 2 * scan.cap : 8;
		struct member *m = realloc(scan.m, cap * sizeof(*m));
		if (!m)
			return;
		scan.m = m;
		scan.cap = cap;
	}
	atomic_fetch_add(&a->refs, 1);	/* afd_for_each() holds one meanwhile */
	scan.m[scan.n++] = (struct member){ fd, a };
}

static void became_shared(struct afd *a, enum afd_kind kind)
{
	afd_set_kind(a, kind);
	atomic_fetch_sub(&nlocal, 1);
}

/* A connection to algd set up as the transform socket m was: in its place.
 * Where algd serves op sockets of it, that connection is their transform
 * (proto.h, ATTACH_TFM), as the kernel's op sockets share theirs. */
static int share_tfm(const struct member *m)
{
	int nfd = client_connect(SOCK_CLOEXEC);
	if (nfd < 0)
		return nfd;
	const struct afd *child = scan.child.a;
	int r = child && child->has_token ? client_attach(nfd, UALG_MSG_ATTACH_TFM, child->token)
					  : inproc_replay(m->a, nfd, m->a, false);
	if (!r)
		r = afd_replace_file(m->a, nfd);
	real.close(nfd);
	if (!r)
		became_shared(m->a, AFD_TFM);
	return r;
}

/* An op socket accepted in algd from its transform (tfm, shared now) or,
 * where that was closed, from a transform set up as it was. */
static int share_op(const struct member *m, const struct member *tfm)
{
	struct afd *via = tfm ? tfm->a : NULL;
	int vfd = tfm ? tfm->fd : client_connect(SOCK_CLOEXEC);
	int r = vfd < 0 ? vfd : 0;
	if (!r && !via && !(via = afd_track(vfd, AFD_TFM))) {
		real.close(vfd);
		r = -ENOMEM;
	}
	if (!r && !tfm)
		r = inproc_replay(via, vfd, m->a, false);
	struct ualg_accept_reply rep;
	struct iovec body = { &rep, sizeof(rep) };
	struct xact x = { .type = UALG_MSG_ACCEPT, .want_fd = true, .cloexec = true,
			  .rbody = &body, .nrbody = 1, .rfd = -1 };
	if (!r)
		r = client_xact(via, vfd, &x);
	if (!r && (x.rfd < 0 || x.rlen != sizeof(rep)))
		r = -EPROTO;
	if (via && !tfm) {
		afd_untrack(vfd);
		real.close(vfd);
		afd_put(via);
	}
	if (!r)
		r = afd_replace_file(m->a, x.rfd);
	if (x.rfd >= 0)
		real.close(x.rfd);
	if (r)
		return r;
	client_set_token(m->a, rep.token, client_self());
	client_accepted(m->a, client_key_epoch(), &rep.engine);
	became_shared(m->a, AFD_OP);
	if (m->a->sndbuf) {
		struct ualg_sndbuf b = { (uint32_t)m->a->sndbuf };
		struct iovec part = { &b, sizeof(b) };
		struct xact s = { .type = UALG_MSG_SNDBUF, .parts = &part, .nparts = 1 };
		r = client_xact(m->a, m->fd, &s);
	}
	return r < 0 ? r : 0;
}

int local_share(struct afd *a)
{
	int r = 0;
	pthread_mutex_lock(&share_lock);
	if (!is_local(a))
		goto out;
	scan.tree = inproc_tree(a);
	scan.self = a;
	scan.n = 0;
	scan.child.a = NULL;
	afd_for_each(collect);
	if (scan.child.a)
		client_learn_token(scan.child.a, scan.child.fd);
	/* The transform first: its op sockets are accepted from it. */
	const struct member *tfm = NULL;
	for (size_t i = 0; i < scan.n && !r; i++)
		if (!scan.m[i].a->op && !(r = share_tfm(&scan.m[i])))
			tfm = &scan.m[i];
	for (size_t i = 0; i < scan.n && !r; i++)
		if (scan.m[i].a->op)
			r = share_op(&scan.m[i], tfm);
	if (!r && is_local(a))
		r = -ENOMEM;	/* not found: out of memory collecting */
	for (size_t i = 0; i < scan.n; i++)
		afd_put(scan.m[i].a);
	scan.n = 0;
	afd_put(scan.child.a);
out:
	pthread_mutex_unlock(&share_lock);
	return r;
}

static void share_one(int fd, struct afd *a)
{
	(void)fd;
	if (is_local(a))
		local_share(a);	/* one that cannot (algd gone) stays local */
}

/* Not from a vfork() child (Python's subprocess, a program's own vfork()
 * and execve()): dup3() there would change the child's fds and the
 * parent's sockets' state.  The child's program then finds no local
 * socket it inherits; those made close-on-exec, as Python's and most are,
 * it never had. */
void local_share_all(void)
{
	if (atomic_load(&nlocal) && !client_in_vfork_child())
		afd_for_each(share_one);
}

void local_forget(struct afd *a)
{
	if (is_local(a))
		atomic_fetch_sub(&nlocal, 1);
}

static void after_fork_child(void)
{
	pthread_mutex_init(&share_lock, NULL);
	pthread_mutex_init(&verdicts_lock, NULL);
}

void local_init(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}

/* ---- the calls ------------------------------------------------------------ */

bool local_socket(int type, int *ret)
{
	uint32_t gen;
	if (!control_gen(&gen) || !inproc_may_hold())
		return false;
	int fd = real.socket(AF_UNIX, SOCK_DGRAM | (type & (SOCK_CLOEXEC | SOCK_NONBLOCK)), 0);
	if (fd < 0) {
		*ret = -errno;
		return true;
	}
	struct afd *a = afd_track(fd, AFD_LOCAL_TFM);
	if (!a) {
		real.close(fd);
		*ret = -ENOMEM;
		return true;
	}
	atomic_fetch_add(&nlocal, 1);
	afd_put(a);
	*ret = fd;
	return true;
}

/* Shares a, then makes the call as algd's socket. */
#define SHARED(a, call)                          \
	({                                       \
		int r_ = local_share(a);         \
		r_ ? (__typeof__(call))fail(-r_) : (call); \
	})

int local_tfm_bind(int fd, struct afd *a, const struct sockaddr *addr, socklen_t len)
{
	struct shim_bind b;
	struct ualg_engine_info v;
	int r = alg_bind_parse(addr, len, &b);
	if (r)
		return fail(-r);
	if (decided(&b, &v)) {
		r = inproc_bind_local(a, &b, &v);
		if (!r || r == -EBUSY)
			return r ? fail(-r) : 0;
	}
	return SHARED(a, alg_bind(fd, a, addr, len));
}

/* An op socket of parent, a local one. */
static int accept_here(struct afd *parent, struct sockaddr *addr, int flags)
{
	int nfd = real.socket(AF_UNIX, SOCK_DGRAM | flags, 0);
	if (nfd < 0)
		return -1;
	struct afd *op = afd_track(nfd, AFD_LOCAL_OP);
	if (!op) {
		real.close(nfd);
		return fail(ENOMEM);
	}
	atomic_fetch_add(&nlocal, 1);
	op->type = parent->type;
	int r = inproc_accept_local(parent, op);
	/* __sys_accept4_file() asks the new socket for its name, which AF_ALG
	 * op sockets cannot give: the socket is dropped again. */
	if (!r && addr)
		r = -ECONNABORTED;
	if (r) {
		afd_untrack(nfd);
		real.close(nfd);
	}
	afd_put(op);
	return r ? fail(-r) : nfd;
}

/* Whether algd's answer to the accept is one the program gets from a
 * transform socket algd holds too: else that socket answers instead. */
static bool answer_stands(int r)
{
	return r == -EMFILE || r == -ENFILE || r == -ENOMEM || r == -EACCES || r == -EAFNOSUPPORT ||
	       r == -ECONNRESET;
}

/* accept_in_algd()'s one try, on a kept connection when reuse finds one
 * (*reused): the op socket's fd, or -errno. */
static int accept_on(struct afd *parent, struct sockaddr *addr, int flags, bool reuse,
		     bool *reused)
{
	struct pool_conn pc;
	pool_connect(flags, reuse, &pc);
	*reused = pc.reused;
	const int nfd = pc.fd;
	struct afd *op = nfd >= 0 ? afd_track(nfd, AFD_OP) : NULL;
	if (!op) {
		if (nfd >= 0)
			real.close(nfd);
		return nfd < 0 ? nfd : -ENOMEM;
	}
	op->type = parent->type;
	op->poolable = pc.poolable;
	op->creds = pc.creds;
	atomic_store(&op->nonblock, (flags & SOCK_NONBLOCK) != 0);
	if (pc.owed)
		client_owe_hello(op);
	/* __sys_accept4_file() asks the new socket for its name, which
	 * AF_ALG op sockets cannot give: the socket is dropped again. */
	const bool drop = addr != NULL;
	struct ualg_accept_reply rep;
	struct iovec body = { &rep, sizeof(rep) };
	struct xact x = { .type = UALG_MSG_ACCEPT_HERE, .rbody = &body, .nrbody = 1, .rfd = -1,
			  .ahead = !drop };
	const unsigned epoch = client_key_epoch();
	int r = inproc_shadow(parent, op);
	if (!r)
		r = inproc_replay(op, nfd, parent, true);
	if (!r)
		r = client_xact(op, nfd, &x);
	if (!r && drop)
		r = -ECONNABORTED;
	if (!r && x.rlen == sizeof(rep)) {	/* answered */
		client_set_token(op, rep.token, client_self());
		client_accepted(op, epoch, &rep.engine);
	} else if (!r && !x.rlen) {	/* sent ahead: the twin says what algd would */
		inproc_shadow_info(op, &rep.engine);
		client_accepted(op, epoch, &rep.engine);
		client_owe_token(op);
	} else if (!r) {
		r = -EPROTO;
	}
	if (!r) {
		atomic_store(&op->fresh, op->type == ALG_TYPE_SKCIPHER || op->type == ALG_TYPE_AEAD);
		afd_put(op);
		return nfd;
	}
	op->poolable = false;
	afd_untrack(nfd);
	afd_put(op);
	real.close(nfd);
	return r;
}

/* An op socket algd serves (UALG_ENGINE=algd), of a local transform
 * socket: a connection of the program's own (a kept one, pool.c, or a new
 * one), with the transform's bind, key by value and tag length sent ahead
 * on it, which algd turns into the op socket (proto.h, ACCEPT_HERE, sent
 * ahead too: the twin knows what its reply would say, and a failure is
 * the socket's next call's answer, as a bind's sent ahead).  One
 * connection at most and no wait.  A kept connection that fails (algd
 * restarted meanwhile) gives way to a new one.  Where it cannot be (an
 * op socket accepted before the key, which the key set later must reach;
 * algd answering otherwise than the twin), false: the transform socket
 * goes to algd, which answers. */
static bool accept_in_algd(struct afd *parent, struct sockaddr *addr, int flags, int *ret)
{
	bool reused;
	int r = accept_on(parent, addr, flags, true, &reused);
	if (r < 0 && r != -ECONNABORTED && reused)
		r = accept_on(parent, addr, flags, false, &reused);
	if (r >= 0) {
		*ret = r;
		return true;
	}
	if (r == -EAFNOSUPPORT)
		r = -ECONNRESET;	/* no algd now: as a socket it held answers */
	if (r == -EAGAIN || (r != -ECONNABORTED && !answer_stands(r)))
		return false;
	*ret = fail(-r);
	return true;
}

int local_tfm_accept(int fd, struct afd *a, struct sockaddr *addr, socklen_t *alen, int flags)
{
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return fail(EINVAL);
	int r = -1;
	if (!inproc_bound_local(a) || (!inproc_wanted() && !accept_in_algd(a, addr, flags, &r)))
		return SHARED(a, alg_accept(fd, a, addr, alen, flags));
	return inproc_wanted() ? accept_here(a, addr, flags) : r;
}

int local_op_accept(int fd, struct afd *a, struct sockaddr *addr, socklen_t *alen, int flags)
{
	(void)fd, (void)alen;
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return fail(EINVAL);
	return accept_here(a, addr, flags);
}

/* The key by value and an aead's tag length are the twin's; SOL_SOCKET
 * options of a transform socket never reach algd; anything else is
 * algd's to answer. */
int local_tfm_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
			 socklen_t len)
{
	if (level == SOL_SOCKET)
		return alg_tfm_setsockopt(fd, a, level, optname, val, len);
	const bool key = optname == KABI_ALG_SET_KEY;
	const bool tag = optname == KABI_ALG_SET_AEAD_AUTHSIZE && a->type == ALG_TYPE_AEAD;
	if (level != KABI_SOL_ALG || !(key || tag) || !inproc_bound_local(a))
		return SHARED(a, alg_tfm_setsockopt(fd, a, level, optname, val, len));
	if ((int)len < 0)
		return fail(EINVAL);
	if (inproc_tfm_busy(a))
		return fail(EBUSY);
	if (tag) {
		int r = inproc_authsize_local(a, len);
		return r ? fail(-r) : 0;
	}
	if (len >= KABI_OPTMEM_MAX)	/* sock_kmalloc() refuses it */
		return fail(ENOMEM);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return fail(ENOMEM);
	int r = copy_in(buf, val, len) ? -EFAULT : inproc_setkey_local(a, buf, len);
	explicit_bzero(buf, len);
	free(buf);
	return r ? fail(-r) : 0;
}

/* SO_SNDBUF bounds the op socket's queue, which is here. */
int local_op_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
			socklen_t len)
{
	if (level != SOL_SOCKET || optname != SO_SNDBUF)
		return alg_op_setsockopt(fd, a, level, optname, val, len);
	int bytes;
	int e = sndbuf_bytes(val, len, &bytes);
	if (e)
		return fail(-e);
	inproc_sndbuf(a, bytes);
	a->sndbuf = bytes;
	return 0;
}

ssize_t local_tfm_send(int fd, struct afd *a, const struct iovec *iov, size_t niov, size_t total,
		       const struct shim_ctl *ctl, int flags)
{
	return SHARED(a, alg_send(fd, a, iov, niov, total, ctl, flags));
}

ssize_t local_tfm_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov, int flags,
		       int *msg_flags)
{
	return SHARED(a, alg_recv(fd, a, iov, niov, flags, msg_flags));
}

short local_tfm_revents(int fd, struct afd *a, short events)
{
	return local_share(a) ? POLLERR : shim_alg_revents(fd, a, events);
}
