/* NETLINK_CRYPTO (crypto_user) for programs that query or configure
 * algorithms, such as libkcapi.  The program's socket is one end of an
 * AF_UNIX datagram pair; requests sent on it are answered here, from algd,
 * by writing the replies into the other end, where the program's own
 * recv() finds them: one datagram per kernel skb.
 *
 * As Linux 6.1's netlink_rcv_skb() + crypto_user_rcv_msg(): every complete
 * message is handled in turn; GETALG (one, or NLM_F_DUMP: multipart
 * messages packed into datagrams of up to 64 KiB, then NLMSG_DONE alone),
 * UPDATEALG, NEWALG, DELALG; NLMSG_ERROR for failures and for NLM_F_ACK.
 * DELRNG checks the privilege only: algd keeps no default RNG to free.
 * GETSTAT answers ENOTSUPP as 6.1 does without CONFIG_CRYPTO_STATS.  Not
 * emulated: the NETLINK_EXT_ACK and NETLINK_CAP_ACK options. */
#include "shim.h"

#include <errno.h>
#include <linux/cryptouser.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ENOTSUPP_ 524		/* the kernel's internal ENOTSUPP */
#define SKB_MAX 65535		/* crypto_user's min_dump_alloc cap */
#define REPORT_MAX 512		/* one GETALG message, generously */

struct nl_buf {
	uint8_t data[SKB_MAX];
	size_t len;
	int peer;		/* where finished datagrams go */
	int err;		/* first failure to deliver */
};

static void flush(struct nl_buf *b)
{
	if (b->len && syscall(SYS_sendto, b->peer, b->data, b->len, MSG_DONTWAIT, NULL, 0) < 0 &&
	    !b->err)
		b->err = -ENOBUFS;
	b->len = 0;
}

static void *reserve(struct nl_buf *b, size_t n)
{
	void *p = b->data + b->len;

	memset(p, 0, NLMSG_ALIGN(n));
	b->len += NLMSG_ALIGN(n);
	return p;
}

static void put_attr(struct nl_buf *b, uint16_t type, const void *p, size_t n)
{
	struct nlattr a = { (uint16_t)(NLA_HDRLEN + n), type };
	uint8_t *dst = reserve(b, NLA_HDRLEN + n);

	memcpy(dst, &a, sizeof(a));
	memcpy(dst + NLA_HDRLEN, p, n);
}

static void put_hdr(struct nl_buf *b, const struct nlmsghdr *req, uint16_t type, uint16_t flags)
{
	struct nlmsghdr h = { 0, type, flags, req->nlmsg_seq, (uint32_t)getpid() };

	memcpy(reserve(b, sizeof(h)), &h, sizeof(h));
}

static void end_msg(struct nl_buf *b, size_t start)
{
	((struct nlmsghdr *)(b->data + start))->nlmsg_len = (uint32_t)(b->len - start);
}

/* strscpy(): truncates to the field, always terminated. */
static void strscpy_(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}
#define STRSCPY(dst, src) strscpy_((dst), sizeof(dst), (src))

/* crypto_report_one(): the type's report.  Core types 0-7 are cipher,
 * shash, skcipher, aead, rng, akcipher, kpp and scomp (enum ualg_alg_type). */
static void put_report(struct nl_buf *b, const struct ualg_alg_rec *r)
{
	uint32_t prio = (uint32_t)r->priority;

	put_attr(b, CRYPTOCFGA_PRIORITY_VAL, &prio, sizeof(prio));
	if (r->type == 0) {
		struct crypto_report_cipher c = { .blocksize = r->blocksize,
			.min_keysize = r->min_keysize, .max_keysize = r->max_keysize };
		STRSCPY(c.type, "cipher");
		put_attr(b, CRYPTOCFGA_REPORT_CIPHER, &c, sizeof(c));
	} else if (r->type == 1) {
		struct crypto_report_hash h = { .blocksize = r->blocksize, .digestsize = r->digestsize };
		STRSCPY(h.type, "shash");
		put_attr(b, CRYPTOCFGA_REPORT_HASH, &h, sizeof(h));
	} else if (r->type == 2) {
		struct crypto_report_blkcipher s = { .blocksize = r->blocksize,
			.min_keysize = r->min_keysize, .max_keysize = r->max_keysize,
			.ivsize = r->ivsize };
		STRSCPY(s.type, "skcipher");
		STRSCPY(s.geniv, "<none>");
		put_attr(b, CRYPTOCFGA_REPORT_BLKCIPHER, &s, sizeof(s));
	} else if (r->type == 3) {
		struct crypto_report_aead a = { .blocksize = r->blocksize,
			.maxauthsize = r->maxauthsize, .ivsize = r->ivsize };
		STRSCPY(a.type, "aead");
		STRSCPY(a.geniv, "<none>");
		put_attr(b, CRYPTOCFGA_REPORT_AEAD, &a, sizeof(a));
	} else if (r->type == 4) {
		struct crypto_report_rng g = { .seedsize = r->seedsize };
		STRSCPY(g.type, "rng");
		put_attr(b, CRYPTOCFGA_REPORT_RNG, &g, sizeof(g));
	} else if (r->type == 5) {
		struct crypto_report_akcipher k = { 0 };
		STRSCPY(k.type, "akcipher");
		put_attr(b, CRYPTOCFGA_REPORT_AKCIPHER, &k, sizeof(k));
	} else if (r->type == 6) {
		struct crypto_report_kpp k = { 0 };
		STRSCPY(k.type, "kpp");
		put_attr(b, CRYPTOCFGA_REPORT_KPP, &k, sizeof(k));
	} else if (r->type == 7) {
		struct crypto_report_comp k = { 0 };
		STRSCPY(k.type, "scomp");
		put_attr(b, CRYPTOCFGA_REPORT_COMPRESS, &k, sizeof(k));
	}
}

