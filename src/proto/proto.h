/* The algd wire protocol.
 *
 * Every AF_ALG socket of a client is one AF_UNIX SOCK_SEQPACKET connection
 * to algd: a transform socket (socket() + bind()) is a connection to algd's
 * listening socket; an operation socket (accept()) is one end of a
 * socketpair algd creates and passes back with SCM_RIGHTS.  So op fds are
 * real kernel sockets: dup, fork, close and poll act on them as on any fd,
 * and algd sees a close as the connection's end.
 *
 * Each system call the shim emulates is one request frame and one reply
 * frame (a long send or receive is split into several, marked as parts of
 * one call).  A frame is one SEQPACKET message: a fixed header, a fixed
 * body per type, then the variable part.  Everything algd reads is checked
 * against these sizes before use, by the message's decoder in msg.h; a
 * frame that does not parse ends the connection (and only that one).
 *
 * Host byte order: both ends run on the same machine.
 */
#ifndef UALG_PROTO_H
#define UALG_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "../lib/ualg_afalg.h"	/* UALG_SET_KEY_BY_NAME, UALG_KEY_NAME_MAX */

#define UALG_PROTO_MAGIC 0x55414c47u	/* "UALG" */
#define UALG_PROTO_VERSION 1

/* Largest data part of one frame; callers split larger transfers.  Well
 * under the default AF_UNIX send buffer so that one frame never blocks on
 * socket space by itself. */
#define UALG_DATA_MAX (60u * 1024u)
#define UALG_FRAME_MAX (UALG_DATA_MAX + 512u)

/* Message types.  Each area of algd owns a range, so that work on one area
 * never renumbers another: 1-31 the AF_ALG socket calls, 32-47 algorithm
 * administration (crypto_user, algctl), 48-63 policy and named keys,
 * 64-79 further AF_ALG surface, 80-95 the native ring API, 96-111 RFC
 * mode (src/lib/ualg_rfc.h).  A type algd
 * does not know ends the connection like any malformed frame. */
enum ualg_msg_type {
	UALG_MSG_HELLO = 1,
	UALG_MSG_BIND,
	UALG_MSG_SETSOCKOPT,
	UALG_MSG_ACCEPT,
	UALG_MSG_SEND,
	UALG_MSG_RECV,
	UALG_MSG_POLL,		/* readiness of the socket: result is a poll mask */
	UALG_MSG_CANCEL,	/* a signal ended the caller's wait (see wait.c) */
	/* 32-47: algorithm administration; bodies are struct ualg_alg_req. */
	UALG_MSG_ALG_GET = 32,	/* crypto_alg_match(): reply one ualg_alg_rec */
	UALG_MSG_ALG_DUMP,	/* from .start on: result n, n ualg_alg_recs (0: end) */
	UALG_MSG_ALG_UPDATE,	/* CRYPTO_MSG_UPDATEALG: .priority of .driver */
	UALG_MSG_ALG_NEW,	/* CRYPTO_MSG_NEWALG: instantiate .driver or .name */
	UALG_MSG_ALG_DEL,	/* CRYPTO_MSG_DELALG: unregister instance .driver */
	UALG_MSG_ALG_SAVE,	/* write the current settings to algd's config file */
	UALG_MSG_ALG_DISABLE,	/* take .driver out of lookups (.priority 1) or back (0) */
	UALG_MSG_ALG_CHECK_ADMIN,	/* 0 if the peer may make changes, else -EPERM */
	UALG_MSG_ALG_ENGINE,	/* where AF_ALG data is served: .priority 1 algd, 0 the
				 * program; for .name (or .driver), or for all when both are empty */
	/* 48-63: named keys (see struct ualg_key_add below) */
	UALG_MSG_KEY_ADD = 48,	/* store a key: struct ualg_key_add */
	UALG_MSG_KEY_DEL,	/* forget a key: struct ualg_key_name */
	UALG_MSG_KEY_LIST,	/* from .start on: result n, n ualg_key_recs (0: end) */
	/* 64-79: further AF_ALG surface */
	UALG_MSG_DESCRIBE = 64,	/* what this connection is: struct ualg_describe */
	UALG_MSG_SNDBUF = 65,	/* the op socket's SO_SNDBUF changed: struct ualg_sndbuf */
	UALG_MSG_SHM_SETUP = 66,	/* op socket: create its payload area (below) */
	UALG_MSG_SEND_SHM = 67,	/* SEND whose data lies in the payload area */
	UALG_MSG_RECV_SHM = 68,	/* RECV whose result goes into the payload area */
	UALG_MSG_ENGINE = 69,	/* op socket: may the shim serve it in-process? (below) */
	UALG_MSG_ADOPT = 70,	/* op socket: take over its in-process state (below) */
	UALG_MSG_NOTIFY_SETUP = 71,	/* connection: a page whose counter algd bumps per reply */
	UALG_MSG_FAST_SETUP = 72,	/* op socket: requests and replies on a shared page */
	UALG_MSG_FAST_KICK = 73,	/* a request is on the page (no reply) */
	UALG_MSG_ATTACH = 74,	/* fresh connection: another channel to an op socket (below) */
	UALG_MSG_CONTROL_SETUP = 75,	/* any connection: the control page (below) */
	UALG_MSG_ACCEPT_HERE = 76,	/* bound transform socket: becomes its op socket (below) */
	UALG_MSG_ATTACH_TFM = 77,	/* fresh connection: the transform of an op socket (below) */
	UALG_MSG_RESET = 78,	/* the connection's socket closed: it is a fresh one (below) */
	UALG_MSG_RING_SETUP = 80,	/* native API: create this connection's ring */
	UALG_MSG_RING_OPEN,	/* open a transform by name: result is its id */
	UALG_MSG_RING_SETKEY,	/* set a transform's key (kept in algd) */
	UALG_MSG_RING_CLOSE,	/* close a transform */
	UALG_MSG_RING_SETAUTHSIZE,	/* an AEAD transform's tag length */
	UALG_MSG_RING_SETKEY_NAMED,	/* key a transform with a named key */
	/* 96-111: RFC mode, see struct ualg_rfc_io below */
	UALG_MSG_RFC_MODE = 96,	/* fresh transform socket: becomes an RFC one (empty body) */
	UALG_MSG_RFC_LISTEN,	/* RFC transform socket: listen() (empty body) */
	UALG_MSG_RFC_WRITE,	/* RFC op socket: struct ualg_rfc_io, then len bytes */
	UALG_MSG_RFC_READ,	/* RFC op socket: struct ualg_rfc_io; the reply carries the bytes */
	UALG_MSG_TYPE_MAX = 128,
};

