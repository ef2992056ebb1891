/* The interposed libc functions.  Every one first asks the fd table whether
 * the fd is an emulated AF_ALG socket; if not, the real function runs with
 * nothing else done.  For ours, each call becomes one algd transaction (or
 * a few, for transfers longer than a frame) with the kernel's own argument
 * checks done first, in the kernel's order. */
#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if_alg.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define EXPORT __attribute__((visibility("default")))
#define SOCKADDR_STORAGE 128	/* sizeof(struct sockaddr_storage) */
#define UIO_MAXIOV_ 1024

struct real_fns real;

/* ---- resolving the real functions ---------------------------------- */

typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
static struct {
	read_fn read;
	write_fn write;
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*writev)(int, const struct iovec *, int);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	int (*accept)(int, struct sockaddr *, socklen_t *);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	int (*listen)(int, int);
	int (*getsockname)(int, struct sockaddr *, socklen_t *);
	int (*getpeername)(int, struct sockaddr *, socklen_t *);
	int (*shutdown)(int, int);
	ssize_t (*splice)(int, loff_t *, int, loff_t *, size_t, unsigned);
	ssize_t (*sendfile)(int, int, off_t *, size_t);
	int (*sendmmsg)(int, struct mmsghdr *, unsigned, int);
	int (*ioctl)(int, unsigned long, ...);
	int (*recvmmsg)(int, struct mmsghdr *, unsigned, int, struct timespec *);
} next;

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

#define RESOLVE(tbl, name) (tbl).name = (__typeof__((tbl).name))dlsym(RTLD_NEXT, #name)

static void resolve(void)
{
	RESOLVE(real, socket); RESOLVE(real, close); RESOLVE(real, dup);
	RESOLVE(real, dup2); RESOLVE(real, dup3); RESOLVE(real, fcntl);
	RESOLVE(real, bind); RESOLVE(real, setsockopt); RESOLVE(real, getsockopt);
	RESOLVE(next, read); RESOLVE(next, write); RESOLVE(next, readv); RESOLVE(next, writev);
	RESOLVE(next, send); RESOLVE(next, sendto); RESOLVE(next, sendmsg);
	RESOLVE(next, recv); RESOLVE(next, recvfrom); RESOLVE(next, recvmsg);
	RESOLVE(next, accept); RESOLVE(next, accept4); RESOLVE(next, connect);
	RESOLVE(next, listen); RESOLVE(next, getsockname); RESOLVE(next, getpeername);
	RESOLVE(next, shutdown); RESOLVE(next, splice); RESOLVE(next, sendfile);
	RESOLVE(next, sendmmsg); RESOLVE(next, recvmmsg); RESOLVE(next, ioctl);
}

void shim_resolve(void)
{
	pthread_once(&resolve_once, resolve);
}

__attribute__((constructor)) static void shim_init(void)
{
	shim_resolve();
	shim_adopt_inherited();
	inproc_init();
}

static int fail(int err)
{
	errno = err;
	return -1;
}

static ssize_t sfail(int err)
{
	errno = err;
	return -1;
}

/* O_NONBLOCK on the fd makes every call MSG_DONTWAIT, as sock_sendmsg()
 * and sock_recvmsg() do.  Asked of the kernel once per socket; fcntl()
 * and ioctl(FIONBIO) here keep the answer current.  (A process sharing
 * the socket that changes the flag is not seen.) */
static bool nonblocking(int fd)
{
	struct afd *a = afd_get(fd);
	int v = a ? atomic_load_explicit(&a->nonblock, memory_order_relaxed) : -1;
	if (v >= 0)
		return v;
	int fl = real.fcntl(fd, F_GETFL);
	v = fl >= 0 && (fl & O_NONBLOCK);
	if (a && fl >= 0)
		atomic_store_explicit(&a->nonblock, v, memory_order_relaxed);
	return v;
}

bool shim_nonblocking(int fd)
{
	return nonblocking(fd);
}

/* ---- socket creation and set-up ------------------------------------ */

#define NETLINK_CRYPTO_ 21

/* A NETLINK_CRYPTO socket: the program's end of a datagram pair. */
static int netlink_socket(int type)
{
	int sv[2];

	if ((type & 0xf) != SOCK_RAW && (type & 0xf) != SOCK_DGRAM)
		return fail(ESOCKTNOSUPPORT);
	if (socketpair(AF_UNIX, SOCK_DGRAM | (type & (SOCK_CLOEXEC | SOCK_NONBLOCK)), 0, sv))
		return -1;
	real.fcntl(sv[1], F_SETFD, FD_CLOEXEC);
	if (afd_track(sv[0], false, NULL)) {
		real.close(sv[0]);
		real.close(sv[1]);
		return fail(ENOMEM);
	}
	afd_get(sv[0])->nl_peer = sv[1];
	return sv[0];
}

EXPORT int socket(int domain, int type, int protocol)
{
	shim_resolve();
	const bool crypto_user = domain == AF_NETLINK && protocol == NETLINK_CRYPTO_;
	/* System-wide, the kernel's own AF_ALG may serve (sysmode.c). */
	if ((domain != AF_ALG && !crypto_user) || !shim_active())
		return real.socket(domain, type, protocol);
	if (crypto_user)
		return netlink_socket(type);
	/* __sys_socket() and __sock_create(), then af_alg_create(). */
	if (type & ~(0xf | SOCK_CLOEXEC | SOCK_NONBLOCK))
		return fail(EINVAL);
	int base = type & 0xf;
	if (base > 10)		/* type >= SOCK_MAX */
		return fail(EINVAL);
	if (base == SOCK_STREAM && rfc_enabled())
		return rfc_socket(type, protocol);	/* RFC mode, issue 9 */
	if (base != SOCK_SEQPACKET)
		return fail(ESOCKTNOSUPPORT);
	if (protocol != 0)
		return fail(EPROTONOSUPPORT);
	int fd = client_connect(type);
	if (fd < 0)
		return fail(-fd);
	if (afd_track(fd, false, NULL)) {
		real.close(fd);
		return fail(ENOMEM);
	}
	return fd;
}

EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return real.bind(fd, addr, len);
	if (a->nl_peer >= 0) {		/* netlink_bind() */
		struct sockaddr_nl nl;
		if (len < sizeof(nl))
			return fail(EINVAL);
		if (copy_in(&nl, addr, sizeof(nl)))
			return fail(EFAULT);
		return nl.nl_family == AF_NETLINK ? 0 : fail(EINVAL);
	}
	if (a->op)
		return fail(EOPNOTSUPP);	/* sock_no_bind */
	/* move_addr_to_kernel(), then alg_bind(). */
	uint8_t sa[SOCKADDR_STORAGE + 1];
	if ((int)len < 0 || len > SOCKADDR_STORAGE)
		return fail(EINVAL);
	if (copy_in(sa, addr, len))
		return fail(EFAULT);
	const size_t head = offsetof(struct sockaddr_alg, salg_name);	/* 24 */
	if (len < head + 1)
		return fail(EINVAL);
	struct ualg_bind b = { 0 };
	memcpy(b.type, sa + 2, sizeof(b.type));
	b.type[sizeof(b.type) - 1] = 0;
	memcpy(&b.feat, sa + 16, 4);
	memcpy(&b.mask, sa + 20, 4);
	sa[len - 1] = 0;	/* salg_name[addr_len - sizeof(*sa) - 1] = 0 */
	const char *name = (const char *)sa + head;
	b.name_len = (uint32_t)strlen(name) + 1;
	struct iovec parts[2] = { { &b, sizeof(b) }, { (void *)name, b.name_len } };
	struct xact x = { .type = UALG_MSG_BIND, .parts = parts, .nparts = 2 };
	int r = client_xact(a, fd, &x);
	if (r < 0)
		return fail(-r);
	memcpy(a->type, b.type, sizeof(a->type));
	inproc_bound(a);
	return 0;
}

