/* RFC mode (src/lib/ualg_rfc.h) in the shim: SOCK_STREAM
 * transform sockets when the program opted in (UALG_RFC=1, ualg-run
 * --rfc), listen(), options on op fds, and op fds that behave like pipes.
 *
 * algd never makes an RFC request wait: a write into a full buffer or a
 * read with nothing ready is answered -EAGAIN, and the shim waits here,
 * between transactions, so that the socket is free for another thread of
 * the program meanwhile: a reader thread can relieve a blocked writer, as
 * the mail wants for ciphers.  The wait is a sleep and a retry (no
 * notification from algd yet), the sleep doubling from RFC_WAIT_MIN_NS to
 * RFC_WAIT_MAX_NS: a short wait ends quickly, a long one costs algd a few
 * hundred requests a second rather than thousands, and wakes at most
 * RFC_WAIT_MAX_NS late.  A signal ends it with EINTR, or with the count
 * already moved. */
#include "shim.h"
#include "kabi.h"
#include "../lib/ualg_rfc.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RFC_WAIT_MIN_NS 100000L		/* the first retry of a blocked call */
#define RFC_WAIT_MAX_NS 3200000L	/* the longest sleep between retries */

static ssize_t rfail(int err)
{
	errno = err;
	return -1;
}

bool rfc_enabled(void)
{
	const char *e = getenv("UALG_RFC");
	return e && !strcmp(e, "1");
}

int rfc_socket(int type, int protocol)
{
	if (protocol != 0)
		return (int)rfail(EPROTONOSUPPORT);
	int fd = client_connect(type);
	if (fd < 0)
		return (int)rfail(-fd);
	struct afd *a = afd_track(fd, AFD_TFM);
	if (!a) {
		real.close(fd);
		return (int)rfail(ENOMEM);
	}
	struct xact x = { .type = UALG_MSG_RFC_MODE };
	int r = client_xact(a, fd, &x);
	if (r < 0) {
		afd_put(a);
		afd_untrack(fd);
		real.close(fd);
		return (int)rfail(-r);
	}
	afd_set_kind(a, AFD_RFC_TFM);
	afd_put(a);
	return fd;
}

int rfc_listen(int fd, struct afd *a)
{
	if (a->op)
		return (int)rfail(EOPNOTSUPP);
	struct xact x = { .type = UALG_MSG_RFC_LISTEN };
	int r = client_xact(a, fd, &x);
	return r < 0 ? (int)rfail(-r) : 0;
}

/* Every RFC option's value travels (ALG_SET_AEAD_AUTHSIZE's size is optlen
 * itself, as in the kernel); algd decides. */
int rfc_setsockopt(int fd, struct afd *a, int level, int optname, const void *val, socklen_t len)
{
	if ((int)len < 0)
		return (int)rfail(EINVAL);
	struct ualg_sockopt o = { level, optname, len, 0, 0, 0 };
	uint8_t *buf = NULL;
	if (level == KABI_SOL_ALG && optname != ALG_SET_AEAD_AUTHSIZE) {
		if (len >= KABI_OPTMEM_MAX)	/* sock_kmalloc() refuses it */
			o.flags = UALG_SOCKOPT_TOOBIG;
		else if (!(buf = malloc(len ? len : 1)))
			return (int)rfail(ENOMEM);
		else if (copy_in(buf, val, len))
			o.flags = UALG_SOCKOPT_FAULT;
		else
			o.vallen = len;
	}
	struct iovec parts[2] = { { &o, sizeof(o) }, { buf, o.vallen } };
	struct ualg_sockopt_reply rep;
	struct iovec body = { &rep, sizeof(rep) };
	struct xact x = { .type = UALG_MSG_SETSOCKOPT, .parts = parts, .nparts = 2,
			  .rbody = &body, .nrbody = 1 };
	int r = client_xact(a, fd, &x);
	if (buf) {
		explicit_bzero(buf, len);	/* perhaps a key */
		free(buf);
	}
	return r < 0 ? (int)rfail(-r) : 0;
}

static bool rfc_nonblocking(int fd, int flags)
{
	int fl = real.fcntl(fd, F_GETFL);
	return (flags & MSG_DONTWAIT) || (fl >= 0 && (fl & O_NONBLOCK));
}

static int wait_a_little(long *ns)
{
	struct timespec ts = { 0, *ns };
	if (*ns < RFC_WAIT_MAX_NS)
		*ns *= 2;
	return nanosleep(&ts, NULL) ? -errno : 0;
}

static int total_of(const struct iovec *iov, size_t niov, size_t *total)
{
	*total = 0;
	for (size_t i = 0; i < niov; i++) {
		if (iov[i].iov_len > SSIZE_MAX - *total)
			return -EINVAL;
		*total += iov[i].iov_len;
	}
	return 0;
}

/* Copies n bytes from offset off of the iovecs (in) or to them (!in). */
static int iov_move(const struct iovec *iov, size_t niov, size_t off, uint8_t *buf, size_t n, bool in)
{
	for (size_t i = 0; i < niov && n; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		size_t k = iov[i].iov_len - off < n ? iov[i].iov_len - off : n;
		uint8_t *p = (uint8_t *)iov[i].iov_base + off;
		if (in ? copy_in(buf, p, k) : copy_out(p, buf, k))
			return -EFAULT;
		buf += k;
		n -= k;
		off = 0;
	}
	return 0;
}

