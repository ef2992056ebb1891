/* The AF_ALG semantics that depend on where a socket is served, checked
 * the same under both engines (run-all.sh runs this under ualg-run with
 * UALG_ENGINE=inproc and =algd): one stream after fork() and across
 * execve(), one socket shared by threads, pthread_cancel() of a blocked
 * read, EFAULT for bad pointers, and the program's own SIGSEGV handling
 * left as it was.  Expected values come from OpenSSL (a real peer) and RFC
 * 3602 (case 1).  TAP output. */
/* OpenSSL's ENGINE API (deprecated in OpenSSL 3) for its afalg ENGINE. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "../unit/afalg_util.h"
#include "../unit/tap.h"
#include "../unit/thread_util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <openssl/engine.h>
#include <openssl/evp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

extern char **environ;

static int op_socket(const char *type, const char *name, const void *key, size_t keylen)
{
	return afalg_op_socket(type, name, key, keylen, NULL);
}

static void sha256(const void *p, size_t n, uint8_t out[32])
{
	EVP_Digest(p, n, out, NULL, EVP_sha256(), NULL);
}

/* ---- RFC 3602 case 1: AES-128-CBC, one block ------------------------- */

static const uint8_t k1[16] = { 0x06, 0xa9, 0x21, 0x40, 0x36, 0xb8, 0xa1, 0x5b,
				0x51, 0x2e, 0x03, 0xd5, 0x34, 0x12, 0x00, 0x06 };
static const uint8_t iv1[16] = { 0x3d, 0xaf, 0xba, 0x42, 0x9d, 0x9e, 0xb4, 0x30,
				 0xb4, 0x22, 0xda, 0x80, 0x2c, 0x9f, 0xac, 0x41 };
static const uint8_t ct1[16] = { 0xe3, 0x53, 0x77, 0x9c, 0x10, 0x79, 0xae, 0xb8,
				 0x27, 0x08, 0x94, 0x2d, 0xbe, 0x77, 0x18, 0x1a };
static const char pt1[] = "Single block msg";

static ssize_t send_op(int fd, const void *data, size_t len, int flags)
{
	return afalg_send_op(fd, ALG_OP_ENCRYPT, iv1, 16, data, len, flags);
}

/* ---- fork: parent and child write into one hash ---------------------- */

