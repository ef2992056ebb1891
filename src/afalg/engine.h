/* The in-process engine: the AF_ALG socket layer and the core, as one
 * shared module (libualg-engine.so) that the shim loads on the first
 * in-process accept(), so that programs that never use AF_ALG never load
 * OpenSSL.  The module exports one symbol, UALG_ENGINE_SYMBOL, a struct
 * ualg_engine; everything else in it is hidden.
 *
 * The shim decides what runs here (algd's answer to UALG_MSG_ENGINE) and
 * serialises the calls on one transform socket and its op sockets; the
 * engine serialises what they share across trees (the registry). */
#ifndef UALG_ENGINE_H
#define UALG_ENGINE_H

#include "afalg.h"

#define UALG_ENGINE_SYMBOL "ualg_engine_v3"
#define UALG_ENGINE_FILE "libualg-engine.so"

struct ualg_engine {
	/* Registers the drivers, once per process; 0 or -errno. */
	int (*init)(void);
	/* A transform socket of type ("hash", "skcipher", "aead") bound to
	 * the driver algd resolved; NULL and *err (a positive errno) on failure. */
	struct alg_sock *(*bind)(const char *type, const char *driver, int *err);
	/* ALG_SET_KEY with the bytes the program gave; authsize as
	 * ALG_SET_AEAD_AUTHSIZE's optlen. */
	int (*setkey)(struct alg_sock *tfm, const uint8_t *key, size_t len);
	int (*setauthsize)(struct alg_sock *tfm, unsigned authsize);
	/* An option set on the transform socket now would be EBUSY: one of
	 * its op sockets has used the key (the kernel's refcnt against
	 * nokey_refcnt). */
	bool (*busy)(const struct alg_sock *tfm);
	int (*accept)(struct alg_sock *sk, struct alg_sock **op);
	/* What algd's ACCEPT reply says of such an op socket's transform
	 * (afalg_engine_info()). */
	void (*info)(const struct alg_sock *op, struct ualg_engine_info *out);
	/* Whether send() of s on such an op socket, fresh, would succeed at
	 * once (afalg_send_ok()). */
	bool (*send_ok)(const struct alg_sock *op, const struct afalg_send *s);
	int (*send)(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p);
	int (*recv)(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
		    struct afalg_progress *p);
	unsigned (*poll)(const struct alg_sock *op);
	bool (*whole_buffer)(const struct alg_sock *op);
	int (*export)(const struct alg_sock *op, struct afalg_state *st);
	void (*state_free)(struct afalg_state *st);
	/* Drops a socket (an op socket drops its hold on the transform). */
	void (*put)(struct alg_sock *sk);
};

#endif