/* SO_SNDBUF of an AF_ALG socket bounds its TX queue (af_alg_sndbuf()), which
 * algd keeps: the value is computed as sock_setsockopt() does and never set
 * on the real socket, whose frames must keep fitting. */
#define SOCK_MIN_SNDBUF_ 4608	/* 2 * (2048 + sizeof(struct sk_buff)) on 6.1 */

static int wmem_max(void)
{
	static atomic_int cached;
	int v = atomic_load(&cached);
	if (v)
		return v;
	v = 212992;
	int f = open("/proc/sys/net/core/wmem_max", O_RDONLY | O_CLOEXEC);
	if (f >= 0) {
		char b[32] = { 0 };
		if (next.read(f, b, sizeof(b) - 1) > 0 && atoi(b) > 0)
			v = atoi(b);
		real.close(f);
	}
	atomic_store(&cached, v);
	return v;
}

static int set_sndbuf(int fd, struct afd *a, const void *val, socklen_t len)
{
	int v;
	if (len < sizeof(int))
		return fail(EINVAL);
	if (copy_in(&v, val, sizeof(v)))
		return fail(EFAULT);
	unsigned u = (unsigned)v < (unsigned)wmem_max() ? (unsigned)v : (unsigned)wmem_max();
	int bytes = (int)(u * 2) > SOCK_MIN_SNDBUF_ ? (int)(u * 2) : SOCK_MIN_SNDBUF_;
	if (a->op) {
		struct ualg_sndbuf b = { (uint32_t)bytes };
		struct iovec part = { &b, sizeof(b) };
		struct xact x = { .type = UALG_MSG_SNDBUF, .parts = &part, .nparts = 1 };
		int r = client_xact(a, fd, &x);
		if (r < 0)
			return fail(-r);
		if (a->ipo)
			inproc_sndbuf(a, bytes);
	}
	a->sndbuf = bytes;
	return 0;
}

/* A "user" key whose description is "ualg:NAME" refers to the key algd
 * stores as NAME (algctl key add): its payload is ignored, and the name is
 * what goes to algd, so an administrator can hand a program a keyring
 * reference that holds no secret.  desc is KEYCTL_DESCRIBE's
 * "type;uid;gid;perm;description".  Copies NAME into *out and returns
 * true when desc is such a key. */
static bool named_key_ref(const char *desc, uint8_t **out, size_t *outlen)
{
	const char *d = desc;

	if (strncmp(d, "user;", 5))
		return false;
	for (int field = 0; field < 4; field++) {	/* past type, uid, gid, perm */
		d = strchr(d, ';');
		if (!d)
			return false;
		d++;
	}
	if (strncmp(d, "ualg:", 5))
		return false;
	d += 5;
	const size_t n = strlen(d);
	if (!(*out = malloc(n ? n : 1)))
		return false;
	memcpy(*out, d, n);
	*outlen = n;	/* algd checks the name itself (EINVAL) */
	return true;
}

/* ALG_SET_KEY_BY_KEY_SERIAL, as Linux 6.2 added it: the payload of a
 * "user" or "logon" key in the caller's keyrings becomes the key.  The
 * kernel reads it itself; here it is read with the caller's rights, so a
 * key the caller may search but not read (every "logon" key) cannot be
 * used: EACCES.  Returns 0 with the payload, or a positive errno; *by_name
 * is set when the key is a "ualg:NAME" reference and *out holds NAME. */
static int read_key_by_serial(const void *val, socklen_t len, uint8_t **out, size_t *outlen,
			      bool *by_name)
{
	int32_t serial;
	char desc[256];

	if (len != sizeof(serial))
		return EINVAL;
	if (copy_in(&serial, val, sizeof(serial)))
		return EFAULT;
	long n = syscall(SYS_keyctl, 6 /* KEYCTL_DESCRIBE */, serial, desc, sizeof(desc) - 1);
	if (n < 0)
		return errno;
	desc[n < (long)sizeof(desc) ? n : (long)sizeof(desc) - 1] = '\0';
	if ((*by_name = named_key_ref(desc, out, outlen)))
		return 0;
	const size_t tlen = strcspn(desc, ";");
	if (!(tlen == 4 && !strncmp(desc, "user", 4)) && !(tlen == 5 && !strncmp(desc, "logon", 5)))
		return ENOPROTOOPT;	/* encrypted and trusted keys are not supported */
	long size = syscall(SYS_keyctl, 11 /* KEYCTL_READ */, serial, NULL, 0);
	if (size < 0)
		return errno == EOPNOTSUPP ? EACCES : errno;
	if (size >= (long)UALG_SOCKOPT_MAX)
		return ENOMEM;	/* sock_kmalloc() past optmem_max */
	uint8_t *buf = malloc(size ? (size_t)size : 1);
	if (!buf)
		return ENOMEM;
	n = syscall(SYS_keyctl, 11, serial, buf, size);
	if (n < 0 || n > size) {
		int e = n < 0 ? errno : EIO;
		explicit_bzero(buf, (size_t)size);
		free(buf);
		return e;
	}
	*out = buf;
	*outlen = (size_t)n;
	return 0;
}

/* The options of libkcapi's akcipher and kpp sockets whose value algd
 * reads as a key's: ALG_SET_PUBKEY (6); on kpp, 7 is ALG_SET_DH_PARAMETERS
 * (not ALG_SET_KEY_BY_KEY_SERIAL) and 8 ALG_SET_ECDH_CURVE. */
static bool asym_value_option(const struct afd *a, int optname)
{
	if (!strcmp(a->type, "akcipher"))
		return optname == 6;
	return !strcmp(a->type, "kpp") && (optname == 6 || optname == 7 || optname == 8);
}

