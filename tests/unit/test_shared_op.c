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
#include "sp800_38a.h"
#include "tap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#define ROUNDS 1000

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
