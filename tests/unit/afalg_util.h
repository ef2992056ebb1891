/* What the C test programs share to talk AF_ALG as a plain program does:
 * an op socket in three calls, and a sendmsg() that carries the operation
 * and the IV as control messages. */
#ifndef UALG_TESTS_AFALG_UTIL_H
#define UALG_TESTS_AFALG_UTIL_H

#include <linux/if_alg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

/* An op socket of type and name, keyed when key is given; -1 on failure.
 * *tfm (if given) receives the transform socket, else it is closed. */
static inline int afalg_op_socket(const char *type, const char *name, const void *key, size_t keylen,
				  int *tfm)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	int t = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (t < 0 || bind(t, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (key && setsockopt(t, SOL_ALG, ALG_SET_KEY, key, (socklen_t)keylen))) {
		if (t >= 0)
			close(t);
		return -1;
	}
	int op = accept(t, NULL, NULL);
	if (tfm)
		*tfm = t;
	else
		close(t);
	return op;
}

/* sendmsg() of data with ALG_SET_OP op and ALG_SET_IV iv (ivlen <= 16). */
static inline ssize_t afalg_send_op(int fd, uint32_t op, const uint8_t *iv, size_t ivlen,
				    const void *data, size_t len, int flags)
{
	union {
		char buf[CMSG_SPACE(4) + CMSG_SPACE(sizeof(struct af_alg_iv) + 16)];
		struct cmsghdr align;
	} c;
	memset(&c, 0, sizeof(c));
	struct iovec io = { (void *)data, len };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = c.buf,
			    .msg_controllen = CMSG_SPACE(4) + CMSG_SPACE(sizeof(struct af_alg_iv) + ivlen) };
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_ALG;
	h->cmsg_type = ALG_SET_OP;
	h->cmsg_len = CMSG_LEN(4);
	memcpy(CMSG_DATA(h), &op, 4);
	h = CMSG_NXTHDR(&m, h);
	h->cmsg_level = SOL_ALG;
	h->cmsg_type = ALG_SET_IV;
	h->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + ivlen);
	struct af_alg_iv *v = (struct af_alg_iv *)CMSG_DATA(h);
	v->ivlen = (uint32_t)ivlen;
	memcpy(v->iv, iv, ivlen);
	return sendmsg(fd, &m, flags);
}

#endif