EXPORT int setsockopt(int fd, int level, int optname, const void *val, socklen_t len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (a && a->nl_peer < 0 && level == SOL_SOCKET && optname == SO_SNDBUF)
		return set_sndbuf(fd, a, val, len);
	if (!a || level == SOL_SOCKET)
		return real.setsockopt(fd, level, optname, val, len);
	if (a->rfc)
		return rfc_setsockopt(fd, a, level, optname, val, len);
	if ((int)len < 0)
		return fail(EINVAL);
	if (a->op)
		return fail(EOPNOTSUPP);	/* op sockets have no setsockopt */
	struct ualg_sockopt o = { level, optname, len, 0, 0, 0 };
	uint8_t *buf = NULL;
	/* Only a key is copied in by the kernel, and only after its checks:
	 * what goes wrong copying it is algd's to report in order. */
	if (level == SOL_ALG && (optname == ALG_SET_KEY || optname == UALG_SET_KEY_BY_NAME ||
				 asym_value_option(a, optname))) {
		if (len >= UALG_SOCKOPT_MAX) {
			o.flags = UALG_SOCKOPT_TOOBIG;
		} else if (!(buf = malloc(len ? len : 1))) {
			return fail(ENOMEM);
		} else if (copy_in(buf, val, len)) {
			o.flags = UALG_SOCKOPT_FAULT;
		} else {
			o.vallen = len;
		}
	} else if (level == SOL_ALG && optname == ALG_SET_KEY_BY_KEY_SERIAL) {
		size_t n = 0;
		bool by_name = false;
		o.keyref_err = (uint32_t)read_key_by_serial(val, len, &buf, &n, &by_name);
		o.vallen = (uint32_t)n;
		if (by_name) {	/* as UALG_SET_KEY_BY_NAME with the name */
			o.optname = UALG_SET_KEY_BY_NAME;
			o.optlen = (uint32_t)n;
		}
		len = (socklen_t)n;	/* what is wiped below */
	}
	struct iovec parts[2] = { { &o, sizeof(o) }, { buf, o.vallen } };
	struct xact x = { .type = UALG_MSG_SETSOCKOPT, .parts = parts, .nparts = 2 };
	int r = client_xact(a, fd, &x);
	if (r >= 0 && level == SOL_ALG && optname == ALG_SET_KEY)
		inproc_keyed(fd, a, buf, o.vallen);
	else if (r >= 0 && level == SOL_ALG && (optname == ALG_SET_KEY_BY_KEY_SERIAL ||
						optname == UALG_SET_KEY_BY_NAME))
		inproc_keyed(fd, a, NULL, 0);
	else if (r >= 0 && level == SOL_ALG && optname == ALG_SET_AEAD_AUTHSIZE)
		inproc_authsize(a, len);
	if (buf) {
		explicit_bzero(buf, len);	/* a key */
		free(buf);
	}
	/* akcipher and kpp key options answer an output size (algif_akcipher.c) */
	return r < 0 ? fail(-r) : r;
}

EXPORT int getsockopt(int fd, int level, int optname, void *val, socklen_t *len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return real.getsockopt(fd, level, optname, val, len);
	/* The real socket is AF_UNIX, SOCK_SEQPACKET; RFC sockets are streams. */
	if (level == SOL_SOCKET && (optname == SO_DOMAIN || (optname == SO_SNDBUF && a->sndbuf) ||
				    (optname == SO_TYPE && a->rfc))) {
		int v = optname == SO_DOMAIN ? AF_ALG : optname == SO_TYPE ? SOCK_STREAM : a->sndbuf;
		socklen_t l;
		if (copy_in(&l, len, sizeof(l)))
			return fail(EFAULT);
		if ((int)l < 0)
			return fail(EINVAL);
		l = l < sizeof(v) ? l : sizeof(v);
		memcpy(val, &v, l);
		*len = l;
		return 0;
	}
	if (level == SOL_SOCKET)
		return real.getsockopt(fd, level, optname, val, len);
	return fail(EOPNOTSUPP);	/* no getsockopt in AF_ALG's proto_ops */
}

static int do_accept(int fd, struct afd *a, struct sockaddr *addr, socklen_t *alen, int flags)
{
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return fail(EINVAL);
	struct xact x = { .type = UALG_MSG_ACCEPT, .want_fd = true,
			  .cloexec = flags & SOCK_CLOEXEC };
	int r = client_xact(a, fd, &x);
	if (r < 0)
		return fail(-r);
	if (x.rfd < 0)
		return fail(EPROTO);
	if ((flags & SOCK_NONBLOCK) && real.fcntl(x.rfd, F_SETFL, O_NONBLOCK)) {
		real.close(x.rfd);
		return fail(errno);
	}
	/* __sys_accept4_file() asks the new socket for its name, which AF_ALG
	 * op sockets cannot give: the socket is dropped again. */
	if (addr) {
		(void)alen;
		real.close(x.rfd);
		return fail(ECONNABORTED);
	}
	if (afd_track(x.rfd, true, a->type)) {
		real.close(x.rfd);
		return fail(ENOMEM);
	}
	afd_get(x.rfd)->rfc = a->rfc;
	inproc_accepted(a, x.rfd, afd_get(x.rfd));
	return x.rfd;
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *alen, int flags)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	return a ? do_accept(fd, a, addr, alen, flags) : next.accept4(fd, addr, alen, flags);
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *alen)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	return a ? do_accept(fd, a, addr, alen, 0) : next.accept(fd, addr, alen);
}

/* AF_ALG's proto_ops leave these to the sock_no_* stubs. */
EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	shim_resolve();
	return afd_get(fd) ? fail(EOPNOTSUPP) : next.connect(fd, addr, len);
}

EXPORT int listen(int fd, int backlog)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (a && a->rfc)
		return rfc_listen(fd, a);
	return a ? fail(EOPNOTSUPP) : next.listen(fd, backlog);
}

EXPORT int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.getsockname(fd, addr, len);
	if (a->nl_peer < 0)
		return fail(EOPNOTSUPP);
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_pid = (uint32_t)getpid() };
	socklen_t have;
	if (copy_in(&have, len, sizeof(have)))
		return fail(EFAULT);
	if ((int)have < 0)
		return fail(EINVAL);
	memcpy(addr, &nl, have < sizeof(nl) ? have : sizeof(nl));
	*len = sizeof(nl);
	return 0;
}

EXPORT int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	shim_resolve();
	return afd_get(fd) ? fail(EOPNOTSUPP) : next.getpeername(fd, addr, len);
}

EXPORT int shutdown(int fd, int how)
{
	shim_resolve();
	return afd_get(fd) ? fail(EOPNOTSUPP) : next.shutdown(fd, how);
}

/* ---- sending -------------------------------------------------------- */

/* A cursor over the caller's iovecs, cut into frame-sized pieces. */
struct iov_cursor {
	const struct iovec *iov;
	size_t n, i, off;
};

static size_t cursor_take(struct iov_cursor *c, struct iovec *out, int *nout, int max, size_t limit)
{
	size_t got = 0;

	*nout = 0;
	while (c->i < c->n && got < limit && *nout < max) {
		size_t left = c->iov[c->i].iov_len - c->off;
		if (!left) {
			c->i++;
			c->off = 0;
			continue;
		}
		size_t take = left < limit - got ? left : limit - got;
		out[(*nout)++] = (struct iovec){ (uint8_t *)c->iov[c->i].iov_base + c->off, take };
		got += take;
		c->off += take;
	}
	return got;
}

/* The next n bytes of the cursor gathered into dst (the payload area);
 * -EFAULT, the cursor where it was, when some cannot be read. */
static int cursor_copy_in(struct iov_cursor *c, uint8_t *dst, size_t n)
{
	struct iov_cursor at = *c;
	struct iovec part;
	int np;

	while (n) {
		size_t got = cursor_take(c, &part, &np, 1, n);
		if (!got || copy_in(dst, part.iov_base, got)) {
			*c = at;
			return -EFAULT;
		}
		dst += got;
		n -= got;
	}
	return 0;
}

/* src scattered over the cursor's next n bytes; -EFAULT where the caller's
 * memory cannot be written. */
static int cursor_copy_out(struct iov_cursor *c, const uint8_t *src, size_t n)
{
	struct iovec part;
	int np;

	while (n) {
		size_t got = cursor_take(c, &part, &np, 1, n);
		if (!got || copy_out(part.iov_base, src, got))
			return -EFAULT;
		src += got;
		n -= got;
	}
	return 0;
}

/* probe_out() over each piece of the cursor's next n bytes, as the frame
 * path probes each frame's parts; the cursor does not move. */
static int cursor_probe(struct iov_cursor c, size_t n)
{
	struct iovec part;
	int np;

	while (n) {
		size_t got = cursor_take(&c, &part, &np, 1, n);
		if (!got || probe_out(part.iov_base, got))
			return -EFAULT;
		n -= got;
	}
	return 0;
}