static void test_fork(void)
{
	int fd = op_socket("hash", "sha256", NULL, 0);
	uint8_t got[32], want[32];
	ok(fd >= 0, "fork: sha256 op socket");
	ok(send(fd, "abc", 3, MSG_MORE) == 3, "fork: parent sends the first part");
	pid_t pid = fork();
	if (pid == 0)
		_exit(send(fd, "def", 3, MSG_MORE) == 3 ? 0 : 1);
	int st;
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork: the child sends the second part");
	ok(send(fd, "ghi", 3, 0) == 3 && read(fd, got, 32) == 32, "fork: the parent ends the hash");
	sha256("abcdefghi", 9, want);
	ok(!memcmp(got, want, 32), "fork: the digest covers both processes' parts, as one stream");

	/* A cipher: the child encrypts what the parent queued. */
	int c = op_socket("skcipher", "cbc(aes)", k1, 16);
	ok(c >= 0 && send_op(c, pt1, 16, 0) == 16, "fork: cbc(aes) request queued by the parent");
	pid = fork();
	if (pid == 0) {
		uint8_t out[16];
		_exit(read(c, out, 16) == 16 && !memcmp(out, ct1, 16) ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork: the child reads RFC 3602 case 1's ciphertext");
	ok(send(c, pt1, 16, MSG_DONTWAIT) == 16, "fork: the queue the child emptied takes a new request");
	close(c);
	close(fd);
}

/* ---- execve: a hash begun here, ended by the new program ------------ */

static int exec_child(int fd)
{
	uint8_t got[32], want[32];
	if (send(fd, "def", 3, 0) != 3 || read(fd, got, 32) != 32)
		return 2;
	sha256("abcdef", 6, want);
	return memcmp(got, want, 32) ? 1 : 0;
}

static void test_exec(const char *self)
{
	int fd = op_socket("hash", "sha256", NULL, 0);
	ok(fd >= 0 && send(fd, "abc", 3, MSG_MORE) == 3, "exec: first part sent before execve");
	pid_t pid = fork();
	if (pid == 0) {
		char arg[16];
		snprintf(arg, sizeof(arg), "%d", fd);
		execl(self, self, "--exec-child", arg, (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "exec: the new program ends the hash with the digest of both parts (status %d)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	close(fd);
}

/* posix_spawn(): the new program inherits an op socket mid-stream, which
 * the parent then closes and follows with new op sockets of its own; the
 * child, let go only after that (the pipe), ends the hash: the connection
 * is the child's, never the parent's next socket's. */
static int exec_child_wait(int fd, int go)
{
	char c;
	return read(go, &c, 1) == 1 ? exec_child(fd) : 3;
}

static bool one_shot_cbc(void);

static void test_spawn_then_close(const char *self)
{
	int p[2];
	int fd = pipe(p) ? -1 : op_socket("hash", "sha256", NULL, 0);
	bool sent = fd >= 0 && send(fd, "abc", 3, MSG_MORE) == 3;
	char a1[16], a2[16];
	snprintf(a1, sizeof(a1), "%d", fd);
	snprintf(a2, sizeof(a2), "%d", sent ? p[0] : -1);
	char *argv[] = { (char *)self, "--exec-child-wait", a1, a2, NULL };
	pid_t pid = -1;
	const int r = sent ? posix_spawn(&pid, self, NULL, NULL, argv, environ) : -1;
	if (fd >= 0)
		close(fd);
	bool uses = true;
	for (int i = 0; i < 3; i++)
		uses = one_shot_cbc() && uses;
	int st = -1;
	if (!r) {
		close(p[0]);
		uses = write(p[1], "g", 1) == 1 && uses;
		close(p[1]);
		waitpid(pid, &st, 0);
	}
	ok(!r && uses && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "posix_spawn: the new program ends a hash the parent closed before it, and made new op "
	   "sockets after (spawn %d, status %#x, the new sockets' results %d)", r, st, uses);
}

/* ---- threads --------------------------------------------------------- */

/* A thread's read() of len bytes (at most 32). */
struct reader {
	int fd;
	size_t len;
	uint8_t out[32];
	ssize_t n;
	int err;	/* errno when n < 0 */
	_Atomic pid_t tid;
};

static void *read_thread(void *p)
{
	struct reader *r = p;
	thread_publish(&r->tid);
	r->n = read(r->fd, r->out, r->len);
	r->err = r->n < 0 ? errno : 0;
	return NULL;
}

static void test_threads(void)
{
	int c = op_socket("skcipher", "cbc(aes)", k1, 16);
	struct reader r = { .fd = c, .len = 16 };
	pthread_t t;
	pthread_create(&t, NULL, read_thread, &r);
	bool asleep = thread_asleep(&r.tid);	/* in read(): no data queued */
	ssize_t s = send_op(c, pt1, 16, 0);
	pthread_join(t, NULL);
	ok(asleep && s == 16 && r.n == 16 && !memcmp(r.out, ct1, 16),
	   "threads: a send goes through while another thread waits in read on the socket");
	/* Two threads sleeping for replies on one socket: the poll's reply
	 * must wake its thread, not only the reader. */
	r.n = 0;
	r.tid = 0;
	pthread_create(&t, NULL, read_thread, &r);
	asleep = thread_asleep(&r.tid);
	struct pollfd pf = { .fd = c, .events = POLLOUT };
	const int pr = poll(&pf, 1, 0);
	s = send_op(c, pt1, 16, 0);
	pthread_join(t, NULL);
	ok(asleep && pr == 1 && (pf.revents & POLLOUT) && s == 16 && r.n == 16 && !memcmp(r.out, ct1, 16),
	   "threads: poll() answers while another thread waits in read, which then gets its block");
	close(c);
}

static void *blocked_read(void *p)
{
	struct reader *r = p;
	thread_publish(&r->tid);
	read(r->fd, r->out, 16);
	return NULL;
}

static void test_cancel(void)
{
#if defined(__SANITIZE_ADDRESS__)
	const char *e = getenv("UALG_ENGINE");
	if (e && !strcmp(e, "algd")) {
		/* The asynchronous cancellation unwinds frames ASan poisoned,
		 * and the clean-up's calls trip over them (a false report). */
		printf("# skipped: pthread_cancel() of a read served by algd under ASan\n");
		return;
	}
#endif
	int c = op_socket("skcipher", "cbc(aes)", k1, 16);
	pthread_t t;
	void *res = NULL;
	struct reader rd = { .fd = c };
	pthread_create(&t, NULL, blocked_read, &rd);
	const bool asleep = thread_asleep(&rd.tid);
	pthread_cancel(t);
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 5;
	int r = pthread_timedjoin_np(t, &res, &dl);
	ok(asleep && r == 0 && res == PTHREAD_CANCELED,
	   "cancel: a read blocked on an op socket is a cancellation point");
	if (r)
		pthread_detach(t);
	close(c);
}

/* ---- bad pointers ---------------------------------------------------- */

static void test_efault(void)
{
	int fd = op_socket("hash", "sha256", NULL, 0);
	uint8_t *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t d[32], want[32];
	errno = 0;
	ok(write(fd, none, 64) < 0 && errno == EFAULT, "efault: write from an unreadable page");
	errno = 0;
	ok(send(fd, "abc", 3, 0) == 3 && read(fd, none, 32) < 0 && errno == EFAULT,
	   "efault: read into an unwritable page");
	sha256("xyz", 3, want);
	ok(send(fd, "xyz", 3, 0) == 3 && read(fd, d, 32) == 32 && !memcmp(d, want, 32),
	   "efault: the socket works on after both");
	int c = op_socket("skcipher", "cbc(aes)", k1, 16);
	errno = 0;
	ok(send_op(c, pt1, 16, 0) == 16 && read(c, none, 16) < 0 && errno == EFAULT,
	   "efault: cipher read into an unwritable page");
	uint8_t out[16];
	ok(read(c, out, 16) == 16 && !memcmp(out, ct1, 16),
	   "efault: a cipher checks the buffer before taking the data (the request is still there)");
	close(c);
	munmap(none, 4096);
	close(fd);
}

/* The program's own SIGSEGV handler still sees its own faults, and a
 * program without one still dies of them. */
static volatile int *volatile nowhere;	/* NULL, unknown to the compiler */

static void on_segv(int sig)
{
	(void)sig;
	_exit(42);
}

static void test_own_segv(void)
{
#if defined(__SANITIZE_ADDRESS__)
	/* ASan takes SIGSEGV over in a program built with it. */
	printf("# skipped: the program's own SIGSEGV handling (an ASan build handles SIGSEGV itself)\n");
	return;
#endif
	if (RUNNING_ON_VALGRIND) {
		/* memcheck reports the deliberate faults as errors. */
		printf("# skipped: the program's own SIGSEGV handling (under valgrind)\n");
		return;
	}
	int fd = op_socket("hash", "sha256", NULL, 0);	/* the engine is set up */
	uint8_t d[32];
	send(fd, "a", 1, 0);
	read(fd, d, 32);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, on_segv);
		*nowhere = 1;
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 42, "signals: the program's SIGSEGV handler gets its fault");
	pid = fork();
	if (pid == 0) {
		struct sigaction old;
		sigaction(SIGSEGV, NULL, &old);
		_exit(old.sa_handler == SIG_DFL ? 0 : 3);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "signals: sigaction() reports the default disposition");
	pid = fork();
	if (pid == 0) {
		*nowhere = 1;
		_exit(0);
	}
	waitpid(pid, &st, 0);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "signals: without a handler the fault still kills");
	close(fd);
}

/* ---- algd's shared page: small calls go there, others by the socket,
 * in one stream ------------------------------------------------------- */

static bool mapped(const char *name)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, name) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* Where a small call on a what op socket went: in algd's engine the
 * socket's shared page (unless nobody polls it, UALG_POLL_US=0: skipped);
 * in the program's, nowhere but the program (the engine is loaded, no
 * page is mapped). */
