/* The socket calls on an emulated socket, replayed on the shim socket:
 * each call's arguments are imported from the target as the kernel
 * imports them (kabi.h), the call is made here through the shim, and its
 * results are copied back. */
#include "supervise_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define GETOPT_MAX 256u
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif

void serve_socket(const struct call *c)
{
	int type = (int)c->arg[1];
	int s = socket((int)c->arg[0], (type & ~SOCK_CLOEXEC) | SOCK_CLOEXEC, (int)c->arg[2]);
	if (s < 0) {
		answer(c, -errno);
		return;
	}
	install(c, s, type & SOCK_CLOEXEC, type & SOCK_NONBLOCK);
}

static void serve_accept(const struct call *c, struct esock *e, int flags)
{
	uint8_t addr[KABI_SOCKADDR_MAX];
	socklen_t alen = 0;
	uint64_t uaddr = c->arg[1], ulen = c->arg[2];

	if (uaddr && (tread(c, ulen, &alen, sizeof(alen)) || (int)alen < 0)) {
		answer(c, (int)alen < 0 ? -EINVAL : -EFAULT);
		return;
	}
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK)) {
		answer(c, -EINVAL);
		return;
	}
	socklen_t l = alen < sizeof(addr) ? alen : sizeof(addr);
	int s = accept4(e->s, uaddr ? (struct sockaddr *)addr : NULL, uaddr ? &l : NULL,
			(flags & SOCK_NONBLOCK) | SOCK_CLOEXEC);
	if (s < 0) {
		answer(c, -errno);
		return;
	}
	if (uaddr) {
		socklen_t out = l < alen ? l : alen;
		if (twrite(c, uaddr, addr, out) || twrite(c, ulen, &l, sizeof(l))) {
			close(s);
			answer(c, -EFAULT);
			return;
		}
	}
	install(c, s, flags & SOCK_CLOEXEC, flags & SOCK_NONBLOCK);
}

static int64_t serve_bind_connect(const struct call *c, struct esock *e, bool is_bind)
{
	uint8_t addr[KABI_SOCKADDR_MAX];
	int r = kabi_sockaddr_import(&c->mem, c->arg[1], c->arg[2], addr);
	if (r)
		return r;
	if (!still_valid(c))
		return -ENOENT;
	r = is_bind ? bind(e->s, (struct sockaddr *)addr, (socklen_t)c->arg[2])
		    : connect(e->s, (struct sockaddr *)addr, (socklen_t)c->arg[2]);
	return r ? -errno : 0;
}

/* SOL_SOCKET options whose value is plain data (never a pointer the
 * kernel would follow in our memory, as SO_ATTACH_FILTER's is). */
static bool plain_sol_socket(int opt)
{
	switch (opt) {
	case SO_SNDBUF: case SO_RCVBUF: case SO_SNDBUFFORCE: case SO_RCVBUFFORCE:
	case SO_KEEPALIVE: case SO_PRIORITY: case SO_RCVLOWAT: case SO_SNDLOWAT:
	case SO_RCVTIMEO_OLD: case SO_SNDTIMEO_OLD: case SO_PASSCRED: case SO_LINGER:
	case SO_REUSEADDR: case SO_MARK: case SO_BINDTODEVICE:
		return true;
	default:
		return false;
	}
}

static int64_t serve_setsockopt(const struct call *c, struct esock *e)
{
	int level = (int)c->arg[1], opt = (int)c->arg[2];
	uint64_t uval = c->arg[3];
	socklen_t len = (socklen_t)c->arg[4];

	if (level == SOL_SOCKET && !plain_sol_socket(opt))
		return -ENOPROTOOPT;
	/* The shim reads at most len bytes, and none of a key of
	 * KABI_OPTMEM_MAX or more (ENOMEM there: sock_kmalloc()). */
	size_t n = (int)len < 0 ? 0 : len < KABI_OPTMEM_MAX ? len : 0;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	bool readable = uval && !tread(c, uval, buf, n);
	int r = -ENOENT;
	if (still_valid(c)) {
		/* An unreadable value is the shim's to report, in the kernel's
		 * order: it sees NULL.  The key options of akcipher and kpp
		 * sockets answer an output size, which goes back as it is. */
		r = setsockopt(e->s, level, opt, readable ? buf : NULL, len);
		if (r < 0)
			r = -errno;
	}
	explicit_bzero(buf, n);	/* maybe a key */
	free(buf);
	return r;
}

