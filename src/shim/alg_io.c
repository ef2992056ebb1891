/* The AF_ALG data path to algd: a send or a receive cut into frames, or
 * through the op socket's payload area (shm.c) when it is large, with the
 * kernel's handling of unreadable and unwritable user memory. */
#include "interpose.h"

#include <string.h>

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

static ssize_t send_parts(int fd, struct afd *a, struct iov_cursor *cur, size_t total,
			  const struct shim_ctl *ctl, int flags, uint8_t *area, bool checked);

/* client_gather()'s copy: from the cursor, which moves only on success. */
static int gather_copy(void *ctx, uint8_t *dst, size_t n)
{
	struct iov_cursor c = *(struct iov_cursor *)ctx;
	return cursor_copy_in(&c, dst, n);
}

/* A send that ends a hash message starting with key material (poly1305's
 * key, vmac64's nonce: afd's msg_key_*) may fail on its data; it may be
 * written behind only where the shim sees it cannot: the whole message in
 * this send (no MSG_MORE ever made on the socket), long enough, its first
 * byte readable and as the hash wants it. */
static bool msg_key_ok(const struct afd *a, const struct iov_cursor *cur, size_t total, int flags)
{
	if (!a->msg_key_len || (flags & MSG_MORE) || atomic_load_explicit(&a->more_seen, memory_order_relaxed) ||
	    total < a->msg_key_len)
		return false;
	struct iov_cursor c = *cur;
	uint8_t first;
	return !cursor_copy_in(&c, &first, 1) && !(first & a->msg_key_clear);
}

ssize_t alg_send(int fd, struct afd *a, const struct iovec *iov, size_t niov, size_t total,
		 const struct shim_ctl *ctl, int flags)
{
	if (a->ipo) {
		ssize_t n = inproc_send(fd, a, iov, niov, total, ctl, flags);
		if (n != INPROC_MOVED)
			return n;
	}
	struct iov_cursor cur = { iov, niov, 0, 0 };
	if (flags & MSG_MORE)
		atomic_store_explicit(&a->more_seen, true, memory_order_relaxed);
	/* A cipher socket's first send, when its shadow says algd takes it
	 * at once, need not wait either: a read's reply shows it done, and
	 * a failure (algd out of memory) is that read's answer. */
	const bool checked = atomic_exchange_explicit(&a->fresh, false, memory_order_relaxed) &&
			     total <= UALG_DATA_MAX && inproc_shadow_send_ok(a, ctl, total, flags);
	if ((flags & MSG_MORE) && total && !(ctl && ctl->present) &&
	    client_gather(a, NULL, total, gather_copy, &cur))
		return (ssize_t)total;
	if (shim_nonblocking(fd, a))
		flags |= MSG_DONTWAIT;
	uint8_t *area = total >= SHM_MIN && !checked ? shm_acquire(fd, a) : NULL;
	ssize_t n = send_parts(fd, a, &cur, total, ctl, flags, area, checked);
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
			  const struct shim_ctl *ctl, int flags, uint8_t *area, bool checked)
{
	const bool msg_ok = msg_key_ok(a, cur, total, flags);
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
				  .data_len = got, .behind = &m,
				  .msg_ok = msg_ok && first && sent + got == total,
				  .checked = checked && first && sent + got == total };
		r = area ? send_area_part(fd, a, &m, ctl, got) : client_xact(a, fd, &x);
		if (r == -EFAULT && !area) {
			/* The data could not be read: algd still runs the
			 * call's checks, then answers EFAULT, as the kernel. */
			m.flags = (m.flags | UALG_SEND_FAULT) & ~UALG_SEND_QUIET;
			x.nparts = 2;
			x.behind = NULL;
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

ssize_t alg_send_area(int fd, struct afd *a, size_t n, int flags)
{
	atomic_store_explicit(&a->fresh, false, memory_order_relaxed);
	if (shim_nonblocking(fd, a))
		flags |= MSG_DONTWAIT;
	struct ualg_send m = send_head(NULL, flags, true, true);
	int r = send_area_part(fd, a, &m, NULL, n);
	if (r < 0)
		return sfail(-r);
	return (size_t)r > n ? sfail(EPROTO) : r;
}

static ssize_t recv_parts(int fd, struct afd *a, struct iov_cursor *cur, size_t total, int flags,
			  int *msg_flags, uint8_t *area);

ssize_t alg_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov, int flags,
		 int *msg_flags)
{
	size_t total = 0;	/* imported by the caller: no checks left */
	for (size_t i = 0; i < niov; i++)
		total += iov[i].iov_len;
	if (a->ipo) {
		ssize_t n = inproc_recv(fd, a, iov, niov, total, flags, msg_flags);
		if (n != INPROC_MOVED)
			return n;
	}
	if (shim_nonblocking(fd, a))
		flags |= MSG_DONTWAIT;

	struct iov_cursor cur = { iov, niov, 0, 0 };
	/* A digest is small: hash reads stay in frames. */
	uint8_t *area = total >= SHM_MIN && a->type != ALG_TYPE_HASH ? shm_acquire(fd, a) : NULL;
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
	const bool whole = a->type == ALG_TYPE_AEAD;
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
			if (a->type != ALG_TYPE_HASH)
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
