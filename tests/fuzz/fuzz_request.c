/* libFuzzer: algd's request handling, from the bytes of a frame to the
 * AF_ALG socket logic (src/proto/proto.c's framing, src/algd/dispatch.c's
 * parsing and dispatch, afalg.c and algif_*.c), linked as in algd and
 * served over real socketpairs; this harness stands in for the event loop.
 *
 * The transform socket's connection may administer named keys, so that
 * keystore.c's parsers are reached; the store is emptied after each input.
 *
 * Input: a sequence of [target:1][len:2 LE][frame:len].  Targets below
 * 0x80 with the low bit clear send to the transform socket; with it set,
 * to op socket (target >> 1) & 3 of the four the client holds (accepted
 * ones fill the lowest free place, else replace the first), the transform
 * socket while that place is empty.  0x80 writes the bytes into the
 * newest payload area instead (after an SHM_SETUP), as a hostile client
 * rewrites it between and during requests; 0x81 to 0x84 close op socket
 * 0 to 3 (the bytes are skipped), so that sockets sharing state outlive
 * one another in every order. */
#include "account.h"
#include "algd_afalg.h"
#include "conn.h"
#include "dispatch.h"
#include "keystore.h"
#include "proto.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dispatcher disp;

/* Descriptors attached to a request: none can be, send() passes none. */
static void dispose_fd(int fd, void *account)
{
	(void)account;
	close(fd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	signal(SIGPIPE, SIG_IGN);
	int epfd = epoll_create1(EPOLL_CLOEXEC);
	conn_table_init(epfd);
	dispatcher_init(&disp, dispose_fd);
	algd_afalg_host_init();
	return epfd < 0 || ualg_core_init() ? 1 : 0;
}

/* The client's view of the newest payload area (SHM_SETUP's memfd). */
static uint8_t *area;

static void map_area(int memfd)
{
	void *m;

	if (area)
		munmap(area, UALG_SHM_SIZE);
	area = NULL;
	if (ualg_memfd_map(memfd, UALG_SHM_SIZE, &m) == 0)
		area = m;
	close(memfd);
}

/* Reads the replies algd sent to a client end; returns the last fd passed
 * with them (an accepted op socket), closing earlier ones, or -1. */
static int drain(int fd)
{
	struct ualg_hdr h;
	static uint8_t buf[UALG_FRAME_MAX];
	struct iovec body = { buf, sizeof(buf) };
	int passed, last = -1;

	while (ualg_frame_recv(fd, &h, &body, 1, &passed, 1) > 0) {
		if (passed >= 0 && h.type == UALG_MSG_SHM_SETUP) {
			map_area(passed);
			continue;
		}
		if (passed >= 0) {
			if (last >= 0)
				close(last);
			last = passed;
		}
	}
	return last;
}

#define OPS 4

static void keep(int ops[OPS], int passed)
{
	if (passed < 0)
		return;
	fcntl(passed, F_SETFL, O_NONBLOCK);	/* drain() must never wait */
	for (int i = 0; i < OPS; i++)
		if (ops[i] < 0) {
			ops[i] = passed;
			return;
		}
	close(ops[0]);
	ops[0] = passed;
}

/* Every client end's replies, and the op sockets they pass. */
static void drain_all(int tfm, int ops[OPS])
{
	keep(ops, drain(tfm));
	for (int i = 0; i < OPS; i++)
		if (ops[i] >= 0)
			keep(ops, drain(ops[i]));
}

static bool alive(const struct conn *c)
{
	for (const struct conn *o = conn_list(); o; o = o->next)
		if (o == c)
			return true;
	return false;
}

/* Serves whatever every connection has pending, as one epoll round. */
static void serve_all(void)
{
	struct conn *snap[256];
	unsigned n = 0;

	for (struct conn *o = conn_list(); o && n < 256; o = o->next)
		snap[n++] = o;
	for (unsigned i = 0; i < n; i++)
		if (alive(snap[i]))
			dispatch_readable(&disp, snap[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2], ops[OPS] = { -1, -1, -1, -1 };

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return 0;
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	struct client *cl = client_get(0);
	struct alg_sock *sk = afalg_sock_new();
	struct conn *c = cl && sk ? conn_add(sv[0], cl, sk, false) : NULL;
	if (c)
		account_fds(cl->acct, 1);	/* as on_connection(): conn_close() gives it back */
	if (!c) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	c->key_admin = true;
	while (size >= 3 && conn_list()) {
		const uint8_t tag = data[0];
		size_t n = (size_t)data[1] | (size_t)data[2] << 8;
		data += 3, size -= 3;
		if (n > size)
			n = size;
		if (tag == 0x80) {
			if (area)
				memcpy(area, data, n);
			data += n, size -= n;
			continue;
		}
		data += n, size -= n;
		if (tag > 0x80 && tag <= 0x80 + OPS) {
			int *op = &ops[tag - 0x81];
			if (*op >= 0)
				close(*op);
			*op = -1;
		} else if (tag < 0x80) {
			const int *op = &ops[(tag >> 1) & (OPS - 1)];
			int fd = tag & 1 && *op >= 0 ? *op : sv[1];
			if (send(fd, data - n, n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno != EAGAIN)
				break;
		}
		serve_all();
		drain_all(sv[1], ops);
	}
	for (int i = 0; i < OPS; i++)
		if (ops[i] >= 0)
			close(ops[i]);
	close(sv[1]);
	while (conn_list())
		conn_close(conn_list());
	conn_free_closed();
	if (area)
		munmap(area, UALG_SHM_SIZE);
	area = NULL;
	keystore_clear();
	return 0;
}