static void check_page(const char *what)
{
	const char *engine = getenv("UALG_ENGINE"), *poll_us = getenv("UALG_POLL_US");
	if (!engine || strcmp(engine, "algd"))
		ok(mapped("libualg-engine") && !mapped("ualg-fast"),
		   "page: none; the program serves its %s op socket itself", what);
	else if (!(poll_us && !strcmp(poll_us, "0")))
		ok(mapped("ualg-fast"), "page: algd's %s op socket uses its shared page", what);
	else
		printf("# skipped: page: nobody polls (UALG_POLL_US=0)\n");
}

static void test_shared_page(void)
{
	static uint8_t big[9000];
	uint8_t all[3 + sizeof(big) + 3], want[32], got[32], half[32];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	memcpy(all, "abc", 3);
	memcpy(all + 3, big, sizeof(big));
	memcpy(all + 3 + sizeof(big), "xyz", 3);
	sha256(all, sizeof(all), want);

	int fd = op_socket("hash", "sha256", NULL, 0);
	ok(fd >= 0 && send(fd, "abc", 3, MSG_MORE) == 3 && send(fd, big, sizeof(big), MSG_MORE) == (ssize_t)sizeof(big),
	   "page: a small and a large part of one hash");
	/* accept() on the op socket (by the socket) clones the state the
	 * page's and the socket's parts made. */
	int twin = accept(fd, NULL, NULL);
	ok(twin >= 0 && send(fd, "xyz", 3, 0) == 3 && read(fd, got, 32) == 32 && !memcmp(got, want, 32),
	   "page: the digest covers the parts of both paths, in order");
	sha256(all, 3 + sizeof(big), half);
	ok(twin >= 0 && read(twin, got, 32) == 32 && !memcmp(got, half, 32),
	   "page: accept() between them cloned the state both had made");
	check_page("hash");
	close(twin);
	close(fd);
}

/* A cipher's calls on the page, and one that would wait there (a read
 * larger than the queue) going to the socket instead, where a send of
 * another thread ends its wait. */
static void test_cipher_page(void)
{
	int c = op_socket("skcipher", "cbc(aes)", k1, 16);
	uint8_t out[16], ct2[16];
	bool same = c >= 0;
	for (int i = 0; i < 3 && same; i++)
		same = send_op(c, pt1, 16, 0) == 16 && read(c, out, 16) == 16 && !memcmp(out, ct1, 16);
	ok(same, "page: cbc(aes) three times, each RFC 3602 case 1");
	check_page("cipher");
	/* 16 bytes queued, 32 asked for: the read takes the block, then
	 * waits for the next request's, which continues the chain. */
	EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
	int n = 0;
	EVP_EncryptInit_ex(e, EVP_aes_128_cbc(), NULL, k1, ct1);
	EVP_CIPHER_CTX_set_padding(e, 0);
	EVP_EncryptUpdate(e, ct2, &n, (const uint8_t *)pt1, 16);
	EVP_CIPHER_CTX_free(e);
	struct reader r = { .fd = c, .len = 32 };
	pthread_t t;
	bool sent = send_op(c, pt1, 16, 0) == 16;
	pthread_create(&t, NULL, read_thread, &r);
	sent &= thread_asleep(&r.tid);	/* the first block read, waiting for more */
	sent &= send(c, pt1, 16, 0) == 16;
	pthread_join(t, NULL);
	ok(sent && n == 16 && r.n == 32 && !memcmp(r.out, ct1, 16) && !memcmp(r.out + 16, ct2, 16),
	   "page: a read that waits for a second request's data gets both blocks, chained (OpenSSL)");
	close(c);
}