#define UALG_HDR_REPLY 0x0001u	/* set on every reply */
#define UALG_HDR_TRUNC 0x0002u	/* RECV reply: the result was truncated (MSG_TRUNC) */
/* On a HELLO, BIND, SETSOCKOPT or ACCEPT_HERE request: answer only a
 * failure (a request sent ahead, whose success the reply to the
 * connection's next request shows, since algd answers a connection's
 * requests in order).  On a reply: the failure of such a request or of a
 * UALG_SEND_QUIET send. */
#define UALG_HDR_QUIET 0x0004u
#define UALG_HDR_SOCKET 0x0008u	/* reply on the shared page: not served, send it on the socket */
#define UALG_HDR_FLAGS_ALL (UALG_HDR_REPLY | UALG_HDR_TRUNC | UALG_HDR_QUIET | UALG_HDR_SOCKET)

struct ualg_hdr {
	uint32_t len;		/* whole frame, header included */
	uint16_t type;		/* enum ualg_msg_type */
	uint16_t flags;		/* UALG_HDR_* */
	int32_t result;		/* replies: >= 0 success value, < 0 -errno */
	uint32_t reserved;	/* must be zero */
};

enum ualg_role {
	UALG_ROLE_AFALG = 1,	/* an AF_ALG transform socket */
};

struct ualg_hello {
	uint32_t magic;
	uint16_t version;
	uint16_t role;
};

/* As struct sockaddr_alg, with the name length made explicit. */
struct ualg_bind {
	uint8_t type[14];	/* NUL-terminated within */
	uint16_t reserved;
	uint32_t feat, mask;
	uint32_t name_len;	/* bytes of name that follow, NUL included */
};
#define UALG_BIND_NAME_MAX 128

/* The value travels only for options whose value the kernel copies in
 * (ALG_SET_KEY); others are decided on optlen alone. */
#define UALG_SOCKOPT_TOOBIG 0x1u	/* value at or over optmem_max: ENOMEM */
#define UALG_SOCKOPT_FAULT 0x2u	/* value unreadable: EFAULT */
#define UALG_SOCKOPT_FLAGS_ALL 0x3u

struct ualg_sockopt {
	int32_t level, optname;
	uint32_t optlen;	/* the caller's optlen */
	uint32_t flags;		/* UALG_SOCKOPT_* */
	uint32_t vallen;	/* bytes of value that follow */
	/* ALG_SET_KEY_BY_KEY_SERIAL: the errno the shim met looking the key
	 * up (then no value follows), reported after algd's own checks as
	 * the kernel orders them; else 0 and the value is the key's payload. */
	uint32_t keyref_err;
};
#define UALG_SOCKOPT_MAX (20u * 1024u)	/* the kernel's optmem_max */

