/* Fds that reach a program from another: inherited across execve, or
 * passed with SCM_RIGHTS.  The fd table lives in the process, so a program
 * exec()ed with AF_ALG fds open (a shell's redirection, a server that
 * re-executes itself) starts with an empty one, and a received fd is not
 * in it, while the fds are connections to algd.  At load, and for each fd
 * a recvmsg() receives, an AF_UNIX SEQPACKET socket whose peer is the algd
 * this program would connect to (same pid, by SO_PEERCRED: algd creates the
 * op socketpairs itself) is asked what it is.  Nothing is sent on a socket
 * whose peer is anything else.  The sender's side makes sure the socket
 * is algd's, with its state, before it goes (shim_before_passing()). */
#include "shim.h"
#include "msg.h"	/* the replies' decoders */

#include <dirent.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_INHERITED 256

static int sockopt_int(int fd, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);
	return real.getsockopt(fd, SOL_SOCKET, opt, &v, &l) ? -1 : v;
}

static pid_t peer_pid(int fd)
{
	struct ucred c;
	socklen_t l = sizeof(c);
	return real.getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &l) ? -1 : c.pid;
}

/* An AF_UNIX SEQPACKET socket connected to another process: maybe algd. */
static bool candidate(int fd)
{
	struct stat st;
	if (fstat(fd, &st) || !S_ISSOCK(st.st_mode))
		return false;
	if (sockopt_int(fd, SO_DOMAIN) != AF_UNIX || sockopt_int(fd, SO_TYPE) != SOCK_SEQPACKET)
		return false;
	pid_t p = peer_pid(fd);
	return p > 0 && p != getpid();
}

static size_t list_candidates(int *out, size_t max)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd == dirfd(d) || fd > 1 << 20)
			continue;
		if (candidate((int)fd))
			out[n++] = (int)fd;
	}
	closedir(d);
	return n;
}

static pid_t algd_pid(void)
{
	static atomic_int known;	/* algd's pid, asked once */
	pid_t p = atomic_load(&known);
	if (p > 0)
		return p;
	int fd = client_connect(SOCK_CLOEXEC);
	if (fd < 0)
		return -1;
	p = peer_pid(fd);
	real.close(fd);
	if (p > 0)
		atomic_store(&known, p);
	return p;
}

static void adopt(int fd)
{
	struct ualg_describe raw, d;
	struct iovec body = { &raw, sizeof(raw) };

	struct afd *a = afd_track(fd, AFD_TFM);
	if (!a)
		return;
	uint8_t token[UALG_TOKEN_BYTES];
	if (handon_token(fd, token))
		client_set_token(a, token, 0);	/* DESCRIBE already on a channel */
	struct xact x = { .type = UALG_MSG_DESCRIBE, .rbody = &body, .nrbody = 1 };
	if (client_xact(a, fd, &x) < 0 || ualg_decode_describe(&raw, x.rlen, &d)) {
		afd_put(a);
		afd_untrack(fd);
		return;
	}
	/* RFC mode even where this program did not opt in. */
	const bool op = d.flags & UALG_DESCRIBE_OP, rfc = d.flags & UALG_DESCRIBE_RFC;
	afd_set_kind(a, rfc ? (op ? AFD_RFC_OP : AFD_RFC_TFM) : (op ? AFD_OP : AFD_TFM));
	if (d.flags & UALG_DESCRIBE_BOUND)
		afd_set_type(a, (const char *)d.type);
	a->sndbuf = (int)d.sndbuf;
	/* Whoever else has it, this program talks on a channel of its own. */
	if (op)
		client_set_token(a, d.token, 0);
	afd_put(a);
}

void shim_adopt_inherited(void)
{
	int fds[MAX_INHERITED];
	size_t n = list_candidates(fds, MAX_INHERITED);
	if (!n || !shim_active())
		return;
	pid_t algd = algd_pid();
	if (algd <= 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (peer_pid(fds[i]) == algd)
			adopt(fds[i]);
}

/* Each fd of the SCM_RIGHTS messages in control data already copied. */
static void for_each_passed(const struct msghdr *msg, void (*fn)(int fd))
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		const size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			fn(fd);
		}
	}
}

static int passed_via;	/* the socket the fds came through (one recvmsg() at a time) */

static void adopt_one_passed(int fd)
{
	if (afd_is_ours(fd) || !candidate(fd))
		return;
	pid_t algd = algd_pid();
	/* What algd itself passes is its protocol's own (libualg, a client
	 * that speaks the frames directly), never a socket to adopt. */
	if (algd > 0 && peer_pid(fd) == algd && peer_pid(passed_via) != algd)
		adopt(fd);
}

void shim_adopt_passed(int via, const struct msghdr *msg)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	if (!msg || !msg->msg_control || msg->msg_controllen < CMSG_LEN(0) || !shim_active())
		return;
	pthread_mutex_lock(&lock);
	passed_via = via;
	for_each_passed(msg, adopt_one_passed);
	pthread_mutex_unlock(&lock);
}

static void pass_one(int fd)
{
	struct afd *a = afd_get(fd);
	if (!a)
		return;
	a->poolable = false;	/* another process has the connection */
	if (!local_share(a))	/* one algd cannot take stays the sender's */
		inproc_handover_of(a);
	afd_put(a);
}

/* The caller's control data is read as the kernel will read it; what
 * cannot be read is the kernel's to refuse. */
void shim_before_passing(const struct msghdr *msg)
{
	uint8_t buf[1024];
	struct msghdr m;
	if (!msg || copy_in(&m, msg, sizeof(m)) || !m.msg_control || m.msg_controllen < CMSG_LEN(0) ||
	    m.msg_controllen > sizeof(buf) || copy_in(buf, m.msg_control, m.msg_controllen))
		return;
	m.msg_control = buf;
	client_settle_all();
	for_each_passed(&m, pass_one);
}
