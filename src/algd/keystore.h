/* Named keys: an administrator stores a key in algd under a name, and
 * clients key their transforms with it by name without ever reading it
 * (UALG_SET_KEY_BY_NAME, libualg's ualg_ring_setkey_named()). */
#ifndef UALG_ALGD_KEYSTORE_H
#define UALG_ALGD_KEYSTORE_H

#include "crypto.h"
#include "status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KEYSTORE_MAX_KEYS 256

/* Who is asking: SO_PEERCRED and SO_PEERGROUPS of the client that opened
 * the connection tree (taken at the listener's accept). */
struct key_caller {
	uid_t uid;
	gid_t gid;
	size_t ngroups;
	gid_t groups[64];
};

/* The peer of connection fd; -errno when the kernel will not say. */
int keystore_caller(int fd, struct key_caller *who);

/* The user whose private algd this is (algd started by that user, no
 * --user), or (uid_t)-1: it may use a key with an empty allow list.  An
 * algd started as root and dropped to --user gives its uid no right. */
void keystore_set_self(uid_t uid);

/* Serves one UALG_MSG_KEY_* request; admin: the connection may add and
 * delete.  Reply data into out (outsize bytes, at least UALG_DATA_MAX),
 * its length in *outlen.  Returns the reply's result (>= 0 or -errno), or
 * KEYSTORE_BAD_FRAME. */
int keystore_request(uint16_t type, const uint8_t *body, size_t len, bool admin,
		     uint8_t *out, size_t outsize, size_t *outlen);

struct key;

/* The key called name (len bytes, no NUL) if who may use it; else NULL
 * with *err (a positive errno, status.h) EINVAL for a name that does not
 * parse, ENOKEY when there is none, EACCES when who is not on its allow
 * list.  Valid until the next request. */
struct key *keystore_find(const char *name, size_t len, const struct key_caller *who, int *err);

/* Calls use(ctx, bytes, len) with k's bytes, which go nowhere else, and
 * counts a use when it returns 0 (RFC mode's setkey also fingerprints
 * them).  Returns what use returned. */
int keystore_use(struct key *k, int (*use)(void *ctx, const uint8_t *key, size_t len), void *ctx);

/* Keys tfm with k's bytes exactly as setkey with them would (its errno for
 * a length the algorithm refuses).  The transform keeps its own copy:
 * deleting the key later leaves it keyed, as a kernel transform keeps its
 * key when the keyring key it came from is revoked. */
int keystore_setkey(struct ualg_tfm *tfm, struct key *k);

/* Forgets every key, wiping it (algd's exit, tests). */
void keystore_clear(void);

#endif