#define UALG_SEND_MORE 0x01u	/* MSG_MORE of the caller */
#define UALG_SEND_DONTWAIT 0x02u	/* MSG_DONTWAIT or O_NONBLOCK */
#define UALG_SEND_FIRST 0x04u	/* first frame of one sendmsg() */
#define UALG_SEND_LAST 0x08u	/* last frame of one sendmsg() */
#define UALG_SEND_CTL 0x10u	/* the call had a control message */
#define UALG_SEND_IV 0x20u	/* iv/ivlen are set */
#define UALG_SEND_CTL_BAD 0x40u	/* a cmsg af_alg_cmsg_send() rejects (EINVAL) */
#define UALG_SEND_FAULT 0x80u	/* the caller's data could not be read (EFAULT) */
/* Answer only a failure (with UALG_HDR_QUIET): a success has no reply.
 * The client learns that its quiet sends succeeded from the reply to any
 * later request, since algd answers a connection's requests in order.
 * Inline SEND only: a SEND_SHM's reply frees the area. */
#define UALG_SEND_QUIET 0x100u
#define UALG_SEND_FLAGS_ALL 0x1ffu

struct ualg_send {
	uint32_t flags;		/* UALG_SEND_* */
	uint32_t op;		/* ALG_SET_OP value (0 = decrypt when absent) */
	uint32_t assoclen;	/* ALG_SET_AEAD_ASSOCLEN value */
	uint32_t ivlen;		/* bytes of IV that follow, then the data */
};
#define UALG_IV_MAX 64

#define UALG_RECV_DONTWAIT 0x01u
#define UALG_RECV_REST 0x02u	/* the next part of an answer longer than a frame */
#define UALG_RECV_FLAGS_ALL 0x03u

/* A receive is one request per frame-sized part for hash and skcipher,
 * whose results do not depend on how the caller's buffer is split.  An
 * AEAD operation depends on the whole buffer's size (it decides how much
 * is processed), so algd runs it once on total bytes and answers with the
 * count produced and the first part; the shim fetches the rest with
 * UALG_RECV_REST requests, each answered from what algd kept. */
struct ualg_recv {
	uint32_t flags;
	uint32_t len;		/* caller's buffer size for this part, <= UALG_DATA_MAX */
	uint32_t total;		/* the whole call's buffer size (>= len) */
	uint32_t reserved;	/* zero */
};

/* RFC mode's data (src/algd/algif_rfc.c).  WRITE's result is the bytes
 * taken (fewer when the op's buffer fills), READ's the bytes in the reply
 * (at most len, at most UALG_DATA_MAX).  algd never parks them: -EAGAIN
 * means nothing could be taken or given now, and the shim waits (unless
 * the caller asked not to) without holding the socket.  setsockopt and
 * accept on RFC sockets are SETSOCKOPT and ACCEPT; an option's value
 * travels whenever it has one. */
#define UALG_RFC_MORE 0x1u	/* WRITE: MSG_MORE */
#define UALG_RFC_OOB 0x2u	/* WRITE: MSG_OOB (a hash state to restore) */
#define UALG_RFC_FLAGS_ALL 0x3u
struct ualg_rfc_io {
	uint32_t flags;		/* UALG_RFC_*; zero for READ */
	uint32_t len;		/* WRITE: bytes that follow; READ: bytes wanted */
};

/* Channels.  An op socket's connection is one stream of requests and
 * replies, which two processes sharing the fd (after fork(), or across
 * execve()) would interleave: each would meet the other's replies.  So
 * every process but the one that accepted the socket talks to algd over
 * a channel of its own: a fresh connection on which ATTACH (struct
 * ualg_attach, reply no body) names the op socket by its token, which the
 * ACCEPT reply gives (struct ualg_accept_reply) and DESCRIBE repeats.  A
 * token is a capability among the processes of its opener's uid: algd
 * attaches only a connection of that uid, and only a fresh one (no bind,
 * no mode, no ring).  From then on the channel is that op socket for
 * every request, and a request on any of the socket's channels wakes
 * what another channel has waiting, as the kernel's socket wakes every
 * sleeper. */
#define UALG_TOKEN_BYTES 16
struct ualg_attach {
	uint8_t token[UALG_TOKEN_BYTES];
};

/* An op socket that is the program's own connection.  ACCEPT_HERE (empty
 * body) on a bound transform socket with no op sockets, no mode and no
 * shared memory turns the connection into the op socket accepted from it:
 * the reply is ACCEPT's, without an fd (none when sent quiet: DESCRIBE
 * gives the token), and the transform lives on as the op socket's parent,
 * reached by no connection.  A program that keeps a
 * transform socket itself (the shim's local sockets) so makes one
 * connection per op socket, and sends the bind and the key ahead on it.
 * ATTACH_TFM (struct ualg_attach) on a fresh connection of the same uid
 * makes it a transform socket of that parent, named by one of its op
 * sockets' tokens: the program hands its transform socket to algd (fork,
 * execve, a call only algd answers) with the op sockets accepted from it,
 * as the kernel's sockets share it. */