static int iov_total(const struct iovec *iov, size_t n, size_t *total)
{
	size_t t = 0;

	if (n > UIO_MAXIOV_)
		return -EMSGSIZE;
	for (size_t i = 0; i < n; i++) {
		if ((ssize_t)iov[i].iov_len < 0 || iov[i].iov_len > (size_t)SSIZE_MAX - t)
			return -EINVAL;
		t += iov[i].iov_len;
	}
	/* The kernel caps one call at MAX_RW_COUNT. */
	*total = t < (size_t)INT_MAX - 4095 ? t : (size_t)INT_MAX - 4095;
	return 0;
}

static ssize_t send_parts(int fd, struct afd *a, struct iov_cursor *cur, size_t total,
			  const struct shim_ctl *ctl, int flags, uint8_t *area);

static ssize_t do_send(int fd, struct afd *a, const struct iovec *iov, size_t niov,
		       const struct shim_ctl *ctl, int flags)
{
	size_t total;
	int r = iov_total(iov, niov, &total);
	if (r)
		return sfail(-r);
	if (a->nl_peer >= 0) {
		/* Netlink requests come in one piece: gather and answer. */
		uint8_t buf[4096];
		size_t n = 0;
		for (size_t i = 0; i < niov && n < sizeof(buf); i++) {
			size_t take = iov[i].iov_len < sizeof(buf) - n ? iov[i].iov_len : sizeof(buf) - n;
			if (copy_in(buf + n, iov[i].iov_base, take))
				return sfail(EFAULT);
			n += take;
		}
		ssize_t s = netlink_send(a, buf, n);
		return s < 0 ? sfail((int)-s) : (ssize_t)total;
	}
	if (a->ipo) {
		ssize_t n = inproc_send(fd, a, iov, niov, total, ctl, flags);
		if (n != INPROC_MOVED)
			return n;
	}
	if (a->rfc)
		return rfc_send(fd, a, iov, niov, ctl, flags);
	if (nonblocking(fd))
		flags |= MSG_DONTWAIT;
	struct iov_cursor cur = { iov, niov, 0, 0 };
	uint8_t *area = total >= SHM_MIN ? shm_acquire(fd, a) : NULL;
	ssize_t n = send_parts(fd, a, &cur, total, ctl, flags, area);
	if (area)
		shm_release(a);
	return n;
}

/* The per-call fields of one part's ualg_send. */
static struct ualg_send send_head(const struct shim_ctl *ctl, int flags, bool first, bool last)
{
	struct ualg_send m = { 0 };

	if (first && ctl && ctl->present) {
		m.flags |= UALG_SEND_CTL;
		m.flags |= ctl->invalid ? UALG_SEND_CTL_BAD : 0;
		m.op = ctl->op;
		m.assoclen = ctl->assoclen;
		if (ctl->has_iv && !ctl->invalid) {
			m.flags |= UALG_SEND_IV;
			m.ivlen = ctl->ivlen;
		}
	}
	m.flags |= first ? UALG_SEND_FIRST : 0;
	m.flags |= last ? UALG_SEND_LAST : 0;
	m.flags |= (flags & MSG_MORE) ? UALG_SEND_MORE : 0;
	m.flags |= (flags & MSG_DONTWAIT) ? UALG_SEND_DONTWAIT : 0;
	return m;
}

/* One SEND_SHM of the first n bytes of the area: returns what algd took. */
static int send_area_part(int fd, struct afd *a, struct ualg_send *m, const struct shim_ctl *ctl,
			  size_t n)
{
	struct ualg_shm_ref ref = { 0, n };
	struct iovec parts[3] = { { m, sizeof(*m) }, { (void *)(ctl ? ctl->iv : NULL), m->ivlen },
				  { &ref, sizeof(ref) } };
	struct xact x = { .type = UALG_MSG_SEND_SHM, .parts = parts, .nparts = 3, .data_len = n };
	return client_xact(a, fd, &x);
}

/* The parts of one sendmsg(): through the area while it is usable (a part
 * the shim cannot read goes by frames, which report it as the kernel
 * does), else in frames. */
static ssize_t send_parts(int fd, struct afd *a, struct iov_cursor *cur, size_t total,
			  const struct shim_ctl *ctl, int flags, uint8_t *area)
{
	size_t sent = 0;
	bool first = true;
	int r;

	do {
		struct iovec parts[UALG_FRAME_PARTS];
		int np = 0;
		size_t got = total - sent < UALG_DATA_MAX ? total - sent : UALG_DATA_MAX;
		if (area) {
			size_t want = total - sent < a->shm_size ? total - sent : a->shm_size;
			if (!cursor_copy_in(cur, area, want))
				got = want;
			else
				area = NULL;
		}
		if (!area)
			got = cursor_take(cur, parts + 2, &np, UALG_FRAME_PARTS - 2, got);
		struct ualg_send m = send_head(ctl, flags, first, sent + got == total);
		parts[0] = (struct iovec){ &m, sizeof(m) };
		parts[1] = (struct iovec){ (void *)(ctl ? ctl->iv : NULL), m.ivlen };
		struct xact x = { .type = UALG_MSG_SEND, .parts = parts, .nparts = np + 2,
				  .data_len = got, .behind_ok = true };
		r = area ? send_area_part(fd, a, &m, ctl, got) : client_xact(a, fd, &x);
		if (r == -EFAULT && !area) {
			/* The data could not be read: algd still runs the
			 * call's checks, then answers EFAULT, as the kernel. */
			m.flags |= UALG_SEND_FAULT;
			x.nparts = 2;
			x.behind_ok = false;
			r = client_xact(a, fd, &x);
		}
		if (r < 0)
			return sent ? (ssize_t)sent : sfail(-r);
		if ((size_t)r > got)
			return sent ? (ssize_t)sent : sfail(EPROTO);
		sent += (size_t)r;
		if ((size_t)r < got)
			break;
		first = false;
	} while (sent < total);
	return (ssize_t)sent;
}

/* The caller's iovec array, as copy_msghdr_from_user() takes it in. */
/* The caller's iovec array, as copy_msghdr_from_user() takes it in: up
 * to UIO_FASTIOV into fast (on the caller's stack), more into memory of
 * its own, which iovecs_free() releases. */
#define UIO_FASTIOV_ 8
static int copy_iovecs(const struct msghdr *m, struct iovec fast[UIO_FASTIOV_], struct iovec **out)
{
	if (m->msg_iovlen > UIO_MAXIOV_)
		return -EMSGSIZE;
	struct iovec *iov = m->msg_iovlen <= UIO_FASTIOV_ ? fast : malloc(m->msg_iovlen * sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	if (copy_in(iov, m->msg_iov, m->msg_iovlen * sizeof(*iov))) {
		if (iov != fast)
			free(iov);
		return -EFAULT;
	}
	*out = iov;
	return 0;
}

static void iovecs_free(struct iovec *iov, const struct iovec *fast)
{
	if (iov != fast)
		free(iov);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.sendmsg(fd, msg, flags);
	struct msghdr m;
	struct shim_ctl ctl;
	if (copy_in(&m, msg, sizeof(m)))
		return sfail(EFAULT);
	if ((int)m.msg_namelen < 0)
		return sfail(EINVAL);
	struct iovec fast[UIO_FASTIOV_], *iov;
	int r = cmsg_parse(&m, &ctl);
	if (!r)
		r = copy_iovecs(&m, fast, &iov);
	if (r)
		return sfail(-r);
	ssize_t n = do_send(fd, a, iov, m.msg_iovlen, &ctl, flags);
	iovecs_free(iov, fast);
	return n;
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *addr, socklen_t alen)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.sendto(fd, buf, len, flags, addr, alen);
	if (addr && alen > SOCKADDR_STORAGE)
		return sfail(EINVAL);
	struct iovec iov = { (void *)buf, len };
	return do_send(fd, a, &iov, 1, NULL, flags);
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.send(fd, buf, len, flags);
	struct iovec iov = { (void *)buf, len };
	return do_send(fd, a, &iov, 1, NULL, flags);
}

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.write(fd, buf, len);
	struct iovec iov = { (void *)buf, len };
	return do_send(fd, a, &iov, 1, NULL, 0);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.writev(fd, iov, n);
	if (n < 0)
		return sfail(EINVAL);
	return do_send(fd, a, iov, (size_t)n, NULL, 0);
}

