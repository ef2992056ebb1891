/* The shared-memory ring ABI between libualg and algd.
 *
 * algd creates one memfd per ring, sized and sealed (no shrink, no grow)
 * before the client ever sees it, so a client cannot make algd's accesses
 * fault.  The mapping holds, at the offsets the setup reply gives:
 *
 *   struct ualg_ring_shared   indexes and wake-up flags
 *   struct ualg_sqe[entries]  submission queue, written by the client
 *   struct ualg_cqe[entries]  completion queue, written by algd
 *   buffer area               registered buffers: every data offset in a
 *                             request is relative to its start
 *
 * Indexes are free-running 32-bit counters masked by entries - 1, as in
 * io_uring.  algd keeps its own copy of what it owns (sq_head, cq_tail) and
 * only reads what the client owns (sq_tail, cq_head), once per batch; it
 * copies each request out of shared memory before validating it, so
 * rewriting shared memory concurrently can produce wrong results for the
 * client but never an access outside the mapping.
 *
 * Wake-ups: algd busy-polls the submission queue for a while after work,
 * then sets UALG_RING_SQ_SLEEPING and sleeps on the submission eventfd; a
 * client that sees the flag after publishing sq_tail writes the eventfd.
 * A client waiting for completions sets UALG_RING_CQ_WAITING and sleeps on
 * the completion eventfd; algd writes it after posting when it sees the
 * flag.  Both sides re-check the queue after setting a flag, so no wake-up
 * is lost. */
#ifndef UALG_ABI_H
#define UALG_ABI_H

#include <stdint.h>

#define UALG_RING_MAX_ENTRIES 4096u
#define UALG_RING_MAX_BUF (256u << 20)	/* registered buffer area */
#define UALG_RING_MAX_TFMS 256u		/* transforms open on one ring */
#define UALG_MAX_DIGEST 64u		/* largest digest a hash request writes */
#define UALG_MAX_IV 32u			/* largest IV a cipher request reads (xchacha20) */

/* algd_flags */
#define UALG_RING_SQ_SLEEPING 0x1u	/* algd waits on the submission eventfd */
#define UALG_RING_BROKEN 0x2u		/* algd found the indexes inconsistent and stopped */
/* client_flags */
#define UALG_RING_CQ_WAITING 0x1u	/* the client waits on the completion eventfd */

struct ualg_ring_shared {
	/* Written by algd. */
	uint32_t sq_head;
	uint32_t cq_tail;
	uint32_t algd_flags;
	uint32_t pad0[13];
	/* Written by the client (own cache line). */
	uint32_t sq_tail;
	uint32_t cq_head;
	uint32_t client_flags;
	uint32_t pad1[13];
};

enum ualg_opcode {
	UALG_OP_NOP = 0,	/* completes with 0: measures the ring itself */
	UALG_OP_HASH = 1,	/* digest of len bytes at src into digestsize bytes at dst */
	UALG_OP_ENCRYPT = 2,	/* len bytes src -> dst; ivsize bytes of IV at iv */
	UALG_OP_DECRYPT = 3,
	/* AEAD: src holds assoclen bytes of associated data, then the text;
	 * len counts both.  Encryption writes ciphertext and tag (the
	 * transform's authsize) at dst; decryption writes the plaintext at
	 * dst only once the tag has verified (-EBADMSG otherwise: nothing is
	 * written), so unauthenticated plaintext never reaches the client. */
	UALG_OP_AEAD_ENCRYPT = 4,
	UALG_OP_AEAD_DECRYPT = 5,
	UALG_OP_MAX
};

/* One request.  For ciphers src and dst may be equal (in place) but must
 * not otherwise overlap; for AEAD the same holds of dst and src's text. */
struct ualg_sqe {
	uint64_t user_data;	/* returned in the completion */
	uint8_t opcode;		/* enum ualg_opcode */
	uint8_t flags;		/* must be zero */
	uint16_t tfm;		/* transform id from ualg_ring_open_tfm() */
	uint32_t len;
	uint64_t src, dst, iv;	/* offsets into the buffer area */
	uint32_t assoclen;	/* AEAD only, else zero */
	uint32_t reserved;	/* must be zero */
};

struct ualg_cqe {
	uint64_t user_data;
	int32_t res;		/* bytes produced, or -errno */
	uint32_t flags;
};

#endif