/* An op socket accepted before its transform has a key, as OpenSSL's
 * afalg engine makes them; then the key (tfm: the transform socket). */
static int op_socket_key_after(int *tfm)
{
	int t, fd = afalg_op_socket("skcipher", "cbc(aes)", NULL, 0, &t);
	if (fd >= 0 && setsockopt(t, SOL_ALG, ALG_SET_KEY, k1, 16)) {
		close(fd);
		fd = -1;
	}
	if (tfm && fd >= 0)
		*tfm = t;
	else if (t >= 0)
		close(t);
	return fd;
}

/* Accept before the key: ENOKEY until the key is set, then the key's
 * ciphertext; once the op socket has used the key, another key on the
 * transform socket is EBUSY, as alg_setsockopt() answers. */
static void test_key_after_accept(void)
{
	int t, fd = afalg_op_socket("skcipher", "cbc(aes)", NULL, 0, &t);
	ok(fd >= 0 && send_op(fd, pt1, 16, 0) < 0 && errno == ENOKEY,
	   "accept before the key: a send before the key is ENOKEY");
	ok(!setsockopt(t, SOL_ALG, ALG_SET_KEY, k1, 16), "... the key is set while an op socket exists");
	uint8_t out[16];
	ok(send_op(fd, pt1, 16, 0) == 16 && read(fd, out, 16) == 16 && !memcmp(out, ct1, 16),
	   "... and the op socket encrypts with it (RFC 3602 case 1)");
	ok(setsockopt(t, SOL_ALG, ALG_SET_KEY, k1, 16) < 0 && errno == EBUSY,
	   "... after which another key is EBUSY");
	close(fd);
	ok(!setsockopt(t, SOL_ALG, ALG_SET_KEY, k1, 16), "... and allowed again once it is closed");
	close(t);
}

/* A transform socket is one object with the op sockets accepted from it,
 * wherever they are served: while an op socket that has its key lives
 * (a hash's clone too, one a child process keeps after fork() too),
 * another key on the transform socket is EBUSY; once they are closed it
 * is allowed.  The name is used first: a process's later sockets of a
 * name algd answered are its own until shared (local.c). */
static void test_busy_while_ops_live(void)
{
	int t, fd;
	for (int i = 0; i < 2; i++) {	/* the first instantiates the template: a new driver */
		fd = afalg_op_socket("hash", "hmac(sha256)", k1, 16, &t);
		close(fd);
		close(t);
	}
	fd = afalg_op_socket("hash", "hmac(sha256)", k1, 16, &t);
	ok(fd >= 0 && setsockopt(t, SOL_ALG, ALG_SET_KEY, k1, 16) < 0 && errno == EBUSY,
	   "an op socket with its key lives: another key on the transform socket is EBUSY");
	int clone = -1;
	if (fd >= 0 && send(fd, "abc", 3, MSG_MORE) == 3)
		clone = accept(fd, NULL, NULL);
	close(fd);
	ok(clone >= 0 && setsockopt(t, SOL_ALG, ALG_SET_KEY, k1, 16) < 0 && errno == EBUSY,
	   "... and while a clone the op socket's accept() made lives");
	close(clone);
	ok(!setsockopt(t, SOL_ALG, ALG_SET_KEY, k1, 16), "... a key once they are closed");

	fd = accept(t, NULL, NULL);
	int p[2];
	pid_t pid = fd >= 0 && !pipe(p) ? fork() : -1;
	if (pid == 0) {
		char c;
		close(p[1]);
		_exit(read(p[0], &c, 1) == 0 ? 0 : 1);	/* keeps fd until the parent says */
	}
	close(fd);
	ok(pid > 0 && setsockopt(t, SOL_ALG, ALG_SET_KEY, k1, 16) < 0 && errno == EBUSY,
	   "... an op socket closed here but kept by a child process after fork(): EBUSY");
	int st = 0;
	if (pid > 0) {
		close(p[0]);
		close(p[1]);
		waitpid(pid, &st, 0);
	}
	ok(pid > 0 && WIFEXITED(st) && !setsockopt(t, SOL_ALG, ALG_SET_KEY, k1, 16),
	   "... and a key once the child has exited");
	close(t);
}

/* gcm(aes) with an all-zero key: iv's 16-byte plaintext pt and its
 * ciphertext and tag (OpenSSL). */
static void gcm_seal(const uint8_t iv[12], const uint8_t pt[16], uint8_t ct_tag[32])
{
	static const uint8_t key[16];
	EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
	int n = 0;
	EVP_EncryptInit_ex(e, EVP_aes_128_gcm(), NULL, key, iv);
	EVP_EncryptUpdate(e, ct_tag, &n, pt, 16);
	EVP_EncryptFinal_ex(e, ct_tag + 16, &n);
	EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_GET_TAG, 16, ct_tag + 16);
	EVP_CIPHER_CTX_free(e);
}