/* splice() and sendfile() into an op socket.  The kernel hands the pages to
 * the socket's sendpage until the length is moved, the source runs dry or
 * the socket would block.  Here the bytes are copied and sent, never
 * written back, so a spliced page cache page cannot be modified (Copy
 * Fail).  Bytes leave the source only once algd has taken them: a pipe is
 * read through tee() first, a file through pread(), so a short send (a
 * full socket with O_NONBLOCK, a signal) loses nothing.  Where the op
 * socket has a payload area the bytes are read into it, once, and named
 * to algd; what algd took is then dropped from the pipe into /dev/null
 * (no copy). */
struct source {
	int fd;
	loff_t *off;		/* explicit offset, or NULL for the file's */
	bool pipe;
	unsigned pipe_flags;	/* SPLICE_F_NONBLOCK for tee() */
	int peek[2];		/* pipe: a private pipe that tee() fills */
	int null;		/* pipe: /dev/null to drop taken bytes into, or -1 */
};

static ssize_t source_peek(struct source *s, void *buf, size_t want)
{
	if (s->pipe) {
		ssize_t n = tee(s->fd, s->peek[1], want, s->pipe_flags);
		if (n <= 0)
			return n;
		return next.read(s->peek[0], buf, (size_t)n);
	}
	if (s->off)
		return pread(s->fd, buf, want, *s->off);
	off_t pos = lseek(s->fd, 0, SEEK_CUR);
	if (pos < 0)	/* not seekable: reading consumes at once */
		return next.read(s->fd, buf, want);
	return pread(s->fd, buf, want, pos);
}

/* Drops n bytes that algd took; buf holds at least n bytes of scratch. */
static void source_consume(struct source *s, void *buf, size_t n)
{
	if (s->pipe) {
		ssize_t r;
		while (n > 0 && s->null >= 0 &&
		       (r = next.splice(s->fd, NULL, s->null, NULL, n, SPLICE_F_NONBLOCK)) > 0)
			n -= (size_t)r;
		while (n > 0 && (r = next.read(s->fd, buf, n)) > 0)
			n -= (size_t)r;
	} else if (s->off) {
		*s->off += (loff_t)n;
	} else {
		lseek(s->fd, (off_t)n, SEEK_CUR);
	}
}

static size_t pipe_pending(int fd)
{
	int n = 0;
	return ioctl(fd, FIONREAD, &n) == 0 && n > 0 ? (size_t)n : 0;
}

/* One sendmsg() of the first n bytes of the area, as do_send() makes it. */
static ssize_t send_area(int fd, struct afd *a, size_t n, int flags)
{
	if (nonblocking(fd))
		flags |= MSG_DONTWAIT;
	struct ualg_send m = send_head(NULL, flags, true, true);
	int r = send_area_part(fd, a, &m, NULL, n);
	if (r < 0)
		return sfail(-r);
	return (size_t)r > n ? sfail(EPROTO) : r;
}

/* The private pipe and /dev/null of a pipe source; the peek pipe as large
 * as the source, so that one tee() sees what one splice() may move. */
