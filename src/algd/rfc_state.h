/* RFC mode's partial hash states: what a read after
 * send(MSG_MORE) returns and send(MSG_OOB) takes back.
 *
 * Blob, version 1 (UALG_RFC_STATE_VERSION):
 *   "UAHS" | version (1 byte) | 3 zero bytes | nonce (12) | ciphertext | tag (16)
 * sealed with AES-256-GCM under a key algd draws at its first use (never
 * stored, so a restart invalidates every state), the first 20 bytes as
 * associated data, the nonce a 32-bit random prefix and a 64-bit counter.
 * The plaintext (zero-padded to a 512-byte blob) is the driver name (NUL-padded to 128 bytes), the key's
 * fingerprint (32 bytes: HMAC-SHA256 under a second random secret of the
 * key, never the key itself), the state's length (4 bytes) and the driver's
 * exported state (crypto.h's export).  The state of a keyed hash is
 * key-equivalent (HMAC's inner state after ipad), hence the encryption as
 * well as the integrity. */
#ifndef UALG_ALGD_RFC_STATE_H
#define UALG_ALGD_RFC_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RFC_FP_LEN 32

/* The key's fingerprint (keyed false: the transform has no key). */
int rfc_state_fingerprint(const uint8_t *key, size_t len, bool keyed, uint8_t fp[RFC_FP_LEN]);
/* Seals n bytes of state into out (cap bytes); returns the blob's length
 * (always UALG_RFC_STATE_LEN: the plaintext is zero-padded, so the length
 * tells nothing of the algorithm) or -errno. */
int rfc_state_seal(const char *driver, const uint8_t fp[RFC_FP_LEN], const uint8_t *state,
		   size_t n, uint8_t *out, size_t cap);
/* Opens a blob into state (exactly statesize bytes): 0, -EINVAL for a
 * length other than UALG_RFC_STATE_LEN, -EBADMSG for anything that does not open or was
 * sealed for another driver, key or state size.  state is wiped on
 * failure. */
int rfc_state_open(const char *driver, const uint8_t fp[RFC_FP_LEN], const uint8_t *blob,
		   size_t n, uint8_t *state, size_t statesize);

#endif