/* What a call that moved done bytes and then met err returns. */
static ssize_t moved_or(size_t done, int err)
{
	return done ? (ssize_t)done : rfail(err);
}

/* The mail: op and IV "may also be set through sendmsg(2) cmsgs".  The
 * kernel's ALG_SET_OP and ALG_SET_IV act as the type's options, IV first
 * so that a refused op value changes nothing; hash op fds ignore cmsgs as
 * algif_hash does, and ALG_SET_AEAD_ASSOCLEN has no meaning here (the
 * associated data has its own fd). */
static int rfc_apply_ctl(int fd, struct afd *a, const struct shim_ctl *ctl)
{
	if (!ctl || !ctl->present || a->type == ALG_TYPE_HASH)
		return 0;
	if (ctl->invalid)
		return -EINVAL;
	const bool aead = a->type == ALG_TYPE_AEAD, comp = a->type == ALG_TYPE_COMPRESSION;
	const int32_t op = (int32_t)ctl->op;
	if (ctl->has_op && op != ALG_SKCIPHER_OP_ENCRYPT && op != ALG_SKCIPHER_OP_DECRYPT)
		return -EINVAL;
	if (ctl->has_iv && comp && ctl->ivlen)
		return -EINVAL;		/* af_alg_sendmsg(): ivlen != ivsize (0) */
	if (ctl->has_iv && !comp &&
	    rfc_setsockopt(fd, a, KABI_SOL_ALG, aead ? ALG_AEAD_SET_IV : ALG_SKCIPHER_SET_IV, ctl->iv,
			   ctl->ivlen))
		return -errno;
	if (ctl->has_op &&
	    rfc_setsockopt(fd, a, KABI_SOL_ALG, aead ? ALG_AEAD_OP : comp ? ALG_COMPRESS_OP : ALG_SKCIPHER_OP,
			   &op, sizeof(op)))
		return -errno;
	return 0;
}

ssize_t rfc_send(int fd, struct afd *a, const struct iovec *iov, size_t niov,
		 const struct shim_ctl *ctl, int flags)
{
	uint8_t buf[UALG_DATA_MAX];
	size_t total, done = 0;

	if (total_of(iov, niov, &total))
		return rfail(EINVAL);
	const bool oob = flags & MSG_OOB, dontwait = rfc_nonblocking(fd, flags);
	long wait_ns = RFC_WAIT_MIN_NS;
	if (oob && total > UALG_RFC_STATE_LEN)
		return rfail(EINVAL);	/* a state comes in one frame */
	int e = rfc_apply_ctl(fd, a, ctl);
	if (e)
		return rfail(-e);
	do {
		const size_t n = total - done < sizeof(buf) ? total - done : sizeof(buf);
		if (iov_move(iov, niov, done, buf, n, true))
			return moved_or(done, EFAULT);
		struct ualg_rfc_io m = {
			.flags = ((flags & MSG_MORE) || done + n < total ? UALG_RFC_MORE : 0) |
				 (oob ? UALG_RFC_OOB : 0),
			.len = (uint32_t)n,
		};
		struct iovec parts[2] = { { &m, sizeof(m) }, { buf, n } };
		struct xact x = { .type = UALG_MSG_RFC_WRITE, .parts = parts, .nparts = 2,
				  .data_len = n };
		int r = client_xact(a, fd, &x);
		if (r > 0 || (r == 0 && n == 0)) {
			done += (size_t)r;
			if (n == 0)
				break;
			wait_ns = RFC_WAIT_MIN_NS;	/* progress: the next wait starts short */
			continue;
		}
		if (r != -EAGAIN && r != 0)
			return moved_or(done, -r);
		if (dontwait)
			return moved_or(done, EAGAIN);
		if ((r = wait_a_little(&wait_ns)))
			return moved_or(done, -r);
	} while (done < total);
	explicit_bzero(buf, sizeof(buf));
	return (ssize_t)done;
}

ssize_t rfc_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov, int flags)
{
	uint8_t buf[UALG_DATA_MAX];
	size_t total;

	if (total_of(iov, niov, &total))
		return rfail(EINVAL);
	if (!total)
		return 0;
	const bool dontwait = rfc_nonblocking(fd, flags);
	long wait_ns = RFC_WAIT_MIN_NS;
	struct ualg_rfc_io m = { 0, (uint32_t)(total < sizeof(buf) ? total : sizeof(buf)) };
	for (;;) {
		struct iovec part = { &m, sizeof(m) }, body = { buf, m.len };
		struct xact x = { .type = UALG_MSG_RFC_READ, .parts = &part, .nparts = 1,
				  .rbody = &body, .nrbody = 1, .data_len = m.len };
		int r = client_xact(a, fd, &x);
		if (r >= 0) {
			if ((size_t)r != x.rlen)
				return rfail(EPROTO);
			int e = iov_move(iov, niov, 0, buf, (size_t)r, false);
			explicit_bzero(buf, (size_t)r);
			return e ? rfail(EFAULT) : r;
		}
		if (r != -EAGAIN)
			return rfail(-r);
		if (dontwait)
			return rfail(EAGAIN);
		if ((r = wait_a_little(&wait_ns)))
			return rfail(-r);
	}
}