/* One read whose buffer holds two decryptions: the first request is
 * decrypted, the read waits for the second (af_alg_wait_for_data()), and
 * a bad tag there ends it with EBADMSG, whatever the first produced, as
 * aead_recvmsg() answers ("err == -EBADMSG || !ret"); with a good tag the
 * read returns both plaintexts.  The second request is sent once the
 * first is taken (before that, a send is EINVAL: a request is queued). */
static void aead_two_requests(bool bad_tag)
{
	static const uint8_t key[16], iv1[12] = { 1 }, iv2[12] = { 2 };
	static const uint8_t p1[16] = "first plaintext", p2[16] = "other plaintext";
	uint8_t c1[32], c2[32];
	gcm_seal(iv1, p1, c1);
	gcm_seal(iv2, p2, c2);
	c2[31] ^= bad_tag;
	int fd = op_socket("aead", "gcm(aes)", key, 16);
	bool sent = fd >= 0 && afalg_send_op(fd, ALG_OP_DECRYPT, iv1, 12, c1, 32, 0) == 32;
	struct reader r = { .fd = fd, .len = 32 };
	pthread_t t;
	pthread_create(&t, NULL, read_thread, &r);
	ssize_t s = -1;
	for (int i = 0; sent && i < 5000 && s < 0; i++) {
		s = afalg_send_op(fd, ALG_OP_DECRYPT, iv2, 12, c2, 32, 0);
		if (s < 0 && errno != EINVAL)
			break;
		if (s < 0)
			usleep(1000);
	}
	pthread_join(t, NULL);
	if (bad_tag)
		ok(s == 32 && r.n == -1 && r.err == EBADMSG,
		   "gcm(aes): a read over two requests, the second's tag bad: EBADMSG, not the first's plaintext");
	else
		ok(s == 32 && r.n == 32 && !memcmp(r.out, p1, 16) && !memcmp(r.out + 16, p2, 16),
		   "gcm(aes): a read over two requests: both plaintexts (OpenSSL's ciphertexts)");
	close(fd);
}

/* --loop-cbc N: N cbc(aes) operations of one block, one sendmsg() and
 * one read() each; every block checked (RFC 3602 case 1).  --loop-cbc-late:
 * the same on an op socket accepted before the key. */
static int loop_cbc(long n, bool key_after)
{
	uint8_t out[16];
	int fd = key_after ? op_socket_key_after(NULL) : op_socket("skcipher", "cbc(aes)", k1, 16);
	for (long i = 0; fd >= 0 && i < n; i++)
		if (send_op(fd, pt1, 16, 0) != 16 || read(fd, out, 16) != 16 || memcmp(out, ct1, 16))
			return 1;
	return fd < 0;
}

/* --loop-ossl-engine N: N one-block cbc(aes) encryptions, one stream,
 * through OpenSSL's afalg ENGINE made the program's default cipher engine,
 * as `openssl speed -engine afalg` does: one AF_ALG operation (sendmsg, an
 * AIO read, its eventfd) per block, on an op socket accepted before its
 * key.  OpenSSL's own AES-CBC is then that ENGINE too, so the program's
 * engine must serve the socket with a driver that does not lead back to
 * it.  The last block is checked against OpenSSL before the ENGINE was
 * set.  Exits 77 without the ENGINE. */
static int loop_ossl_engine(long n)
{
	uint8_t out[16], want[16] = { 0 };
	int len;
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	bool ok = c && EVP_EncryptInit_ex(c, EVP_aes_128_cbc(), NULL, k1, iv1) &&
		  EVP_CIPHER_CTX_set_padding(c, 0);
	for (long i = 0; ok && i < n; i++)
		ok = EVP_EncryptUpdate(c, want, &len, (const uint8_t *)pt1, 16) && len == 16;
	EVP_CIPHER_CTX_free(c);
	ENGINE *e = ENGINE_by_id("afalg");
	if (!ok || !e || !ENGINE_init(e) || !ENGINE_set_default_ciphers(e))
		return ok ? 77 : 1;
	c = EVP_CIPHER_CTX_new();
	ok = c && EVP_EncryptInit_ex(c, EVP_aes_128_cbc(), NULL, k1, iv1) &&
	     EVP_CIPHER_CTX_set_padding(c, 0);
	for (long i = 0; ok && i < n; i++)
		ok = EVP_EncryptUpdate(c, out, &len, (const uint8_t *)pt1, 16) && len == 16;
	EVP_CIPHER_CTX_free(c);
	ENGINE_finish(e);
	ENGINE_free(e);
	return ok && !memcmp(out, want, sizeof(out)) ? 0 : 1;
}

/* --loop N: N 64-byte sha256 operations, one write and one read each
 * (syscalls.sh counts their system calls); every digest checked.  The
 * read offers a page of buffer, as programs that read "up to" do. */
static int loop(long n)
{
	uint8_t in[64] = { 0 }, d[4096], want[32];
	sha256(in, sizeof(in), want);
	int fd = op_socket("hash", "sha256", NULL, 0);
	for (long i = 0; fd >= 0 && i < n; i++)
		if (write(fd, in, sizeof(in)) != sizeof(in) || read(fd, d, sizeof(d)) != sizeof(want) ||
		    memcmp(d, want, sizeof(want)))
			return 1;
	return fd < 0;
}

/* --lifecycle N: N one-shot uses of sha256, as programs make one per
 * object: socket, bind, accept, one 64-byte write and read, close both
 * (syscalls.sh counts their system calls); every digest checked. */
