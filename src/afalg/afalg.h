/* AF_ALG socket semantics, as Linux 6.1's crypto/af_alg.c and algif_*.c,
 * over the core crypto API.
 *
 * One implementation, two hosts: algd turns frames into these calls
 * (src/algd/dispatch.c), and the shim's in-process engine turns a program's
 * own sendmsg()/read() into them (src/shim/inproc.c through
 * src/afalg/engine.c).  Nothing here knows about frames, event loops or file
 * descriptors; what depends on the host (per-user policy, named keys) comes
 * in through struct afalg_host, and socket families other than the kernel's
 * (RFC mode) through struct afalg_mode.
 *
 * Not thread-safe: a host serialises the calls on one transform socket and
 * its op sockets (algd: its event loop; the shim: the tree's lock). */
#ifndef UALG_AFALG_LAYER_H
#define UALG_AFALG_LAYER_H

#include "crypto.h"
#include "status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The asymmetric interface of libkcapi's out-of-tree kernel patches
 * (kernel-patches/ in libkcapi's sources).  libkcapi itself (lib/internal.h,
 * since ALG_SET_DRBG_ENTROPY took 6) numbers the same options one higher:
 * both are served.  Where the two meet, the socket tells them apart:
 * on akcipher, 7 is ALG_SET_KEY_BY_KEY_SERIAL with a serial's four bytes
 * and libkcapi's ALG_SET_PUBKEY with anything else (no public key is that
 * short); on kpp, 8 is the DH parameters on dh and the curve on ecdh, the
 * other being EINVAL there either way. */
#define ALG_SET_PUBKEY 6
#define ALG_SET_DH_PARAMETERS 7
#define ALG_SET_ECDH_CURVE 8
#define ALG_SET_PUBKEY_KCAPI 7
#define ALG_SET_DH_PARAMETERS_KCAPI 8
#define ALG_SET_ECDH_CURVE_KCAPI 9

/* Whether optname with a value of optlen bytes sets an akcipher socket's
 * public key. */
static inline bool afalg_akcipher_pubkey_opt(int optname, uint32_t optlen)
{
	return optname == ALG_SET_PUBKEY ||
	       (optname == ALG_SET_PUBKEY_KCAPI && optlen != sizeof(int32_t));
}

#define ALG_OP_SIGN 2
#define ALG_OP_VERIFY 3
#define ALG_OP_KEYGEN 4
#define ALG_OP_SSGEN 5

struct alg_sock;
struct afalg_optval;
struct afalg_state;
struct key_caller;	/* the host's idea of who is calling (algd: keystore.h) */

/* What one sendmsg() carries besides data (already parsed by the shim). */
struct afalg_ctl {
	bool present;		/* msg_controllen was non-zero */
	bool invalid;		/* a cmsg the kernel would reject with EINVAL */
	uint32_t op;
	bool has_iv;
	uint32_t ivlen;
	const uint8_t *iv;
	uint32_t assoclen;
};

/* How far a request the kernel would sleep in has got, so that it can
 * resume where it stopped (or report what it did when interrupted). */
struct afalg_progress {
	bool started;		/* the once-per-call checks have run */
	size_t done;		/* bytes taken (send) or produced (recv) */
	size_t pos;		/* skcipher recv: buffer bytes the RX lists took */
};

struct afalg_send {
	struct afalg_ctl ctl;
	bool first, last;	/* parts of one sendmsg() */
	bool more;		/* MSG_MORE */
	bool dontwait;
	bool fault;		/* the data was unreadable: EFAULT after the checks */
	const uint8_t *data;
	size_t len;
};

