/* algd's side of the AF_ALG socket layer (src/afalg): the host hooks that
 * bring in its per-user policy and named keys, and RFC mode
 * (algif_rfc.c, src/lib/ualg_rfc.h), a socket family of algd's own. */
#ifndef UALG_ALGD_AFALG_H
#define UALG_ALGD_AFALG_H

#include "afalg.h"

/* Installs algd's host (policy.h, keystore.h) into the layer. */
void algd_afalg_host_init(void);

/* UALG_SET_KEY_BY_NAME's key (keystore.h) if the caller may use it;
 * else NULL and *err (a positive errno) as keystore_find() says, or
 * EACCES when the socket has no caller. */
struct key;
struct key *afalg_named_key(const struct afalg_optval *v, int *err);

/* RFC mode.  afalg_rfc_mode() makes an unbound transform socket an RFC one
 * (struct afalg_mode); writes and reads never wait: -EAGAIN, and the shim
 * blocks. */
extern const struct alg_type afalg_type_rfc_hash, afalg_type_rfc_skcipher, afalg_type_rfc_aead,
	afalg_type_rfc_ad, afalg_type_rfc_comp;
int afalg_rfc_mode(struct alg_sock *sk);
int afalg_rfc_listen(struct alg_sock *sk);
bool afalg_is_rfc(const struct alg_sock *sk);	/* an RFC transform socket or its op */
const struct alg_type *afalg_rfc_find_type(const char *name);
/* Returns the bytes taken (write) or given (read), or -errno. */
int afalg_rfc_write(struct alg_sock *sk, const uint8_t *data, size_t len, bool more, bool oob);
int afalg_rfc_read(struct alg_sock *sk, uint8_t *out, size_t len);

#endif
