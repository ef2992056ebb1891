/* libualg: connection set-up, transform control on the socket, and the
 * client side of the shared rings (see ualg_abi.h for the protocol). */
#include "ualg.h"
#include "msg.h"
#include "proto.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define UALG_API __attribute__((visibility("default")))

/* One control request and its reply; a reply's fd goes to *fd. */
static int transact(struct ualg_ring *ring, uint16_t type, const struct iovec *parts, int nparts,
		    void *rbody, size_t rlen, int *fd)
{
	int r = parts ? ualg_frame_send(ring->sock, type, 0, 0, parts, nparts, -1) : 0;
	if (r)
		return r;
	struct ualg_hdr h;
	struct iovec body = { rbody, rlen };
	ssize_t n;
	do
		n = ualg_frame_recv(ring->sock, &h, &body, rbody ? 1 : 0, fd, 1);
	while (n == -EINTR);
	if (n == 0)
		return -ECONNRESET;
	if (n < 0)
		return (int)n;
	if (h.type != type || !(h.flags & UALG_HDR_REPLY))
		return -EPROTO;
	if (rbody && ualg_decode_fixed_reply(h.result, (size_t)n - sizeof(h), rlen))
		return -EPROTO;
	return h.result;
}

static int connect_to(const char *path)
{
	char why[256];
	int fd = ualg_connect(path, why, sizeof(why));

	if (fd == -EPERM && secure_getenv("UALG_DEBUG"))
		fprintf(stderr, "libualg: refusing algd at %s: %s\n", path, why);
	if (fd < 0)
		return fd;
	int r = ualg_hello(fd);
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

/* The layout algd chose must fit the mapping it gave us. */
static int layout_ok(const struct ualg_ring_setup_reply *rep, unsigned entries, size_t bufsize)
{
	return rep->entries == entries && rep->bufsize == bufsize &&
	       rep->sq_off >= sizeof(struct ualg_ring_shared) &&
	       rep->cq_off >= rep->sq_off + entries * sizeof(struct ualg_sqe) &&
	       rep->buf_off >= rep->cq_off + entries * sizeof(struct ualg_cqe) &&
	       rep->map_size >= rep->buf_off + bufsize;
}

static int ring_setup(struct ualg_ring *ring, unsigned entries, size_t bufsize)
{
	const struct ualg_ring_setup s = { .entries = entries, .bufsize = bufsize };
	struct ualg_ring_setup_reply rep;
	struct iovec part = { (void *)&s, sizeof(s) };
	int memfd = -1;

	int r = transact(ring, UALG_MSG_RING_SETUP, &part, 1, &rep, sizeof(rep), &memfd);
	if (r == 0)
		r = transact(ring, UALG_MSG_RING_SETUP, NULL, 0, NULL, 0, &ring->sq_efd);
	if (r == 0)
		r = transact(ring, UALG_MSG_RING_SETUP, NULL, 0, NULL, 0, &ring->cq_efd);
	if (r == 0 && (memfd < 0 || ring->sq_efd < 0 || ring->cq_efd < 0 || !layout_ok(&rep, entries, bufsize)))
		r = -EPROTO;
	if (r == 0) {
		void *m;
		r = ualg_memfd_map(memfd, rep.map_size, &m);
		if (!r) {
			ring->map = m;
			ring->map_size = rep.map_size;
			ring->sh = m;
			ring->sq = (struct ualg_sqe *)(ring->map + rep.sq_off);
			ring->cq = (struct ualg_cqe *)(ring->map + rep.cq_off);
			ring->buf = ring->map + rep.buf_off;
			ring->bufsize = bufsize;
			ring->entries = entries;
		}
	}
	if (memfd >= 0)
		close(memfd);
	return r;
}

UALG_API int ualg_ring_init_at(struct ualg_ring *ring, unsigned entries, size_t bufsize,
			       const char *socket_path)
{
	memset(ring, 0, sizeof(*ring));
	ring->sq_efd = ring->cq_efd = -1;
	ring->poll_us = ualg_poll_us();
	ring->sock = connect_to(socket_path);
	if (ring->sock < 0)
		return ring->sock;
	int r = ring_setup(ring, entries, bufsize);
	if (r)
		ualg_ring_exit(ring);
	return r;
}

UALG_API int ualg_ring_init(struct ualg_ring *ring, unsigned entries, size_t bufsize)
{
	char path[256];
	int r = ualg_default_socket_path(path, sizeof(path));

	return r ? r : ualg_ring_init_at(ring, entries, bufsize, path);
}

UALG_API void ualg_ring_exit(struct ualg_ring *ring)
{
	if (ring->map)
		munmap(ring->map, ring->map_size);
	if (ring->sq_efd >= 0)
		close(ring->sq_efd);
	if (ring->cq_efd >= 0)
		close(ring->cq_efd);
	if (ring->sock >= 0)
		close(ring->sock);
	memset(ring, 0, sizeof(*ring));
	ring->sock = ring->sq_efd = ring->cq_efd = -1;
}

UALG_API int ualg_ring_open_tfm(struct ualg_ring *ring, const char *type, const char *name,
				struct ualg_tfm_info *info)
{
	struct ualg_ring_open o = { .name_len = (uint32_t)strlen(name) + 1 };
	struct ualg_ring_tfm_info ti;

	if (strlen(type) >= sizeof(o.type))
		return -EINVAL;
	if (o.name_len > UALG_BIND_NAME_MAX)
		return -ENAMETOOLONG;
	strcpy((char *)o.type, type);
	struct iovec parts[] = { { &o, sizeof(o) }, { (void *)name, o.name_len } };
	int id = transact(ring, UALG_MSG_RING_OPEN, parts, 2, &ti, sizeof(ti), NULL);
	if (id >= 0 && info)
		*info = (struct ualg_tfm_info){ ti.digestsize, ti.ivsize, ti.blocksize, ti.chunksize };
	return id;
}

UALG_API int ualg_ring_setkey(struct ualg_ring *ring, int tfm, const void *key, size_t len)
{
	if (tfm < 0 || len > UINT32_MAX)
		return -EINVAL;
	struct ualg_ring_setkey k = { .tfm = (uint32_t)tfm, .keylen = (uint32_t)len };
	struct iovec parts[] = { { &k, sizeof(k) }, { (void *)key, len } };
	return transact(ring, UALG_MSG_RING_SETKEY, parts, len ? 2 : 1, NULL, 0, NULL);
}

UALG_API int ualg_ring_setkey_named(struct ualg_ring *ring, int tfm, const char *name)
{
	const size_t len = name ? strnlen(name, UALG_KEY_NAME_MAX + 1) : 0;

	if (tfm < 0)
		return -EBADF;
	if (len == 0 || len > UALG_KEY_NAME_MAX)
		return -EINVAL;
	struct ualg_ring_setkey_named k = { .tfm = (uint32_t)tfm, .name_len = (uint32_t)len };
	struct iovec parts[] = { { &k, sizeof(k) }, { (void *)name, len } };
	return transact(ring, UALG_MSG_RING_SETKEY_NAMED, parts, 2, NULL, 0, NULL);
}

UALG_API int ualg_ring_close_tfm(struct ualg_ring *ring, int tfm)
{
	if (tfm < 0)
		return -EBADF;
	struct ualg_ring_close c = { .tfm = (uint32_t)tfm };
	struct iovec part = { &c, sizeof(c) };
	return transact(ring, UALG_MSG_RING_CLOSE, &part, 1, NULL, 0, NULL);
}

UALG_API int ualg_ring_setauthsize(struct ualg_ring *ring, int tfm, unsigned authsize)
{
	if (tfm < 0)
		return -EBADF;
	struct ualg_ring_setauthsize a = { .tfm = (uint32_t)tfm, .authsize = authsize };
	struct iovec part = { &a, sizeof(a) };
	return transact(ring, UALG_MSG_RING_SETAUTHSIZE, &part, 1, NULL, 0, NULL);
}

/* ---- submission ------------------------------------------------------ */

UALG_API struct ualg_sqe *ualg_get_sqe(struct ualg_ring *ring)
{
	const uint32_t head = __atomic_load_n(&ring->sh->sq_head, __ATOMIC_ACQUIRE);

	if (ring->sqe_tail - head >= ring->entries)
		return NULL;
	struct ualg_sqe *sqe = &ring->sq[ring->sqe_tail++ & (ring->entries - 1)];
	memset(sqe, 0, sizeof(*sqe));
	return sqe;
}

UALG_API void ualg_prep_nop(struct ualg_sqe *sqe)
{
	sqe->opcode = UALG_OP_NOP;
}

UALG_API void ualg_prep_hash(struct ualg_ring *ring, struct ualg_sqe *sqe, int tfm,
			     const void *data, size_t len, void *digest)
{
	sqe->opcode = UALG_OP_HASH;
	sqe->tfm = (uint16_t)tfm;
	sqe->len = (uint32_t)len;
	sqe->src = ualg_buf_off(ring, data);
	sqe->dst = ualg_buf_off(ring, digest);
}

static void prep_cipher(struct ualg_ring *ring, struct ualg_sqe *sqe, uint8_t op, int tfm,
			const void *src, void *dst, size_t len, const void *iv)
{
	sqe->opcode = op;
	sqe->tfm = (uint16_t)tfm;
	sqe->len = (uint32_t)len;
	sqe->src = ualg_buf_off(ring, src);
	sqe->dst = ualg_buf_off(ring, dst);
	sqe->iv = iv ? ualg_buf_off(ring, iv) : 0;
}

UALG_API void ualg_prep_encrypt(struct ualg_ring *ring, struct ualg_sqe *sqe, int tfm,
				const void *src, void *dst, size_t len, const void *iv)
{
	prep_cipher(ring, sqe, UALG_OP_ENCRYPT, tfm, src, dst, len, iv);
}

UALG_API void ualg_prep_decrypt(struct ualg_ring *ring, struct ualg_sqe *sqe, int tfm,
				const void *src, void *dst, size_t len, const void *iv)
{
	prep_cipher(ring, sqe, UALG_OP_DECRYPT, tfm, src, dst, len, iv);
}

static void prep_aead(struct ualg_ring *ring, struct ualg_sqe *sqe, uint8_t op, int tfm,
		      const void *src, size_t assoclen, size_t len, void *dst, const void *iv)
{
	prep_cipher(ring, sqe, op, tfm, src, dst, len, iv);
	sqe->assoclen = (uint32_t)assoclen;
}

UALG_API void ualg_prep_aead_encrypt(struct ualg_ring *ring, struct ualg_sqe *sqe, int tfm,
				     const void *src, size_t assoclen, size_t len, void *dst, const void *iv)
{
	prep_aead(ring, sqe, UALG_OP_AEAD_ENCRYPT, tfm, src, assoclen, len, dst, iv);
}

UALG_API void ualg_prep_aead_decrypt(struct ualg_ring *ring, struct ualg_sqe *sqe, int tfm,
				     const void *src, size_t assoclen, size_t len, void *dst, const void *iv)
{
	prep_aead(ring, sqe, UALG_OP_AEAD_DECRYPT, tfm, src, assoclen, len, dst, iv);
}

UALG_API int ualg_submit(struct ualg_ring *ring)
{
	const uint32_t old = __atomic_load_n(&ring->sh->sq_tail, __ATOMIC_RELAXED);
	const int n = (int)(ring->sqe_tail - old);

	if (n == 0)
		return 0;
	__atomic_store_n(&ring->sh->sq_tail, ring->sqe_tail, __ATOMIC_RELEASE);
	/* Pairs with algd's fence between setting SQ_SLEEPING and its last
	 * look at sq_tail: one of us sees the other. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ring->sh->algd_flags, __ATOMIC_RELAXED) & UALG_RING_SQ_SLEEPING) {
		uint64_t one = 1;
		if (write(ring->sq_efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			return -errno;
	}
	return n;
}

/* ---- completion ------------------------------------------------------ */

static unsigned cq_ready(const struct ualg_ring *ring)
{
	return __atomic_load_n(&ring->sh->cq_tail, __ATOMIC_ACQUIRE) - ring->cq_head;
}

UALG_API unsigned ualg_peek_batch_cqe(struct ualg_ring *ring, struct ualg_cqe **cqes, unsigned count)
{
	unsigned n = cq_ready(ring);

	if (n > ring->entries)
		n = 0;	/* cannot happen with an honest algd */
	if (n > count)
		n = count;
	for (unsigned i = 0; i < n; i++)
		cqes[i] = &ring->cq[(ring->cq_head + i) & (ring->entries - 1)];
	return n;
}

UALG_API int ualg_peek_cqe(struct ualg_ring *ring, struct ualg_cqe **cqe)
{
	if (ualg_peek_batch_cqe(ring, cqe, 1))
		return 0;
	if (__atomic_load_n(&ring->sh->algd_flags, __ATOMIC_ACQUIRE) & UALG_RING_BROKEN)
		return -EIO;
	return -EAGAIN;
}

UALG_API void ualg_cq_advance(struct ualg_ring *ring, unsigned n)
{
	ring->cq_head += n;
	__atomic_store_n(&ring->sh->cq_head, ring->cq_head, __ATOMIC_RELEASE);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleeps until algd posts a completion (or goes away). */
static int cq_sleep(struct ualg_ring *ring, unsigned nr)
{
	__atomic_fetch_or(&ring->sh->client_flags, UALG_RING_CQ_WAITING, __ATOMIC_SEQ_CST);
	int r = 0;
	while (cq_ready(ring) < nr) {
		if (__atomic_load_n(&ring->sh->algd_flags, __ATOMIC_ACQUIRE) & UALG_RING_BROKEN) {
			r = -EIO;
			break;
		}
		struct pollfd p[2] = { { ring->cq_efd, POLLIN, 0 }, { ring->sock, POLLIN, 0 } };
		if (poll(p, 2, -1) < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (p[1].revents) {
			r = -ECONNRESET;	/* algd sends nothing unasked: it closed */
			break;
		}
		uint64_t v;
		if (p[0].revents & POLLIN)
			(void)!read(ring->cq_efd, &v, sizeof(v));
	}
	__atomic_fetch_and(&ring->sh->client_flags, ~UALG_RING_CQ_WAITING, __ATOMIC_SEQ_CST);
	return r;
}

/* Busy-polls first: a request completes in less time than a sleep and a
 * wake-up take, when the poll lasts as long as algd may take over the
 * data of the last nr requests submitted (those waited for, as a rule;
 * ualg_poll_window_ns()). */
static int wait_nr(struct ualg_ring *ring, unsigned nr)
{
	if (nr > ring->entries)
		return -EINVAL;
	uint64_t bytes = 0;
	if (ring->poll_us)
		for (unsigned i = 1; i <= nr; i++)
			bytes += ring->sq[(ring->sqe_tail - i) & (ring->entries - 1)].len;
	const uint64_t start = now_ns(), deadline = start + ualg_poll_window_ns(ring->poll_us, bytes);
	while (cq_ready(ring) < nr) {
		const uint64_t t = now_ns();
		if (t >= deadline)
			return cq_sleep(ring, nr);
		/* After a moment, let algd's worker run if it shares our core. */
		if (t - start > 2000)
			sched_yield();
	}
	return 0;
}

UALG_API int ualg_wait_cqe(struct ualg_ring *ring, struct ualg_cqe **cqe)
{
	int r = ualg_peek_cqe(ring, cqe);
	if (r != -EAGAIN)
		return r;
	r = wait_nr(ring, 1);
	return r ? r : ualg_peek_cqe(ring, cqe);
}

UALG_API int ualg_submit_and_wait(struct ualg_ring *ring, unsigned wait_nr_)
{
	int n = ualg_submit(ring);
	if (n < 0)
		return n;
	int r = wait_nr(ring, wait_nr_);
	return r ? r : n;
}

/* ---- one-shot helpers ------------------------------------------------ */

/* Runs the one request in sqe's slot and returns its result. */
static int run_one(struct ualg_ring *ring)
{
	struct ualg_cqe *cqe;
	int r = ualg_submit_and_wait(ring, 1);
	if (r < 0)
		return r;
	r = ualg_wait_cqe(ring, &cqe);
	if (r)
		return r;
	r = cqe->res;
	ualg_cqe_seen(ring, cqe);
	return r;
}

/* The ring must have nothing in flight: the helpers use the buffer area
 * from its start. */
static struct ualg_sqe *oneshot_sqe(struct ualg_ring *ring)
{
	if (ring->sqe_tail != ring->cq_head)
		return NULL;
	return ualg_get_sqe(ring);
}

UALG_API int ualg_hash_oneshot(struct ualg_ring *ring, int tfm, const void *data, size_t len,
			       void *digest, size_t digest_len)
{
	if (ring->bufsize < UALG_MAX_DIGEST || len > ring->bufsize - UALG_MAX_DIGEST || len > UINT32_MAX)
		return -EMSGSIZE;
	struct ualg_sqe *sqe = oneshot_sqe(ring);
	if (!sqe)
		return -EBUSY;
	uint8_t *in = ring->buf, *out = ring->buf + ring->bufsize - UALG_MAX_DIGEST;
	memcpy(in, data, len);
	ualg_prep_hash(ring, sqe, tfm, in, len, out);
	int r = run_one(ring);
	if (r > 0)
		memcpy(digest, out, (size_t)r < digest_len ? (size_t)r : digest_len);
	return r;
}

UALG_API int ualg_cipher_oneshot(struct ualg_ring *ring, int tfm, int encrypt, const void *iv, size_t ivlen,
				 const void *src, void *dst, size_t len)
{
	if (ivlen > UALG_MAX_IV || ring->bufsize < UALG_MAX_IV || len > ring->bufsize - UALG_MAX_IV || len > UINT32_MAX)
		return -EMSGSIZE;
	struct ualg_sqe *sqe = oneshot_sqe(ring);
	if (!sqe)
		return -EBUSY;
	uint8_t *ivbuf = ring->buf, *data = ring->buf + UALG_MAX_IV;
	if (ivlen)
		memcpy(ivbuf, iv, ivlen);
	memcpy(data, src, len);
	(encrypt ? ualg_prep_encrypt : ualg_prep_decrypt)(ring, sqe, tfm, data, data, len, ivbuf);
	int r = run_one(ring);
	if (r > 0)
		memcpy(dst, data, (size_t)r);
	return r;
}

/* The buffer area holds the IV, the input, then the output (the input's
 * length plus the largest tag). */
UALG_API int ualg_aead_oneshot(struct ualg_ring *ring, int tfm, int encrypt, const void *iv, size_t ivlen,
			       const void *src, size_t assoclen, size_t len, void *dst, size_t dst_len)
{
	if (ivlen > UALG_MAX_IV || assoclen > len || len > UINT32_MAX ||
	    ring->bufsize < UALG_MAX_IV + UALG_MAX_DIGEST || len > (ring->bufsize - UALG_MAX_IV - UALG_MAX_DIGEST) / 2)
		return -EMSGSIZE;
	struct ualg_sqe *sqe = oneshot_sqe(ring);
	if (!sqe)
		return -EBUSY;
	uint8_t *ivbuf = ring->buf, *in = ring->buf + UALG_MAX_IV, *out = in + len;
	if (ivlen)
		memcpy(ivbuf, iv, ivlen);
	memcpy(in, src, len);
	(encrypt ? ualg_prep_aead_encrypt : ualg_prep_aead_decrypt)(ring, sqe, tfm, in, assoclen, len, out, ivbuf);
	int r = run_one(ring);
	if (r > 0)
		memcpy(dst, out, (size_t)r < dst_len ? (size_t)r : dst_len);
	return r;
}