static int source_open(struct source *src, bool area)
{
	src->null = -1;
	if (!src->pipe)
		return 0;
	if (pipe2(src->peek, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	if (!area)
		return 0;
	int size = real.fcntl(src->fd, F_GETPIPE_SZ);
	if (size > real.fcntl(src->peek[1], F_GETPIPE_SZ))
		real.fcntl(src->peek[1], F_SETPIPE_SZ, size);
	src->null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return 0;
}

static void source_close(struct source *src)
{
	if (!src->pipe)
		return;
	real.close(src->peek[0]);
	real.close(src->peek[1]);
	if (src->null >= 0)
		real.close(src->null);
}

/* more: keep the message open after the last chunk (SPLICE_F_MORE, or
 * sendfile's rule that only the chunk that completes len closes it). */
static ssize_t feed_chunks(int fd, struct afd *a, struct source *src, size_t len, bool more,
			   uint8_t *buf, size_t cap, bool area)
{
	size_t done = 0;
	int err = 0;

	while (done < len) {
		size_t want = len - done < cap ? len - done : cap;
		if (done && src->pipe && !pipe_pending(src->fd))
			break;	/* splice stops once the pipe is empty */
		ssize_t n = source_peek(src, buf, want);
		if (n <= 0) {
			err = n < 0 ? errno : 0;
			break;
		}
		bool last = done + (size_t)n == len ||
			    (src->pipe && pipe_pending(src->fd) == (size_t)n);
		const int flags = (more || !last) ? MSG_MORE : 0;
		struct iovec iov = { buf, (size_t)n };
		ssize_t s = area ? send_area(fd, a, (size_t)n, flags) : do_send(fd, a, &iov, 1, NULL, flags);
		if (s < 0) {
			err = errno;
			break;
		}
		source_consume(src, buf, (size_t)s);
		done += (size_t)s;
		if (s < n)
			break;
	}
	if (done == 0 && err)
		return sfail(err);
	return (ssize_t)done;
}

static ssize_t feed_from(int fd, struct afd *a, struct source *src, size_t len, bool more)
{
	uint8_t local[UALG_DATA_MAX];
	uint8_t *area = len >= SHM_MIN && !a->ipo ? shm_acquire(fd, a) : NULL;
	int r = source_open(src, area != NULL);
	ssize_t n = r ? sfail(-r)
		      : feed_chunks(fd, a, src, len, more, area ? area : local,
				    area ? a->shm_size : sizeof(local), area != NULL);
	int err = errno;
	if (!r)
		source_close(src);
	if (area)
		shm_release(a);
	errno = err;
	return n;
}

static ssize_t do_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov,
		       int flags, int *msg_flags);

static size_t pipe_room(int fd)
{
	int cap = fcntl(fd, F_GETPIPE_SZ);
	size_t used = pipe_pending(fd);
	return cap > 0 && (size_t)cap > used ? (size_t)cap - used : 0;
}

static bool is_pipe(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

static bool is_socket(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* splice() from an op socket into a pipe: sock_splice_read() falls back
 * to a read of the socket (at most a pipe's worth), written to the pipe. */
static ssize_t splice_out(int in, struct afd *a, int out, size_t len, unsigned flags)
{
	uint8_t buf[UALG_DATA_MAX];
	size_t room = pipe_room(out);
	if (len > room)
		len = room;
	if (len > sizeof(buf))
		len = sizeof(buf);
	if (!len)
		return (flags & SPLICE_F_NONBLOCK) ? sfail(EAGAIN) : 0;
	struct iovec iov = { buf, len };
	ssize_t n = do_recv(in, a, &iov, 1, 0, NULL);
	if (n > 0 && next.write(out, buf, (size_t)n) != n)
		n = sfail(errno);
	explicit_bzero(buf, n > 0 ? (size_t)n : 0);
	return n;
}

/* do_splice()'s checks, in its order: one end must be a pipe; a pipe has
 * no offset (ESPIPE); a socket cannot be written at an offset (EINVAL). */
EXPORT ssize_t splice(int in, loff_t *off_in, int out, loff_t *off_out, size_t len, unsigned flags)
{
	shim_resolve();
	struct afd *a = afd_get(out), *ain = afd_get(in);
	if (ain && !a && is_pipe(out)) {
		if (off_out)
			return sfail(ESPIPE);
		if (off_in)
			return sfail(EINVAL);	/* sockets have no pread */
		return splice_out(in, ain, out, len, flags);
	}
	if (!a)
		return next.splice(in, off_in, out, off_out, len, flags);
	if (!is_pipe(in))	/* one end of a splice must be a pipe */
		return sfail(EINVAL);
	if (off_in)
		return sfail(ESPIPE);
	if (off_out)
		return sfail(EINVAL);
	struct source src = { .fd = in, .pipe = true,
			      .pipe_flags = flags & SPLICE_F_NONBLOCK };
	return feed_from(out, a, &src, len, flags & SPLICE_F_MORE);
}

EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t len)
{
	shim_resolve();
	struct afd *a = afd_get(out);
	if (!a)
		return next.sendfile(out, in, off, len);
	if (is_pipe(in) || is_socket(in))	/* 6.1: neither has splice_read for this */
		return sfail(EINVAL);
	loff_t o = off ? *off : 0;
	struct source src = { .fd = in, .off = off ? &o : NULL };
	ssize_t n = feed_from(out, a, &src, len, false);
	if (off)
		*off = (off_t)o;
	return n;
}

EXPORT ssize_t sendfile64(int out, int in, off_t *off, size_t len)
{
	return sendfile(out, in, off, len);
}

/* ---- receiving ------------------------------------------------------ */

static ssize_t recv_parts(int fd, struct afd *a, struct iov_cursor *cur, size_t total, int flags,
			  int *msg_flags, uint8_t *area);

static ssize_t do_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov,
		       int flags, int *msg_flags)
{
	if (a->nl_peer >= 0) {	/* the answers are queued on the real socket */
		struct msghdr m = { .msg_iov = (struct iovec *)iov, .msg_iovlen = niov };
		ssize_t n = next.recvmsg(fd, &m, flags);
		if (n >= 0 && msg_flags)
			*msg_flags = m.msg_flags;
		return n;
	}
	if (a->rfc) {
		if (msg_flags)
			*msg_flags = 0;
		return rfc_recv(fd, a, iov, niov, flags);
	}
	size_t total;
	int r = iov_total(iov, niov, &total);
	if (r)
		return sfail(-r);
	if (a->ipo) {
		ssize_t n = inproc_recv(fd, a, iov, niov, total, flags, msg_flags);
		if (n != INPROC_MOVED)
			return n;
	}
	if (nonblocking(fd))
		flags |= MSG_DONTWAIT;

	struct iov_cursor cur = { iov, niov, 0, 0 };
	/* A digest is small: hash reads stay in frames. */
	uint8_t *area = total >= SHM_MIN && strcmp(a->type, "hash") ? shm_acquire(fd, a) : NULL;
	ssize_t n = recv_parts(fd, a, &cur, total, flags, msg_flags, area);
	if (area)
		shm_release(a);
	return n;
}

/* The parts of one receive: into the area while it is usable (a part
 * whose buffer fails the probe goes by frames, which find it as the frame
 * path always has), else in frames. */
static ssize_t recv_parts(int fd, struct afd *a, struct iov_cursor *cur, size_t total, int flags,
			  int *msg_flags, uint8_t *area)
{
	const bool whole = !strcmp(a->type, "aead");
	size_t got = 0;
	int r;

	do {
		struct iovec parts[UALG_FRAME_PARTS];
		int np = 0;
		size_t cap = total - got < UALG_DATA_MAX ? total - got : UALG_DATA_MAX;
		if (area) {
			cap = total - got < a->shm_size ? total - got : a->shm_size;
			if (cursor_probe(*cur, cap))
				area = NULL;
		}
		if (!area) {
			cap = cursor_take(cur, parts, &np, UALG_FRAME_PARTS, cap);
			/* Ciphers map the caller's buffer before taking any
			 * data (af_alg_get_rsgl), so a bad one leaves the
			 * queue intact; a hash computes its result first. */
			if (strcmp(a->type, "hash"))
				for (int i = 0; i < np; i++)
					if (probe_out(parts[i].iov_base, parts[i].iov_len))
						return got ? (ssize_t)got : sfail(EFAULT);
		}
		struct ualg_recv m = { (flags & MSG_DONTWAIT) ? UALG_RECV_DONTWAIT : 0, (uint32_t)cap,
				       (uint32_t)(whole ? total : cap), 0 };
		if (whole && got)
			m.flags |= UALG_RECV_REST;
		struct ualg_shm_ref ref = { 0, cap };
		struct iovec req[2] = { { &m, sizeof(m) }, { &ref, sizeof(ref) } };
		struct xact x = { .type = area ? UALG_MSG_RECV_SHM : UALG_MSG_RECV, .parts = req,
				  .nparts = area ? 2 : 1, .rbody = parts, .nrbody = np,
				  .data_len = cap };
		r = client_xact(a, fd, &x);
		if (r < 0)
			return got ? (ssize_t)got : sfail(-r);
		if (msg_flags && (x.rflags & UALG_HDR_TRUNC))
			*msg_flags |= MSG_TRUNC;
		/* A whole-buffer operation (AEAD): r counts all it produced,
		 * the parts beyond the first follow. */
		size_t n = whole && !got && (size_t)r > cap ? cap : (size_t)r;
		if (area && n > cap)
			return got ? (ssize_t)got : sfail(EPROTO);
		if (area && cursor_copy_out(cur, area, n))
			return got ? (ssize_t)got : sfail(EFAULT);
		if (whole) {
			if (!got)
				total = (size_t)r;
			got += n;
			if (!n)
				break;
			continue;
		}
		got += n;
		if (n < cap || !n)
			break;
	} while (got < total);
	return (ssize_t)got;
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.recvmsg(fd, msg, flags);
	struct msghdr m;
	struct iovec fast[UIO_FASTIOV_], *iov;
	if (copy_in(&m, msg, sizeof(m)))
		return sfail(EFAULT);
	int r = copy_iovecs(&m, fast, &iov);
	if (r)
		return sfail(-r);
	int mflags = 0;
	ssize_t n = do_recv(fd, a, iov, m.msg_iovlen, flags, &mflags);
	iovecs_free(iov, fast);
	if (n < 0)
		return n;
	/* No control data; no address, except a netlink reply's sender, the
	 * kernel (port 0). */
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	msg->msg_namelen = 0;
	if (a->nl_peer >= 0 && m.msg_name && m.msg_namelen >= sizeof(nl)) {
		memcpy(m.msg_name, &nl, sizeof(nl));
		msg->msg_namelen = sizeof(nl);
	}
	msg->msg_controllen = 0;
	msg->msg_flags = mflags;
	return n;
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr, socklen_t *alen)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.recvfrom(fd, buf, len, flags, addr, alen);
	struct iovec iov = { buf, len };
	ssize_t n = do_recv(fd, a, &iov, 1, flags, NULL);
	if (n >= 0 && addr && alen)
		*alen = 0;
	return n;
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.recv(fd, buf, len, flags);
	struct iovec iov = { buf, len };
	return do_recv(fd, a, &iov, 1, flags, NULL);
}

EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.read(fd, buf, len);
	if (!len)
		return 0;	/* sock_read_iter() answers an empty read itself */
	struct iovec iov = { buf, len };
	return do_recv(fd, a, &iov, 1, 0, NULL);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return next.readv(fd, iov, n);
	if (n < 0)
		return sfail(EINVAL);
	size_t total;
	if (!iov_total(iov, (size_t)n, &total) && !total)
		return 0;
	return do_recv(fd, a, iov, (size_t)n, 0, NULL);
}