struct alg_type {
	const char *name;		/* salg_type: "hash", "skcipher" */
	enum ualg_alg_type alg_type;
	size_t ctxsize;
	/* Sets up an accepted socket's context; from is the op socket being
	 * accepted on (hash state cloning) or NULL. */
	int (*accept)(struct alg_sock *op, const struct alg_sock *from);
	bool accept_on_op;		/* accept() works on an op socket */
	int (*send)(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p);
	int (*recv)(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
		    struct afalg_progress *p);
	unsigned (*poll)(const struct alg_sock *op);	/* NULL: never ready */
	/* Whether send() of len bytes (send) or recv() into len bytes, made
	 * now, would end without AFALG_WAIT: never true of a call that would
	 * wait, and false is always safe.  A host that cannot park a call
	 * (algd's shared request page) serves it only when this says so.
	 * NULL: not known. */
	bool (*ready)(const struct alg_sock *op, bool send, size_t len);
	/* Whether send() of s, the whole of a sendmsg() made now, would
	 * succeed at once: its checks pass and its data fits without
	 * waiting.  False is always safe; NULL: never said. */
	bool (*send_ok)(const struct alg_sock *op, const struct afalg_send *s);
	/* recv() must see the caller's whole buffer (an AEAD operation's
	 * extent depends on it), not frame-sized parts. */
	bool whole_buffer;
	/* send() only copies the data into the socket's own queue, reading
	 * each byte once: it may read straight from a client's shared
	 * payload area.  Other types get a private copy first. */
	bool send_copies;
	void (*release)(struct alg_sock *op);
	/* Frees the transform socket's type state (tfm_priv) when the socket
	 * goes or binds another algorithm; NULL: the type keeps none. */
	void (*release_tfm)(struct alg_sock *sk);
	/* Optional: an op socket's state out of one host and into another
	 * (struct afalg_state below); a type without them stays where it is. */
	int (*export)(const struct alg_sock *op, struct afalg_state *st);
	int (*import)(struct alg_sock *op, const struct afalg_state *st, bool part);
	/* Options of the type's own on the transform socket (akcipher, kpp):
	 * returns AFALG_OPT_GENERIC for those af_alg.c handles. */
	int (*setsockopt)(struct alg_sock *sk, int optname, const struct afalg_optval *v);
};

/* A family of socket types other than the kernel's (RFC mode,
 * src/algd/algif_rfc.c), set on an unbound transform socket: it owns the
 * type lookup of bind, setsockopt and accept's checks, and its state. */
struct afalg_mode {
	const struct alg_type *(*find_type)(const char *name);
	bool exportable_hashes;		/* bind hashes that export their state */
	int (*bound)(struct alg_sock *sk);	/* after a bind: the new tfm has no key */
	int (*setsockopt)(struct alg_sock *sk, int level, int optname, const struct afalg_optval *v);
	int (*accept_check)(const struct alg_sock *sk);
	void (*release)(void *priv);
};

/* What a host decides for the layer; any member may be NULL. */
struct afalg_host {
	/* bind: whether caller (non-NULL) may use alg (algd's policy) */
	bool (*alg_allowed)(const struct ualg_alg *alg, const struct key_caller *caller);
	/* UALG_SET_KEY_BY_NAME: keys tfm with the named key (NULL: ENOPROTOOPT) */
	int (*setkey_by_name)(struct ualg_tfm *tfm, const struct afalg_optval *v);
};
void afalg_set_host(const struct afalg_host *host);

struct alg_sock {
	const struct afalg_mode *mode;	/* NULL: the kernel's types */
	void *mode_priv;		/* transform sockets: the mode's state */
	unsigned ref;			/* connection + accepted children */
	struct alg_sock *parent;	/* op sockets: the transform socket */
	const struct alg_type *type;
	struct ualg_tfm *tfm;		/* transform sockets: the bound tfm */
	unsigned children;		/* kernel's ask->refcnt */
	unsigned nokey_children;	/* kernel's ask->nokey_refcnt */
	bool connected;			/* an op socket */
	bool nokey;			/* accepted before a key was set */
	/* Op sockets: no send, read or imported state yet, the only kind
	 * afalg_import() fills (a clone of such a socket is one too). */
	bool fresh;
	uint32_t sndbuf;		/* sk_sndbuf as SO_SNDBUF set it; 0: the default */
	uint32_t key_gen;		/* transform sockets: bumped by each bind and key */
	bool keyed;			/* transform sockets: a key was set since the bind */
	struct ualg_budget *mem;	/* the owner's memory budget, or NULL; op sockets inherit it */
	void *ctx;			/* op sockets: type->ctxsize bytes */
	/* Op sockets: a transform of their own instead of the parent's (a
	 * hash moved in with a state of another driver, afalg_import_tfm),
	 * one reference held; accept() on the socket shares it. */
	struct ualg_tfm *own_tfm;
	void *tfm_priv;			/* transform sockets: the type's state (kpp) */
	/* Transform sockets: the host's requests of this tree running on
	 * another thread (algd's offload worker), which has the transform to
	 * itself meanwhile. */
	unsigned host_busy;
};

