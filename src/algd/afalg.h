/* AF_ALG socket semantics, as Linux 6.1's crypto/af_alg.c, algif_hash.c and
 * algif_skcipher.c, over the core crypto API.  Nothing here knows about
 * frames or file descriptors: server.c turns frames into these calls. */
#ifndef UALG_ALGD_AFALG_H
#define UALG_ALGD_AFALG_H

#include "crypto.h"
#include "keystore.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Returned by send/recv when the kernel would sleep: the caller answers
 * later, after another request changed the socket's state. */
#define AFALG_WAIT (-100000)	/* outside the errno range */

#ifndef ALG_SET_KEY_BY_KEY_SERIAL
#define ALG_SET_KEY_BY_KEY_SERIAL 7	/* <linux/if_alg.h> since Linux 6.2 */
#endif

/* The asymmetric interface of libkcapi's out-of-tree kernel patches
 * (libkcapi lib/internal.h); 7 is ALG_SET_KEY_BY_KEY_SERIAL everywhere but
 * on a kpp socket. */
#define ALG_SET_PUBKEY 6
#define ALG_SET_DH_PARAMETERS 7
#define ALG_SET_ECDH_CURVE 8
#define ALG_OP_SIGN 2
#define ALG_OP_VERIFY 3
#define ALG_OP_KEYGEN 4
#define ALG_OP_SSGEN 5

struct alg_sock;
struct afalg_optval;

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
	/* recv() must see the caller's whole buffer (an AEAD operation's
	 * extent depends on it), not frame-sized parts. */
	bool whole_buffer;
	/* send() only copies the data into the socket's own queue, reading
	 * each byte once: it may read straight from a client's shared
	 * payload area.  Other types get a private copy first. */
	bool send_copies;
	void (*release)(struct alg_sock *op);
	/* Options of the type's own on the transform socket (akcipher, kpp):
	 * returns AFALG_OPT_GENERIC for those af_alg.c handles. */
	int (*setsockopt)(struct alg_sock *sk, int optname, const struct afalg_optval *v);
};

#define AFALG_OPT_GENERIC (-100001)
struct rfc_tfm;

struct alg_sock {
	/* RFC mode (algif_rfc.c): set on an RFC transform socket; its op
	 * sockets are RFC ones (parent->rfc). */
	struct rfc_tfm *rfc;
	unsigned ref;			/* connection + accepted children */
	struct alg_sock *parent;	/* op sockets: the transform socket */
	const struct alg_type *type;
	struct ualg_tfm *tfm;		/* transform sockets: the bound tfm */
	unsigned children;		/* kernel's ask->refcnt */
	unsigned nokey_children;	/* kernel's ask->nokey_refcnt */
	bool connected;			/* an op socket */
	bool nokey;			/* accepted before a key was set */
	uint32_t sndbuf;		/* sk_sndbuf as SO_SNDBUF set it; 0: the default */
	void *ctx;			/* op sockets: type->ctxsize bytes */
	struct afalg_kpp_opts *kpp;	/* kpp transform sockets: algif_kpp.c */
};

void afalg_kpp_opts_free(struct afalg_kpp_opts *o);

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

/* The op socket's transform (shared with its parent). */
static inline struct ualg_tfm *afalg_tfm(const struct alg_sock *op)
{
	return op->parent->tfm;
}

/* UALG_SET_KEY_BY_NAME's key (keystore.h) if the caller may use it;
 * else NULL and *err as keystore_find() says. */
struct key;
struct key *afalg_named_key(const struct afalg_optval *v, int *err);

/* ENOKEY until the parent's transform has a key; then the op socket
 * becomes a keyed child, as hash_check_key()/skcipher_check_key(). */
int afalg_check_key(struct alg_sock *op);

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
unsigned afalg_tx_poll(const struct alg_sock *op);
void afalg_tx_release(struct alg_sock *op);

/* One whole (de)compression into a buffer of its own (*out, to free):
 * -EBADMSG for an invalid stream, -EFBIG for output past
 * AFALG_COMP_OUT_MAX, which is also the most ever allocated for it. */
#define AFALG_COMP_OUT_MAX (1u << 20)
int afalg_comp_bounded(struct ualg_tfm *tfm, bool compress, const uint8_t *src, size_t slen,
		       uint8_t **out, size_t *outlen);

extern const struct alg_type afalg_type_hash, afalg_type_skcipher, afalg_type_aead,
	afalg_type_rng, afalg_type_akcipher, afalg_type_kpp, afalg_type_comp;

/* RFC mode (algif_rfc.c, src/lib/ualg_rfc.h).  afalg_rfc_mode() makes an
 * unbound transform socket an RFC one; bind then finds its type with
 * afalg_rfc_find_type(), setsockopt and accept go to the functions below.
 * Writes and reads never wait: -EAGAIN, and the shim blocks. */
extern const struct alg_type afalg_type_rfc_hash, afalg_type_rfc_skcipher, afalg_type_rfc_aead,
	afalg_type_rfc_ad, afalg_type_rfc_comp;
int afalg_rfc_mode(struct alg_sock *sk);
int afalg_rfc_listen(struct alg_sock *sk);
int afalg_rfc_bound(struct alg_sock *sk);	/* after a bind: the new tfm has no key */
void afalg_rfc_free(struct rfc_tfm *t);
const struct alg_type *afalg_rfc_find_type(const char *name);
int afalg_rfc_setsockopt(struct alg_sock *sk, int level, int optname, const struct afalg_optval *v);
int afalg_rfc_accept_check(const struct alg_sock *sk);
/* Returns the bytes taken (write) or given (read), or -errno. */
int afalg_rfc_write(struct alg_sock *sk, const uint8_t *data, size_t len, bool more, bool oob);
int afalg_rfc_read(struct alg_sock *sk, uint8_t *out, size_t len);

#endif