/* getsockopt, getsockname, getpeername: a value and its length out. */
static int64_t serve_get(const struct call *c, struct esock *e, int kind)
{
	uint64_t uval = kind ? c->arg[1] : c->arg[3], ulen = kind ? c->arg[2] : c->arg[4];
	uint8_t buf[GETOPT_MAX];
	socklen_t len, l;

	if (tread(c, ulen, &len, sizeof(len)))
		return -EFAULT;
	if ((int)len < 0)
		return -EINVAL;
	l = len < sizeof(buf) ? len : sizeof(buf);
	int r = kind == 0 ? getsockopt(e->s, (int)c->arg[1], (int)c->arg[2], buf, &l)
		: kind == 1 ? getsockname(e->s, (struct sockaddr *)buf, &l)
			    : getpeername(e->s, (struct sockaddr *)buf, &l);
	if (r)
		return -errno;
	socklen_t out = l < len ? l : len;
	if (twrite(c, uval, buf, out) || twrite(c, ulen, &l, sizeof(l)))
		return -EFAULT;
	return 0;
}

/* recvmsg/recvfrom/read/readv: at most WINDOW bytes per call (a socket may
 * return fewer bytes than asked). */
static int64_t recv_into(const struct call *c, struct esock *e, const struct kabi_iov *t, int flags,
			 struct msghdr *m)
{
	size_t want = t->total < WINDOW ? t->total : WINDOW;
	uint8_t *buf = malloc(want ? want : 1);
	if (!buf)
		return -ENOMEM;
	struct iovec iov = { buf, want };
	m->msg_iov = &iov;
	m->msg_iovlen = 1;
	ssize_t r = recvmsg(e->s, m, flags);
	int64_t out = r < 0 ? -errno : r;
	if (r > 0) {
		int w = tiov_scatter(c, t, buf, (size_t)r);
		out = w ? w : r;
	}
	free(buf);
	return out;
}

/* sendmsg/sendto/write/writev: through this process in windows of WINDOW
 * bytes, all but the last with MSG_MORE (what one call of the whole would
 * have done); control data and the address go with the first. */
static int64_t send_from(const struct call *c, struct esock *e, const struct kabi_iov *t, int flags,
			 struct msghdr *m)
{
	size_t done = 0, win = t->total < WINDOW ? t->total : WINDOW;
	uint8_t *buf = malloc(win ? win : 1);
	if (!buf)
		return -ENOMEM;
	int64_t out = 0;
	do {
		size_t n = t->total - done < WINDOW ? t->total - done : WINDOW;
		bool last = done + n == t->total;
		if (tiov_gather(c, t, done, buf, n)) {
			out = done ? (int64_t)done : -EFAULT;
			break;
		}
		if (!still_valid(c)) {
			out = -ENOENT;
			break;
		}
		struct iovec iov = { buf, n };
		m->msg_iov = &iov;
		m->msg_iovlen = 1;
		ssize_t r = sendmsg(e->s, m, last ? flags : flags | MSG_MORE);
		m->msg_control = NULL;
		m->msg_controllen = 0;
		m->msg_name = NULL;
		m->msg_namelen = 0;
		if (r < 0) {
			out = done ? (int64_t)done : -errno;
			break;
		}
		done += (size_t)r;
		out = (int64_t)done;
		if ((size_t)r < n)
			break;
	} while (done < t->total);
	free(buf);
	return out;
}

