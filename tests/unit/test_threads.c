/* Threads on AF_ALG sockets, run under ualg-run (or on a kernel with
 * AF_ALG): a thread sleeping in read() on an op socket does not keep
 * another thread's sendmsg() out (the kernel releases the socket lock while
 * a reader sleeps), and a thread blocked in an interposed call can be
 * cancelled with pthread_cancel(), on an op socket and on ordinary fds.
 * Vectors: NIST SP 800-38A F.2.1 (CBC-AES128.Encrypt).  TAP output. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "afalg_util.h"
#include "thread_util.h"
#include "sp800_38a.h"
#include <errno.h>
#include <linux/if_alg.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>


static int tests;
static int failures;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++tests, what);
	failures += !cond;
	fflush(stdout);
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* A keyed cbc(aes) op socket. */
static int op_socket(int *tfm)
{
	return afalg_op_socket("skcipher", "cbc(aes)", key, sizeof(key), tfm);
}

/* sendmsg() with the operation and IV. */
static ssize_t send_first(int fd, const void *data, size_t len, int flags)
{
	return afalg_send_op(fd, ALG_OP_ENCRYPT, iv, 16, data, len, flags);
}

/* A thread that reads want bytes from fd in reads of piece bytes. */
struct reader {
	int fd;
	size_t want, piece, got;
	uint8_t buf[64];
	int err;
	_Atomic pid_t tid;
};

static void *read_all(void *arg)
{
	struct reader *r = arg;
	thread_publish(&r->tid);
	while (r->got < r->want) {
		ssize_t n = read(r->fd, r->buf + r->got, r->piece);
		if (n <= 0) {
			r->err = n < 0 ? errno : -1;
			break;
		}
		r->got += (size_t)n;
	}
	return NULL;
}

/* Joins t, giving up after secs. */
static int join_within(pthread_t t, int secs, void **ret)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += secs;
	return pthread_timedjoin_np(t, ret, &ts);
}

/* The sending side: piece-byte sends, MSG_MORE but the last. */
struct sender {
	int fd;
	size_t piece;
	int sent_ok;
};

static void *send_all(void *arg)
{
	struct sender *s = arg;
	s->sent_ok = 1;
	for (size_t off = 0; off < 64 && s->sent_ok; off += s->piece) {
		int more = off + s->piece < 64 ? MSG_MORE : 0;
		ssize_t n = off ? send(s->fd, pt + off, s->piece, more) : send_first(s->fd, pt, s->piece, more);
		s->sent_ok = n == (ssize_t)s->piece;
		msleep(20);
	}
	return NULL;
}

/* A sender is not kept out by a reader sleeping on the same socket. */
static void test_send_while_reading(size_t piece)
{
	int tfm, o = op_socket(&tfm);
	struct reader r = { .fd = o, .want = 64, .piece = piece };
	struct sender s = { .fd = o, .piece = piece };
	pthread_t rt, st;
	char what[256];

	if (o < 0 || pthread_create(&rt, NULL, read_all, &r)) {
		ok(0, "op socket and reader thread");
		return;
	}
	const bool asleep = thread_asleep(&r.tid);	/* in read(), no data queued */
	if (pthread_create(&st, NULL, send_all, &s)) {
		ok(0, "sender thread");
		return;
	}
	int sent = join_within(st, 10, NULL) == 0;
	int joined = sent && join_within(rt, 10, NULL) == 0;
	snprintf(what, sizeof(what), "a reader asleep in read() (%zu-byte reads) lets another thread's sends in: "
		 "reader %s, sender %s, reader %s, SP 800-38A ciphertext %s", piece,
		 asleep ? "asleep" : "NEVER BLOCKED", !sent ? "STILL BLOCKED" : s.sent_ok ? "done" : "FAILED",
		 joined ? "done" : "STILL BLOCKED", joined && r.got == 64 && !memcmp(r.buf, ct, 64) ? "ok" : "WRONG");
	ok(asleep && sent && s.sent_ok && joined && r.got == 64 && !memcmp(r.buf, ct, 64), what);
	if (!sent || !joined)
		return;	/* left as they are: the socket is stuck */
	close(o);
	close(tfm);
}

