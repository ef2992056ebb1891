/* libFuzzer: NETLINK_CRYPTO requests as the shim parses them
 * (src/shim/netlink.c: netlink_rcv_skb()'s loop, crypto_user's checks,
 * crypto_policy's attribute parsing), straight from a hostile program.
 * netlink.c is included so that its static functions run as in the shim;
 * algd is replaced by answers drawn from the input.
 *
 * Input: [answers:8][requests...].  Each admin call takes the next answer
 * byte: an error, one record, a page of records, or an empty page.  Checked
 * on the way: every request the shim would send algd carries terminated
 * names (algd drops the connection otherwise) and no unknown flags, and
 * every datagram written back parses as a chain of netlink messages. */
#include "../../src/shim/netlink.c"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct real_fns real;
static const uint8_t *answers;
static size_t answers_left;
static unsigned dump_pages;

static int fake_close(int fd)
{
	(void)fd;
	return 0;
}

int client_connect(int type_flags)
{
	(void)type_flags;
	return 1000;	/* never used as an fd: ualg_admin_call is ours */
}

int copy_in(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
	return 0;
}

static void fill_rec(struct ualg_alg_rec *r, unsigned i)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "alg%u", i);
	snprintf(r->driver, sizeof(r->driver), "alg%u-driver", i);
	snprintf(r->module, sizeof(r->module), "kernel");
	r->type = i % 6;	/* every report kind, and one without a report */
	r->priority = (int32_t)(i * 100);
}

int ualg_admin_call(int sock, uint16_t type, const struct ualg_alg_req *q, void *out,
		    size_t outsize, size_t *outlen)
{
	(void)sock;
	if (!memchr(q->name, 0, sizeof(q->name)) || !memchr(q->driver, 0, sizeof(q->driver)) ||
	    (q->flags & ~UALG_ALG_REQ_FLAGS_ALL) || q->reserved)
		__builtin_trap();	/* algd would take this for a malformed frame */
	*outlen = 0;
	const uint8_t a = answers_left ? (answers_left--, *answers++) : 0xff;
	const size_t cap = outsize / sizeof(struct ualg_alg_rec);
	if (type == UALG_MSG_ALG_DUMP) {
		/* A page of 1..cap records, then the end; at most 4 pages. */
		if ((a & 3) == 3 || ++dump_pages > 4 || !cap)
			return 0;
		size_t n = 1 + a % cap;
		for (size_t i = 0; i < n; i++)
			fill_rec((struct ualg_alg_rec *)out + i, q->start + (unsigned)i);
		*outlen = n * sizeof(struct ualg_alg_rec);
		return (int)n;
	}
	static const int errs[] = { -ENOENT, -EPERM, -EEXIST, -EINVAL, -EBUSY, -EPROTO };
	if (a & 0x80)
		return errs[a % 6];
	if (type == UALG_MSG_ALG_GET) {
		if (!out || outsize < sizeof(struct ualg_alg_rec))
			__builtin_trap();
		fill_rec(out, a);
		*outlen = sizeof(struct ualg_alg_rec);
	}
	return 0;
}

/* What the program would read: datagrams of whole netlink messages. */
static void drain(int fd)
{
	static uint8_t buf[SKB_MAX + 1];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		size_t off = 0;
		while (off < (size_t)n) {
			struct nlmsghdr h;
			if ((size_t)n - off < sizeof(h))
				__builtin_trap();
			memcpy(&h, buf + off, sizeof(h));
			if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > (size_t)n - off)
				__builtin_trap();
			off += NLMSG_ALIGN(h.nlmsg_len);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int sv[2] = { -1, -1 };

	if (size < 8 || size > 8 + 4096)
		return -1;	/* the shim gathers at most 4096 bytes (do_send) */
	if (sv[0] < 0) {
		real.close = fake_close;
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
			__builtin_trap();
		int big = 4 << 20;
		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	}
	answers = data;
	answers_left = 8;
	dump_pages = 0;
	struct afd a = { .nl_peer = sv[0] };
	ssize_t r = netlink_send(&a, data + 8, size - 8);
	if (r != (ssize_t)(size - 8) && r != -ENOBUFS)
		__builtin_trap();	/* a request is taken whole, or the replies overflowed */
	drain(sv[1]);
	return 0;
}