static int64_t serve_rw(const struct call *c, struct esock *e, bool vec, bool is_write, int flags)
{
	static __thread struct kabi_iov t;
	int r = vec ? kabi_iov_import(&c->mem, c->arg[1], c->arg[2], KABI_IOV_RW, &t)
		    : kabi_iov_rw(c->arg[1], c->arg[2], &t);
	if (r)
		return r;
	struct msghdr m = { 0 };
	if (is_write)
		return send_from(c, e, &t, flags, &m);
	if (!t.total)
		return 0;	/* read of 0 bytes: sock_read_iter() */
	return recv_into(c, e, &t, flags, &m);
}

static int64_t serve_sendto(const struct call *c, struct esock *e)
{
	static __thread struct kabi_iov t;
	uint8_t addr[KABI_SOCKADDR_MAX];
	struct msghdr m = { 0 };

	int r = kabi_iov_range(c->arg[1], c->arg[2], &t);
	if (r)
		return r;
	if (c->arg[4]) {
		r = kabi_sockaddr_import(&c->mem, c->arg[4], c->arg[5], addr);
		if (r)
			return r;
		m.msg_name = addr;
		m.msg_namelen = (socklen_t)c->arg[5];
	}
	return send_from(c, e, &t, (int)c->arg[3], &m);
}

static int64_t serve_recvfrom(const struct call *c, struct esock *e)
{
	static __thread struct kabi_iov t;
	uint8_t addr[KABI_SOCKADDR_MAX];
	socklen_t alen = 0;
	struct msghdr m = { 0 };

	int r = kabi_iov_range(c->arg[1], c->arg[2], &t);
	if (r)
		return r;
	if (c->arg[4] && c->arg[5]) {
		if (tread(c, c->arg[5], &alen, sizeof(alen)))
			return -EFAULT;
		m.msg_name = addr;
		m.msg_namelen = sizeof(addr);
	}
	int64_t n = recv_into(c, e, &t, (int)c->arg[3], &m);
	if (n >= 0 && c->arg[4] && c->arg[5]) {	/* move_addr_to_user() */
		if ((int)alen < 0)
			return -EINVAL;
		socklen_t out = m.msg_namelen < alen ? m.msg_namelen : alen;
		if (twrite(c, c->arg[4], addr, out) || twrite(c, c->arg[5], &m.msg_namelen, sizeof(socklen_t)))
			return -EFAULT;
	}
	return n;
}

/* recvmsg's outputs: name, control, and three fields of the header. */
static int recvmsg_out(const struct call *c, uint64_t addr, const struct kabi_msg *km, const struct msghdr *m,
		       const uint8_t *ctl)
{
	socklen_t nl = m->msg_namelen < km->h.msg_namelen ? m->msg_namelen : km->h.msg_namelen;
	struct msghdr *u = (struct msghdr *)(uintptr_t)addr;
	size_t cl = m->msg_controllen;
	if ((km->h.msg_name && twrite(c, (uintptr_t)km->h.msg_name, km->name, nl)) ||
	    twrite(c, (uintptr_t)km->h.msg_control, ctl, cl) ||
	    twrite(c, (uintptr_t)&u->msg_namelen, &m->msg_namelen, sizeof(m->msg_namelen)) ||
	    twrite(c, (uintptr_t)&u->msg_controllen, &cl, sizeof(cl)) ||
	    twrite(c, (uintptr_t)&u->msg_flags, &m->msg_flags, sizeof(m->msg_flags)))
		return -EFAULT;
	return 0;
}

/* One sendmsg/recvmsg: the header imported as the kernel does; received
 * control data is only room (AF_ALG gives none, and the shim sees at most
 * optmem_max of it). */