/* The plain read and write of an op socket, for AIO (aio.c): what
 * sock_read_iter() and sock_write_iter() do for an iocb. */
ssize_t shim_op_read(int fd, struct afd *a, const struct iovec *iov, size_t niov)
{
	size_t total;
	int r = iov_total(iov, niov, &total);
	if (r)
		return sfail(-r);
	return total ? do_recv(fd, a, iov, niov, 0, NULL) : 0;
}

ssize_t shim_op_write(int fd, struct afd *a, const struct iovec *iov, size_t niov)
{
	return do_send(fd, a, iov, niov, NULL, 0);
}

/* _FORTIFY_SOURCE builds call these instead. */
EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		abort();
	return read(fd, buf, len);
}

EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags)
{
	if (len > buflen)
		abort();
	return recv(fd, buf, len, flags);
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
			      struct sockaddr *addr, socklen_t *alen)
{
	if (len > buflen)
		abort();
	return recvfrom(fd, buf, len, flags, addr, alen);
}

/* sendmmsg() and recvmmsg(): __sys_sendmmsg() and __sys_recvmmsg() are
 * loops of the single-message calls, stopping at the first error (which is
 * returned only when no message went through) or, for sends, a short one. */
#define MMSG_MAX 1024	/* UIO_MAXIOV */

EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned n, int flags)
{
	shim_resolve();
	if (!afd_get(fd))
		return next.sendmmsg(fd, vec, n, flags);
	unsigned done = 0;
	ssize_t r = 0;
	if (n > MMSG_MAX)
		n = MMSG_MAX;
	while (done < n) {
		r = sendmsg(fd, &vec[done].msg_hdr, flags);
		if (r < 0)
			break;
		size_t want = 0;	/* readable and valid: sendmsg() took it */
		iov_total(vec[done].msg_hdr.msg_iov, vec[done].msg_hdr.msg_iovlen, &want);
		vec[done++].msg_len = (unsigned)r;
		if ((size_t)r < want)
			break;
	}
	return done ? (int)done : (int)r;
}

EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned n, int flags, struct timespec *ts)
{
	shim_resolve();
	if (!afd_get(fd))
		return next.recvmmsg(fd, vec, n, flags, ts);
	unsigned done = 0;
	ssize_t r = 0;
	if (n > MMSG_MAX)
		n = MMSG_MAX;
	while (done < n) {
		r = recvmsg(fd, &vec[done].msg_hdr, flags);
		if (r < 0)
			break;
		vec[done++].msg_len = (unsigned)r;
		if (flags & MSG_WAITFORONE)
			flags |= MSG_DONTWAIT;
	}
	if (done)
		return (int)done;
	return (int)r;
}

/* ioctl() on an AF_ALG fd: do_vfs_ioctl() answers the file-level commands
 * and sock_ioctl() a few socket-level ones itself (both act on the real fd
 * as they would on the AF_ALG file); everything else reaches AF_ALG's
 * sock_no_ioctl() (EOPNOTSUPP), and the timestamp requests find no
 * gettstamp (ENOTTY). */
static bool ioctl_is_generic(unsigned long cmd)
{
	switch (cmd) {
	case FIOCLEX: case FIONCLEX: case FIONBIO: case FIOASYNC: case FIOQSIZE:
	case FIGETBSZ: case FIFREEZE: case FITHAW: case FICLONE: case FICLONERANGE:
	case FIDEDUPERANGE: case FS_IOC_FIEMAP:
	case FIOSETOWN: case SIOCSPGRP: case FIOGETOWN: case SIOCGPGRP:
	case SIOCGIFBR: case SIOCSIFBR: case SIOCBRADDBR: case SIOCBRDELBR:
	case SIOCGIFVLAN: case SIOCSIFVLAN: case SIOCGSKNS:
		return true;
	default:
		return (cmd >= SIOCDEVPRIVATE && cmd <= SIOCDEVPRIVATE + 15) ||
		       (cmd >= 0x8B00 && cmd <= 0x8BFF);	/* wireless extensions */
	}
}

EXPORT int ioctl(int fd, unsigned long cmd, ...)
{
	shim_resolve();
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int dr;
	if (devcrypto_ioctl(fd, cmd, arg, &dr))
		return dr;
	struct afd *a = afd_get(fd);
	if (a && cmd == FIONBIO) {
		int v;
		if (copy_in(&v, arg, sizeof(v)))
			return fail(EFAULT);
		int r = next.ioctl(fd, cmd, arg);
		if (!r)
			atomic_store(&a->nonblock, v != 0);
		return r;
	}
	if (!a || a->nl_peer >= 0 || ioctl_is_generic(cmd))
		return next.ioctl(fd, cmd, arg);
	if (cmd == SIOCGSTAMP_OLD || cmd == SIOCGSTAMPNS_OLD || cmd == SIOCGSTAMP_NEW ||
	    cmd == SIOCGSTAMPNS_NEW)
		return fail(ENOTTY);
	return fail(EOPNOTSUPP);
}

/* ---- readiness ------------------------------------------------------ */

/* The mask sock_poll() gives an AF_ALG socket: algd knows its state. */
short shim_alg_revents(int fd, struct afd *a, short events)
{
	if (a->ipo) {
		int m = inproc_revents(a, events);
		if (m >= 0)
			return (short)m;
	}
	struct xact x = { .type = UALG_MSG_POLL };
	int r = client_xact(a, fd, &x);

	if (r < 0)
		return POLLERR;
	return (short)(r & (events | POLLERR | POLLHUP));
}

/* Emulated sockets are answered from algd; the others are polled for real,
 * without waiting when an emulated one is ready.  An emulated socket that
 * is not ready cannot become ready while this process sleeps here, except
 * through another process sharing it. */
