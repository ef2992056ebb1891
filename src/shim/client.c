/* Talking to algd: connecting a transform socket, and one request/reply
 * transaction at a time per socket. */
#include "shim.h"
#include "msg.h"	/* the replies' decoders */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void debug(const char *fmt, const char *arg, int err)
{
	if (secure_getenv("UALG_DEBUG"))	/* never in set-user-ID programs */
		fprintf(stderr, "ualg: %s%s: %s\n", fmt, arg, strerror(err));
}

static bool spin(bool (*probe)(void *ctx, uint32_t before), void *ctx, uint32_t before,
		 size_t data_len);
static bool readable(void *fdp, uint32_t before);

/* HELLO's answer as socket() gives it: algd's refusal (EACCES by policy,
 * EMFILE over its limit), or a kernel without AF_ALG. */
static int hello_result(int r)
{
	return r && r != -EACCES && r != -EMFILE ? -EAFNOSUPPORT : r;
}

/* The greeting is sent ahead (client.c's "sending ahead") once this
 * process has talked with algd: its answer is then known but for a
 * budget algd enforces, which the socket's next call reports. */
int client_connect_ahead(int type_flags, bool *owed)
{
	const char *path = shim_socket_path();
	char why[256];
	int fd = ualg_connect(path, why, sizeof(why));
	if (owed)
		*owed = false;
	if (fd == -EPERM) {
		/* Not an algd this user can trust: said always, as refused. */
		fprintf(stderr, "ualg: refusing algd at %s: %s\n", path, why);
		return -EACCES;
	}
	if (fd < 0) {
		/* No daemon: to the program this is a kernel without AF_ALG. */
		debug("cannot reach algd at ", path, -fd);
		return -EAFNOSUPPORT;
	}
	if (!(type_flags & SOCK_CLOEXEC))
		real.fcntl(fd, F_SETFD, 0);
	const bool ahead = owed && local_control_ready();
	int r = ualg_hello_send(fd, ahead);
	if (!r && !ahead) {
		spin(readable, &fd, 0, 0);
		r = hello_result(ualg_hello_answer(fd));
	}
	if (!r && (type_flags & SOCK_NONBLOCK))
		r = real.fcntl(fd, F_SETFL, O_NONBLOCK) ? -errno : 0;
	if (r) {
		debug("algd handshake failed at ", path, -r);
		real.close(fd);
		return r;
	}
	if (owed)
		*owed = ahead;
	return fd;
}

int client_connect(int type_flags)
{
	return client_connect_ahead(type_flags, NULL);
}

long shim_cancellable(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	int old;

	/* As glibc's wrappers did before 2.34: a cancellation requested
	 * meanwhile, or already pending, acts while the call sleeps. */
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	long r = syscall(nr, a1, a2, a3, a4, a5, a6);
	int err = errno;
	pthread_setcanceltype(old, NULL);
	errno = err;
	return r;
}

/* Waits for algd's next reply and peeks at its header (hdr; the return
 * is the bytes peeked, 0 at the end of the connection).  A signal handler
 * running meanwhile returns -EINTR, as the kernel's sleep in
 * af_alg_wait_for_data() would.  The wait is a cancellation point when the
 * caller's is (cancel_state).  A blocking peek sleeps as the kernel's read
 * does (a handler with SA_RESTART restarts it), but the kernel wakes only
 * one of the threads sleeping in a receive on a socket per message, and a
 * peek leaves the message there: so only one thread at a time sleeps in
 * it (!by_poll), and any other, as a call on a non-blocking connection,
 * sleeps in poll(), which wakes them all. */
static ssize_t wait_reply(int fd, struct ualg_hdr *hdr, bool interruptible, int cancel_state,
			  bool by_poll)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	bool reset = false;

	for (;;) {
		pthread_setcancelstate(cancel_state, NULL);
		long n = by_poll ? -1 : shim_cancellable(SYS_recvfrom, fd, (long)hdr, sizeof(*hdr), MSG_PEEK, 0, 0);
		int err = by_poll ? EAGAIN : errno;
		if (n < 0 && (err == EAGAIN || err == EWOULDBLOCK)) {
			n = shim_cancellable(SYS_poll, (long)&p, 1, -1, 0, 0, 0);
			err = errno;
			if (n >= 0)
				n = shim_cancellable(SYS_recvfrom, fd, (long)hdr, sizeof(*hdr),
						     MSG_PEEK | MSG_DONTWAIT, 0, 0);
			err = n < 0 ? errno : err;
		}
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (n < 0 && (err == EAGAIN || err == EWOULDBLOCK))
			continue;	/* another thread took what woke us: sleep again */
		if (n < 0 && err == ECONNRESET && !reset) {
			reset = true;	/* algd's last replies, or the end, follow (frame_recv()) */
			continue;
		}
		if (n >= 0)
			return n;
		if (err != EINTR || interruptible)
			return -err;
	}
}

/* How long a data transaction (send, receive) waits for its reply on
 * memory before it sleeps in the kernel (ualg_poll_us()): algd answers a
 * small request within microseconds, less than putting a thread to sleep
 * and waking it (and its halted core) costs.  The wait reads algd's reply
 * counter (UALG_MSG_NOTIFY_SETUP) and makes no system call. */
static unsigned poll_us(void)
{
	return ualg_poll_us();
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);	/* the vDSO: no system call */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

