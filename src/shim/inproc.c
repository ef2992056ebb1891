/* The in-process engine's host: AF_ALG op sockets whose data this process
 * serves itself, with the same socket layer algd runs (src/afalg) loaded
 * from libualg-engine.so.
 *
 * algd stays the control plane.  Every transform and op socket still is a
 * connection to algd, made by socket(), bind(), setsockopt() and accept()
 * as before, so names, priorities, self-test verdicts, policy and FIPS mode
 * are decided there.  An accept()'s reply says whether the op socket may
 * be served here (what UALG_MSG_ENGINE answers) and with which driver; if so, a
 * twin of the transform is built here from the key the program handed over
 * by value, and the op socket's sends, reads and polls never leave the
 * process.
 *
 * A socket that becomes shared goes back to algd with its state
 * (UALG_MSG_ADOPT): before fork(), so that parent and child use one
 * stream, and before execve() and posix_spawn(), so that the new program
 * finds it.  From then on algd serves it, as it serves every socket of
 * UALG_ENGINE=algd.
 *
 * Locking: one mutex per transform tree (the twin and its op sockets), as
 * the layer wants; a thread that would sleep in the kernel waits on the
 * tree's sequence counter (a futex) with the mutex released, so another
 * thread's send on the same socket goes through, and a signal or
 * pthread_cancel() ends the wait as it ends the kernel's. */
#include "interpose.h"
#include "msg.h"	/* the replies' decoders */
#include "engine.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct inproc_tfm {
	atomic_uint refs;		/* the transform socket's afd + op sockets */
	pthread_mutex_t lock;		/* the tree */
	_Atomic uint32_t seq;		/* bumped when the tree's state changes */
	atomic_uint waiters;
	enum { KEY_NONE, KEY_VALUE, KEY_REF } keysrc;
	uint8_t *key;
	size_t keylen;
	uint32_t key_gen;		/* algd's key_gen for the key we hold */
	bool has_authsize;
	unsigned authsize;
	enum afd_alg type;
	char driver[128];
	struct alg_sock *twin;		/* built at the first in-process accept */
	/* The bind, and algd's control generation before it (local.c). */
	struct shim_bind bind;
	bool bound, gen_known;
	uint32_t bind_gen;
};

struct inproc_op {
	struct inproc_tfm *t;
	struct alg_sock *op;		/* NULL once moved to algd */
	bool hash;
	char driver[128];		/* what the twin was bound to */
	struct inproc_op *prev, *next;	/* every live one, for fork and exec */
};

static const struct ualg_engine *eng;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
/* This thread is inside the engine: an AF_ALG socket it opens now comes
 * from a library the engine called (OpenSSL with its afalg ENGINE as the
 * program's default for a cipher routes the engine's own cipher there),
 * and stays in algd, so that the engine never calls itself. */
static _Thread_local unsigned in_engine;
static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;
static struct inproc_op *ops;

/* $UALG_ENGINE: algd never serves here; inproc and auto (the default)
 * serve here what algd allows. */
static bool wanted(void)
{
	static atomic_int cached = -1;
	int v = atomic_load(&cached);
	if (v < 0) {
		const char *e = getenv("UALG_ENGINE");
		v = !(e && !strcmp(e, "algd"));
		atomic_store(&cached, v);
	}
	return v;
}

static void debug(const char *what, int err)
{
	if (secure_getenv("UALG_DEBUG"))
		fprintf(stderr, "ualg: in-process engine: %s: %s\n", what, strerror(err));
}

/* libualg-engine.so beside this shim. */
static void load(void)
{
	void *h = shim_dlopen_beside(UALG_ENGINE_FILE);
	const struct ualg_engine *e = h ? dlsym(h, UALG_ENGINE_SYMBOL) : NULL;
	if (!e) {
		debug(dlerror(), ENOENT);
		return;
	}
	in_engine++;
	int r = e->init();
	in_engine--;
	if (r) {
		debug("core", -r);
		return;
	}
	usermem_guard_init();
	eng = e;
}

