/* Frame I/O shared by algd and the shim.  System calls are made with
 * syscall() so that the shim, which interposes the libc wrappers, never
 * re-enters itself here. */
#include "msg.h"
#include "proto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <unistd.h>

static ssize_t sys_sendmsg(int fd, const struct msghdr *m, int flags)
{
	return syscall(SYS_sendmsg, fd, m, flags);
}

static ssize_t sys_recvmsg(int fd, struct msghdr *m, int flags)
{
	return syscall(SYS_recvmsg, fd, m, flags);
}

int ualg_frame_send(int sock, uint16_t type, uint16_t flags, int32_t result,
		    const struct iovec *parts, int nparts, int pass_fd)
{
	struct iovec iov[UALG_FRAME_PARTS + 1];
	struct ualg_hdr hdr = { .type = type, .flags = flags, .result = result };
	size_t total = sizeof(hdr);
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = { .msg_iov = iov };

	if (nparts < 0 || nparts > UALG_FRAME_PARTS)
		return -EINVAL;
	iov[0] = (struct iovec){ &hdr, sizeof(hdr) };
	for (int i = 0; i < nparts; i++) {
		iov[i + 1] = parts[i];
		total += parts[i].iov_len;
	}
	if (total > UALG_FRAME_MAX)
		return -EMSGSIZE;
	hdr.len = (uint32_t)total;
	msg.msg_iovlen = (size_t)nparts + 1;
	if (pass_fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	for (;;) {
		ssize_t n = sys_sendmsg(sock, &msg, MSG_NOSIGNAL);
		if (n >= 0)
			return (size_t)n == total ? 0 : -EPROTO;
		if (errno != EINTR)
			return -errno;
	}
}

/* Takes the passed descriptor out of the control data; any extra ones a
 * hostile peer attached are handed to dispose (closed when NULL), never
 * leaked.  Returns how many descriptors came. */
static size_t take_fds(struct msghdr *msg, int *fd, void (*dispose)(int, void *), void *arg)
{
	int got = -1;
	size_t count = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++, count++) {
			int f;
			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (got < 0 && fd)
				got = f;
			else if (dispose)
				dispose(f, arg);
			else
				syscall(SYS_close, f);
		}
	}
	if (fd)
		*fd = got;
	return count;
}

bool ualg_frame_hdr_ok(const struct ualg_hdr *hdr, size_t n)
{
	return n >= sizeof(*hdr) && hdr->len == n && hdr->type && hdr->type < UALG_MSG_TYPE_MAX &&
	       !(hdr->flags & ~UALG_HDR_FLAGS_ALL) && !hdr->reserved;
}

/* The kernel's SCM_MAX_FD: room for every descriptor one message can
 * carry, so that none is dropped (and released) inside recvmsg(). */
#define SCM_FDS_MAX 253

