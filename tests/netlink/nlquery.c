/* A netlink client in C, as libkcapi and other C programs talk to
 * crypto_user: GETALG of each name given, then a dump.  Prints every reply
 * datagram for nlclient.py check-raw to decode and compare with the golden
 * file:  "STEP <step>\t<seq>\t<portid>" then "DGRAM <hex>" lines.
 * usage: nlquery NAME... */
#include <errno.h>
#include <linux/cryptouser.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static unsigned char buf[1 << 17];

static void print_dgram(size_t n)
{
	fputs("DGRAM ", stdout);
	for (size_t i = 0; i < n; i++)
		printf("%02x", buf[i]);
	putchar('\n');
}

/* Receives until the reply of seq is complete: one message for GETALG,
 * NLMSG_DONE or NLMSG_ERROR for a dump. */
static int collect(int fd, int dump)
{
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			perror("nlquery: recv");
			return -1;
		}
		print_dgram((size_t)n);
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		int last_type = 0;
		for (size_t left = (size_t)n; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left))
			last_type = h->nlmsg_type;
		if (!dump || last_type == NLMSG_DONE || last_type == NLMSG_ERROR)
			return 0;
	}
}

static int ask(int fd, unsigned seq, const char *name, int dump)
{
	struct {
		struct nlmsghdr h;
		struct crypto_user_alg cru;
	} req;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = CRYPTO_MSG_GETALG;
	req.h.nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : 0);
	req.h.nlmsg_seq = seq;
	if (name)
		snprintf(req.cru.cru_name, sizeof(req.cru.cru_name), "%s", name);
	if (send(fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req)) {
		perror("nlquery: send");
		return -1;
	}
	return collect(fd, dump);
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_CRYPTO);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		perror("nlquery: NETLINK_CRYPTO socket");
		return 1;
	}
	for (int i = 1; i <= argc; i++) {
		const int dump = i == argc;
		printf("STEP %s%s\t%d\t%u\n", dump ? "dump" : "getalg ", dump ? "" : argv[i], i,
		       sa.nl_pid);
		if (ask(fd, (unsigned)i, dump ? NULL : argv[i], dump))
			return 1;
	}
	close(fd);
	return 0;
}
