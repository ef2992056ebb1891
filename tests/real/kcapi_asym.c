/* The calls libkcapi's asymmetric API makes (lib/kcapi-asym.c,
 * lib/kcapi-kpp.c, lib/kcapi-kernel-if.c), made directly: Debian's
 * libkcapi is built without kcapi_akcipher_*() and kcapi_kpp_*().  Each
 * mode does what one kcapi call does, with the constants of libkcapi's
 * lib/internal.h, and writes the output to stdout; a failure exits with
 * the errno (EBADMSG: 74).  Run under ualg-run by tests/real/asym.py.
 *
 *   kcapi-asym akcipher ALG OP KEYTYPE KEYFILE INFILE
 *       OP: encrypt decrypt sign verify; KEYTYPE: priv (ALG_SET_KEY) or
 *       pub (ALG_SET_PUBKEY); prints the size setkey answered to stderr.
 *   kcapi-asym dh ALG PARAMS.der PRIV [PEERPUB]     (kcapi_kpp_dh_setparam_pkcs3)
 *   kcapi-asym ecdh ALG CURVE_ID PRIV [PEERPUB]     (kcapi_kpp_ecdh_setcurve)
 *       PRIV "-": an empty key (generated); without PEERPUB the public key
 *       (kcapi_kpp_keygen), with it the shared secret (kcapi_kpp_ssgen);
 *       a generated key with PEERPUB: the public key, then the secret.
 *   kcapi-asym serial ALG SERIAL     ALG_SET_KEY_BY_KEY_SERIAL (7) on an
 *       akcipher socket, four bytes; exits with its errno (0: accepted).
 * The options go by the numbers of libkcapi's kernel patches
 * (ALG_SET_PUBKEY 6, ALG_SET_DH_PARAMETERS 7, ALG_SET_ECDH_CURVE 8), or,
 * with KCAPI_ASYM_NUMBERS=libkcapi in the environment, by those of
 * libkcapi 1.4's lib/internal.h (7, 8 and 9), which Debian 12's libkcapi
 * sends.
 */
#include <errno.h>
#include <linux/if_alg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef SOL_ALG
#define SOL_ALG 279
#endif
/* libkcapi's kernel patches; libkcapi 1.4 adds one to each (numbers()) */
static int ALG_SET_PUBKEY = 6;
static int ALG_SET_DH_PARAMETERS = 7;
static int ALG_SET_ECDH_CURVE = 8;
#define ALG_OP_SIGN 2
#define ALG_OP_VERIFY 3
#define ALG_OP_KEYGEN 4
#define ALG_OP_SSGEN 5

static int die(const char *what)
{
	int e = errno;
	fprintf(stderr, "%s: %s\n", what, strerror(e));
	exit(e ? e : 1);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	static uint8_t none[1];
	if (!f)
		die(path);
	uint8_t *buf = malloc(1 << 16);
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return *len ? buf : none;
}