/* ---- cancellation points ------------------------------------------- */

/* An ASan build waiting for algd's reply: the asynchronous cancellation
 * unwinds frames ASan poisoned, and the clean-up's calls then trip over
 * them (a false report). */
static bool asan_algd(void)
{
#if defined(__SANITIZE_ADDRESS__)
	const char *e = getenv("UALG_ENGINE");
	return e && !strcmp(e, "algd");
#else
	return false;
#endif
}

struct blocker {
	int fd;
	int how;
	_Atomic pid_t tid;
};

enum { B_READ, B_POLL, B_SELECT, B_EPOLL, B_RECV };

static void *block(void *arg)
{
	struct blocker *b = arg;
	char c[64];
	thread_publish(&b->tid);
	switch (b->how) {
	case B_READ:
		read(b->fd, c, sizeof(c));
		break;
	case B_RECV:
		recv(b->fd, c, sizeof(c), 0);
		break;
	case B_POLL: {
		struct pollfd p = { .fd = b->fd, .events = POLLIN };
		poll(&p, 1, -1);
		break;
	}
	case B_SELECT: {
		fd_set s;
		FD_ZERO(&s);
		FD_SET(b->fd, &s);
		select(b->fd + 1, &s, NULL, NULL, NULL);
		break;
	}
	case B_EPOLL: {
		int ep = epoll_create1(0);
		struct epoll_event ev = { .events = EPOLLIN };
		struct epoll_event out;
		epoll_ctl(ep, EPOLL_CTL_ADD, b->fd, &ev);
		epoll_wait(ep, &out, 1, -1);	/* ep leaks if cancelled: a test */
		break;
	}
	}
	return (void *)1;	/* returned: not cancelled */
}

static void test_cancel(const char *what, int fd, int how)
{
	struct blocker b = { .fd = fd, .how = how };
	pthread_t t;
	void *ret = NULL;
	char line[256];

	if (pthread_create(&t, NULL, block, &b)) {
		ok(0, what);
		return;
	}
	const bool asleep = thread_asleep(&b.tid);	/* in the call */
	pthread_cancel(t);
	int joined = join_within(t, 5, &ret) == 0;
	snprintf(line, sizeof(line), "pthread_cancel() of a thread blocked in %s: %s", what,
		 !asleep ? "NEVER BLOCKED" : !joined ? "NOT CANCELLED" :
		 ret == PTHREAD_CANCELED ? "cancelled" : "returned instead");
	ok(asleep && joined && ret == PTHREAD_CANCELED, line);
	if (!joined)	/* leave it; the process ends soon */
		pthread_detach(t);
}

/* After a reader was cancelled, the socket still works. */
static void test_cancel_op(int how, const char *what)
{
	if (asan_algd()) {
		printf("# skipped: pthread_cancel() of %s served by algd (ASan cannot follow the "
		       "cancellation's unwinding)\n", what);
		return;
	}
	int tfm, o = op_socket(&tfm);
	uint8_t out[64];

	if (o < 0) {
		ok(0, "op socket");
		return;
	}
	test_cancel(what, o, how);
	int usable = send_first(o, pt, 64, 0) == 64 && read(o, out, 64) == 64 && !memcmp(out, ct, 64);
	ok(usable, "the op socket still works after its reader was cancelled (SP 800-38A)");
	close(o);
	close(tfm);
}

int main(void)
{
	alarm(120);
	int p[2];
	if (pipe(p)) {
		ok(0, "pipe");
		return 1;
	}
	test_cancel("read() on a pipe", p[0], B_READ);
	test_cancel("poll() on a pipe", p[0], B_POLL);
	test_cancel("select() on a pipe", p[0], B_SELECT);
	test_cancel("epoll_wait() on a pipe", p[0], B_EPOLL);
	test_send_while_reading(64);
	test_send_while_reading(16);

	test_cancel_op(B_READ, "read() on an op socket");
	test_cancel_op(B_RECV, "recv() on an op socket");

	printf("1..%d\n", tests);
	return failures != 0;
}