/* RESET (empty body, no reply) closes the connection's socket as the
 * connection's end would, and leaves it a fresh transform socket of the
 * same opener, greeted, bound to nothing: a program may keep a connection
 * its op socket was and make its next socket on it.  Refused (the
 * connection ends) on a connection that is another's channel or has
 * channels, a ring or a request waiting. */

/* DESCRIBE reply (result 0): lets a program that inherited the fd across
 * execve (which empties the shim's fd table) adopt it again. */
#define UALG_DESCRIBE_OP 0x1u	/* an accept()ed operation socket */
#define UALG_DESCRIBE_BOUND 0x2u	/* type[] holds the salg_type */
#define UALG_DESCRIBE_RFC 0x4u	/* RFC mode: an RFC transform socket or its op */
struct ualg_describe {
	uint32_t flags;		/* UALG_DESCRIBE_* */
	uint8_t type[14];	/* NUL-terminated within */
	uint16_t reserved;
	uint32_t sndbuf;	/* as UALG_MSG_SNDBUF set it, 0 when never set */
	uint8_t token[UALG_TOKEN_BYTES];	/* op sockets: ACCEPT's token */
};

/* The value getsockopt(SO_SNDBUF) reports after the caller's setsockopt()
 * (already doubled and clamped by the kernel on the real socket). */
struct ualg_sndbuf {
	uint32_t bytes;
};

/* The in-process engine (src/shim/inproc.c).  ENGINE (empty body) on a
 * fresh op socket: algd's answer, the control plane's verdict, says whether
 * the shim may serve the socket's data in the program and with which
 * driver (FIPS mode, RFC mode, keys by reference and algd.conf's "engine"
 * settings keep a socket here).  Never a key: the shim serves only
 * transforms whose key it was handed by value.  The flags other than
 * INPROC describe an op socket's transform whatever the verdict. */
#define UALG_ENGINE_INPROC 0x1u
#define UALG_ENGINE_TAKES_KEY 0x2u	/* the algorithm has a key (set or not) */
/* The transform has no key yet: the program serves the socket keyless
 * (ENOKEY until a key), and a key it then sets by value keys its own
 * transform too, as the kernel's op sockets accepted before the key. */
#define UALG_ENGINE_NOKEY 0x4u
/* A key is optional (crc32c, xxhash64, blake2b) and none was set since the
 * bind: the program serves the socket without one, as algd would. */
#define UALG_ENGINE_UNKEYED 0x8u
struct ualg_engine_info {
	uint32_t flags;		/* UALG_ENGINE_* */
	uint32_t authsize;	/* aead: the transform's tag length */
	uint8_t type[14];	/* salg_type, NUL-terminated within */
	/* A hash whose message starts with key material (poly1305's key,
	 * vmac64's nonce): a final fails on a message shorter than
	 * msg_key_len bytes, or whose first byte has a bit of msg_key_clear
	 * set; 0 for others. */
	uint8_t msg_key_len, msg_key_clear;
	char driver[128];	/* what to bind in the process, NUL-terminated within */
	/* The transform socket's binds and keys so far: the shim serves an
	 * op socket only with the key it set itself, not one another process
	 * sharing the transform set since.  ENGINE on a transform socket
	 * answers this alone. */
	uint32_t key_gen;
	uint32_t reserved2;
};

/* ACCEPT's reply (result 0): the new op socket's token (channels, above)
 * and what ENGINE on it would answer, so that a program learns in one round
 * trip whether it may serve the socket itself. */
struct ualg_accept_reply {
	uint8_t token[UALG_TOKEN_BYTES];
	struct ualg_engine_info engine;
};

/* SETSOCKOPT's reply (result >= 0): the transform's key_gen after the
 * option (struct ualg_engine_info), for the program that keeps the key it
 * set. */
struct ualg_sockopt_reply {
	uint32_t key_gen;
	uint32_t reserved;
};

/* ADOPT: the op socket's state as the process had it, when an in-process
 * socket becomes shared (fork, execve).  Frames with UALG_ADOPT_PART carry
 * queued data only, all of them within the socket's send buffer; the last
 * one the rest.  A hash's state comes from the driver ENGINE named, which
 * algd's own transform may not be: then the op socket gets a transform of
 * that driver, keyed with the key that follows (the one the program gave
 * by value, going the way it went before).  Only on an op socket nothing
 * has used yet, once (EBUSY), that ENGINE would let the program serve now
 * (EACCES: FIPS mode, engine-algd, or the caller's --alg-allow rules
 * against that driver), and only with the driver ENGINE names (EINVAL).
 * algd checks everything as it would its own (afalg_import): a forged
 * state is EINVAL, never harm. */