/* _kcapi_handle_init(): socket, bind, and the op socket accepted at once. */
static int handle_init(const char *type, const char *name, int *opfd)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	int tfmfd = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (tfmfd < 0)
		die("socket");
	if (bind(tfmfd, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind");
	*opfd = accept(tfmfd, NULL, 0);
	if (*opfd < 0)
		die("accept");
	return tfmfd;
}

/* _kcapi_common_setkey() and the others: setsockopt's answer, >= 0. */
static int setopt(int tfmfd, int optname, const void *val, size_t len, const char *what)
{
	int r = setsockopt(tfmfd, SOL_ALG, optname, val, (socklen_t)len);
	if (r < 0)
		die(what);
	return r;
}

/* _kcapi_cipher_crypt() by sendmsg: the operation in a cmsg with the
 * data, then one read of the output. */
static void one_op(int opfd, uint32_t op, const uint8_t *in, size_t inlen)
{
	char cbuf[CMSG_SPACE(sizeof(uint32_t))] = { 0 };
	struct iovec iov = { (void *)in, inlen };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	memcpy(CMSG_DATA(c), &op, sizeof(op));
	if (sendmsg(opfd, &msg, 0) != (ssize_t)inlen)
		die("sendmsg");
	uint8_t out[4096];
	ssize_t n = read(opfd, out, sizeof(out));
	if (n < 0)
		die("read");
	fwrite(out, 1, (size_t)n, stdout);
}

static uint32_t akcipher_op(const char *s)
{
	if (!strcmp(s, "encrypt")) return ALG_OP_ENCRYPT;
	if (!strcmp(s, "decrypt")) return ALG_OP_DECRYPT;
	if (!strcmp(s, "sign")) return ALG_OP_SIGN;
	if (!strcmp(s, "verify")) return ALG_OP_VERIFY;
	fprintf(stderr, "bad op %s\n", s);
	exit(1);
}

static int do_akcipher(char **argv)
{
	int opfd, tfmfd = handle_init("akcipher", argv[0], &opfd);
	size_t klen, inlen;
	uint8_t *key = slurp(argv[3], &klen), *in = slurp(argv[4], &inlen);
	const bool priv = !strcmp(argv[2], "priv");
	int size = setopt(tfmfd, priv ? ALG_SET_KEY : ALG_SET_PUBKEY, key, klen,
			  priv ? "setkey" : "setpubkey");
	fprintf(stderr, "maxsize %d\n", size);
	one_op(opfd, akcipher_op(argv[1]), in, inlen);
	return 0;
}

/* kcapi_kpp_ecdh_setcurve(): the id as a string in an unsigned long's room. */
static void set_curve(int tfmfd, unsigned long id)
{
	char s[sizeof(unsigned long)];
	snprintf(s, sizeof(s), "%lu", id);
	setopt(tfmfd, ALG_SET_ECDH_CURVE, s, sizeof(s), "setcurve");
}

static int do_kpp(bool dh, char **argv, int argc)
{
	int opfd, tfmfd = handle_init("kpp", argv[0], &opfd);
	size_t len = 0;

	if (dh) {
		uint8_t *p = slurp(argv[1], &len);
		fprintf(stderr, "params %d\n", setopt(tfmfd, ALG_SET_DH_PARAMETERS, p, len, "setparam"));
	} else {
		set_curve(tfmfd, strtoul(argv[1], NULL, 0));
	}
	uint8_t *key = NULL;
	len = 0;
	if (strcmp(argv[2], "-"))
		key = slurp(argv[2], &len);
	fprintf(stderr, "maxsize %d\n", setopt(tfmfd, ALG_SET_KEY, key, len, "setkey"));
	if (argc < 4 || !key)
		one_op(opfd, ALG_OP_KEYGEN, NULL, 0);
	if (argc < 4)
		return 0;
	uint8_t *peer = slurp(argv[3], &len);
	one_op(opfd, ALG_OP_SSGEN, peer, len);
	return 0;
}

static int do_serial(char **argv)
{
	int opfd, tfmfd = handle_init("akcipher", argv[0], &opfd);
	int32_t serial = (int32_t)strtol(argv[1], NULL, 0);

	if (setsockopt(tfmfd, SOL_ALG, 7, &serial, sizeof(serial)) < 0)
		return errno;
	return 0;
}

static void numbers(void)
{
	const char *n = getenv("KCAPI_ASYM_NUMBERS");

	if (n && !strcmp(n, "libkcapi")) {
		ALG_SET_PUBKEY = 7;
		ALG_SET_DH_PARAMETERS = 8;
		ALG_SET_ECDH_CURVE = 9;
	}
}

int main(int argc, char **argv)
{
	numbers();
	if (argc >= 4 && !strcmp(argv[1], "serial"))
		return do_serial(argv + 2);
	if (argc >= 7 && !strcmp(argv[1], "akcipher"))
		return do_akcipher(argv + 2);
	if (argc >= 5 && (!strcmp(argv[1], "dh") || !strcmp(argv[1], "ecdh")))
		return do_kpp(!strcmp(argv[1], "dh"), argv + 2, argc - 2);
	fprintf(stderr, "usage: see the comment at the top of tests/real/kcapi_asym.c\n");
	return 1;
}