static int lifecycle(long n)
{
	uint8_t in[64] = { 0 }, d[32], want[32];
	sha256(in, sizeof(in), want);
	for (long i = 0; i < n; i++) {
		int fd = op_socket("hash", "sha256", NULL, 0);
		bool good = fd >= 0 && write(fd, in, sizeof(in)) == sizeof(in) &&
			    read(fd, d, sizeof(d)) == sizeof(d) && !memcmp(d, want, sizeof(want));
		if (fd >= 0)
			close(fd);
		if (!good)
			return 1;
	}
	return 0;
}

/* One one-shot use of cbc(aes), keyed before the accept: whether it gave
 * RFC 3602 case 1's ciphertext. */
static bool one_shot_cbc(void)
{
	uint8_t out[16];
	int fd = op_socket("skcipher", "cbc(aes)", k1, 16);
	bool good = fd >= 0 && send_op(fd, pt1, 16, 0) == 16 && read(fd, out, 16) == 16 &&
		    !memcmp(out, ct1, 16);
	if (fd >= 0)
		close(fd);
	return good;
}

/* --lifecycle-cbc N: the same with cbc(aes) keyed before the accept, one
 * block each (RFC 3602 case 1, every block checked). */
static int lifecycle_cbc(long n)
{
	for (long i = 0; i < n; i++)
		if (!one_shot_cbc())
			return 1;
	return 0;
}

/* --probe N: N times socket, bind and close, as a program probing which
 * names exist does; every call must succeed, as on Linux (algd's
 * --max-sockets counts what it holds, so a program that ran ahead of algd
 * would meet EMFILE). */
static int bind_to(const char *type, const char *name);