#define UALG_ADOPT_PART 0x1u
struct ualg_adopt {
	uint32_t flags;		/* UALG_ADOPT_* */
	uint32_t state;		/* AFALG_STATE_* of src/afalg/afalg.h */
	uint32_t op, assoclen;
	uint8_t iv[32];		/* UALG_MAX_IVSIZE */
	uint8_t result[64];	/* UALG_MAX_DIGESTSIZE */
	char driver[128];	/* the last frame of a hash: the state's driver */
	uint32_t keylen;	/* bytes of key that follow (the last frame of a hash) */
	uint32_t len;		/* then bytes of data */
};

#define UALG_FRAME_PARTS 64	/* iovecs one frame may gather from */

/* The shim's fast path for large transfers: a payload area per op
 * connection.  SHM_SETUP (empty body) on an op socket is answered with a
 * struct ualg_shm_setup_reply and a memfd (SCM_RIGHTS) of that size,
 * sealed against shrinking and growing, which algd maps too; a second
 * SHM_SETUP gets -EBUSY, one on a transform socket -EOPNOTSUPP.  Then:
 *   SEND_SHM: struct ualg_send, its IV, struct ualg_shm_ref: the data are
 *     ref.len bytes of the area at ref.off (instead of following inline);
 *   RECV_SHM: struct ualg_recv, struct ualg_shm_ref with ref.len == len:
 *     the reply carries no data, the result is written at ref.off.
 * Both are otherwise SEND and RECV (flags, parts, waits, REST).  A ref
 * outside the area, or either message without an area, is malformed.
 * algd treats the area as the client's memory: input is copied out of it
 * before anything depends on it, and only the named output range is
 * written.  The area is per connection and so shared after fork: the shim
 * uses it only in the process that set it up (others use frames). */
#define UALG_SHM_SIZE (1u << 20)
/* NOTIFY_SETUP (empty body): the reply passes a memfd of UALG_NOTIFY_SIZE
 * bytes whose first word algd increments (release order) after each reply
 * it sends on this connection, so that a client may spin on memory for a
 * reply instead of sleeping in the kernel (then receive it at once).  algd
 * never reads the page; another setup replaces it. */
#define UALG_NOTIFY_SIZE 4096u

/* FAST_SETUP (empty body), on an op socket whose type says which calls
 * would wait (hash, skcipher, aead; others get EOPNOTSUPP, a second setup
 * EBUSY): the reply passes a memfd of UALG_FAST_SIZE bytes holding one
 * struct ualg_fast, through which the client may make one SEND or RECV at
 * a time without a system call.  It writes the request's frame (header and
 * body, as on the socket) into req, then increments req_seq (release).
 * algd, while it busy-polls, watches req_seq and says so in polling;
 * otherwise the client sends FAST_KICK (empty body, never answered) on the
 * socket.  The client's order is store req_seq, full fence, load polling;
 * algd's is store polling = 0, full fence, load req_seq: one of the two
 * sees the other's store.  algd copies the frame out before it reads any of
 * it, serves it as if it had come on the socket, writes the reply frame
 * into rep and stores req_seq's value into rep_seq (release); if waiting
 * was set it clears it and wakes futex waiters on rep_seq (a client past
 * its spin window sets waiting, fences, checks rep_seq, then sleeps on
 * it).  When the connection ends, algd sets closed and wakes them: a
 * request it did not serve gets no reply.  A SEND or RECV that would wait
 * is not served: its reply carries UALG_HDR_SOCKET (result 0, no body),
 * and the client sends it again on the socket, where it may wait.  A
 * request other than SEND or RECV, or one that would go unanswered
 * (UALG_SEND_QUIET) or have a reply that does not fit, is malformed: algd
 * ends the connection.  A client uses the page only while no request of
 * the socket is in flight on the socket, so that the connection's requests
 * stay in order.  One setup per connection: the page is shared after fork,
 * and the shim uses it only in the process that set it up.  On a
 * connection without a reply counter (NOTIFY_SETUP), replies becomes that
 * counter and the result is UALG_FAST_COUNTS, so that one setup gives a
 * socket both; a later NOTIFY_SETUP (a program after execve) moves the
 * counter to a page of its own. */
