/* NETLINK_CRYPTO (crypto_user) for programs that query algorithms, such as
 * libkcapi.  The program's socket is one end of an AF_UNIX datagram pair;
 * requests sent on it are answered here, from algd, by writing the reply
 * into the other end, where the program's own recv() finds it.
 *
 * Emulated: bind, getsockname, and CRYPTO_MSG_GETALG of one algorithm with
 * crypto_user's match (crypto_alg_match(p, 0)), replying
 * with the report attributes of Linux 6.1 or an NLMSG_ERROR.  Other
 * messages (dumps, NEWALG, UPDATEALG, DELALG) get EOPNOTSUPP for now. */
#include "shim.h"

#include <errno.h>
#include <linux/cryptouser.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The type bits of cra_flags, and CRYPTO_ALG_TESTED. */
static const uint32_t type_flags[] = { 0x1, 0xe, 0x5, 0x3, 0xc };	/* cipher, shash, skcipher, aead, rng */
#define ALG_TESTED 0x400

struct nl_buf {
	uint8_t data[1024];
	size_t len;
};

static void put(struct nl_buf *b, const void *p, size_t n)
{
	memcpy(b->data + b->len, p, n);
	b->len += NLMSG_ALIGN(n);
}

static void put_attr(struct nl_buf *b, uint16_t type, const void *p, size_t n)
{
	struct nlattr a = { (uint16_t)(NLA_HDRLEN + n), type };

	memcpy(b->data + b->len, &a, sizeof(a));
	memcpy(b->data + b->len + NLA_HDRLEN, p, n);
	b->len += NLA_ALIGN(NLA_HDRLEN + n);
}

static void report(struct nl_buf *b, const struct ualg_alginfo *in)
{
	uint32_t prio = in->priority;

	put_attr(b, CRYPTOCFGA_PRIORITY_VAL, &prio, sizeof(prio));
	if (in->type == 1) {
		struct crypto_report_hash r = { .blocksize = in->blocksize, .digestsize = in->digestsize };
		strcpy(r.type, "shash");
		put_attr(b, CRYPTOCFGA_REPORT_HASH, &r, sizeof(r));
	} else if (in->type == 0) {
		struct crypto_report_cipher r = { .blocksize = in->blocksize,
			.min_keysize = in->min_keysize, .max_keysize = in->max_keysize };
		strcpy(r.type, "cipher");
		put_attr(b, CRYPTOCFGA_REPORT_CIPHER, &r, sizeof(r));
	} else if (in->type == 3) {
		struct crypto_report_aead r = { .blocksize = in->blocksize,
			.maxauthsize = in->digestsize, .ivsize = in->ivsize };
		strcpy(r.type, "aead");
		strcpy(r.geniv, "<none>");
		put_attr(b, CRYPTOCFGA_REPORT_AEAD, &r, sizeof(r));
	} else if (in->type == 4) {
		struct crypto_report_rng r = { .seedsize = in->digestsize };
		strcpy(r.type, "rng");
		put_attr(b, CRYPTOCFGA_REPORT_RNG, &r, sizeof(r));
	} else {
		struct crypto_report_blkcipher r = { .blocksize = in->blocksize,
			.min_keysize = in->min_keysize, .max_keysize = in->max_keysize,
			.ivsize = in->ivsize };
		strcpy(r.type, "skcipher");
		strcpy(r.geniv, "<none>");
		put_attr(b, CRYPTOCFGA_REPORT_BLKCIPHER, &r, sizeof(r));
	}
}

static int query(const char *name, const char *driver, struct ualg_alginfo *info)
{
	struct ualg_alginfo_req q;

	memset(&q, 0, sizeof(q));
	struct afd tmp = { .lock = PTHREAD_MUTEX_INITIALIZER };
	int fd = client_connect(0);

	if (fd < 0)
		return -ENOENT;
	memcpy(q.name, name, strnlen(name, sizeof(q.name) - 1));
	memcpy(q.driver, driver, strnlen(driver, sizeof(q.driver) - 1));
	struct iovec part = { &q, sizeof(q) }, out = { info, sizeof(*info) };
	struct xact x = { .type = UALG_MSG_ALGINFO, .parts = &part, .nparts = 1,
			  .rbody = &out, .nrbody = 1 };
	int r = client_xact(&tmp, fd, &x);
	real.close(fd);
	return r;
}