static ssize_t frame_recv(int sock, struct ualg_hdr *hdr, const struct iovec *body, int nbody,
			  int *fd, int flags, void (*dispose)(int, void *), void *arg)
{
	union {
		char buf[CMSG_SPACE(SCM_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov[UALG_FRAME_PARTS + 1];
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)nbody + 1,
			      .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	ssize_t n;

	if (fd)
		*fd = -1;
	if (nbody < 0 || nbody > UALG_FRAME_PARTS)
		return -EINVAL;
	iov[0] = (struct iovec){ hdr, sizeof(*hdr) };
	for (int i = 0; i < nbody; i++)
		iov[i + 1] = body[i];
	n = sys_recvmsg(sock, &msg, flags);
	/* A peer that closed with frames of ours unread leaves ECONNRESET,
	 * reported once and before the frames it sent first (a refusal it
	 * answered before it hung up): those, or the end, come next. */
	if (n < 0 && errno == ECONNRESET) {
		msg.msg_controllen = sizeof(ctl.buf);
		msg.msg_flags = 0;
		n = sys_recvmsg(sock, &msg, flags | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			errno = ECONNRESET;
	}
	if (n < 0)
		return -errno;
	const size_t nfds = take_fds(&msg, fd, dispose, arg);
	if (n == 0)
		return 0;
	if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || !ualg_frame_hdr_ok(hdr, (size_t)n) ||
	    (dispose && nfds)) {
		if (fd && *fd >= 0) {
			syscall(SYS_close, *fd);
			*fd = -1;
		}
		return -EPROTO;
	}
	return n;
}

ssize_t ualg_frame_recv(int sock, struct ualg_hdr *hdr, const struct iovec *body, int nbody,
			int *fd, int cloexec)
{
	return frame_recv(sock, hdr, body, nbody, fd, MSG_CMSG_CLOEXEC * !!cloexec, NULL, NULL);
}

ssize_t ualg_frame_recv_now(int sock, struct ualg_hdr *hdr, const struct iovec *body, int nbody,
			    int *fd, int cloexec)
{
	return frame_recv(sock, hdr, body, nbody, fd, MSG_DONTWAIT | MSG_CMSG_CLOEXEC * !!cloexec,
			  NULL, NULL);
}

ssize_t ualg_frame_recv_nofd(int sock, struct ualg_hdr *hdr, const struct iovec *body, int nbody,
			     void (*dispose)(int fd, void *arg), void *arg)
{
	return frame_recv(sock, hdr, body, nbody, NULL, MSG_CMSG_CLOEXEC, dispose, arg);
}

int ualg_hello_send(int sock, bool quiet)
{
	struct ualg_hello hello = { UALG_PROTO_MAGIC, UALG_PROTO_VERSION, UALG_ROLE_AFALG };
	struct iovec part = { &hello, sizeof(hello) };
	int r = ualg_frame_send(sock, UALG_MSG_HELLO, quiet ? UALG_HDR_QUIET : 0, 0, &part, 1, -1);

	/* A refusing algd may have hung up already, its answer still queued. */
	return r && r != -EPIPE && r != -ECONNRESET ? r : 0;
}

int ualg_hello_answer(int sock)
{
	struct ualg_hdr h;
	ssize_t n;
	do
		n = ualg_frame_recv(sock, &h, NULL, 0, NULL, 1);
	while (n == -EINTR);
	/* algd closed before reading our HELLO: the kernel reports the reset
	 * first, then the answer algd queued before it. */
	if (n == -ECONNRESET)
		n = ualg_frame_recv(sock, &h, NULL, 0, NULL, 1);
	if (n < 0)
		return (int)n;
	if (n > 0 && h.type == UALG_MSG_HELLO && h.result < 0 && h.result > -4096)
		return h.result;	/* refused: by policy (EACCES) or a limit (EMFILE) */
	return n > 0 && h.type == UALG_MSG_HELLO && h.result == UALG_PROTO_VERSION ? 0 : -EPROTO;
}

int ualg_hello(int sock)
{
	int r = ualg_hello_send(sock, false);
	return r ? r : ualg_hello_answer(sock);
}

int ualg_admin_call(int sock, uint16_t type, const struct ualg_alg_req *q,
		    void *out, size_t outsize, size_t *outlen)
{
	struct iovec part = { (void *)q, sizeof(*q) }, body = { out, outsize };
	struct ualg_hdr h;
	int r = ualg_frame_send(sock, type, 0, 0, &part, 1, -1);

	*outlen = 0;
	if (r)
		return r;
	ssize_t n;
	do
		n = ualg_frame_recv(sock, &h, &body, 1, NULL, 1);
	while (n == -EINTR);
	if (n <= 0)
		return n ? (int)n : -ECONNRESET;
	const size_t data = (size_t)n - sizeof(h);
	if (h.type != type || !(h.flags & UALG_HDR_REPLY) ||
	    ualg_decode_alg_reply(type, h.result, data))
		return -EPROTO;
	*outlen = data;
	return h.result;
}

int ualg_default_socket_path(char *buf, size_t size)
{
	const char *env = getenv("UALG_SOCKET");
	const char *rt = getenv("XDG_RUNTIME_DIR");
	int n;

	if (env && *env)
		n = snprintf(buf, size, "%s", env);
	else if (geteuid() == 0)
		n = snprintf(buf, size, "%s", UALG_SYSTEM_SOCKET);
	else if (rt && *rt)
		n = snprintf(buf, size, "%s/ualg/algd.sock", rt);
	else
		n = snprintf(buf, size, "/tmp/ualg-%u/algd.sock", (unsigned)geteuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int memfd_make(const char *name, size_t size, void **map, bool published)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	void *m = MAP_FAILED;
	if (!ftruncate(fd, (off_t)size) &&
	    !fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW))
		m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* F_SEAL_FUTURE_WRITE spares the mapping made before it. */
	if (m == MAP_FAILED ||
	    fcntl(fd, F_ADD_SEALS, (published ? F_SEAL_FUTURE_WRITE : 0) | F_SEAL_SEAL)) {
		int err = -errno;
		if (m != MAP_FAILED)
			munmap(m, size);
		close(fd);
		return err;
	}
	*map = m;
	return fd;
}

int ualg_memfd_create(const char *name, size_t size, void **map)
{
	return memfd_make(name, size, map, false);
}

int ualg_memfd_create_published(const char *name, size_t size, void **map)
{
	return memfd_make(name, size, map, true);
}

/* The memfd's seals include want and it holds size bytes. */
static int memfd_check(int fd, size_t size, int want)
{
	struct stat st;
	/* syscall(): in the shim, fcntl() is the interposed one */
	int seals = (int)syscall(SYS_fcntl, fd, F_GET_SEALS);

	if (seals < 0 || (seals & want) != want || fstat(fd, &st) || st.st_size < 0 ||
	    (uint64_t)st.st_size < size || size == 0)
		return -EPROTO;
	return 0;
}

int ualg_memfd_map(int fd, size_t size, void **map)
{
	if (memfd_check(fd, size, F_SEAL_SHRINK))
		return -EPROTO;
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	*map = m;
	return 0;
}

int ualg_memfd_map_published(int fd, size_t size, const void **map)
{
	if (memfd_check(fd, size, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE))
		return -EPROTO;
	void *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	*map = m;
	return 0;
}

/* ---- connecting to algd: only to one the user can trust --------------- */

static int refuse(char *why, size_t whylen, int err, const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* Walks the resolved path from / down.  An entry is trusted when its
 * directory is writable only by its owner (who, or root, made it: their
 * choice), or when the directory is shared but sticky (/tmp) and the entry
 * belongs to root or this user.  A directory writable by others without
 * the sticky bit ends the walk.  The socket's owner is returned: its
 * directory vouches for it as algd's user. */
static int trusted_path(const char *path, uid_t me, uid_t *sock_owner, char *why, size_t whylen)
{
	char prefix[PATH_MAX];
	struct stat st;
	bool shared = false;	/* the directory above is sticky and others may write it */

	if (lstat("/", &st) || st.st_uid != 0 || (st.st_mode & 022))
		return refuse(why, whylen, -EPERM, "/ is not root's alone");
	for (const char *p = path + 1;; ) {
		const char *slash = strchr(p, '/');
		const size_t n = slash ? (size_t)(slash - path) : strlen(path);
		memcpy(prefix, path, n);
		prefix[n] = '\0';
		if (lstat(prefix, &st))
			return -errno;
		if (shared && st.st_uid != 0 && st.st_uid != me)
			return refuse(why, whylen, -EPERM,
				      "%s belongs to uid %u (not root or you) in a shared directory",
				      prefix, (unsigned)st.st_uid);
		if (!slash) {
			if (!S_ISSOCK(st.st_mode))
				return -ECONNREFUSED;	/* what connect() says */
			*sock_owner = st.st_uid;
			return 0;
		}
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
			return refuse(why, whylen, -EPERM, "%s is writable by others than its owner",
				      prefix);
		shared = (st.st_mode & 022) != 0;
		p = slash + 1;
	}
}

/* The path a process last verified, for its effective uid: connecting
 * there again checks only the daemon's credentials, so that a program
 * walks the path once, not per socket.  A record is never freed (another
 * thread may be reading it); a new one replaces it only for another path
 * or uid. */
struct verified {
	uid_t me, owner;
	char path[PATH_MAX];
	struct sockaddr_un sa;
};
static _Atomic(struct verified *) last_verified;

static const struct verified *verified_for(const char *path, uid_t me)
{
	const struct verified *v = atomic_load_explicit(&last_verified, memory_order_acquire);
	return v && v->me == me && !strcmp(v->path, path) ? v : NULL;
}

static void remember(const char *path, uid_t me, uid_t owner, const struct sockaddr_un *sa)
{
	struct verified *v = malloc(sizeof(*v));
	if (!v || strlen(path) >= sizeof(v->path)) {
		free(v);
		return;
	}
	v->me = me;
	v->owner = owner;
	strcpy(v->path, path);
	v->sa = *sa;
	atomic_store_explicit(&last_verified, v, memory_order_release);
}

int ualg_connect(const char *path, char *why, size_t whylen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char real[PATH_MAX];
	const uid_t me = geteuid();
	uid_t owner = me;
	int err;

	if (why && whylen)
		*why = '\0';
	const struct verified *v = verified_for(path, me);
	if (v) {
		owner = v->owner;
		sa = v->sa;
		snprintf(real, sizeof(real), "%s", sa.sun_path);
	} else {
		if (!realpath(path, real))
			return -errno;
		if ((err = trusted_path(real, me, &owner, why, whylen)))
			return err;
		if (strlen(real) >= sizeof(sa.sun_path))
			return -ENAMETOOLONG;
		strcpy(sa.sun_path, real);
	}
	int fd = (int)syscall(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (syscall(SYS_connect, fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		err = -errno;
		syscall(SYS_close, fd);
		return err;
	}
	if (cred.uid != 0 && cred.uid != me && cred.uid != owner) {
		syscall(SYS_close, fd);
		return refuse(why, whylen, -EPERM, "the daemon at %s runs as uid %u, not root, "
			      "you or the socket's owner", real, (unsigned)cred.uid);
	}
	if (!v)
		remember(path, me, owner, &sa);
	return fd;
}