static int probe(long n)
{
	for (long i = 0; i < n; i++) {
		int fd = bind_to("hash", "sha256");
		if (fd < 0) {
			fprintf(stderr, "probe %ld: %s\n", i, strerror(errno));
			return 1;
		}
		if (close(fd)) {
			fprintf(stderr, "probe %ld: close: %s\n", i, strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* ---- connections kept for the next op socket (UALG_ENGINE=algd) ----- */

/* A process with closed op sockets behind it forks, and parent and child
 * each make one-shot uses at once: each its own sockets, never one on a
 * connection the other uses (a reply read by the wrong process would be
 * a wrong result or a hang, which the alarm ends). */
static void test_kept_after_fork(void)
{
	const int n = RUNNING_ON_VALGRIND ? 20 : 200;
	bool before = true;
	for (int i = 0; i < 3; i++)
		before = one_shot_cbc() && before;
	int p[2];
	if (pipe(p)) {
		ok(0, "fork after closed op sockets: pipe: %s", strerror(errno));
		return;
	}
	alarm(120);
	pid_t pid = fork();
	if (pid == 0) {
		/* The answer goes back on the pipe: under valgrind a child's
		 * exit status also counts the errors it inherited. */
		int bad = 0;
		for (int i = 0; i < n; i++)
			bad += !one_shot_cbc();
		_exit(write(p[1], &bad, sizeof(bad)) == sizeof(bad) ? 0 : 1);
	}
	close(p[1]);
	int bad = 0, child_bad = -1;
	for (int i = 0; i < n; i++)
		bad += !one_shot_cbc();
	if (pid < 0 || read(p[0], &child_bad, sizeof(child_bad)) != sizeof(child_bad))
		child_bad = -1;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	alarm(0);
	close(p[0]);
	ok(before && !bad && !child_bad,
	   "fork after closed op sockets: parent and child make %d one-shot cbc(aes) uses each at "
	   "once, all right (wrong: the parent's %d, the child's %d)", n, bad, child_bad);
}

/* An op socket whose file got O_ASYNC and an owner, then closed: the
 * next op socket is new, with neither (no SIGIO during its use). */
static atomic_int sigios;

static void on_sigio(int sig)
{
	(void)sig;
	atomic_fetch_add(&sigios, 1);
}

static void test_kept_file_state(void)
{
	struct sigaction sa = { .sa_handler = on_sigio }, old;
	sigaction(SIGIO, &sa, &old);
	int fd = op_socket("skcipher", "cbc(aes)", k1, 16);
	bool set = fd >= 0 && !fcntl(fd, F_SETOWN, getpid()) &&
		   !fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
	uint8_t out[16];
	bool used = set && send_op(fd, pt1, 16, 0) == 16 && read(fd, out, 16) == 16;
	if (fd >= 0)
		close(fd);
	atomic_store(&sigios, 0);
	bool again = true;
	for (int i = 0; i < 3; i++)
		again = one_shot_cbc() && again;
	const int n = atomic_load(&sigios);
	sigaction(SIGIO, &old, NULL);
	ok(used && again && n == 0,
	   "O_ASYNC and an owner set on an op socket stay with it: the op sockets after it raise no "
	   "SIGIO (%d; set %d, used %d, the new ones' results %d)", n, set, used, again);
}

/* ---- vfork: the child's execve() leaves the parent's sockets alone --- */

/* A vfork() child runs in the parent's memory until it execs, and execve()
 * is where the shim gets sockets ready to be shared (Python's subprocess
 * does this).  The parent's hash, mid-stream, and its transform socket
 * work on after the child has exec'd (FIPS 180-2's SHA-256 of "abc"). */
static void test_vfork(void)
{
	static const uint8_t want[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	int tfm = -1;
	uint8_t d[32], d2[32];
	int op = afalg_op_socket("hash", "sha256", NULL, 0, &tfm);
	bool sent = op >= 0 && send(op, "ab", 2, MSG_MORE) == 2;
	char *const argv[] = { "true", NULL };
	pid_t pid = sent ? vfork() : -1;
	if (pid == 0) {
		execve("/bin/true", argv, environ);
		_exit(127);
	}
	int status = -1;
	bool waited = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0;
	bool good = waited && send(op, "c", 1, 0) == 1 && read(op, d, sizeof(d)) == sizeof(d) &&
		    !memcmp(d, want, sizeof(want));
	int op2 = tfm >= 0 ? accept(tfm, NULL, NULL) : -1;
	bool again = op2 >= 0 && write(op2, "abc", 3) == 3 && read(op2, d2, sizeof(d2)) == sizeof(d2) &&
		     !memcmp(d2, want, sizeof(want));
	ok(good && again, "a vfork() child execs: the parent's hash goes on mid-stream, its transform accepts");
	if (op >= 0)
		close(op);
	if (op2 >= 0)
		close(op2);
	if (tfm >= 0)
		close(tfm);
}

/* ---- SCM_RIGHTS: an op socket passed to another process -------------- */

/* A child forked before the socket existed receives the parent's hash op
 * socket, mid-stream, over a socket pair, finishes it and reads the
 * digest; the parent's writes before and the child's after are one
 * stream, as the kernel's one socket (FIPS 180-2's SHA-256 of "abc"). */
static void test_pass_fd(void)
{
	static const uint8_t want[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sp)) {
		ok(0, "SCM_RIGHTS: socketpair: %s", strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
		struct iovec v = { &c, 1 };
		struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = u.b,
				    .msg_controllen = sizeof(u.b) };
		uint8_t d[32];
		int fd = -1;
		if (recvmsg(sp[1], &m, 0) == 1 && CMSG_FIRSTHDR(&m))
			memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(fd));
		if (recv(sp[1], &c, 1, 0) != 1)	/* the parent's go */
			fd = -1;
		/* The answer goes back on the pair: under valgrind a child's
		 * exit status also counts the errors it inherited. */
		const char res = fd < 0 ? 2 : write(fd, "c", 1) != 1 ? 3 : read(fd, d, sizeof(d)) != sizeof(d) ? 4 :
				 memcmp(d, want, sizeof(want)) ? 5 : 0;
		_exit(send(sp[1], &res, 1, 0) == 1 ? 0 : 1);
	}
	int op = pid > 0 ? afalg_op_socket("hash", "sha256", NULL, 0, NULL) : -1;
	bool sent = op >= 0 && send(op, "ab", 2, MSG_MORE) == 2;
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	memset(&u, 0, sizeof(u));
	struct iovec v = { "x", 1 };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = u.b,
			    .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &op, sizeof(op));
	sent = sent && sendmsg(sp[0], &m, 0) == 1;
	/* The sender's fd closes, and new op sockets come, before the child
	 * goes on: the connection is the child's now, never the next one's. */
	if (op >= 0)
		close(op);
	op = -1;
	bool uses = true;
	for (int i = 0; i < 3; i++)
		uses = one_shot_cbc() && uses;
	sent = sent && send(sp[0], "g", 1, 0) == 1;
	char res = -1;
	if (!sent || recv(sp[0], &res, 1, 0) != 1)
		res = -1;
	if (pid > 0 && !sent)
		kill(pid, SIGKILL);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	ok(sent && res == 0 && uses,
	   "SCM_RIGHTS: a hash op socket passed mid-stream to another process, which finishes it "
	   "after the sender closed it and made new op sockets (sent %d, the child's step %d, "
	   "the new sockets' results %d)", sent, res, uses);
	close(sp[0]);
	close(sp[1]);
}

/* ---- algd's decisions reach the next bind() ----------------------------- */

static int bind_to(const char *type, const char *name)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	int fd = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (fd < 0 || !bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	int err = errno;
	close(fd);
	errno = err;
	return -1;
}

static bool sha1_of_abc(int tfm)
{
	static const uint8_t want[20] = { 0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e,
					  0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d };
	uint8_t d[20];
	int op = tfm >= 0 ? accept(tfm, NULL, NULL) : -1;
	bool good = op >= 0 && write(op, "abc", 3) == 3 && read(op, d, sizeof(d)) == sizeof(d) &&
		    !memcmp(d, want, sizeof(want));
	if (op >= 0)
		close(op);
	if (tfm >= 0)
		close(tfm);
	return good;
}

/* A program that has bound a name before binds it again without asking
 * algd, until algd's control page says something changed: a driver
 * disabled with algctl is gone for this process's next bind(), and back
 * after it is enabled (FIPS 180-2's SHA-1 of "abc" each time). */
static void test_decisions(void)
{
	const char *algctl = getenv("ALGCTL");
	if (!algctl) {
		printf("ok %d - # SKIP algd's changes reach the next bind(): $ALGCTL not set\n", ++n_test);
		return;
	}
	char cmd[512];
	bool before = sha1_of_abc(bind_to("hash", "sha1-nettle")) &&
		      sha1_of_abc(bind_to("hash", "sha1-nettle"));
	snprintf(cmd, sizeof(cmd), "%s disable sha1-nettle", algctl);
	bool changed = system(cmd) == 0;
	errno = 0;
	int gone = bind_to("hash", "sha1-nettle");
	int gone_err = errno;
	if (gone >= 0)
		close(gone);
	snprintf(cmd, sizeof(cmd), "%s enable sha1-nettle", algctl);
	changed = system(cmd) == 0 && changed;
	bool back = sha1_of_abc(bind_to("hash", "sha1-nettle"));
	ok(before && changed && gone < 0 && gone_err == ENOENT && back,
	   "a driver bound twice, disabled with algctl: the next bind() is ENOENT, and binds again once enabled");
}

/* Hashes whose message starts with key material fail the write that ends
 * a message the kernel's final refuses (crypto/vmac.c: a 16-byte nonce
 * whose first bit is 0; crypto/poly1305_generic.c: the 32-byte key) on
 * that write, though algd accepted the socket with its key (which lets a
 * hash's sends be written behind). */
static ssize_t keyed_write(const char *name, const void *key, size_t keylen, const void *m, size_t n,
			   int *err)
{
	int fd = op_socket("hash", name, key, keylen);
	errno = 0;
	ssize_t r = fd >= 0 ? write(fd, m, n) : 0;
	*err = fd >= 0 ? errno : -1;
	if (fd >= 0)
		close(fd);
	return r;
}

static void test_msg_keyed(void)
{
	static const char vkey[] = "0123456789abcdef";
	uint8_t m[64] = { 0 };
	int e1, e2, e3, e4;
	ssize_t good = keyed_write("vmac64(aes)", vkey, 16, m, 32, &e1);
	m[0] = 0x80;
	ssize_t top = keyed_write("vmac64(aes)", vkey, 16, m, 32, &e2);
	ssize_t shortn = keyed_write("vmac64(aes)", vkey, 16, m + 1, 8, &e3);
	ok(good == 32 && top < 0 && e2 == EINVAL && shortn < 0 && e3 == EINVAL,
	   "vmac64(aes): a nonce with its first bit set and a short nonce fail their write with EINVAL "
	   "(%zd %s, %zd %s)", top, strerror(e2), shortn, strerror(e3));
	ssize_t pshort = keyed_write("poly1305", NULL, 0, m, 31, &e4);
	ok(pshort < 0 && e4 == ENOKEY,
	   "poly1305: a message shorter than its key fails its write with ENOKEY (%zd %s)", pshort,
	   strerror(e4));
}

/* A socket algd keeps (algctl engine algd) accepted before its key: its
 * first write is ENOKEY itself, as on Linux, not a success whose failure
 * the read reports (the shim writes a hash's sends behind only where
 * algd's accept said the transform had its key). */
static void test_nokey_kept_in_algd(void)
{
	const char *algctl = getenv("ALGCTL");
	if (!algctl) {
		printf("ok %d - # SKIP a socket algd keeps, accepted before its key: $ALGCTL not set\n", ++n_test);
		return;
	}
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "%s engine algd 'hmac(sha256)'", algctl);
	bool kept = system(cmd) == 0;
	int t = bind_to("hash", "hmac(sha256)");
	int o = t >= 0 ? accept(t, NULL, NULL) : -1;
	errno = 0;
	ssize_t n = o >= 0 ? write(o, "abc", 3) : 0;
	int err = errno;
	if (o >= 0)
		close(o);
	if (t >= 0)
		close(t);
	snprintf(cmd, sizeof(cmd), "%s engine inproc 'hmac(sha256)'", algctl);
	bool back = system(cmd) == 0;
	ok(kept && back && o >= 0 && n < 0 && err == ENOKEY,
	   "hmac(sha256) kept in algd, accepted before its key: write() is ENOKEY (%zd, %s)", n,
	   strerror(err));
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--exec-child"))
		return exec_child(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "--exec-child-wait"))
		return exec_child_wait(atoi(argv[2]), atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "--loop"))
		return loop(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "--loop-ossl-engine"))
		return loop_ossl_engine(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "--lifecycle"))
		return lifecycle(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "--lifecycle-cbc"))
		return lifecycle_cbc(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "--probe"))
		return probe(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "--loop-cbc"))
		return loop_cbc(atol(argv[2]), false);
	if (argc == 3 && !strcmp(argv[1], "--loop-cbc-late"))
		return loop_cbc(atol(argv[2]), true);
	setvbuf(stdout, NULL, _IONBF, 0);
	test_fork();
	test_exec(argv[0]);
	test_spawn_then_close(argv[0]);
	test_threads();
	test_cancel();
	test_efault();
	test_shared_page();
	test_cipher_page();
	test_key_after_accept();
	test_busy_while_ops_live();
	aead_two_requests(false);
	aead_two_requests(true);
	test_own_segv();
	test_vfork();
	test_pass_fd();
	test_kept_after_fork();
	test_kept_file_state();
	test_decisions();
	test_nokey_kept_in_algd();
	test_msg_keyed();
	return tap_done();
}
