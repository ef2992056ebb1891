/* Processes sharing one op socket, run under ualg-run (or on a kernel with
 * AF_ALG): what Linux gives when a fork() child or an execve()d program
 * uses an op socket beside its parent.  Each process must get the
 * answers to its own calls:
 *   - a writer child and a reader parent (libkcapi's "kcapi -s -j"): the
 *     parent starts a cipher stream, the child sends the data, the parent
 *     reads, ROUNDS times in a row;
 *   - a reader child and a writer parent;
 *   - two writers: both processes feed one hash, the digest covers both;
 *   - a program exec()ed with the fd sends while its parent reads;
 *   - a close while the other waits: one child closes its copy and exits
 *     while the parent sleeps in read(), another child then sends, and
 *     the parent's read answers.
 * Vectors: NIST SP 800-38A F.2.1 (CBC-AES128.Encrypt); FIPS 180-2's
 * SHA-256("abc").  TAP output. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "afalg_util.h"
#include "tap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#define ROUNDS 1000

static const uint8_t key[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
				 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
static const uint8_t iv[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
static const uint8_t pt[64] = {
	0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96, 0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a,
	0xae, 0x2d, 0x8a, 0x57, 0x1e, 0x03, 0xac, 0x9c, 0x9e, 0xb7, 0x6f, 0xac, 0x45, 0xaf, 0x8e, 0x51,
	0x30, 0xc8, 0x1c, 0x46, 0xa3, 0x5c, 0xe4, 0x11, 0xe5, 0xfb, 0xc1, 0x19, 0x1a, 0x0a, 0x52, 0xef,
	0xf6, 0x9f, 0x24, 0x45, 0xdf, 0x4f, 0x9b, 0x17, 0xad, 0x2b, 0x41, 0x7b, 0xe6, 0x6c, 0x37, 0x10,
};
static const uint8_t ct[64] = {
	0x76, 0x49, 0xab, 0xac, 0x81, 0x19, 0xb2, 0x46, 0xce, 0xe9, 0x8e, 0x9b, 0x12, 0xe9, 0x19, 0x7d,
	0x50, 0x86, 0xcb, 0x9b, 0x50, 0x72, 0x19, 0xee, 0x95, 0xdb, 0x11, 0x3a, 0x91, 0x76, 0x78, 0xb2,
	0x73, 0xbe, 0xd6, 0xb8, 0xe3, 0xc1, 0x74, 0x3b, 0x71, 0x16, 0xe6, 0x9e, 0x22, 0x22, 0x95, 0x16,
	0x3f, 0xf1, 0xca, 0xa1, 0x68, 0x1f, 0xac, 0x09, 0x12, 0x0e, 0xca, 0x30, 0x75, 0x86, 0xe1, 0xa7,
};
static const uint8_t sha256_abc[32] = {
	0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
	0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
};

/* Reads exactly len bytes (a stream's output may come in parts). */
static bool read_all(int fd, uint8_t *out, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t r = read(fd, out + got, len - got);
		if (r <= 0) {
			fprintf(stderr, "# read: %zd (%s)\n", r, r < 0 ? strerror(errno) : "end");
			return false;
		}
		got += (size_t)r;
	}
	return true;
}

static bool child_ok(pid_t pid)
{
	int st;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* The parent starts the stream (operation and IV, no data), a child sends
 * the plaintext, the parent reads: or the reverse roles. */
static int stream_rounds(int op, bool child_writes)
{
	int i;
	for (i = 0; i < ROUNDS; i++) {
		uint8_t out[64];
		if (afalg_send_op(op, ALG_OP_ENCRYPT, iv, sizeof(iv), NULL, 0, MSG_MORE) != 0)
			break;
		pid_t pid = fork();
		if (pid == 0) {
			bool good = child_writes ? send(op, pt, sizeof(pt), 0) == (ssize_t)sizeof(pt)
						 : read_all(op, out, sizeof(out)) && !memcmp(out, ct, sizeof(ct));
			_exit(good ? 0 : 1);
		}
		bool good = child_writes ? read_all(op, out, sizeof(out)) && !memcmp(out, ct, sizeof(ct))
					 : send(op, pt, sizeof(pt), 0) == (ssize_t)sizeof(pt);
		if (!child_ok(pid) || !good)
			break;
	}
	return i;
}

static void two_writers(void)
{
	uint8_t md[32];
	int op = afalg_op_socket("hash", "sha256", NULL, 0, NULL);
	bool good = op >= 0 && send(op, "a", 1, MSG_MORE) == 1;
	pid_t pid = good ? fork() : -1;
	if (pid == 0)
		_exit(send(op, "b", 1, MSG_MORE) == 1 ? 0 : 1);
	good = child_ok(pid) && send(op, "c", 1, 0) == 1 && read_all(op, md, sizeof(md)) &&
	       !memcmp(md, sha256_abc, sizeof(md));
	ok(good, "two writers, parent and child, on one sha256 op socket: SHA-256(\"abc\")");
	if (op >= 0)
		close(op);
}

static void exec_writer(const char *self)
{
	int op = afalg_op_socket("skcipher", "cbc(aes)", key, sizeof(key), NULL);
	bool good = op >= 0 && afalg_send_op(op, ALG_OP_ENCRYPT, iv, sizeof(iv), NULL, 0, MSG_MORE) == 0;
	pid_t pid = good ? fork() : -1;
	if (pid == 0) {
		char fd[16];
		snprintf(fd, sizeof(fd), "%d", op);
		execl(self, self, "--send", fd, (char *)NULL);
		_exit(127);
	}
	uint8_t out[64];
	good = good && read_all(op, out, sizeof(out)) && !memcmp(out, ct, sizeof(ct)) && child_ok(pid);
	ok(good, "a program exec()ed with the op socket sends, its parent reads the ciphertext");
	if (op >= 0)
		close(op);
}

static void close_while_waiting(void)
{
	int op = afalg_op_socket("skcipher", "cbc(aes)", key, sizeof(key), NULL);
	bool good = op >= 0 && afalg_send_op(op, ALG_OP_ENCRYPT, iv, sizeof(iv), NULL, 0, MSG_MORE) == 0;
	pid_t closer = good ? fork() : -1;
	if (closer == 0) {
		nap_ms(50);
		_exit(close(op) ? 1 : 0);
	}
	pid_t writer = good ? fork() : -1;
	if (writer == 0) {
		nap_ms(200);
		_exit(send(op, pt, sizeof(pt), 0) == (ssize_t)sizeof(pt) ? 0 : 1);
	}
	uint8_t out[64];
	good = good && read_all(op, out, sizeof(out)) && !memcmp(out, ct, sizeof(ct));
	good = child_ok(closer) && child_ok(writer) && good;
	ok(good, "a child closes its copy while the parent waits in read(); another child's send answers it");
	if (op >= 0)
		close(op);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--send")) {
		const int op = atoi(argv[2]);
		return send(op, pt, sizeof(pt), 0) == (ssize_t)sizeof(pt) ? 0 : 1;
	}
	int op = afalg_op_socket("skcipher", "cbc(aes)", key, sizeof(key), NULL);
	int n = op >= 0 ? stream_rounds(op, true) : 0;
	ok(n == ROUNDS, "a writer child and a reader parent on one op socket: %d of %d rounds", n, ROUNDS);
	n = op >= 0 ? stream_rounds(op, false) : 0;
	ok(n == ROUNDS, "a reader child and a writer parent on one op socket: %d of %d rounds", n, ROUNDS);
	if (op >= 0)
		close(op);
	two_writers();
	exec_writer(argv[0]);
	close_while_waiting();
	return tap_done();
}