/* netlink_ack(): the error and the whole request, uncapped. */
static void error_reply(struct nl_buf *b, const struct nlmsghdr *req, int err)
{
	struct nlmsghdr h = { 0, NLMSG_ERROR, 0, req->nlmsg_seq, (uint32_t)getpid() };
	struct nlmsgerr e = { .error = err, .msg = *req };
	size_t extra = req->nlmsg_len > sizeof(*req) ? req->nlmsg_len - sizeof(*req) : 0;

	if (extra > sizeof(b->data) - 64)
		extra = 0;
	h.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + sizeof(e) + extra);
	put(b, &h, sizeof(h));
	memcpy(b->data + b->len, &e, sizeof(e));
	memcpy(b->data + b->len + sizeof(e), req + 1, extra);
	b->len += NLMSG_ALIGN(sizeof(e) + extra);
}

static void answer(const struct nlmsghdr *req, const uint8_t *msg, struct nl_buf *b)
{
	struct crypto_user_alg cru;
	struct ualg_alginfo info;

	if (req->nlmsg_type != CRYPTO_MSG_GETALG || (req->nlmsg_flags & NLM_F_DUMP)) {
		error_reply(b, req, -EOPNOTSUPP);
		return;
	}
	if (req->nlmsg_len < NLMSG_LENGTH(sizeof(cru))) {
		error_reply(b, req, -EINVAL);
		return;
	}
	memcpy(&cru, msg + NLMSG_HDRLEN, sizeof(cru));
	if (!memchr(cru.cru_name, 0, sizeof(cru.cru_name)) ||
	    !memchr(cru.cru_driver_name, 0, sizeof(cru.cru_driver_name))) {
		error_reply(b, req, -EINVAL);
		return;
	}
	if (query(cru.cru_name, cru.cru_driver_name, &info) < 0) {
		error_reply(b, req, -ENOENT);
		return;
	}
	size_t start = b->len;
	struct nlmsghdr h = { 0, CRYPTO_MSG_GETALG, 0, req->nlmsg_seq, (uint32_t)getpid() };
	put(b, &h, sizeof(h));
	memset(&cru, 0, sizeof(cru));
	memcpy(cru.cru_name, info.name, sizeof(cru.cru_name) - 1);
	memcpy(cru.cru_driver_name, info.driver, sizeof(cru.cru_driver_name) - 1);
	memcpy(cru.cru_module_name, info.module, sizeof(cru.cru_module_name) - 1);
	cru.cru_refcnt = info.refcnt;
	cru.cru_flags = (info.type < 5 ? type_flags[info.type] : 0) | (info.tested ? ALG_TESTED : 0);
	put(b, &cru, sizeof(cru));
	report(b, &info);
	struct nlmsghdr *out = (struct nlmsghdr *)(b->data + start);
	out->nlmsg_len = (uint32_t)(b->len - start);
	if (req->nlmsg_flags & NLM_F_ACK)
		error_reply(b, req, 0);
}

ssize_t netlink_send(struct afd *a, const void *data, size_t len)
{
	uint8_t *msg = malloc(len ? len : 1);
	struct nl_buf b = { .len = 0 };

	if (!msg)
		return -ENOMEM;
	if (copy_in(msg, data, len)) {
		free(msg);
		return -EFAULT;
	}
	/* Each complete netlink message gets its answer, as netlink_rcv_skb. */
	for (size_t off = 0; off + NLMSG_HDRLEN <= len;) {
		struct nlmsghdr h;
		memcpy(&h, msg + off, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len - off)
			break;
		if (h.nlmsg_flags & NLM_F_REQUEST) {
			b.len = 0;
			answer(&h, msg + off, &b);
			if (b.len && syscall(SYS_sendto, a->nl_peer, b.data, b.len, MSG_DONTWAIT, NULL, 0) < 0) {
				free(msg);
				return -ENOBUFS;
			}
		}
		off += NLMSG_ALIGN(h.nlmsg_len);
	}
	free(msg);
	return (ssize_t)len;
}