/* crypto_report_alg(); extra_ref: a single GETALG holds its match's
 * reference while reporting, a dump does not. */
static void put_alg(struct nl_buf *b, const struct nlmsghdr *req, const struct ualg_alg_rec *r,
		    uint16_t flags, unsigned extra_ref)
{
	struct crypto_user_alg cru;
	size_t start = b->len;

	put_hdr(b, req, CRYPTO_MSG_GETALG, flags);
	memset(&cru, 0, sizeof(cru));
	STRSCPY(cru.cru_name, r->name);
	STRSCPY(cru.cru_driver_name, r->driver);
	STRSCPY(cru.cru_module_name, r->module);
	cru.cru_flags = r->kflags;
	cru.cru_refcnt = r->refcnt + extra_ref;
	memcpy(reserve(b, sizeof(cru)), &cru, sizeof(cru));
	put_report(b, r);
	end_msg(b, start);
}

/* netlink_ack(): an error echoes the whole request (msg, of
 * req->nlmsg_len bytes); success only its header, marked NLM_F_CAPPED. */
static void put_ack(struct nl_buf *b, const struct nlmsghdr *req, const uint8_t *msg, int err)
{
	const size_t echo = err ? req->nlmsg_len : sizeof(*req);
	const size_t start = b->len;

	if (b->len + NLMSG_HDRLEN + sizeof(int) + NLMSG_ALIGN(echo) > sizeof(b->data))
		flush(b);
	if (NLMSG_HDRLEN + sizeof(int) + echo > sizeof(b->data))
		return;		/* cannot be: requests are bounded by the caller */
	put_hdr(b, req, NLMSG_ERROR, err ? 0 : NLM_F_CAPPED);
	uint8_t *p = reserve(b, sizeof(int) + echo);
	memcpy(p, &err, sizeof(int));
	memcpy(p + sizeof(int), msg, echo);
	end_msg(b, start);
}

static int call(int fd, uint16_t type, const struct ualg_alg_req *q, void *out, size_t outsize,
		size_t *outlen)
{
	return fd < 0 ? -ENOENT : ualg_admin_call(fd, type, q, out, outsize, outlen);
}

/* crypto_dump_report() under netlink_dump(): as many messages as fit in
 * each datagram, then NLMSG_DONE in a datagram of its own. */
static void dump(struct nl_buf *b, int fd, const struct nlmsghdr *req)
{
	const size_t cap = UALG_DATA_MAX / sizeof(struct ualg_alg_rec);
	struct ualg_alg_rec *recs = malloc(cap * sizeof(*recs));
	struct ualg_alg_req q = { .start = 0 };
	size_t got;
	int n;

	/* Without memory, or algd, the dump is empty, as the kernel's ends
	 * early when it cannot allocate. */
	while (recs && (n = call(fd, UALG_MSG_ALG_DUMP, &q, recs, cap * sizeof(*recs), &got)) > 0) {
		for (int i = 0; i < n; i++) {
			if (b->len + REPORT_MAX > sizeof(b->data))
				flush(b);
			put_alg(b, req, &recs[i], NLM_F_MULTI, 0);
		}
		q.start += (uint32_t)n;
	}
	free(recs);
	flush(b);
	const size_t start = b->len;
	const int done = 0;
	put_hdr(b, req, NLMSG_DONE, NLM_F_MULTI);
	memcpy(reserve(b, sizeof(done)), &done, sizeof(done));
	end_msg(b, start);
}

/* nlmsg_parse_deprecated() with crypto_policy: CRYPTOCFGA_PRIORITY_VAL is
 * a u32 (shorter: ERANGE); other and unknown types, and a malformed tail,
 * are ignored.  Returns 0 or -ERANGE. */
static int parse_priority(const uint8_t *p, size_t rem, bool *has, uint32_t *prio)
{
	*has = false;
	while (rem >= NLA_HDRLEN) {
		struct nlattr a;
		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > rem)
			break;
		if ((a.nla_type & NLA_TYPE_MASK) == CRYPTOCFGA_PRIORITY_VAL) {
			if (a.nla_len < NLA_HDRLEN + sizeof(*prio))
				return -ERANGE;
			memcpy(prio, p + NLA_HDRLEN, sizeof(*prio));
			*has = true;
		}
		size_t step = NLA_ALIGN(a.nla_len);
		if (step >= rem)
			break;
		p += step;
		rem -= step;
	}
	return 0;
}