static int do_poll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	int ready = 0, small_fd[64];
	short small_mine[64];
	bool ours = false;

	for (nfds_t i = 0; i < n && !ours; i++) {
		struct afd *a = fds[i].fd >= 0 ? afd_get(fds[i].fd) : NULL;
		ours = a && a->nl_peer < 0;	/* netlink replies wait on the real socket */
	}
	if (!ours)
		return (int)shim_cancellable(SYS_ppoll, (long)fds, (long)n, (long)ts, (long)mask, _NSIG / 8, 0);
	int *saved_fd = small_fd;
	short *mine = small_mine;
	if (n > 64) {
		saved_fd = malloc(n * sizeof(*saved_fd));
		mine = malloc(n * sizeof(*mine));
		if (!saved_fd || !mine) {
			free(saved_fd);
			free(mine);
			return fail(ENOMEM);
		}
	}
	for (nfds_t i = 0; i < n; i++) {
		struct afd *a = fds[i].fd >= 0 ? afd_get(fds[i].fd) : NULL;
		saved_fd[i] = fds[i].fd;
		mine[i] = 0;
		if (!a || a->nl_peer >= 0)
			continue;
		mine[i] = shim_alg_revents(fds[i].fd, a, fds[i].events);
		ready += mine[i] != 0;
		fds[i].fd = -1;		/* poll ignores it */
	}
	struct timespec zero = { 0, 0 };
	int r = (int)shim_cancellable(SYS_ppoll, (long)fds, (long)n, (long)(ready ? &zero : ts), (long)mask,
				       _NSIG / 8, 0);
	int err = errno;
	for (nfds_t i = 0; i < n; i++) {
		if (fds[i].fd < 0 && saved_fd[i] >= 0)
			fds[i].revents = mine[i];
		fds[i].fd = saved_fd[i];
	}
	if (saved_fd != small_fd) {
		free(saved_fd);
		free(mine);
	}
	if (r < 0) {
		errno = err;
		return ready ? ready : -1;
	}
	return r + ready;
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	shim_resolve();
	struct timespec ts = { timeout / 1000, (timeout % 1000) * 1000000L };
	return do_poll(fds, n, timeout < 0 ? NULL : &ts, NULL);
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	shim_resolve();
	return do_poll(fds, n, ts, mask);
}

EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < n)
		abort();
	return poll(fds, n, timeout);
}

/* select() and pselect() with an emulated socket in a set become a poll
 * over the set fds, mapped back as the kernel's do_select() maps a poll
 * mask; without one they are the real calls. */
#define SELECT_IN (POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR)
#define SELECT_OUT (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR)
#define SELECT_EX POLLPRI

static bool in_set(int fd, const fd_set *s)
{
	return s && FD_ISSET(fd, s);
}

static bool selects_ours(int n, const fd_set *r, const fd_set *w, const fd_set *e)
{
	for (int fd = 0; fd < n && fd < FD_SETSIZE; fd++)
		if ((in_set(fd, r) || in_set(fd, w) || in_set(fd, e)) && afd_get(fd))
			return true;
	return false;
}

static int select_as_poll(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
			  const sigset_t *mask)
{
	struct pollfd *p = calloc((size_t)n, sizeof(*p));
	nfds_t np = 0;
	if (!p)
		return fail(ENOMEM);
	for (int fd = 0; fd < n; fd++) {
		short ev = (short)((in_set(fd, r) ? POLLIN : 0) | (in_set(fd, w) ? POLLOUT : 0) |
				   (in_set(fd, e) ? POLLPRI : 0));
		if (ev)
			p[np++] = (struct pollfd){ .fd = fd, .events = ev };
	}
	int k = do_poll(p, np, ts, mask);
	if (k < 0) {
		free(p);
		return -1;
	}
	int count = 0;
	for (nfds_t i = 0; i < np; i++)
		if (p[i].revents & POLLNVAL) {
			free(p);
			return fail(EBADF);
		}
	for (nfds_t i = 0; i < np; i++) {
		int fd = p[i].fd;
		short rev = p[i].revents;
		struct { fd_set *set; short bits; } m[3] = { { r, SELECT_IN }, { w, SELECT_OUT }, { e, SELECT_EX } };
		for (int j = 0; j < 3; j++) {
			if (!in_set(fd, m[j].set))
				continue;
			if (rev & m[j].bits)
				count++;
			else
				FD_CLR(fd, m[j].set);
		}
	}
	free(p);
	return count;
}

static int do_select(int n, fd_set *r, fd_set *w, fd_set *e, struct timespec *ts, const sigset_t *mask,
		     bool update_ts)
{
	if (n < 0 || n > FD_SETSIZE || !selects_ours(n, r, w, e))
		return -2;	/* the real call decides */
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int k = select_as_poll(n, r, w, e, ts, mask);
	if (ts && update_ts) {	/* Linux's select() leaves the time not slept */
		struct timespec t1, left;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long long ns = (ts->tv_sec - (t1.tv_sec - t0.tv_sec)) * 1000000000LL +
			       (ts->tv_nsec - (t1.tv_nsec - t0.tv_nsec));
		if (ns < 0)
			ns = 0;
		left.tv_sec = ns / 1000000000LL;
		left.tv_nsec = ns % 1000000000LL;
		*ts = left;
	}
	return k;
}

EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	shim_resolve();
	struct timespec ts, *tsp = NULL;
	if (tv) {
		if (tv->tv_sec < 0 || tv->tv_usec < 0)
			return fail(EINVAL);
		ts.tv_sec = tv->tv_sec + tv->tv_usec / 1000000;
		ts.tv_nsec = (tv->tv_usec % 1000000) * 1000;
		tsp = &ts;
	}
	int k = do_select(n, r, w, e, tsp, NULL, true);
	if (k == -2)
		return (int)shim_cancellable(SYS_select, n, (long)r, (long)w, (long)e, (long)tv, 0);
	if (tv) {
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	return k;
}

EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts, const sigset_t *mask)
{
	shim_resolve();
	struct timespec copy, *tsp = NULL;
	if (ts) {
		copy = *ts;
		tsp = &copy;
	}
	int k = do_select(n, r, w, e, tsp, mask, false);
	if (k != -2)
		return k;
	struct { const sigset_t *ss; size_t len; } data = { mask, _NSIG / 8 };
	return (int)shim_cancellable(SYS_pselect6, n, (long)r, (long)w, (long)e, (long)tsp,
				    (long)(mask ? &data : NULL));
}

/* ---- descriptor bookkeeping ----------------------------------------- */

EXPORT int close(int fd)
{
	shim_resolve();
	epoll_forget(fd);	/* an emulated fd, or an epoll set */
	afd_untrack(fd);
	devcrypto_close(fd);
	return real.close(fd);
}

EXPORT int dup(int fd)
{
	shim_resolve();
	int n = real.dup(fd);
	struct afd *a = n >= 0 ? afd_get(fd) : NULL;
	if (a)
		afd_share(n, a);
	if (n >= 0)
		devcrypto_dup(fd, n);
	return n;
}

static int dup_onto(int fd, int n, int r)
{
	if (r < 0 || fd == n)
		return r;
	epoll_forget(n);	/* the old n was closed */
	devcrypto_dup(fd, n);
	struct afd *a = afd_get(fd);
	if (a)
		afd_share(n, a);
	else
		afd_untrack(n);		/* the old n was closed by the dup */
	return r;
}

EXPORT int dup2(int fd, int n)
{
	shim_resolve();
	return dup_onto(fd, n, real.dup2(fd, n));
}

EXPORT int dup3(int fd, int n, int flags)
{
	shim_resolve();
	return dup_onto(fd, n, real.dup3(fd, n, flags));
}

static int do_fcntl(int fd, int cmd, va_list ap)
{
	/* Every fcntl argument is an int or a pointer; pass it through as
	 * a pointer-sized value. */
	void *arg = va_arg(ap, void *);
	int r = real.fcntl(fd, cmd, arg);
	struct afd *a = r >= 0 ? afd_get(fd) : NULL;

	if (a && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		afd_share(r, a);
	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		devcrypto_dup(fd, r);
	if (a && cmd == F_SETFL)
		atomic_store(&a->nonblock, ((int)(intptr_t)arg & O_NONBLOCK) != 0);
	return r;
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	shim_resolve();
	va_list ap;
	va_start(ap, cmd);
	int r = do_fcntl(fd, cmd, ap);
	va_end(ap);
	return r;
}

/* Programs built with _FILE_OFFSET_BITS=64 call this name. */
EXPORT int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));