void *client_page(struct afd *a, int fd, uint16_t type, size_t size, int *result)
{
	struct xact x = { .type = type, .want_fd = true, .cloexec = true };
	void *map = NULL;
	const int r = client_xact(a, fd, &x);
	if (result)
		*result = r;
	if (r >= 0 && x.rfd >= 0 && ualg_memfd_map(x.rfd, size, &map))
		map = NULL;
	if (x.rfd >= 0)
		real.close(x.rfd);
	return map;
}

/* Maps the connection's reply counter, once per socket and process. */
static void notify_setup(struct afd *a, int fd)
{
	int none = NOTIFY_NONE;
	if (!atomic_compare_exchange_strong(&a->notify_state, &none, NOTIFY_BUSY))
		return;
	a->notify = client_page(a, fd, UALG_MSG_NOTIFY_SETUP, UALG_NOTIFY_SIZE, NULL);
	atomic_store(&a->notify_state, a->notify ? NOTIFY_READY : NOTIFY_NEVER);
}

static atomic_uint behind_total;	/* over all sockets: fork and exec settle them */
static atomic_uint tokens_owed;		/* op sockets with token_owed: fork and exec learn them */

void client_forget(struct afd *a)
{
	/* Replies still owed go with the connection. */
	if (a->behind)
		atomic_fetch_sub(&behind_total, a->behind);
	a->behind = 0;
	a->owed = 0;
	if (a->token_owed)
		atomic_fetch_sub(&tokens_owed, 1);
	a->token_owed = false;
	fast_forget(a);
	if (atomic_load(&a->notify_state) == NOTIFY_READY && !a->notify_in_fast)
		munmap((void *)a->notify, UALG_NOTIFY_SIZE);
	a->notify = NULL;
}

/* Spinning pays while algd is on a CPU.  A spin that ended without the
 * reply means it was not (a busy host): the process's next 2, 4, ... 256
 * waits sleep at once, as an adaptive mutex stops spinning for an owner
 * that sleeps; a spin that gets its reply ends the backoff. */
#define SPIN_BACKOFF_MAX 8u
static atomic_uint spin_misses, spin_skip;

/* Spins while probe() says no, for as long as algd may take to answer
 * data_len bytes (ualg_poll_window_ns()); whether it said yes. */
static bool spin(bool (*probe)(void *ctx, uint32_t before), void *ctx, uint32_t before,
		 size_t data_len)
{
	const uint64_t window = ualg_poll_window_ns(poll_us(), data_len);
	if (!window || ualg_cpu_contended())
		return false;
	unsigned skip = atomic_load_explicit(&spin_skip, memory_order_relaxed);
	if (skip) {
		atomic_compare_exchange_strong(&spin_skip, &skip, skip - 1);
		return false;
	}
	const uint64_t start = now_ns();
	for (unsigned i = 1;; i++) {
		if (probe(ctx, before)) {
			atomic_store_explicit(&spin_misses, 0, memory_order_relaxed);
			return true;
		}
		cpu_relax();
		if (!(i & 63) && now_ns() - start >= window)
			break;
	}
	unsigned m = atomic_load_explicit(&spin_misses, memory_order_relaxed);
	m = m < SPIN_BACKOFF_MAX ? m + 1 : m;
	atomic_store_explicit(&spin_misses, m, memory_order_relaxed);
	atomic_store_explicit(&spin_skip, 1u << m, memory_order_relaxed);
	return false;
}

static bool word_moved(void *word, uint32_t before)
{
	return atomic_load_explicit((const _Atomic uint32_t *)word, memory_order_acquire) != before;
}

void client_spin(const _Atomic uint32_t *word, uint32_t before, size_t data_len)
{
	spin(word_moved, (void *)word, before, data_len);
}

/* A socket without algd's counter (one-shot use, set-up calls) is
 * probed itself: each probe a system call, a cheaper wait than a sleep
 * whose wake-up must first bring an idle CPU back.  readable() only
 * looks; taken() receives the reply into the call's buffers. */