static bool terminated(const char *s, size_t n)
{
	return memchr(s, 0, n) != NULL;
}

/* crypto_user_rcv_msg() and the doit handlers: returns the error to ack. */
static int handle(struct nl_buf *b, int fd, const struct nlmsghdr *req, const uint8_t *msg)
{
	struct crypto_user_alg cru;
	struct ualg_alg_req q;
	struct ualg_alg_rec rec;
	size_t got;
	uint16_t type = req->nlmsg_type;

	if (type > CRYPTO_MSG_MAX)
		return -EINVAL;
	if (type == CRYPTO_MSG_GETALG && (req->nlmsg_flags & NLM_F_DUMP)) {
		dump(b, fd, req);
		return -EINTR;	/* a dump is never acked */
	}
	memset(&q, 0, sizeof(q));
	if (type == CRYPTO_MSG_DELRNG)
		return call(fd, UALG_MSG_ALG_CHECK_ADMIN, &q, NULL, 0, &got);
	if (req->nlmsg_len < NLMSG_LENGTH(sizeof(cru)))
		return -EINVAL;
	memcpy(&cru, msg + NLMSG_HDRLEN, sizeof(cru));
	bool has_prio;
	uint32_t prio = 0;
	int r = parse_priority(msg + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(cru)),
			       req->nlmsg_len - NLMSG_HDRLEN - NLMSG_ALIGN(sizeof(cru)), &has_prio, &prio);
	if (r)
		return r;
	if (type == CRYPTO_MSG_GETSTAT)
		return -ENOTSUPP_;

	const bool names_ok = terminated(cru.cru_name, sizeof(cru.cru_name)) &&
			      terminated(cru.cru_driver_name, sizeof(cru.cru_driver_name));
	if (names_ok) {
		STRSCPY(q.name, cru.cru_name);
		STRSCPY(q.driver, cru.cru_driver_name);
	}
	q.type = cru.cru_type;
	q.mask = cru.cru_mask;
	q.priority = prio;
	q.flags = has_prio ? UALG_ALG_REQ_PRIORITY : 0;

	if (type == CRYPTO_MSG_GETALG) {
		if (!names_ok)
			return -EINVAL;
		r = call(fd, UALG_MSG_ALG_GET, &q, &rec, sizeof(rec), &got);
		if (r)
			return r == -EPROTO ? -ENOENT : r;
		put_alg(b, req, &rec, 0, 1);
		return 0;
	}
	const uint16_t op = type == CRYPTO_MSG_NEWALG ? UALG_MSG_ALG_NEW :
			    type == CRYPTO_MSG_DELALG ? UALG_MSG_ALG_DEL : UALG_MSG_ALG_UPDATE;
	if (!names_ok) {
		/* The kernel checks the privilege first. */
		r = call(fd, UALG_MSG_ALG_CHECK_ADMIN, &q, NULL, 0, &got);
		return r ? r : -EINVAL;
	}
	if (op == UALG_MSG_ALG_UPDATE || op == UALG_MSG_ALG_DEL)
		q.flags |= UALG_ALG_REQ_EXACT;
	return call(fd, op, &q, NULL, 0, &got);
}

ssize_t netlink_send(struct afd *a, const void *data, size_t len)
{
	uint8_t *msg = malloc(len ? len : 1);
	struct nl_buf *b = malloc(sizeof(*b));
	int fd = -1;

	if (!msg || !b) {
		free(msg);
		free(b);
		return -ENOMEM;
	}
	b->len = 0;
	b->peer = a->nl_peer;
	b->err = 0;
	if (copy_in(msg, data, len)) {
		free(msg);
		free(b);
		return -EFAULT;
	}
	/* Each complete netlink message gets its answer, as netlink_rcv_skb:
	 * a truncated one ends the batch silently. */
	for (size_t off = 0; off + NLMSG_HDRLEN <= len;) {
		struct nlmsghdr h;
		memcpy(&h, msg + off, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len - off)
			break;
		int err = 0;
		if ((h.nlmsg_flags & NLM_F_REQUEST) && h.nlmsg_type >= NLMSG_MIN_TYPE) {
			if (fd < 0)
				fd = client_connect(SOCK_CLOEXEC);
			err = handle(b, fd, &h, msg + off);
			flush(b);	/* a reply and its ack are two skbs */
		}
		if (err != -EINTR && (err || (h.nlmsg_flags & NLM_F_ACK)))
			put_ack(b, &h, msg + off, err);
		flush(b);
		off += NLMSG_ALIGN(h.nlmsg_len);
	}
	if (fd >= 0)
		real.close(fd);
	int err = b->err;
	free(msg);
	free(b);
	return err ? err : (ssize_t)len;
}