#define UALG_FAST_SIZE 8192u
#define UALG_FAST_COUNTS 1	/* FAST_SETUP's result: replies counts the connection's replies */
#define UALG_FAST_FRAME_MAX 4032u
struct ualg_fast {
	_Alignas(64) _Atomic uint32_t req_seq;	/* client */
	_Atomic uint32_t polling;		/* algd: 1 while it watches req_seq */
	_Alignas(64) _Atomic uint32_t rep_seq;	/* algd */
	_Atomic uint32_t waiting;		/* client: asleep on rep_seq */
	_Atomic uint32_t closed;		/* algd: the connection ended (then wakes) */
	_Atomic uint32_t replies;		/* algd: the reply counter (below) */
	_Alignas(64) uint8_t req[UALG_FAST_FRAME_MAX];
	_Alignas(64) uint8_t rep[UALG_FAST_FRAME_MAX];
};
_Static_assert(sizeof(struct ualg_fast) <= UALG_FAST_SIZE, "struct ualg_fast fits its memfd");

/* CONTROL_SETUP (empty body): the reply passes a memfd of
 * UALG_CONTROL_SIZE bytes holding one struct ualg_control, the same file
 * for every client, sealed against shrinking, growing and any write but
 * algd's own mapping (F_SEAL_FUTURE_WRITE): clients map it read-only.
 * algd bumps gen (release) before it answers anything after a change that
 * may change what a bind() resolves to or whether a program may serve a
 * socket itself: a driver registered, unregistered, disabled or
 * reprioritised, the configuration reread or changed by algctl.  A
 * program that learned such an answer (ACCEPT's engine verdict) under one
 * gen may apply it to its next bind() of the same address without asking
 * while gen has not moved and magic still says the page is live
 * (src/shim/local.c). */
#define UALG_CONTROL_SIZE 4096u
#define UALG_CONTROL_MAGIC 0x75616c67u	/* "ualg" */
struct ualg_control {
	_Atomic uint32_t magic;	/* UALG_CONTROL_MAGIC; 0 once algd has stopped */
	_Atomic uint32_t gen;
};
_Static_assert(sizeof(struct ualg_control) <= UALG_CONTROL_SIZE, "struct ualg_control fits its memfd");

struct ualg_shm_setup_reply {
	uint64_t size;
};
struct ualg_shm_ref {
	uint64_t off, len;
};

/* Shared memory helpers (algd's rings and payload areas, libualg, the
 * shim).  ualg_memfd_create() makes a memfd of size bytes, sealed against
 * shrinking, growing and further seals, and maps it read-write at *map;
 * returns the fd or -errno.  ualg_memfd_map() maps a memfd received from
 * algd after checking that it is sealed against shrinking and holds size
 * bytes (so no access can fault); returns 0 or -errno. */
int ualg_memfd_create(const char *name, size_t size, void **map);
int ualg_memfd_map(int fd, size_t size, void **map);
/* The same for a page one writer publishes to many readers: created as
 * above, then sealed with F_SEAL_FUTURE_WRITE so that only the mapping at
 * *map may write it; ualg_memfd_map_published() checks that seal and maps
 * the page read-only. */
int ualg_memfd_create_published(const char *name, size_t size, void **map);
int ualg_memfd_map_published(int fd, size_t size, const void **map);

/* Algorithm administration.  Matching is crypto_user's crypto_alg_match():
 * by driver name when one is given, else (unless EXACT) by generic name,
 * among registered algorithms whose kernel flags agree with type under
 * mask; the most recently registered wins, as the kernel's list order.
 * Changes (UPDATE, NEW, DEL, SAVE, DISABLE) need root or algd's admin group
 * (SO_PEERCRED), else -EPERM. */
#define UALG_ALG_REQ_EXACT 0x1u		/* driver name only */
#define UALG_ALG_REQ_PRIORITY 0x2u	/* .priority is given */
#define UALG_ALG_REQ_FLAGS_ALL 0x3u

struct ualg_alg_req {
	char name[128], driver[128];	/* NUL-terminated within */
	uint32_t type, mask;		/* cru_type, cru_mask */
	uint32_t flags;			/* UALG_ALG_REQ_* */
	uint32_t priority;
	uint32_t start;			/* DUMP: first record wanted */
	uint32_t reserved;		/* must be zero */
};

/* The kernel's cra_flags bits algd reports. */
#define UALG_KFLAG_TYPE_MASK 0x0000000fu
#define UALG_KFLAG_TESTED 0x00000400u
#define UALG_KFLAG_INSTANCE 0x00000800u
#define UALG_KFLAG_FIPS_INTERNAL 0x00020000u	/* FIPS mode: not approved */

/* ualg_alg_rec.fips, as /proc/crypto's "fips" line (shown in FIPS mode only). */
enum { UALG_FIPS_OFF, UALG_FIPS_APPROVED, UALG_FIPS_NOT_APPROVED };

