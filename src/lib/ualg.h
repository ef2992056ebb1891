/* libualg: the native API to algd, with liburing's shape.
 *
 *	struct ualg_ring ring;
 *	ualg_ring_init(&ring, 64, 1 << 20);          // connect, map the rings
 *	int h = ualg_ring_open_tfm(&ring, "hash", "hmac(sha256)", NULL);
 *	ualg_ring_setkey(&ring, h, key, keylen);      // the key stays in algd
 *	uint8_t *buf = ualg_ring_buf(&ring);          // registered buffers
 *	struct ualg_sqe *sqe = ualg_get_sqe(&ring);
 *	ualg_prep_hash(sqe, h, buf, len, buf + len);
 *	ualg_sqe_set_data64(sqe, 42);
 *	ualg_submit(&ring);
 *	struct ualg_cqe *cqe;
 *	ualg_wait_cqe(&ring, &cqe);                   // cqe->res: bytes or -errno
 *	ualg_cqe_seen(&ring, cqe);
 *	ualg_ring_exit(&ring);
 *
 * Algorithm names are the kernel's (and AF_ALG's): "sha256",
 * "hmac(sha256)", "cbc(aes)", "xts(aes)"...  Request data lives in the
 * registered buffer area, shared with algd, so no payload crosses the
 * socket; pointers given to the prep functions must lie inside it.
 *
 * Functions return 0 (or a count, or an id) on success and -errno on
 * failure.  A ring is used by one thread at a time, as an io_uring is;
 * threads wanting parallelism open one ring each (algd spreads rings over
 * its workers). */
#ifndef UALG_H
#define UALG_H

#include <stddef.h>
#include <stdint.h>

#include "ualg_abi.h"
#include "ualg_rfc.h"	/* RFC mode's SOL_ALG constants */