static bool loaded(void)
{
	pthread_once(&load_once, load);
	return eng != NULL;
}

/* ---- the transform socket ------------------------------------------- */

static void handover(struct inproc_tfm *tree);
static void changed(struct inproc_tfm *t);

/* The transform tree a (a transform or an op socket) belongs to, or NULL. */
static struct inproc_tfm *tree_of(const struct afd *a)
{
	return a->ipo ? a->ipo->t : a->ipt;
}

static void tfm_put(struct inproc_tfm *t)
{
	if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
		return;
	if (t->twin)
		eng->put(t->twin);
	if (t->key) {
		explicit_bzero(t->key, t->keylen);
		free(t->key);
	}
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static struct inproc_tfm *tfm_of(struct afd *a)
{
	if (!a->ipt) {
		struct inproc_tfm *t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		atomic_init(&t->refs, 1);
		pthread_mutex_init(&t->lock, NULL);
		a->ipt = t;
	}
	return a->ipt;
}

/* The twin no longer matches the transform socket (a new bind or key):
 * op sockets made from it keep it, the next one gets a new twin. */
static void drop_twin(struct inproc_tfm *t)
{
	if (t->twin)
		eng->put(t->twin);
	t->twin = NULL;
}

/* A new bind: no key, no tag length, no twin; the caller holds the lock. */
static void rebound(struct inproc_tfm *t, const struct afd *a, const struct shim_bind *b)
{
	if (t->key)
		explicit_bzero(t->key, t->keylen);
	free(t->key);
	t->key = NULL;
	t->keylen = 0;
	t->keysrc = KEY_NONE;
	t->has_authsize = false;
	t->type = a->type;
	t->bind = *b;
	t->bound = true;
	drop_twin(t);
}

void inproc_bound(struct afd *a, const struct shim_bind *b, bool gen_known, uint32_t gen)
{
	struct inproc_tfm *t = tfm_of(a);
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	rebound(t, a, b);
	t->gen_known = gen_known;
	t->bind_gen = gen;
	pthread_mutex_unlock(&t->lock);
}

/* Only the types served here keep a copy (never an akcipher's or kpp's). */
static bool served_type(enum afd_alg type)
{
	return type == ALG_TYPE_HASH || type == ALG_TYPE_SKCIPHER || type == ALG_TYPE_AEAD;
}

void inproc_keyed(struct afd *a, const uint8_t *key, size_t len, uint32_t key_gen)
{
	struct inproc_tfm *t = tfm_of(a);
	if (!t)
		return;
	const uint32_t gen = key && served_type(a->type) ? key_gen : 0;
	uint8_t *copy = key && served_type(a->type) ? malloc(len ? len : 1) : NULL;
	if (copy)
		memcpy(copy, key, len);
	pthread_mutex_lock(&t->lock);
	if (t->key)
		explicit_bzero(t->key, t->keylen);
	free(t->key);
	t->key = copy;
	t->keylen = copy ? len : 0;
	t->key_gen = gen;
	/* A key by reference (or one we could not keep) stays in algd. */
	t->keysrc = copy ? KEY_VALUE : KEY_REF;
	/* Op sockets accepted before it see it, as in the kernel: the twin
	 * they use takes it (algd allowed the key, so none has used a key
	 * yet); where it cannot, they go to algd, which has it. */
	bool moved = false;
	in_engine++;
	const bool keyed = t->twin && copy && !eng->setkey(t->twin, copy, len);
	in_engine--;
	if (t->twin && !keyed) {
		drop_twin(t);
		moved = true;
	}
	pthread_mutex_unlock(&t->lock);
	if (moved)
		handover(t);
}

/* setsockopt() on the transform socket: EBUSY first, as alg_setsockopt()
 * answers it, when an op socket served here has used the key (algd does
 * not see those). */
bool inproc_tfm_busy(struct afd *a)
{
	struct inproc_tfm *t = a->ipt;
	if (!t)
		return false;
	pthread_mutex_lock(&t->lock);
	const bool busy = t->twin && eng->busy(t->twin);
	pthread_mutex_unlock(&t->lock);
	return busy;
}

void inproc_authsize(struct afd *a, unsigned authsize)
{
	struct inproc_tfm *t = tfm_of(a);
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->has_authsize = true;
	t->authsize = authsize;
	drop_twin(t);
	pthread_mutex_unlock(&t->lock);
}

/* A transform of the driver algd named.  A cipher's state does not depend
 * on its driver, so where that driver fails here (its self-test failed in
 * this process, as OpenSSL's drivers do where OpenSSL hands the cipher to
 * an ENGINE, such as the afalg ENGINE that leads back to these sockets),
 * the best driver here of the name the program bound serves instead.  A
 * hash's state belongs to its driver: no substitute. */
static struct alg_sock *twin_bind(const char *type, const char *driver, const char *name,
				  int *err)
{
	in_engine++;
	struct alg_sock *sk = eng->bind(type, driver, err);
	if (!sk && strcmp(type, "hash") && name && name[0] && strcmp(name, driver)) {
		sk = eng->bind(type, name, err);
		debug(driver, sk ? ENODEV : *err);
	}
	in_engine--;
	return sk;
}

static int build_twin(struct inproc_tfm *t, const struct ualg_engine_info *info)
{
	int r = 0;
	struct alg_sock *sk = twin_bind((const char *)info->type, info->driver,
					t->bound ? t->bind.name : NULL, &r);
	in_engine++;
	if (sk && t->keysrc == KEY_VALUE)
		r = eng->setkey(sk, t->key, t->keylen);
	if (sk && !r && info->authsize)
		r = eng->setauthsize(sk, info->authsize);
	in_engine--;
	if (!sk)
		return -r;
	if (r) {
		eng->put(sk);
		return r;
	}
	t->twin = sk;
	snprintf(t->driver, sizeof(t->driver), "%s", info->driver);
	return 0;
}

/* ---- op sockets ----------------------------------------------------- */

static void op_link(struct inproc_op *o)
{
	pthread_mutex_lock(&ops_lock);
	o->next = ops;
	if (ops)
		ops->prev = o;
	ops = o;
	pthread_mutex_unlock(&ops_lock);
}

static struct inproc_op *op_new(struct inproc_tfm *t, struct alg_sock *op)
{
	struct inproc_op *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	atomic_fetch_add(&t->refs, 1);
	o->t = t;
	o->op = op;
	o->hash = t->type == ALG_TYPE_HASH;
	memcpy(o->driver, t->driver, sizeof(o->driver));
	return o;
}

void inproc_accepted(struct afd *parent, struct afd *a, const struct ualg_engine_info *verdict)
{
	struct inproc_tfm *t = parent->op ? NULL : parent->ipt;
	if (t && verdict && t->bound && t->gen_known && !parent->rfc)
		local_learn(&t->bind, t->bind_gen, verdict);
	if (parent->spt)
		inproc_shadow(parent, a);	/* a clone of an op socket of a local transform */
	if (!wanted() || parent->rfc || parent->nl_peer >= 0 || in_engine)
		return;
	struct alg_sock *op = NULL;
	if (parent->op) {
		/* accept() on an op socket (a hash's clone): the clone is
		 * made where the state is. */
		struct inproc_op *src = parent->ipo;
		if (!src)
			return;
		t = src->t;
		pthread_mutex_lock(&t->lock);
		if (src->op && eng->accept(src->op, &op))
			op = NULL;
	} else {
		if (!t || t->keysrc == KEY_REF)
			return;
		if (!verdict || !(verdict->flags & UALG_ENGINE_INPROC) || !loaded())
			return;
		struct ualg_engine_info info = *verdict;
		/* A key: only the one this process set, still in force (not
		 * one another process sharing the transform set since); or
		 * none yet, which this process may set by value later. */
		const bool keyless = (info.flags & (UALG_ENGINE_NOKEY | UALG_ENGINE_UNKEYED)) &&
				     t->keysrc == KEY_NONE;
		if ((info.flags & UALG_ENGINE_TAKES_KEY) && !keyless &&
		    (t->keysrc != KEY_VALUE || t->key_gen != info.key_gen))
			return;
		info.type[sizeof(info.type) - 1] = 0;
		info.driver[sizeof(info.driver) - 1] = 0;
		pthread_mutex_lock(&t->lock);
		int r = 0;
		if (!t->twin || strcmp(t->driver, info.driver)) {
			drop_twin(t);
			r = build_twin(t, &info);
		}
		if (r)
			debug(info.driver, -r);
		if (r || eng->accept(t->twin, &op))
			op = NULL;
	}
	struct inproc_op *o = op ? op_new(t, op) : NULL;
	if (op && !o)
		eng->put(op);
	pthread_mutex_unlock(&t->lock);
	if (!o)
		return;
	op_link(o);
	a->ipo = o;
}

/* ---- sockets algd has not seen (local.c) --------------------------- */

bool inproc_may_hold(void)
{
	return !in_engine;
}

bool inproc_wanted(void)
{
	return wanted();
}

int inproc_bind_local(struct afd *a, const struct shim_bind *b,
		      const struct ualg_engine_info *verdict)
{
	struct inproc_tfm *t = tfm_of(a);
	if (!t || !loaded())
		return -ENOMEM;
	int r = 0;
	struct alg_sock *sk = twin_bind((const char *)verdict->type, verdict->driver, b->name, &r);
	if (!sk)
		return r ? -r : -ENOENT;
	pthread_mutex_lock(&t->lock);
	/* alg_bind(): a transform with op sockets keeps its algorithm. */
	if (atomic_load(&t->refs) > 1) {
		pthread_mutex_unlock(&t->lock);
		eng->put(sk);
		return -EBUSY;
	}
	afd_set_type(a, b->type);
	rebound(t, a, b);
	t->gen_known = false;	/* learnt already */
	t->twin = sk;
	snprintf(t->driver, sizeof(t->driver), "%s", verdict->driver);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

bool inproc_bound_local(struct afd *a)
{
	struct inproc_tfm *t = a->ipt;
	if (!t)
		return false;
	pthread_mutex_lock(&t->lock);
	const bool twin = t->twin != NULL;
	pthread_mutex_unlock(&t->lock);
	return twin;
}

/* alg_setkey() on the twin, which op sockets accepted before share, as in
 * the kernel; the key is kept for algd when the socket is shared. */
int inproc_setkey_local(struct afd *a, const uint8_t *key, size_t len)
{
	struct inproc_tfm *t = a->ipt;
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, key, len);
	pthread_mutex_lock(&t->lock);
	in_engine++;
	int r = t->twin ? eng->setkey(t->twin, copy, len) : -EINVAL;
	in_engine--;
	if (t->key)
		explicit_bzero(t->key, t->keylen);
	free(t->key);
	/* A key the driver refused leaves none (the kernel's NEED_KEY). */
	t->key = r ? NULL : copy;
	t->keylen = r ? 0 : len;
	t->keysrc = r ? KEY_NONE : KEY_VALUE;
	changed(t);
	pthread_mutex_unlock(&t->lock);
	if (r) {
		explicit_bzero(copy, len);
		free(copy);
	}
	return r;
}

int inproc_authsize_local(struct afd *a, unsigned authsize)
{
	struct inproc_tfm *t = a->ipt;
	pthread_mutex_lock(&t->lock);
	in_engine++;
	int r = t->twin ? eng->setauthsize(t->twin, authsize) : -EINVAL;
	in_engine--;
	if (!r) {
		t->has_authsize = true;
		t->authsize = authsize;
	}
	pthread_mutex_unlock(&t->lock);
	return r;
}

int inproc_accept_local(struct afd *parent, struct afd *a)
{
	struct inproc_tfm *t = tree_of(parent);
	struct alg_sock *src, *op = NULL;
	pthread_mutex_lock(&t->lock);
	src = parent->op ? parent->ipo->op : t->twin;
	in_engine++;
	int r = src ? eng->accept(src, &op) : -EINVAL;
	in_engine--;
	struct inproc_op *o = r ? NULL : op_new(t, op);
	if (!r && !o) {
		eng->put(op);
		r = -ENOMEM;
	}
	pthread_mutex_unlock(&t->lock);
	if (r)
		return r;
	op_link(o);
	a->ipo = o;
	return 0;
}

const void *inproc_tree(const struct afd *a)
{
	return tree_of(a);
}

int inproc_replay(struct afd *via, int fd, const struct afd *member, bool ahead)
{
	struct inproc_tfm *t = tree_of(member);
	if (!t || !t->bound)
		return 0;
	pthread_mutex_lock(&t->lock);
	int r = alg_bind_xact(via, fd, &t->bind, ahead);
	uint32_t gen = t->key_gen;
	if (!r && t->keysrc == KEY_VALUE)
		r = alg_sockopt_xact(via, fd, KABI_ALG_SET_KEY, t->key, (uint32_t)t->keylen,
				     (uint32_t)t->keylen, ahead ? NULL : &gen);
	if (r >= 0 && t->has_authsize)
		r = alg_sockopt_xact(via, fd, KABI_ALG_SET_AEAD_AUTHSIZE, NULL, 0, t->authsize,
				     ahead ? NULL : &gen);
	t->key_gen = gen;
	pthread_mutex_unlock(&t->lock);
	return r < 0 ? r : 0;
}

/* The layer's control data of a sendmsg()'s (none without ctl). */
static struct afalg_ctl afalg_ctl_of(const struct shim_ctl *ctl)
{
	if (!ctl || !ctl->present)
		return (struct afalg_ctl){ 0 };
	return (struct afalg_ctl){ .present = true, .invalid = ctl->invalid, .op = ctl->op,
				   .has_iv = ctl->has_iv && !ctl->invalid, .ivlen = ctl->ivlen,
				   .iv = ctl->iv, .assoclen = ctl->assoclen };
}

/* ---- op sockets algd serves, of a local transform (local.c) --------- */

void inproc_shadow_info(const struct afd *op, struct ualg_engine_info *out)
{
	pthread_mutex_lock(&op->spt->lock);
	eng->info(op->shadow, out);
	pthread_mutex_unlock(&op->spt->lock);
}

bool inproc_shadow_send_ok(const struct afd *op, const struct shim_ctl *ctl, size_t len, int flags)
{
	struct afalg_send s = { .ctl = afalg_ctl_of(ctl), .first = true, .last = true,
				.more = flags & MSG_MORE, .dontwait = flags & MSG_DONTWAIT, .len = len };
	pthread_mutex_lock(&op->spt->lock);
	const bool good = eng->send_ok(op->shadow, &s);
	pthread_mutex_unlock(&op->spt->lock);
	return good;
}

/* The kernel counts every op socket of a transform (alg_setsockopt() and
 * alg_bind() answer EBUSY while one that has its key lives): an op socket
 * algd serves, accepted from a local transform socket, has a shadow op
 * socket of the twin stand for it, which the twin's count then holds. */
int inproc_shadow(const struct afd *from, struct afd *op)
{
	struct inproc_tfm *t = from->spt ? from->spt : from->ipt;
	if (!t || op->spt)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	struct alg_sock *sh = NULL;
	in_engine++;
	int r = t->twin ? eng->accept(t->twin, &sh) : -EINVAL;
	in_engine--;
	if (!r && sh->nokey && !from->spt) {
		eng->put(sh);	/* accepted before the key */
		r = -EAGAIN;
	}
	if (!r) {
		atomic_fetch_add(&t->refs, 1);
		op->spt = t;
		op->shadow = sh;
	}
	pthread_mutex_unlock(&t->lock);
	return r;
}

/* Wakes the threads waiting on the tree; the caller holds its lock. */
static void changed(struct inproc_tfm *t)
{
	/* Only lock holders write it: no locked instruction needed. */
	atomic_store_explicit(&t->seq, atomic_load_explicit(&t->seq, memory_order_relaxed) + 1,
			      memory_order_release);
	if (atomic_load(&t->waiters))
		syscall(SYS_futex, &t->seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void waiter_gone(void *t)
{
	atomic_fetch_sub(&((struct inproc_tfm *)t)->waiters, 1);
}

/* Where the kernel would sleep: waits for the tree to change with its lock
 * released; -EINTR when a signal handler ran (and a pending cancellation
 * acts here, as at any cancellation point). */
static int wait_change(struct inproc_tfm *t)
{
	uint32_t v = atomic_load(&t->seq);
	atomic_fetch_add(&t->waiters, 1);
	pthread_mutex_unlock(&t->lock);
	/* As glibc's own cancellation points: asynchronous cancellation for
	 * the length of the sleep, with nothing held. */
	int old, err;
	pthread_cleanup_push(waiter_gone, t);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	long r = syscall(SYS_futex, &t->seq, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
	err = r ? errno : 0;
	pthread_setcanceltype(old, NULL);
	pthread_cleanup_pop(1);
	if (err == EINTR)
		return -EINTR;
	pthread_mutex_lock(&t->lock);
	return 0;
}

/* Runs one call of the layer until it no longer waits.  Returns with the
 * tree unlocked: the result, or INPROC_MOVED when the socket went to algd
 * meanwhile. */
enum { WAIT_SEND, WAIT_RECV };
struct call {
	int kind;
	const struct afalg_send *s;
	uint8_t *out;
	size_t len;
	bool dontwait, trunc;
	struct afalg_progress p;
};

static int run(int fd, struct afd *a, struct inproc_op *o, struct call *c)
{
	struct inproc_tfm *t = o->t;
	int r;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		if (!o->op) {
			pthread_mutex_unlock(&t->lock);
			return c->p.done ? (int)c->p.done : INPROC_MOVED;
		}
		in_engine++;
		r = c->kind == WAIT_SEND ? eng->send(o->op, c->s, &c->p)
					 : eng->recv(o->op, c->out, c->len, c->dontwait, &c->trunc, &c->p);
		in_engine--;
		if (r != AFALG_WAIT)
			break;
		if (shim_nonblocking(fd, a)) {	/* asked only where it would wait */
			r = c->p.done ? (int)c->p.done : -EAGAIN;
			break;
		}
		if (wait_change(t))
			return c->p.done ? (int)c->p.done : -EINTR;
	}
	changed(t);
	pthread_mutex_unlock(&t->lock);
	return r;
}

ssize_t inproc_send(int fd, struct afd *a, const struct iovec *iov, size_t niov, size_t total,
		    const struct shim_ctl *ctl, int flags)
{
	struct inproc_op *o = a->ipo;
	struct afalg_send s = { .more = flags & MSG_MORE, .dontwait = flags & MSG_DONTWAIT };
	s.ctl = afalg_ctl_of(ctl);
	/* The parts of one sendmsg(), as frames would carry them: empty
	 * iovecs are skipped, an empty call is one empty part. */
	size_t last = 0, sent = 0;
	for (size_t i = 0; i < niov; i++)
		if (iov[i].iov_len)
			last = i;
	bool first = true;
	for (size_t i = 0; i <= last && i < (niov ? niov : 1); i++) {
		const struct iovec *v = niov ? &iov[i] : &(struct iovec){ NULL, 0 };
		if (!v->iov_len && !(first && i == last))
			continue;
		size_t len = v->iov_len < total - sent ? v->iov_len : total - sent;
		s.first = first;
		s.last = i == last || sent + len == total;
		s.fault = len && probe_in(v->iov_base, len);
		s.data = s.fault ? NULL : v->iov_base;
		s.len = s.fault ? 0 : len;
		first = false;
		struct call c = { .kind = WAIT_SEND, .s = &s };
		int r = run(fd, a, o, &c);
		if (r == INPROC_MOVED && !sent)
			return INPROC_MOVED;
		if (r < 0 || r == INPROC_MOVED) {
			if (sent)
				return (ssize_t)sent;
			errno = -r;
			return -1;
		}
		sent += (size_t)r;
		if ((size_t)r < len || s.last)
			break;
	}
	return (ssize_t)sent;
}

/* The output goes straight into the caller's buffer when it is one piece
 * (probed first: ciphers check the buffer before taking data, as
 * af_alg_get_rsgl() maps it); a digest, and output for several iovecs, go
 * through a buffer of ours and are copied out. */
ssize_t inproc_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov, size_t total,
		    int flags, int *msg_flags)
{
	struct inproc_op *o = a->ipo;
	uint8_t digest[UALG_MAX_DIGESTSIZE];
	uint8_t *bounce = NULL, *out;
	size_t len = total;
	size_t ni = 0;
	for (size_t i = 0; i < niov; i++)
		ni += iov[i].iov_len != 0;

	if (o->hash) {
		len = total < sizeof(digest) ? total : sizeof(digest);
		out = digest;
	} else if (ni <= 1) {
		out = NULL;
		for (size_t i = 0; i < niov; i++)
			if (iov[i].iov_len) {
				out = iov[i].iov_base;
				break;
			}
		if (ni && probe_out(out, len)) {
			errno = EFAULT;
			return -1;
		}
	} else {
		for (size_t i = 0; i < niov; i++)
			if (iov[i].iov_len && probe_out(iov[i].iov_base, iov[i].iov_len)) {
				errno = EFAULT;
				return -1;
			}
		if (!(out = bounce = malloc(total))) {
			errno = ENOMEM;
			return -1;
		}
	}
	struct call c = { .kind = WAIT_RECV, .out = out, .len = len,
			  .dontwait = flags & MSG_DONTWAIT };
	int r = run(fd, a, o, &c);
	if (r > 0 && (o->hash || bounce)) {
		size_t done = 0;
		for (size_t i = 0; i < niov && done < (size_t)r; i++) {
			size_t n = iov[i].iov_len < (size_t)r - done ? iov[i].iov_len : (size_t)r - done;
			if (copy_out(iov[i].iov_base, out + done, n)) {
				r = -EFAULT;
				break;
			}
			done += n;
		}
	}
	if (out == digest || bounce)
		explicit_bzero(out, out == digest ? sizeof(digest) : total);
	free(bounce);
	if (r == INPROC_MOVED)
		return INPROC_MOVED;
	if (r < 0) {
		errno = -r;
		return -1;
	}
	if (msg_flags && c.trunc)
		*msg_flags |= MSG_TRUNC;
	return r;
}

int inproc_revents(struct afd *a, short events)
{
	struct inproc_op *o = a->ipo;
	pthread_mutex_lock(&o->t->lock);
	unsigned m = o->op ? eng->poll(o->op) : 0;
	bool moved = !o->op;
	pthread_mutex_unlock(&o->t->lock);
	return moved ? -1 : (int)(m & (unsigned)(uint16_t)(events | POLLERR | POLLHUP));
}

/* ---- handing sockets to algd ---------------------------------------- */

/* Sends the state in ADOPT frames; the caller holds the tree's lock. */
static int adopt(struct inproc_op *o, struct afd *a, int fd)
{
	struct afalg_state st;
	int r = eng->export(o->op, &st);
	if (r)
		return r;
	struct ualg_adopt m = { .state = st.flags, .op = st.op, .assoclen = st.assoclen };
	/* A hash names its driver and brings its key (inproc_accepted). */
	const bool key = o->hash && o->t->keysrc == KEY_VALUE;
	_Static_assert(sizeof(m.iv) == sizeof(st.iv) && sizeof(m.result) == sizeof(st.result),
		       "ualg_adopt matches afalg_state");
	memcpy(m.iv, st.iv, sizeof(m.iv));
	memcpy(m.result, st.result, sizeof(m.result));
	const size_t room = UALG_DATA_MAX - sizeof(m) - (key ? o->t->keylen : 0);
	size_t off = 0;
	do {
		size_t n = st.len - off < room ? st.len - off : room;
		m.flags = off + n < st.len ? UALG_ADOPT_PART : 0;
		m.len = (uint32_t)n;
		const bool last = !m.flags;
		if (last && o->hash)
			snprintf(m.driver, sizeof(m.driver), "%s", o->driver);
		m.keylen = last && key ? (uint32_t)o->t->keylen : 0;
		struct iovec parts[3] = { { &m, sizeof(m) }, { o->t->key, m.keylen },
					  { st.data ? st.data + off : NULL, n } };
		struct xact x = { .type = UALG_MSG_ADOPT, .parts = parts, .nparts = 3 };
		r = client_xact(a, fd, &x);
		off += n;
	} while (!r && off < st.len);
	explicit_bzero(&m, sizeof(m));
	eng->state_free(&st);
	return r;
}

/* Moves the in-process op sockets of tree only (NULL: all of them) to
 * algd: at fork and exec, or when their transform gets a key this process
 * does not hold.  One that cannot move (algd gone) stays here: the process
 * goes on with its own copy.  The sockets' references are dropped once
 * ops_lock is released: a last one (the fd closed meanwhile) releases the
 * socket, which takes it. */
static void handover(struct inproc_tfm *tree)
{
	pthread_mutex_lock(&ops_lock);
	size_t n = 0, held = 0;
	for (struct inproc_op *o = ops; o; o = o->next)
		n++;
	struct afd **hold = n ? malloc(n * sizeof(*hold)) : NULL;
	for (struct inproc_op *o = ops; o && hold; o = o->next) {
		struct inproc_tfm *t = o->t;
		if (tree && t != tree)
			continue;
		pthread_mutex_lock(&t->lock);
		int fd = o->op ? afd_find_fd_of_ipo(o) : -1;
		struct afd *a = fd >= 0 ? afd_get(fd) : NULL;
		if (a && !adopt(o, a, fd)) {
			eng->put(o->op);
			o->op = NULL;
			changed(t);
		} else if (o->op) {
			debug("hand-over to algd", EIO);
		}
		if (a)
			hold[held++] = a;
		pthread_mutex_unlock(&t->lock);
	}
	if (n && !hold)
		debug("hand-over to algd", ENOMEM);
	pthread_mutex_unlock(&ops_lock);
	for (size_t i = 0; i < held; i++)
		afd_put(hold[i]);
	free(hold);
}

void inproc_handover_all(void)
{
	handover(NULL);
}

void inproc_handover_of(struct afd *a)
{
	struct inproc_tfm *t = tree_of(a);
	if (t && eng)
		handover(t);
}

/* The socket's last fd here closed. */
void inproc_forget(struct afd *a)
{
	struct inproc_op *o = a->ipo;
	if (o) {
		pthread_mutex_lock(&ops_lock);
		if (o->prev)
			o->prev->next = o->next;
		else
			ops = o->next;
		if (o->next)
			o->next->prev = o->prev;
		pthread_mutex_unlock(&ops_lock);
		struct inproc_tfm *t = o->t;
		pthread_mutex_lock(&t->lock);
		if (o->op)
			eng->put(o->op);
		changed(t);
		pthread_mutex_unlock(&t->lock);
		tfm_put(t);
		free(o);
		a->ipo = NULL;
	}
	tfm_put(a->ipt);
	a->ipt = NULL;
	struct inproc_tfm *st = a->spt;
	if (st) {
		pthread_mutex_lock(&st->lock);
		eng->put(a->shadow);
		pthread_mutex_unlock(&st->lock);
		tfm_put(st);
		a->spt = NULL;
		a->shadow = NULL;
	}
}

static void before_fork(void)
{
	local_share_all();
	client_before_fork();
	if (eng)
		inproc_handover_all();
}

/* pthread_atfork() from the shim's constructor. */
void inproc_init(void)
{
	pthread_atfork(before_fork, NULL, NULL);
}

/* SO_SNDBUF on an op socket served here (algd has been told too). */
void inproc_sndbuf(struct afd *a, int bytes)
{
	struct inproc_op *o = a->ipo;
	pthread_mutex_lock(&o->t->lock);
	if (o->op)
		o->op->sndbuf = (uint32_t)bytes;
	changed(o->t);
	pthread_mutex_unlock(&o->t->lock);
}