static int64_t msg_one(const struct call *c, struct esock *e, uint64_t addr, int flags, bool is_send)
{
	static __thread struct kabi_msg km;
	int r = kabi_msg_import(&c->mem, addr, is_send, &km);
	if (r)
		return r;
	struct msghdr m = { 0 };
	int64_t out;
	if (is_send) {
		if (km.namelen) {
			m.msg_name = km.name;
			m.msg_namelen = (socklen_t)km.namelen;
		}
		m.msg_control = km.ctl;
		m.msg_controllen = km.ctllen;
		out = send_from(c, e, &km.iov, flags, &m);
		kabi_msg_release(&km);
		return out;
	}
	size_t room = km.ctllen < KABI_OPTMEM_MAX ? km.ctllen : KABI_OPTMEM_MAX;
	uint8_t *ctl = malloc(room ? room : 1);
	if (!ctl)
		return -ENOMEM;
	if (km.h.msg_name) {
		m.msg_name = km.name;
		m.msg_namelen = sizeof(km.name);
	}
	m.msg_control = room ? ctl : NULL;
	m.msg_controllen = room;
	out = recv_into(c, e, &km.iov, flags, &m);
	if (out >= 0 && recvmsg_out(c, addr, &km, &m, ctl))
		out = -EFAULT;
	free(ctl);
	return out;
}

/* sendmmsg/recvmmsg: loops of the single calls, as __sys_sendmmsg() and
 * do_recvmmsg(). */
static int64_t serve_mmsg(const struct call *c, struct esock *e, bool is_send)
{
	unsigned n = kabi_mmsg_vlen((unsigned)c->arg[2], is_send);
	int flags = (int)c->arg[3];
	int64_t r = 0;
	unsigned done = 0;

	while (done < n) {
		uint64_t at = c->arg[1] + (uint64_t)done * sizeof(struct mmsghdr);
		r = msg_one(c, e, at, flags, is_send);
		if (r < 0)
			break;
		unsigned len = (unsigned)r;
		if (twrite(c, at + offsetof(struct mmsghdr, msg_len), &len, sizeof(len))) {
			r = -EFAULT;
			break;
		}
		done++;
		if (!is_send && (flags & MSG_WAITFORONE))
			flags |= MSG_DONTWAIT;
	}
	return done ? (int64_t)done : r;
}

/* preadv2/pwritev2: with offset -1 they are readv/writev (RWF_NOWAIT is
 * MSG_DONTWAIT); a socket has no other offset (ESPIPE). */
static int64_t serve_rw2(const struct call *c, struct esock *e, bool is_write)
{
	if ((int64_t)c->arg[3] != -1)
		return -ESPIPE;
	return serve_rw(c, e, true, is_write, (c->arg[5] & RWF_NOWAIT) ? MSG_DONTWAIT : 0);
}

/* An fd argument: ours (e, the shim socket) or the target's own, borrowed. */
static int either_fd(const struct call *c, uint64_t fd, struct esock **e, int *owned)
{
	*owned = -1;
	*e = lookup(c->pid, fd);
	if (*e)
		return (*e)->s;
	int r = borrow_fd(c, fd);
	if (r >= 0)
		*owned = r;
	return r;
}

/* splice(in, off_in, out, off_out, len, flags) and sendfile(out, in, off,
 * count) with at least one end ours: replayed here on the shim socket
 * and a borrowed copy of the target's other fd (its offsets are copied in
 * and out). */
