/* splice() and sendfile() into an emulated socket, and splice() out of
 * one into a pipe. */
#include "interpose.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

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
		ssize_t s = area ? alg_send_area(fd, a, (size_t)n, flags)
				 : a->ops->send(fd, a, &iov, 1, (size_t)n, NULL, flags);
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
	ssize_t n = a->ops->recv(in, a, &iov, 1, 0, NULL);
	if (n > 0 && next.write(out, buf, (size_t)n) != n)
		n = sfail(errno);
	explicit_bzero(buf, n > 0 ? (size_t)n : 0);
	return n;
}

/* do_splice()'s checks, in its order: one end must be a pipe; a pipe has
 * no offset (ESPIPE); a socket cannot be written at an offset (EINVAL). */
static ssize_t splice_afd(int in, struct afd *ain, loff_t *off_in, int out, struct afd *a,
			  loff_t *off_out, size_t len, unsigned flags)
{
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

static void put_both(void *p)
{
	struct afd **two = p;
	afd_put(two[0]);
	afd_put(two[1]);
}

EXPORT ssize_t splice(int in, loff_t *off_in, int out, loff_t *off_out, size_t len, unsigned flags)
{
	shim_resolve();
	struct afd *held[2] = { afd_get(out), afd_get(in) };
	if (!held[0] && !held[1])
		return next.splice(in, off_in, out, off_out, len, flags);
	ssize_t n;
	pthread_cleanup_push(put_both, held);
	n = splice_afd(in, held[1], off_in, out, held[0], off_out, len, flags);
	pthread_cleanup_pop(1);
	return n;
}

static ssize_t sendfile_afd(int out, struct afd *a, int in, off_t *off, size_t len)
{
	if (is_pipe(in) || is_socket(in))	/* 6.1: neither has splice_read for this */
		return sfail(EINVAL);
	loff_t o = off ? *off : 0;
	struct source src = { .fd = in, .off = off ? &o : NULL };
	ssize_t n = feed_from(out, a, &src, len, false);
	if (off)
		*off = (off_t)o;
	return n;
}

EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t len)
{
	shim_resolve();
	struct afd *a = afd_get(out);
	if (!a)
		return next.sendfile(out, in, off, len);
	ssize_t n;
	AFD_HELD(a, n, sendfile_afd(out, a, in, off, len));
	return n;
}

EXPORT ssize_t sendfile64(int out, int in, off_t *off, size_t len)
{
	return sendfile(out, in, off, len);
}
