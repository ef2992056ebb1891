/* The in-process engine's control plane in algd (engine_ctl.c). */
#ifndef UALG_ALGD_ENGINE_CTL_H
#define UALG_ALGD_ENGINE_CTL_H

#include "afalg.h"
#include "keystore.h"
#include "proto.h"

#include <stdbool.h>

/* UALG_MSG_ENGINE's answer for an op socket (always 0). */
int engine_ctl_info(const struct alg_sock *op, struct ualg_engine_info *out);
/* UALG_MSG_ADOPT from who: the result, or -1 for a malformed frame.  Only
 * on an op socket nothing has used (EBUSY), that ENGINE would let the
 * program serve (EACCES), with the driver ENGINE names (EINVAL). */
int engine_ctl_adopt(struct alg_sock *op, const struct key_caller *who, const uint8_t *body,
		     size_t len);

#endif