int64_t serve_splice(const struct call *c, bool is_sendfile)
{
	uint64_t fin = is_sendfile ? c->arg[1] : c->arg[0], fout = is_sendfile ? c->arg[0] : c->arg[2];
	uint64_t uoff_in = is_sendfile ? c->arg[2] : c->arg[1], uoff_out = is_sendfile ? 0 : c->arg[3];
	struct esock *ein, *eout;
	int oin, oout;
	loff_t off_in, off_out;
	int64_t r;

	int in = either_fd(c, fin, &ein, &oin);
	int out = either_fd(c, fout, &eout, &oout);
	if (!ein && !eout) {	/* neither end is ours: the kernel's call */
		r = SPLICE_NOT_OURS;
		goto done;
	}
	if (in < 0 || out < 0) {
		r = in < 0 ? in : out;
		r = r == -EBADF || r == -ENOENT ? -EBADF : r;
		goto done;
	}
	if ((uoff_in && tread(c, uoff_in, &off_in, sizeof(off_in))) ||
	    (uoff_out && tread(c, uoff_out, &off_out, sizeof(off_out)))) {
		r = -EFAULT;
		goto done;
	}
	size_t len = is_sendfile ? c->arg[3] : c->arg[4];
	if (is_sendfile)
		r = sendfile(out, in, uoff_in ? &off_in : NULL, len);
	else
		r = splice(in, uoff_in ? &off_in : NULL, out, uoff_out ? &off_out : NULL, len,
			   (unsigned)c->arg[5]);
	r = r < 0 ? -errno : r;
	if (r >= 0 && ((uoff_in && twrite(c, uoff_in, &off_in, sizeof(off_in))) ||
		       (uoff_out && twrite(c, uoff_out, &off_out, sizeof(off_out)))))
		r = -EFAULT;
done:
	if (ein)
		esock_put(ein);
	if (eout)
		esock_put(eout);
	if (oin >= 0)
		close(oin);
	if (oout >= 0)
		close(oout);
	return r;
}



void serve_fd_call(const struct call *c, struct esock *e)
{
	const int nr = c->req.data.nr;
	switch (nr) {
	case SYS_read: answer(c, serve_rw(c, e, false, false, 0)); break;
	case SYS_readv: answer(c, serve_rw(c, e, true, false, 0)); break;
	case SYS_write: answer(c, serve_rw(c, e, false, true, 0)); break;
	case SYS_writev: answer(c, serve_rw(c, e, true, true, 0)); break;
	case SYS_preadv2: answer(c, serve_rw2(c, e, false)); break;
	case SYS_pwritev2: answer(c, serve_rw2(c, e, true)); break;
	case SYS_sendto: answer(c, serve_sendto(c, e)); break;
	case SYS_recvfrom: answer(c, serve_recvfrom(c, e)); break;
	case SYS_sendmsg: answer(c, msg_one(c, e, c->arg[1], (int)c->arg[2], true)); break;
	case SYS_recvmsg: answer(c, msg_one(c, e, c->arg[1], (int)c->arg[2], false)); break;
	case SYS_sendmmsg: answer(c, serve_mmsg(c, e, true)); break;
	case SYS_recvmmsg: answer(c, serve_mmsg(c, e, false)); break;
	case SYS_bind: answer(c, serve_bind_connect(c, e, true)); break;
	case SYS_connect: answer(c, serve_bind_connect(c, e, false)); break;
	case SYS_listen: answer(c, listen(e->s, (int)c->arg[1]) ? -errno : 0); break;
	case SYS_shutdown: answer(c, shutdown(e->s, (int)c->arg[1]) ? -errno : 0); break;
	case SYS_accept: serve_accept(c, e, 0); break;
	case SYS_accept4: serve_accept(c, e, (int)c->arg[3]); break;
	case SYS_setsockopt: answer(c, serve_setsockopt(c, e)); break;
	case SYS_getsockopt: answer(c, serve_get(c, e, 0)); break;
	case SYS_getsockname: answer(c, serve_get(c, e, 1)); break;
	case SYS_getpeername: answer(c, serve_get(c, e, 2)); break;
	case SYS_ioctl: serve_ioctl(c, e); break;
	case SYS_fcntl: serve_fcntl(c, e); break;
	case SYS_dup: serve_dup(c, false, 0); break;
	case SYS_dup2: case SYS_dup3: serve_dup2(c); break;
	default: pass_on(c);
	}
}