/* The mode of a transform socket or of an op socket's parent. */
static inline const struct afalg_mode *afalg_mode_of(const struct alg_sock *sk)
{
	return sk->connected ? sk->parent->mode : sk->mode;
}

/* The largest whole-buffer receive algd serves in one call: more than an
 * operation can produce from a full send buffer. */
#define AFALG_RECV_MAX (1u << 20)

static inline bool afalg_recv_whole(const struct alg_sock *sk)
{
	return sk->connected && sk->type->whole_buffer;
}

struct alg_sock *afalg_sock_new(void);
void afalg_sock_put(struct alg_sock *sk);

/* caller: who binds, for the per-algorithm policy (policy.h); NULL when
 * no rule could apply. */
int afalg_bind(struct alg_sock *sk, const char *type, uint32_t feat, uint32_t mask,
	       const char *name, const struct key_caller *caller);
/* A setsockopt value as the shim could (or could not) read it. */
struct afalg_optval {
	const uint8_t *data;
	size_t len;
	uint32_t optlen;
	bool too_big, fault;
	uint32_t keyref_err;	/* ALG_SET_KEY_BY_KEY_SERIAL: the lookup's errno */
	/* UALG_SET_KEY_BY_NAME: the transform socket's opener, whom the
	 * key's allow list must name (NULL: refused) */
	const struct key_caller *caller;
};

int afalg_setsockopt(struct alg_sock *sk, int level, int optname, const struct afalg_optval *v);
/* What every key option answers before its value is looked at. */
int afalg_opt_copy_in(const struct alg_sock *sk, const struct afalg_optval *v);
int afalg_accept(struct alg_sock *sk, struct alg_sock **out);
/* Both return AFALG_WAIT where the kernel would sleep; call again with the
 * same progress once the socket's state has changed. */
int afalg_send(struct alg_sock *sk, const struct afalg_send *s, struct afalg_progress *p);
int afalg_recv(struct alg_sock *sk, uint8_t *out, size_t len, bool dontwait, bool *trunc,
	       struct afalg_progress *p);
/* The poll mask sock_poll() would report. */
unsigned afalg_poll(const struct alg_sock *sk);
/* Whether sk's type says when a call would wait (alg_type.ready), and
 * what it says of one call: a send of len bytes or a receive into len. */
bool afalg_knows_ready(const struct alg_sock *sk);
bool afalg_ready(const struct alg_sock *sk, bool send, size_t len);

/* An op socket's state as one host hands it to another (the shim's
 * in-process engine to algd, at fork and execve): what its next call
 * continues from, never the key.  data is the queued input (skcipher,
 * aead) or the open hash's exported state. */
#define AFALG_STATE_INIT 0x1u	/* a request has begun (op, IV, assoclen set) */
#define AFALG_STATE_MORE 0x2u	/* MSG_MORE: the request goes on */
#define AFALG_STATE_ENC 0x4u
#define AFALG_STATE_RESULT 0x8u	/* hash: a digest not read yet */
#define AFALG_STATE_FLAGS_ALL 0xfu
struct afalg_state {
	uint32_t flags;		/* AFALG_STATE_* */
	uint32_t op, assoclen;
	uint8_t iv[UALG_MAX_IVSIZE];
	uint8_t result[UALG_MAX_DIGESTSIZE];
	uint8_t *data;		/* export: allocated, for afalg_state_free() */
	size_t len;
};
/* -EOPNOTSUPP when the socket's type cannot move. */
int afalg_export(const struct alg_sock *op, struct afalg_state *st);
/* Into a fresh op socket (else -EBUSY), once: parts (part = true) append
 * queued data, within the send buffer; the last call sets the rest.
 * Anything a host could not have produced is -EINVAL. */
int afalg_import(struct alg_sock *op, const struct afalg_state *st, bool part);
bool afalg_adoptable(const struct alg_sock *op);
void afalg_state_free(struct afalg_state *st);
/* Before afalg_import() of a hash: when the parent's driver cannot take
 * a state in, the op socket gets a transform of its own, of the driver
 * that made it (alg, which the host chose and checked; keyed with key),
 * of the same algorithm. */
