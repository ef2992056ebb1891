/* Algorithm administration: crypto_user's operations over the core
 * registry, for the shim's NETLINK_CRYPTO and for algctl. */
#ifndef UALG_ALGD_ADMIN_H
#define UALG_ALGD_ADMIN_H

#include "status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Serves one UALG_MSG_ALG_* request.  Reply data goes into out (up to
 * outsize, at least UALG_DATA_MAX) with its length in *outlen.  Returns
 * the reply's result (>= 0 or -errno), or ADMIN_BAD_FRAME. */
int admin_request(uint16_t type, const uint8_t *body, size_t len, bool privileged,
		  uint8_t *out, size_t outsize, size_t *outlen);

#endif