static bool readable(void *fdp, uint32_t before)
{
	(void)before;
	struct ualg_hdr h;
	const ssize_t n = syscall(SYS_recvfrom, *(const int *)fdp, &h, sizeof(h), MSG_PEEK | MSG_DONTWAIT,
				  NULL, NULL);
	return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

struct take {
	int fd;
	struct ualg_hdr *h;
	struct xact *x;
	ssize_t n;	/* the receive's result; -EAGAIN: none */
};

static bool taken(void *ctx, uint32_t before)
{
	(void)before;
	struct take *t = ctx;
	t->n = ualg_frame_recv_now(t->fd, t->h, t->x->rbody, t->x->nrbody,
				   t->x->want_fd ? &t->x->rfd : NULL, t->x->cloexec);
	return t->n != -EAGAIN;
}

/* Threads share an op socket as they share the kernel's: a receive that
 * waits in algd does not keep another thread's send out (the kernel
 * releases the socket lock while a reader sleeps).  Requests of one class
 * go one at a time per socket; of different classes they may be in flight
 * together, and their replies, which carry the request's type, are told
 * apart by it.  a->lock is held except while a thread sleeps for its
 * reply. */
enum { XC_RECV, XC_SEND, XC_OTHER };

static int xact_class(uint16_t type)
{
	switch (type) {
	case UALG_MSG_RECV:
	case UALG_MSG_RECV_SHM:
	case UALG_MSG_RFC_READ: return XC_RECV;
	case UALG_MSG_SEND:
	case UALG_MSG_SEND_SHM:
	case UALG_MSG_RFC_WRITE: return XC_SEND;
	}
	return XC_OTHER;
}

/* Whether the reply of type t is another thread's. */
static bool others(const struct afd *a, int cls, uint16_t t)
{
	for (int i = 0; i < 3; i++)
		if (i != cls && a->expect[i] == t)
			return true;
	return false;
}

/* Whether a request of another class is in flight on the socket. */
static bool others_in_flight(const struct afd *a, int cls)
{
	for (int i = 0; i < 3; i++)
		if (i != cls && a->expect[i])
			return true;
	return false;
}

/* Writing behind: a send on a hash op socket served by algd returns once
 * its frame is queued, marked UALG_SEND_QUIET: algd answers it only if it
 * fails, and the reply to the socket's next request shows it done (algd
 * answers a connection's requests in order).  So a hash operation of one
 * send and one read costs one round trip.  The kernel's hash_sendmsg()
 * fails only for a bad buffer (the shim reads it first: EFAULT stays the
 * call's), for a transform without its key (ENOKEY), for lack of memory
 * and, where the message starts with key material (poly1305's key,
 * vmac64's nonce), for a message the final refuses: a send that ends such
 * a message goes behind only where the shim sees it cannot be refused
 * (x->msg_ok, alg_io.c).  So a socket writes behind only once a send on it
 * succeeded with its reply waited for, or algd accepted it with its
 * transform's key set or none needed, and no key was set in this process
 * since (a setkey that fails leaves the transform without a key); a failure's
 * reply (algd out of memory or over a budget) is the next call's answer.
 * Not covered: a process that shares the transform socket after fork()
 * setting a bad key on it: this socket's sends still succeed, and its
 * read fails with ENOKEY as on Linux.  A send goes quiet only while no
 * other request is in flight on the socket, so that the next reply comes
 * after it; at most BEHIND_MAX go before a reply, so that failures never
 * fill the connection. */
#define BEHIND_MAX 32u

/* Sending ahead: a socket's set-up requests whose answer is known (a
 * HELLO on a new connection once this process has talked with algd, a
 * BIND of an address algd bound under the control page's generation now,
 * the bind, key, tag length and ACCEPT_HERE of an op socket algd serves
 * for a local transform socket, local.c) go without waiting, marked
 * UALG_HDR_QUIET: algd answers them only if they fail, and the reply to
 * the socket's next request shows them done (a->owed, also counted in
 * a->behind so that fork, exec and SCM_RIGHTS settle them; a refusal is
 * taken on the way to that reply).  One that failed after all (the
 * generation moved meanwhile, algd over a budget) is the answer of the
 * program's next call, as a send written behind.  A one-shot use through
 * algd so waits once, at read (its write goes behind too), not five
 * times. */
static bool owed_reply(const struct afd *a, const struct ualg_hdr *h)
{
	if (!a->owed || !(h->flags & UALG_HDR_REPLY))
		return false;
	/* A quiet request's failure, or algd's refusal of the connection,
	 * which it answers before it reads the greeting. */
	return ((h->type == UALG_MSG_HELLO || h->type == UALG_MSG_BIND ||
		 h->type == UALG_MSG_SETSOCKOPT || h->type == UALG_MSG_ACCEPT_HERE) &&
		(h->flags & UALG_HDR_QUIET)) ||
	       (h->type == UALG_MSG_HELLO && h->result < 0);
}

static atomic_uint key_epoch;	/* moves at every setsockopt on a socket of algd's */

/* Moves at every fork: a socket made before it may be used by another
 * process, which would meet the replies this one leaves behind. */
static atomic_uint fork_gen;

unsigned client_gen(void)
{
	return atomic_load(&fork_gen);
}

/* Whether this process is alone on the stream x goes on: its own
 * channel, the fd of a socket it accepted (every other process has a
 * channel), or of one no fork has shared since it was made. */
static bool own_stream(const struct afd *a, const struct xact *x)
{
	return x->chan || (a->has_token && a->owner == client_self()) ||
	       a->gen == atomic_load_explicit(&fork_gen, memory_order_relaxed);
}

static bool may_write_behind(const struct afd *a, const struct xact *x)
{
	if (!x->behind || x->type != UALG_MSG_SEND || !a->op || a->rfc || a->behind >= BEHIND_MAX ||
	    others_in_flight(a, -1) || !own_stream(a, x))
		return false;
	if (a->type != ALG_TYPE_HASH)
		return x->checked;
	return a->proven == atomic_load_explicit(&key_epoch, memory_order_relaxed) + 1 &&
	       (!a->msg_key_len || (x->behind->flags & UALG_SEND_MORE) || x->msg_ok);
}

/* ---- small hash writes gathered (shim.h, client_gather()) ------------- */

static int channel(struct afd *a, int fd);

#define GATHER_MAX 4096u

static atomic_uint gathered_total;	/* sockets with bytes gathered: fork and exec flush them */

bool client_gather(struct afd *a, const void *data, size_t len,
		   int (*copy)(void *ctx, uint8_t *dst, size_t n), void *ctx)
{
	pthread_mutex_lock(&a->lock);
	bool taken = false;
	/* Only on a socket no fork has shared: a process that shares it may
	 * leave with _exit(), which flushes nothing, while another goes on. */
	if (a->op && !a->rfc && !a->ipo && a->type == ALG_TYPE_HASH && !a->behind_err &&
	    len <= GATHER_MAX - a->gather_len &&
	    a->gen == atomic_load_explicit(&fork_gen, memory_order_relaxed) &&
	    a->proven == atomic_load_explicit(&key_epoch, memory_order_relaxed) + 1 &&
	    a->gather_ok == a->proven) {
		if (!a->gather)
			a->gather = malloc(GATHER_MAX);
		if (a->gather && !(data ? (memcpy(a->gather + a->gather_len, data, len), 0)
					: copy(ctx, a->gather + a->gather_len, len))) {
			if (!a->gather_len)
				atomic_fetch_add(&gathered_total, 1);
			a->gather_len += len;
			taken = true;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return taken;
}

/* The gathered bytes as one MSG_MORE send, written behind: its failure is
 * the answer of the program's next call.  Called with a->lock held. */
static void gather_flush(struct afd *a, int fd)
{
	if (!a->gather_len)
		return;
	struct ualg_send m = { .flags = UALG_SEND_FIRST | UALG_SEND_LAST | UALG_SEND_MORE | UALG_SEND_QUIET };
	struct iovec parts[2] = { { &m, sizeof(m) }, { a->gather, a->gather_len } };
	const int r = client_send(fd, UALG_MSG_SEND, parts, 2);
	explicit_bzero(a->gather, a->gather_len);
	a->gather_len = 0;
	atomic_fetch_sub(&gathered_total, 1);
	if (r) {
		if (!a->behind_err)
			a->behind_err = -r;
		return;
	}
	a->behind++;
	atomic_fetch_add(&behind_total, 1);
}

/* At exit(): a socket passed to another process (SCM_RIGHTS) keeps what
 * was written to it here.  (_exit() runs nothing; a socket no fork has
 * shared goes with the process anyway.) */
static void flush_one(int fd, struct afd *a)
{
	pthread_mutex_lock(&a->lock);
	gather_flush(a, channel(a, fd));
	pthread_mutex_unlock(&a->lock);
}

static void flush_at_exit(void)
{
	if (atomic_load(&gathered_total))
		afd_for_each(flush_one);
}

void client_gather_drop(struct afd *a)
{
	if (a->gather_len)
		atomic_fetch_sub(&gathered_total, 1);
	if (a->gather)
		explicit_bzero(a->gather, GATHER_MAX);
	free(a->gather);
	a->gather = NULL;
	a->gather_len = 0;
}

unsigned client_key_epoch(void)
{
	return atomic_load(&key_epoch);
}

/* A hash op socket algd accepted with its transform's key set (or none
 * needed) meets only the failures a send written behind may report late,
 * as one after a send that waited: its first send need not wait either.
 * One accepted before the key (ENOKEY until one is set) proves itself by
 * a send as before.  What the message must start with, for hashes whose
 * message carries key material, comes with the accept too. */
void client_accepted(struct afd *op, unsigned epoch, const struct ualg_engine_info *e)
{
	op->msg_key_len = e->msg_key_len;
	op->msg_key_clear = e->msg_key_clear;
	if (op->type == ALG_TYPE_HASH && !op->rfc && !(e->flags & UALG_ENGINE_NOKEY))
		op->proven = epoch + 1;
}

/* After a send waited for its reply: may the socket's next ones not? */
static void note_send_result(struct afd *a, const struct xact *x, unsigned epoch, int result)
{
	if (x->type == UALG_MSG_SEND && x->behind)
		a->proven = a->gather_ok = result >= 0 ? epoch + 1 : 0;
}

/* The failure of a send written behind, or the reply to a request sent
 * ahead: taken on the way to a call's own reply. */
static bool is_behind(const struct afd *a, const struct ualg_hdr *h)
{
	return (h->type == UALG_MSG_SEND && (h->flags & UALG_HDR_QUIET)) || owed_reply(a, h);
}

static void behind_failed(struct afd *a, const struct ualg_hdr *h, ssize_t n)
{
	int result = (size_t)n == sizeof(*h) ? h->result : -EPROTO;
	if (owed_reply(a, h)) {
		a->owed--;
		a->behind--;
		atomic_fetch_sub(&behind_total, 1);
		if (h->type == UALG_MSG_HELLO)
			result = result == UALG_PROTO_VERSION ? 0 : hello_result(result < 0 ? result : -EPROTO);
		if (!result)
			return;
	}
	if (!a->behind_err)
		a->behind_err = result < 0 && result > -4096 ? -result : EPROTO;
}

/* A reply to a later request came (or the connection ended): the sends
 * written behind are done. */
static void behind_done(struct afd *a)
{
	if (a->behind) {
		atomic_fetch_sub(&behind_total, a->behind);
		a->behind = 0;
	}
	a->owed = 0;
}

/* Spins until the counter moves from before (a reply, ours or another
 * thread's, is in the socket) or the window passed; then recv_reply()
 * takes it or sleeps as before. */
static void spin_reply(const struct afd *a, uint32_t before, size_t data_len)
{
	if (a->notify)
		client_spin(a->notify, before, data_len);
}

/* Takes x's reply, or the end of the connection, leaving the others'
 * replies to their threads: a thread sleeps in a peek, with a->lock
 * released, and takes only a reply of its own type (one request per class
 * is in flight, and no thread takes another's).  Alone on the socket it
 * takes the reply without a peek, once algd's counter says it is there:
 * the common path is the request's send and the reply's receive.  Replies
 * written behind are taken on the way.  Called and returns with a->lock
 * held. */
static ssize_t recv_reply(struct afd *a, int fd, int cls, struct xact *x, struct ualg_hdr *h,
			  bool interruptible, int cancel_state)
{
	bool spun = false;
	struct take t = { fd, h, x, -EAGAIN };

	a->expect[cls] = x->type;
	for (;;) {
		if (!others_in_flight(a, cls)) {
			const bool notified = !x->chan && a->notify;
			const uint32_t seen = notified ? atomic_load_explicit(a->notify, memory_order_acquire) : 0;
			ssize_t n = t.n != -EAGAIN ? t.n : ualg_frame_recv_now(fd, h, x->rbody, x->nrbody,
								      x->want_fd ? &x->rfd : NULL, x->cloexec);
			t.n = -EAGAIN;
			if (n > 0 && is_behind(a, h)) {
				behind_failed(a, h, n);
				spun = false;
				continue;
			}
			if (n == -EAGAIN && !spun) {
				if (notified)
					spin_reply(a, seen, x->data_len);
				else
					spin(taken, &t, 0, x->data_len);	/* t.n: what it took */
				spun = true;
				continue;
			}
			if (n != -EAGAIN && n != -EINTR) {
				behind_done(a);
				pthread_cond_broadcast(&a->cond);
				return n;
			}
		}
		struct ualg_hdr peek;
		x->peeking = !a->peeking;
		a->peeking = true;
		pthread_mutex_unlock(&a->lock);
		ssize_t p = wait_reply(fd, &peek, interruptible, cancel_state, !x->peeking);
		pthread_mutex_lock(&a->lock);
		if (x->peeking)
			a->peeking = x->peeking = false;
		if (p < 0)
			return p;
		/* With another request in flight the peek may be stale: its
		 * thread may have taken that reply meanwhile.  Look again,
		 * under the lock, before taking or leaving the reply. */
		if (others_in_flight(a, cls)) {
			p = (ssize_t)syscall(SYS_recvfrom, fd, &peek, sizeof(peek), MSG_PEEK | MSG_DONTWAIT,
					     NULL, NULL);
			if (p < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
				continue;
			if (p >= 0 && (size_t)p == sizeof(peek) && is_behind(a, &peek)) {
				struct ualg_hdr bh;
				ssize_t m = ualg_frame_recv_now(fd, &bh, NULL, 0, NULL, 1);
				if (m > 0)
					behind_failed(a, &bh, m);
				continue;
			}
			if (p >= 0 && (size_t)p == sizeof(peek) && others(a, cls, peek.type)) {
				pthread_cond_wait(&a->cond, &a->lock);
				continue;
			}
		}
		/* Never a blocking receive with the lock held: the reply peeked
		 * may have been another thread's, taken since (its request no
		 * longer in flight), and the next may need a call of another
		 * thread, which needs the lock. */
		ssize_t n = ualg_frame_recv_now(fd, h, x->rbody, x->nrbody, x->want_fd ? &x->rfd : NULL,
						x->cloexec);
		if (n == -EAGAIN || (n == -EINTR && !interruptible))
			continue;
		if (n > 0 && is_behind(a, h)) {
			behind_failed(a, h, n);
			continue;
		}
		behind_done(a);
		pthread_cond_broadcast(&a->cond);
		return n;
	}
}

static int send_frame(int fd, uint16_t type, uint16_t flags, const struct iovec *parts, int nparts)
{
	for (;;) {
		int r = ualg_frame_send(fd, type, flags, 0, parts, nparts, -1);
		if (r != -EAGAIN)
			return r == -EPIPE || r == -ECONNREFUSED ? -ECONNRESET : r;
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		syscall(SYS_poll, &p, 1, -1);
	}
}

int client_send(int fd, uint16_t type, const struct iovec *parts, int nparts)
{
	return send_frame(fd, type, 0, parts, nparts);
}

/* Waits until the sends written behind on a are done, taking their
 * failures, before its connection is shared (fork, exec): otherwise two
 * processes would wait for one reply, or a new program meet one it never
 * asked for.  Their successes have no reply: a POLL's says they are done.
 * A socket with a request of another thread in flight is left to that
 * thread, whose reply shows them done as well. */
static void settle(int fd, struct afd *a)
{
	int cancel_state;

	fd = channel(a, fd);	/* where they went */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	pthread_mutex_lock(&a->lock);
	gather_flush(a, fd);
	if (a->behind && !others_in_flight(a, -1)) {
		struct xact x = { .type = UALG_MSG_POLL };
		struct ualg_hdr h;
		ssize_t n = client_send(fd, x.type, NULL, 0);
		if (!n)
			n = recv_reply(a, fd, XC_OTHER, &x, &h, false, PTHREAD_CANCEL_DISABLE);
		a->expect[XC_OTHER] = 0;
		if (n <= 0)
			a->poolable = false;
		if (n <= 0 && !a->behind_err)
			a->behind_err = ECONNRESET;	/* algd went away: the next call says so */
		behind_done(a);
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
	pthread_setcancelstate(cancel_state, NULL);
	client_learn_token(a, fd);
}

void client_owe_token(struct afd *a)
{
	a->token_owed = true;
	atomic_fetch_add(&tokens_owed, 1);
}

int client_learn_token(struct afd *a, int fd)
{
	pthread_mutex_lock(&a->lock);
	const bool owed = a->token_owed;
	pthread_mutex_unlock(&a->lock);
	if (!owed)
		return 0;
	struct ualg_describe d;
	struct iovec body = { &d, sizeof(d) };
	struct xact x = { .type = UALG_MSG_DESCRIBE, .rbody = &body, .nrbody = 1 };
	int r = client_xact(a, fd, &x);
	if (!r && x.rlen != sizeof(d))
		r = -EPROTO;
	pthread_mutex_lock(&a->lock);
	if (!r && a->token_owed) {
		client_set_token(a, d.token, client_self());
		a->token_owed = false;
		atomic_fetch_sub(&tokens_owed, 1);
	}
	pthread_mutex_unlock(&a->lock);
	explicit_bzero(&d, sizeof(d));
	return r;
}

/* A socket closed with requests sent ahead still unconfirmed (one made
 * and closed with no call between) settles them first, so that a program
 * waits for algd at least once per socket, as it waits for the kernel.
 * Else a loop of socket(), bind() and close() would never wait and run
 * any way ahead of algd, which holds each connection until it has read to
 * its end: EMFILE from algd's --max-sockets, which Linux never gives such
 * a loop. */
void client_before_close(int fd, struct afd *a)
{
	pthread_mutex_lock(&a->lock);
	const bool owed = a->owed != 0;
	pthread_mutex_unlock(&a->lock);
	if (owed)
		settle(fd, a);
}

void client_settle_all(void)
{
	if (atomic_load(&behind_total) || atomic_load(&gathered_total) || atomic_load(&tokens_owed))
		afd_for_each(settle);
}

void client_before_fork(void)
{
	client_settle_all();
	atomic_fetch_add(&fork_gen, 1);
}

/* ---- channels (proto.h, ATTACH) ---------------------------------------- */

static atomic_int self_pid;
static pthread_mutex_t chan_lock = PTHREAD_MUTEX_INITIALIZER;

pid_t client_self(void)
{
	pid_t p = atomic_load_explicit(&self_pid, memory_order_relaxed);
	if (!p) {
		p = (pid_t)syscall(SYS_getpid);
		atomic_store(&self_pid, p);
	}
	return p;
}

/* Known from the start in every process, so that a vfork() child, which
 * runs no fork handler and shares the parent's memory, can tell. */
static void after_fork_child(void)
{
	atomic_store(&self_pid, (pid_t)syscall(SYS_getpid));
	pthread_mutex_init(&chan_lock, NULL);
}

bool client_in_vfork_child(void)
{
	const pid_t p = atomic_load_explicit(&self_pid, memory_order_relaxed);
	return p && (pid_t)syscall(SYS_getpid) != p;
}

void client_init(void)
{
	client_self();
	pthread_atfork(NULL, NULL, after_fork_child);
	atexit(flush_at_exit);
}

void client_owe_hello(struct afd *a)
{
	pthread_mutex_lock(&a->lock);
	a->owed++;
	a->behind++;
	atomic_fetch_add(&behind_total, 1);
	pthread_mutex_unlock(&a->lock);
}

/* A request sent ahead could not go: the connection ended.  A refusal
 * algd answered to the HELLO before it hung up says why. */
static int ahead_failed(struct afd *a, int fd, int r)
{
	while (a->owed) {
		struct ualg_hdr h;
		ssize_t n = ualg_frame_recv_now(fd, &h, NULL, 0, NULL, 1);
		if (n <= 0 || !owed_reply(a, &h))
			break;
		behind_failed(a, &h, n);
	}
	behind_done(a);
	if (a->behind_err) {
		r = -a->behind_err;
		a->behind_err = 0;
	}
	return r;
}

void client_set_token(struct afd *a, const uint8_t token[UALG_TOKEN_BYTES], pid_t owner)
{
	static const uint8_t none[UALG_TOKEN_BYTES];
	a->has_token = memcmp(token, none, sizeof(none)) != 0;
	memcpy(a->token, token, sizeof(a->token));
	a->owner = owner;
}

ino_t client_sock_ino(int fd)
{
	struct stat st;
	return !fstat(fd, &st) && S_ISSOCK(st.st_mode) ? st.st_ino : 0;
}

int client_attach(int fd, uint16_t type, const uint8_t token[UALG_TOKEN_BYTES])
{
	struct ualg_attach m;
	memcpy(m.token, token, sizeof(m.token));
	struct iovec part = { &m, sizeof(m) };
	struct ualg_hdr h;
	int r = client_send(fd, type, &part, 1);
	if (!r) {
		struct iovec none = { NULL, 0 };
		ssize_t n = ualg_frame_recv(fd, &h, &none, 1, NULL, 1);
		r = n < 0 ? (int)n : n != sizeof(h) || h.type != type ? -EPROTO : h.result;
	}
	explicit_bzero(&m, sizeof(m));
	return r;
}

/* A new channel to a's op socket: fd, or -errno. */
static int attach(struct afd *a)
{
	int fd = client_connect(SOCK_CLOEXEC);
	if (fd < 0)
		return fd;
	int r = client_attach(fd, UALG_MSG_ATTACH, a->token);
	if (r) {
		real.close(fd);
		return r;
	}
	return fd;
}

/* The fd this process talks to algd on for a: the fd itself for its
 * owner and for sockets without a token, else the process's channel,
 * made on first use (and again when the program closed or replaced the fd
 * the channel had: a channel's fd is the shim's, not the program's).
 * Without one the fd itself serves, as a stream the processes share. */
static int channel(struct afd *a, int fd)
{
	const pid_t self = client_self();
	if (!a->has_token || a->owner == self)
		return fd;
	pthread_mutex_lock(&chan_lock);
	if (a->chan_pid != self || client_sock_ino(a->chan_fd) != a->chan_ino) {
		int c = attach(a);
		if (c >= 0) {
			a->chan_fd = c;
			a->chan_ino = client_sock_ino(c);
			a->chan_pid = self;
		} else {
			debug("no channel of its own to an op socket", "", -c);
		}
	}
	const int r = a->chan_pid == self ? a->chan_fd : fd;
	pthread_mutex_unlock(&chan_lock);
	return r;
}

void client_drop_channel(struct afd *a)
{
	if (a->chan_pid == client_self() && client_sock_ino(a->chan_fd) == a->chan_ino)
		real.close(a->chan_fd);
	a->chan_pid = 0;
}

/* After an interrupted wait: algd answers the request (with what it had
 * done, or EINTR), then the cancel; the connection stays in step. */
static ssize_t cancel_wait(struct afd *a, int fd, int cls, struct xact *x, struct ualg_hdr *h)
{
	struct ualg_hdr ack;
	int r = ualg_frame_send(fd, UALG_MSG_CANCEL, 0, 0, NULL, 0, -1);
	if (r)
		return r;
	ssize_t n = recv_reply(a, fd, cls, x, h, false, PTHREAD_CANCEL_DISABLE);
	if (n <= 0)
		return n;
	struct xact none = { .type = UALG_MSG_CANCEL };
	ssize_t m = recv_reply(a, fd, cls, &none, &ack, false, PTHREAD_CANCEL_DISABLE);
	if (m <= 0 || ack.type != UALG_MSG_CANCEL)
		return m < 0 ? m : -EPROTO;
	return n;
}

/* The request's thread is cancelled while it waits: the request is
 * cancelled in algd, its answer dropped, and the socket left usable. */
struct abandon {
	struct afd *a;
	int fd, cls;
	struct xact *x;
};

static void abandon(void *arg)
{
	struct abandon *ab = arg;
	struct ualg_hdr h;

	pthread_mutex_lock(&ab->a->lock);
	if (ab->x->peeking)	/* cancelled in its peek */
		ab->a->peeking = ab->x->peeking = false;
	ssize_t n = cancel_wait(ab->a, ab->fd, ab->cls, ab->x, &h);
	if (n > 0 && ab->x->rfd >= 0)
		real.close(ab->x->rfd);
	ab->a->expect[ab->cls] = 0;
	pthread_cond_broadcast(&ab->a->cond);
	pthread_mutex_unlock(&ab->a->lock);
}

/* Replies are validated as strictly as requests: a confused or foreign
 * peer must not make the shim write past the caller's buffers. */
static int reply_ok(const struct xact *x, const struct ualg_hdr *h, ssize_t n, size_t cap)
{
	size_t data = (size_t)n - sizeof(*h);

	/* The body's size for each request is the protocol's (an AEAD answer
	 * longer than a frame fills it; the rest follows on request,
	 * UALG_RECV_REST). */
	return h->type == x->type && (h->flags & UALG_HDR_REPLY) && !(h->flags & UALG_HDR_SOCKET) &&
	       ualg_decode_afalg_reply(x->type, h->result, data, cap) == 0;
}

static ssize_t recv_cancellable(struct abandon *ab, struct ualg_hdr *h, int cancel_state)
{
	volatile ssize_t n;

	pthread_cleanup_push(abandon, ab);
	n = recv_reply(ab->a, ab->fd, ab->cls, ab->x, h, true, cancel_state);
	pthread_cleanup_pop(0);
	return n;
}

static int finish(struct xact *x, const struct ualg_hdr *hp, ssize_t n, size_t cap);

/* A data call on an op socket: its shared page first (fast.c), where
 * algd offers one (it knows which types say when a call would wait). */
static bool fast_wanted(const struct afd *a, const struct xact *x)
{
	return (x->type == UALG_MSG_SEND || x->type == UALG_MSG_RECV) && a->op && !a->rfc &&
	       poll_us() && a->gen == client_gen();
}

#define PAGES_AFTER 2u

static bool program_call(uint16_t type)
{
	return type == UALG_MSG_SEND || type == UALG_MSG_RECV || type == UALG_MSG_SEND_SHM ||
	       type == UALG_MSG_RECV_SHM || type == UALG_MSG_ACCEPT || type == UALG_MSG_ACCEPT_HERE ||
	       type == UALG_MSG_SETSOCKOPT;
}

int client_xact(struct afd *a, int fd, struct xact *x)
{
	struct ualg_hdr h;
	size_t cap = 0;
	int r;

	for (int i = 0; i < x->nrbody; i++)
		cap += x->rbody[i].iov_len;
	x->rfd = -1;
	x->rflags = 0;
	x->rlen = 0;
	const int cls = xact_class(x->type);
	/* A channel has no pages: they are the fd's connection's. */
	const int own = fd;
	fd = channel(a, fd);
	x->chan = fd != own;
	/* The pages cost a round trip (one for both where algd gives the
	 * request page): a socket gets them from its PAGES_AFTER + 1st data
	 * call on, so that one-shot use (a write and a read) makes none. */
	const bool settled = cls == XC_OTHER || atomic_fetch_add_explicit(&a->data_calls, 1, memory_order_relaxed) >= PAGES_AFTER;
	/* The request page first: where algd can, its setup gives the
	 * reply counter too. */
	const bool fast = fd == own && settled && fast_wanted(a, x);
	if (fast && atomic_load(&a->fast_state) == NOTIFY_NONE)
		fast_setup(a, fd);
	if (fd == own && settled && cls != XC_OTHER && poll_us() &&
	    atomic_load(&a->notify_state) == NOTIFY_NONE)
		notify_setup(a, fd);
	int cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	pthread_mutex_lock(&a->lock);
	while (a->expect[cls])
		pthread_cond_wait(&a->cond, &a->lock);
	if (a->behind_err && program_call(x->type)) {
		r = -a->behind_err;	/* a send written behind failed */
		a->behind_err = 0;
		pthread_mutex_unlock(&a->lock);
		pthread_setcancelstate(cancel_state, NULL);
		return r;
	}
	gather_flush(a, fd);	/* what was gathered goes first */
	if (fast && !a->behind && !others_in_flight(a, -1) && fast_usable(a, x)) {
		ssize_t n = fast_xact(a, fd, x, &h);
		if (n != FAST_DECLINED) {
			if (n >= (ssize_t)sizeof(h))
				note_send_result(a, x, atomic_load(&key_epoch), h.result);
			else
				a->poolable = false;	/* its reply may still come */
			pthread_mutex_unlock(&a->lock);
			pthread_setcancelstate(cancel_state, NULL);
			return finish(x, &h, n, cap);
		}
	}
	if (x->ahead && fd == own && !others_in_flight(a, -1) && a->behind < BEHIND_MAX) {
		r = send_frame(fd, x->type, UALG_HDR_QUIET, x->parts, x->nparts);
		if (r) {
			a->poolable = false;
			r = ahead_failed(a, fd, r);
		} else {
			a->owed++;
			a->behind++;
			atomic_fetch_add(&behind_total, 1);
		}
		pthread_mutex_unlock(&a->lock);
		pthread_setcancelstate(cancel_state, NULL);
		return r;
	}
	const bool notified = fd == own && a->notify;
	const uint32_t before = notified ? atomic_load_explicit(a->notify, memory_order_acquire) : 0;
	if (x->type == UALG_MSG_SETSOCKOPT)
		atomic_fetch_add(&key_epoch, 1);
	const unsigned epoch = atomic_load(&key_epoch);
	const bool quiet = may_write_behind(a, x);
	if (quiet)
		x->behind->flags |= UALG_SEND_QUIET;
	r = client_send(fd, x->type, x->parts, x->nparts);
	if (r) {
		a->poolable = false;
		if (a->owed)
			r = ahead_failed(a, fd, r);
		pthread_mutex_unlock(&a->lock);
		pthread_setcancelstate(cancel_state, NULL);
		return r;
	}
	if (quiet) {
		a->behind++;
		atomic_fetch_add(&behind_total, 1);
		pthread_mutex_unlock(&a->lock);
		pthread_setcancelstate(cancel_state, NULL);
		return (int)x->data_len;
	}
	if (cls != XC_OTHER && notified)
		spin_reply(a, before, x->data_len);
	struct abandon ab = { a, fd, cls, x };
	const bool sends_behind = a->behind > a->owed;
	ssize_t n = recv_cancellable(&ab, &h, cancel_state);
	if (n == -EINTR)
		n = cancel_wait(a, fd, cls, x, &h);
	if (n < (ssize_t)sizeof(h))
		a->poolable = false;	/* its reply may still come: never a new socket's */
	if (n >= (ssize_t)sizeof(h) && (h.flags & UALG_HDR_REPLY)) {
		note_send_result(a, x, epoch, h.result);
		if (sends_behind && !a->behind_err)
			a->gather_ok = epoch + 1;	/* they succeeded */
	}
	a->expect[cls] = 0;
	/* A send written behind failed, and its reply came before this
	 * call's: a call of the program's is the socket's next, whose answer
	 * it is (the shim's own requests leave it to that call). */
	const int late = program_call(x->type) && n >= 0 ? a->behind_err : 0;
	if (late)
		a->behind_err = 0;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_setcancelstate(cancel_state, NULL);
	if (late) {
		if (x->rfd >= 0)
			real.close(x->rfd);
		x->rfd = -1;
		return -late;
	}
	return finish(x, &h, n, cap);
}

/* The call's answer from its reply (n bytes in all, or -errno). */
static int finish(struct xact *x, const struct ualg_hdr *hp, ssize_t n, size_t cap)
{
	const struct ualg_hdr h = *hp;

	if (n == 0)
		return -ECONNRESET;	/* algd went away */
	if (n == -EPIPE || n == -ECONNRESET || n == -ENOTCONN)
		return -ECONNRESET;	/* algd died with our request unread */
	/* EBADF: another thread closed the fd while this call was in
	 * progress (the call holds the socket, not the fd). */
	if (n < 0)
		return n == -EFAULT || n == -EBADF ? (int)n : -EPROTO;
	if (!reply_ok(x, &h, n, cap)) {
		if (x->rfd >= 0)
			real.close(x->rfd);
		x->rfd = -1;
		return -EPROTO;
	}
	x->rlen = (size_t)n - sizeof(h);
	x->rflags = h.flags;
	return h.result;
}