struct ualg_alg_rec {
	char name[128], driver[128], module[64];
	uint32_t kflags;		/* as cra_flags: type bits, TESTED, INSTANCE */
	uint32_t type;			/* the core's enum ualg_alg_type */
	int32_t priority;
	uint32_t refcnt;		/* as /proc/crypto: the registry's reference included */
	uint32_t selftest;		/* the core's enum ualg_selftest */
	uint32_t disabled;		/* 1: left out of lookups by configuration */
	uint32_t blocksize, digestsize, min_keysize, max_keysize, ivsize, chunksize;
	uint32_t maxauthsize, seedsize;	/* aead, rng */
	uint32_t fips;			/* UALG_FIPS_* */
	uint32_t reserved;
	uint64_t ops, bytes, errors;	/* the algorithm's statistics */
};

/* Named keys (src/algd/keystore.c).  An administrator stores a key in
 * algd under a name; clients key transforms with it by name
 * (UALG_SET_KEY_BY_NAME, UALG_MSG_RING_SETKEY_NAMED) and can never read it.
 * ADD and DEL need root, algd's admin group or the user whose private algd
 * this is (SO_PEERCRED of the client that opened the connection tree,
 * decided when it connected), else -EPERM; LIST is open to every
 * client and never carries key bytes.  Names are 1..UALG_KEY_NAME_MAX bytes
 * of [A-Za-z0-9._-] (first a letter or digit), sent without a NUL; an allow
 * list is --allow's syntax with numeric ids only ("uid:1000,gid:27"; algctl
 * resolves user and group names), empty for "root only" (and a private algd's own user).
 * Errors: -EINVAL for a name, list or length that does not parse, -EEXIST
 * (ADD of a name in use), -ENOKEY (no such key), -ENOSPC (store full),
 * -ENOMEM (secure heap full). */
#define UALG_KEY_ALLOW_MAX 511	/* bytes of allow list text */
#define UALG_KEY_BYTES_MAX 2048	/* as UALG_MAX_KEYSIZE: hmac keys may be long */

struct ualg_key_add {
	uint32_t name_len;	/* bytes of name that follow */
	uint32_t allow_len;	/* then bytes of allow list */
	uint32_t key_len;	/* then the key, 1..UALG_KEY_BYTES_MAX bytes */
	uint32_t reserved;	/* must be zero */
};

struct ualg_key_name {
	uint32_t name_len;	/* bytes of name that follow */
	uint32_t reserved;
};

struct ualg_key_list_req {
	uint32_t start;		/* first record wanted, in name order */
	uint32_t reserved;
};

struct ualg_key_rec {
	char name[UALG_KEY_NAME_MAX + 1];	/* NUL-terminated */
	char allow[UALG_KEY_ALLOW_MAX + 1];	/* NUL-terminated, canonical */
	uint32_t key_len;
	uint32_t reserved;
	uint64_t uses;		/* transforms keyed with it so far */
};

/* The native ring API (libualg, see src/lib/ualg_abi.h for the shared
 * memory).  A greeted connection sends RING_SETUP once; the reply carries a
 * struct ualg_ring_setup_reply and three fds with SCM_RIGHTS: the sealed
 * memfd, the submission eventfd and the completion eventfd.  Transforms
 * are opened, keyed and closed on the socket; data only moves through the
 * ring. */
struct ualg_ring_setup {
	uint32_t entries;	/* power of two, 1..UALG_RING_MAX_ENTRIES */
	uint32_t reserved;
	uint64_t bufsize;	/* buffer area, 1..UALG_RING_MAX_BUF */
};

struct ualg_ring_setup_reply {
	uint32_t entries;
	uint32_t reserved;
	uint64_t sq_off, cq_off, buf_off, bufsize, map_size;
};

/* Reply: result is the id; the body gives the sizes a caller needs. */
struct ualg_ring_open {
	uint8_t type[14];	/* "hash", "skcipher" or "aead", NUL-terminated within */
	uint16_t reserved;
	uint32_t name_len;	/* bytes of name that follow, NUL included */
};

struct ualg_ring_tfm_info {
	uint32_t digestsize, ivsize, blocksize, chunksize;
};

struct ualg_ring_setkey {
	uint32_t tfm;
	uint32_t keylen;	/* bytes of key that follow */
};

struct ualg_ring_setkey_named {
	uint32_t tfm;
	uint32_t name_len;	/* bytes of name that follow (no NUL) */
};

struct ualg_ring_close {
	uint32_t tfm;
};

struct ualg_ring_setauthsize {
	uint32_t tfm;
	uint32_t authsize;
};

/* Sends one frame: header, then the given parts, optionally passing fd
 * (>= 0) with SCM_RIGHTS.  Returns 0 or -errno (-EFAULT for a part the
 * caller cannot read, as the kernel would report it).  Retries EINTR. */
int ualg_frame_send(int sock, uint16_t type, uint16_t flags, int32_t result,
		    const struct iovec *parts, int nparts, int pass_fd);