int afalg_import_tfm(struct alg_sock *op, struct ualg_alg *alg, const uint8_t *key, size_t keylen);
bool afalg_movable(const struct alg_sock *op);

/* The op socket's transform (shared with its parent). */
static inline struct ualg_tfm *afalg_tfm(const struct alg_sock *op)
{
	return op->own_tfm ? op->own_tfm : op->parent->tfm;
}

/* ENOKEY until the parent's transform has a key; then the op socket
 * becomes a keyed child, as hash_check_key()/skcipher_check_key(). */
int afalg_check_key(struct alg_sock *op);
/* What an op socket's transform is, whoever serves it, as algd's ACCEPT
 * reply says (proto.h, struct ualg_engine_info): its flags but INPROC,
 * its key_gen and, for a hash whose message starts with key material,
 * what that must be; the rest zero. */
struct ualg_engine_info;
void afalg_engine_info(const struct alg_sock *op, struct ualg_engine_info *out);
/* afalg_send() of s, the whole of a sendmsg() made now, would succeed at
 * once (alg_type.send_ok; false where the type cannot say). */
bool afalg_send_ok(const struct alg_sock *op, const struct afalg_send *s);

/* The queue of sent data that skcipher and aead sockets share
 * (afalg_tx.c; the kernel's af_alg_ctx). */
struct afalg_tx {
	uint8_t *buf;		/* queued input: buf[head .. head + used) */
	size_t head, used, cap;
	bool more, init, enc;
	uint32_t op;		/* ALG_SET_OP's value */
	uint32_t ops;		/* the ALG_SET_OP values allowed, as bits; 0: decrypt, encrypt */
	uint32_t assoclen;
	uint8_t iv[UALG_MAX_IVSIZE];
	const uint32_t *sndbuf;	/* the op socket's sndbuf (SO_SNDBUF), or NULL */
	struct ualg_budget *mem;	/* buf's capacity is charged here, or NULL */
};

int afalg_tx_send(struct afalg_tx *tx, const struct afalg_send *s, struct afalg_progress *p,
		  unsigned ivsize);
const uint8_t *afalg_tx_data(const struct afalg_tx *tx);
void afalg_tx_pull(struct afalg_tx *tx, size_t len);
void afalg_tx_pull_all(struct afalg_tx *tx);
/* The queued request when it is complete (its last part came without
 * MSG_MORE); else -EAGAIN or AFALG_WAIT. */
int afalg_tx_whole(const struct afalg_tx *tx, bool dontwait, const uint8_t **data);
/* skcipher and aead op sockets: their context is the queue, and these
 * serve as their alg_type's accept, poll (af_alg_poll()) and release. */
static inline struct afalg_tx *afalg_tx_of(const struct alg_sock *op)
{
	return op->ctx;
}
int afalg_tx_accept(struct alg_sock *op, const struct alg_sock *from);
int afalg_tx_export(const struct alg_sock *op, struct afalg_state *st);
int afalg_tx_import(struct alg_sock *op, const struct afalg_state *st, bool part);
unsigned afalg_tx_poll(const struct alg_sock *op);
/* afalg_tx_send() of len bytes would not wait (alg_type.ready). */
bool afalg_tx_send_ready(const struct afalg_tx *tx, size_t len);
/* afalg_tx_send() of s, a whole sendmsg(), would succeed at once
 * (alg_type.send_ok). */
bool afalg_tx_send_ok(const struct afalg_tx *tx, const struct afalg_send *s, unsigned ivsize);
void afalg_tx_release(struct alg_sock *op);

/* One whole (de)compression into a buffer of its own (*out, *outlen
 * bytes, to free and uncharge from mem): -EBADMSG for an invalid stream,
 * -EFBIG for output past AFALG_COMP_OUT_MAX, which is also the most ever
 * allocated for it, -ENOMEM past mem's budget (mem NULL: none). */
#define AFALG_COMP_OUT_MAX (1u << 20)
int afalg_comp_bounded(struct ualg_tfm *tfm, bool compress, const uint8_t *src, size_t slen,
		       struct ualg_budget *mem, uint8_t **out, size_t *outlen);

extern const struct alg_type afalg_type_hash, afalg_type_skcipher, afalg_type_aead,
	afalg_type_rng, afalg_type_akcipher, afalg_type_kpp, afalg_type_comp;

#endif
