/* The control messages of an encrypting sendmsg() as the benchmarks make
 * it: ALG_SET_OP, ALG_SET_IV (ivlen bytes of iv, at most BENCH_IV_MAX) and,
 * for an AEAD (assoc), ALG_SET_AEAD_ASSOCLEN 0. */
#ifndef UALG_TOOLS_BENCH_CMSG_H
#define UALG_TOOLS_BENCH_CMSG_H

#include "kabi.h"

#include <linux/if_alg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#define BENCH_IV_MAX 64

union bench_cmsg {
	struct cmsghdr h;
	uint8_t b[CMSG_SPACE(4) + CMSG_SPACE(sizeof(struct af_alg_iv) + BENCH_IV_MAX) + CMSG_SPACE(4)];
};

static inline void bench_cmsg_fill(struct msghdr *m, union bench_cmsg *c, const uint8_t *iv,
				   size_t ivlen, bool assoc)
{
	memset(c, 0, sizeof(*c));
	m->msg_control = c->b;
	m->msg_controllen = CMSG_SPACE(4) + CMSG_SPACE(sizeof(struct af_alg_iv) + ivlen) +
			    (assoc ? CMSG_SPACE(4) : 0);
	struct cmsghdr *h = CMSG_FIRSTHDR(m);
	h->cmsg_level = KABI_SOL_ALG;
	h->cmsg_type = ALG_SET_OP;
	h->cmsg_len = CMSG_LEN(4);
	*(uint32_t *)CMSG_DATA(h) = ALG_OP_ENCRYPT;
	h = CMSG_NXTHDR(m, h);
	h->cmsg_level = KABI_SOL_ALG;
	h->cmsg_type = ALG_SET_IV;
	h->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + ivlen);
	struct af_alg_iv *ivp = (struct af_alg_iv *)CMSG_DATA(h);
	ivp->ivlen = (uint32_t)ivlen;
	if (iv)
		memcpy(ivp->iv, iv, ivlen);
	if (assoc) {
		h = CMSG_NXTHDR(m, h);
		h->cmsg_level = KABI_SOL_ALG;
		h->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
		h->cmsg_len = CMSG_LEN(4);
		*(uint32_t *)CMSG_DATA(h) = 0;
	}
}

#endif