/* Receives one frame: its header into *hdr, the rest scattered over body.
 * Returns the frame length, 0 at end of connection, or -errno: -EPROTO for
 * a frame that is truncated, larger than the buffers or whose header is
 * inconsistent.  A passed fd is stored in *fd (else -1) when fd is
 * non-NULL, and closed otherwise; cloexec applies MSG_CMSG_CLOEXEC.  Does
 * not wait when the socket is non-blocking (-EAGAIN), and returns -EINTR
 * when a signal handler interrupts the wait: the caller decides. */
ssize_t ualg_frame_recv(int sock, struct ualg_hdr *hdr, const struct iovec *body, int nbody,
			int *fd, int cloexec);
/* As ualg_frame_recv(), never waiting (MSG_DONTWAIT): -EAGAIN when no
 * frame is queued. */
ssize_t ualg_frame_recv_now(int sock, struct ualg_hdr *hdr, const struct iovec *body, int nbody,
			    int *fd, int cloexec);

/* Whether a frame of n bytes (header included, n > 0) read anywhere, the
 * socket or a struct ualg_fast, has a consistent header: the checks
 * ualg_frame_recv() makes. */
bool ualg_frame_hdr_ok(const struct ualg_hdr *hdr, size_t n);

/* As ualg_frame_recv() for a peer that never passes descriptors (algd
 * reading requests): a frame carrying any is -EPROTO, and every descriptor
 * that came is handed to dispose with arg (which must not block on its
 * close: the last close of a socket with SO_LINGER, a FUSE file or a tty
 * may sleep). */
ssize_t ualg_frame_recv_nofd(int sock, struct ualg_hdr *hdr, const struct iovec *body, int nbody,
			     void (*dispose)(int fd, void *arg), void *arg);

/* The client's greeting on a new connection to algd: sends HELLO and
 * checks the reply.  Returns 0, or -EPROTO when algd does not answer with
 * this protocol version, algd's -errno when it refuses the client (EACCES
 * by policy, EMFILE over its socket limit), or -errno of the exchange. */
int ualg_hello(int sock);
/* Its two halves, for a client that waits between them its own way;
 * quiet: answered only if refused (UALG_HDR_QUIET), for a client that
 * knows the version from an earlier connection. */
int ualg_hello_send(int sock, bool quiet);
int ualg_hello_answer(int sock);

/* One administration request on a greeted connection: sends q, receives
 * the reply's data into out (outsize bytes) and its length into *outlen.
 * Checks the reply's shape (GET: one record, DUMP: result records, others
 * none).  Returns the reply's result, or -EPROTO / -errno of the exchange. */
int ualg_admin_call(int sock, uint16_t type, const struct ualg_alg_req *q,
		    void *out, size_t outsize, size_t *outlen);

/* Connects to the algd at path (no HELLO yet), but only to one this user
 * can trust, in the shim, libualg and every tool alike: every directory on
 * the resolved path must be writable by its owner alone, or shared and
 * sticky (/tmp) with the next entry owned by root or this user; and the
 * daemon's SO_PEERCRED uid root, this user or the
 * socket's owner.  Returns a blocking SOCK_CLOEXEC fd, -EPERM with the
 * reason in why (whylen bytes; may be NULL) when it refuses, or -errno.
 * The path is walked once per process and effective uid: later connects
 * to it check the daemon's credentials only. */
int ualg_connect(const char *path, char *why, size_t whylen);

/* Whether every CPU of the host has a task to run besides the ones
 * asking: more tasks runnable than CPUs online (/proc/loadavg, read at
 * most every 2 ms).  A client waiting for algd's reply, or algd for a
 * client's next request, would then spin only to keep the other from a
 * CPU: it sleeps at once instead, and the kernel's wake-up serves it. */
bool ualg_cpu_contended(void);

/* $UALG_POLL_US: how long a client busy-polls for algd's answer before it
 * sleeps, in microseconds (default 50, at most 10000; 0 never), for the
 * shim and libualg alike.  Read once. */
#define UALG_POLL_US_DEFAULT 50u
#define UALG_POLL_US_MAX 10000u
unsigned ualg_poll_us(void);
/* How long, in nanoseconds, a client that polls poll_us waits for an
 * answer about bytes of data before it sleeps: poll_us plus the time the
 * slowest common algorithms, about 500 MB/s, take over them (at most
 * UALG_POLL_US_MAX more); 0 when poll_us is 0. */
uint64_t ualg_poll_window_ns(unsigned poll_us, uint64_t bytes);

/* The default algd socket path for this user, into buf. */
int ualg_default_socket_path(char *buf, size_t size);
/* The system's algd (algd.socket; root's default path). */
#define UALG_SYSTEM_SOCKET "/run/ualg/algd.sock"

#endif