#ifdef __cplusplus
extern "C" {
#endif

struct ualg_ring {
	int sock, sq_efd, cq_efd;
	uint8_t *map;
	size_t map_size;
	struct ualg_ring_shared *sh;
	struct ualg_sqe *sq;
	struct ualg_cqe *cq;
	uint8_t *buf;
	size_t bufsize;
	uint32_t entries;
	uint32_t sqe_tail;	/* handed out by ualg_get_sqe() */
	uint32_t cq_head;	/* reaped by the caller */
	unsigned poll_us;	/* busy-poll before sleeping on completions (plus
				 * 2 us per KiB of the requests waited for) */
};

struct ualg_tfm_info {
	uint32_t digestsize, ivsize, blocksize, chunksize;
};

/* Connects to the algd at $UALG_SOCKET (or the default path) and sets up
 * rings of entries requests (a power of two) with bufsize bytes of
 * registered buffers.  -EPERM when the socket is not one this user can
 * trust (a directory others may write, a daemon of another user). */
int ualg_ring_init(struct ualg_ring *ring, unsigned entries, size_t bufsize);
/* The same for the algd listening at socket_path. */
int ualg_ring_init_at(struct ualg_ring *ring, unsigned entries, size_t bufsize,
		      const char *socket_path);
void ualg_ring_exit(struct ualg_ring *ring);

/* Registered buffers: the area every request's data must lie in. */
static inline void *ualg_ring_buf(const struct ualg_ring *ring)
{
	return ring->buf;
}

static inline size_t ualg_ring_bufsize(const struct ualg_ring *ring)
{
	return ring->bufsize;
}

/* Opens a transform: type is "hash", "skcipher" or "aead", as AF_ALG's salg_type.
 * Returns its id (>= 0).  info, when non-NULL, receives its sizes. */
int ualg_ring_open_tfm(struct ualg_ring *ring, const char *type, const char *name,
		       struct ualg_tfm_info *info);
int ualg_ring_setkey(struct ualg_ring *ring, int tfm, const void *key, size_t len);
/* Keys the transform with the key an administrator stored in algd as name
 * (`algctl key add`), as ualg_ring_setkey() with its bytes would; the bytes
 * never reach this process.  -ENOKEY: no such key; -EACCES: this
 * connection's user is not on the key's allow list; -EINVAL: not a valid
 * name (see ualg_afalg.h). */
int ualg_ring_setkey_named(struct ualg_ring *ring, int tfm, const char *name);
int ualg_ring_close_tfm(struct ualg_ring *ring, int tfm);
/* An AEAD transform's tag length (ALG_SET_AEAD_AUTHSIZE); the default is
 * the algorithm's largest. */
int ualg_ring_setauthsize(struct ualg_ring *ring, int tfm, unsigned authsize);

/* The next free submission entry, or NULL when the queue is full (submit
 * and reap first). */
struct ualg_sqe *ualg_get_sqe(struct ualg_ring *ring);

/* Offset of p in the buffer area; a pointer outside it gets an offset algd
 * refuses with -EFAULT. */
static inline uint64_t ualg_buf_off(const struct ualg_ring *ring, const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return b >= ring->buf && b <= ring->buf + ring->bufsize ? (uint64_t)(b - ring->buf) : UINT64_MAX;
}

void ualg_prep_nop(struct ualg_sqe *sqe);
/* digest receives the transform's digestsize bytes. */
void ualg_prep_hash(struct ualg_ring *ring, struct ualg_sqe *sqe, int tfm,
		    const void *data, size_t len, void *digest);
/* src and dst are equal (in place) or disjoint; iv has the transform's
 * ivsize bytes and is only read. */
void ualg_prep_encrypt(struct ualg_ring *ring, struct ualg_sqe *sqe, int tfm,
		       const void *src, void *dst, size_t len, const void *iv);
void ualg_prep_decrypt(struct ualg_ring *ring, struct ualg_sqe *sqe, int tfm,
		       const void *src, void *dst, size_t len, const void *iv);

/* AEAD: src holds assoclen bytes of associated data followed by the text
 * (plaintext, or ciphertext and tag); len counts both, as AF_ALG's input.
 * dst receives the text only: ciphertext and tag, or the plaintext once
 * the tag verified. */
void ualg_prep_aead_encrypt(struct ualg_ring *ring, struct ualg_sqe *sqe, int tfm,
			    const void *src, size_t assoclen, size_t len, void *dst, const void *iv);
void ualg_prep_aead_decrypt(struct ualg_ring *ring, struct ualg_sqe *sqe, int tfm,
			    const void *src, size_t assoclen, size_t len, void *dst, const void *iv);

static inline void ualg_sqe_set_data64(struct ualg_sqe *sqe, uint64_t data)
{
	sqe->user_data = data;
}

/* Publishes every entry got since the last submit, waking algd only if it
 * sleeps.  Returns how many were submitted. */
int ualg_submit(struct ualg_ring *ring);
/* Submits, then waits until at least wait_nr completions are ready. */
int ualg_submit_and_wait(struct ualg_ring *ring, unsigned wait_nr);

/* A completion if one is ready (-EAGAIN otherwise); waits for one.
 * -EIO: algd stopped this ring (its indexes were corrupted);
 * -ECONNRESET: algd went away. */
int ualg_peek_cqe(struct ualg_ring *ring, struct ualg_cqe **cqe);
int ualg_wait_cqe(struct ualg_ring *ring, struct ualg_cqe **cqe);
/* Up to count ready completions, without waiting; returns how many. */
unsigned ualg_peek_batch_cqe(struct ualg_ring *ring, struct ualg_cqe **cqes, unsigned count);
/* Returns n reaped completions' entries to algd. */
void ualg_cq_advance(struct ualg_ring *ring, unsigned n);

static inline void ualg_cqe_seen(struct ualg_ring *ring, struct ualg_cqe *cqe)
{
	(void)cqe;
	ualg_cq_advance(ring, 1);
}

/* Synchronous one-shot helpers: the data is copied through the buffer
 * area, so they take any pointers (and len up to its size).  Return the
 * bytes produced. */
int ualg_hash_oneshot(struct ualg_ring *ring, int tfm, const void *data, size_t len,
		      void *digest, size_t digest_len);
int ualg_cipher_oneshot(struct ualg_ring *ring, int tfm, int encrypt, const void *iv, size_t ivlen,
			const void *src, void *dst, size_t len);
/* src: assoclen bytes of associated data, then the text (len in all);
 * dst gets the text out (ciphertext and tag, or plaintext), up to dst_len. */
int ualg_aead_oneshot(struct ualg_ring *ring, int tfm, int encrypt, const void *iv, size_t ivlen,
		      const void *src, size_t assoclen, size_t len, void *dst, size_t dst_len);

#ifdef __cplusplus
}
#endif

#endif
