/* A statically linked AF_ALG client (built with musl-gcc -static): musl's
 * socket(), bind(), sendmsg()... are raw system calls, out of LD_PRELOAD's
 * reach, so only `ualg-run --supervise` can serve it.
 *
 *   static_afalg            hashes and encrypts, checks standard vectors:
 *                           prints "ok - ..." lines and "N passed, N failed"
 *   static_afalg probe      exit 0 if ualg serves it (a driver name only
 *                           ualg has binds), 3 if not
 *   static_afalg devnull N  N one-byte writes to /dev/null, then one
 *                           sha256: exactly 5 calls for the supervisor
 *   static_afalg bench N    ns per one-byte write(2) to /dev/null
 *   static_afalg hashbench N  us per sha256 of 64 bytes (write + read on
 *                           one op socket)
 *   static_afalg ioctls     ioctl() on a transform and an op socket: one
 *                           line per call with its result and errno number
 *                           (tests/supervise/run.sh compares the shim's
 *                           answers, the supervisor's and Linux 6.1's)
 *
 * Vectors: FIPS 180-2 B.1 (sha256 "abc"), RFC 4231 4.2 (hmac(sha256) case
 * 1), RFC 3602 case 2 (cbc(aes), two blocks), McGrew-Viega GCM test cases
 * 2 and 4 (gcm(aes), the latter with associated data). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* musl: splice() */
#endif
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* <linux/if_alg.h>, which musl's headers lack. */
#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef SOL_ALG
#define SOL_ALG 279
#endif
#define ALG_SET_KEY 1
#define ALG_SET_IV 2
#define ALG_SET_OP 3
#define ALG_SET_AEAD_ASSOCLEN 4
#define ALG_SET_AEAD_AUTHSIZE 5
#define ALG_OP_DECRYPT 0
#define ALG_OP_ENCRYPT 1
struct sockaddr_alg {
	uint16_t salg_family;
	uint8_t salg_type[14];
	uint32_t salg_feat, salg_mask;
	uint8_t salg_name[64];
};
struct af_alg_iv {
	uint32_t ivlen;
	uint8_t iv[];
};

static int passed, failed;

static void check(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	if (ok)
		passed++;
	else
		failed++;
}

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = 0;
	for (; h[0] && h[1]; h += 2)
		out[n++] = (uint8_t)((h[0] % 32 + 9) % 25 * 16 + (h[1] % 32 + 9) % 25);
	return n;
}

static int same_hex(const uint8_t *got, size_t n, const char *want)
{
	uint8_t w[256];
	return unhex(want, w) == n && !memcmp(got, w, n);
}

/* A transform socket bound to type/name, with an optional key; -1 on error. */
static int tfm(const char *type, const char *name, const uint8_t *key, size_t klen)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	strncpy((char *)sa.salg_type, type, sizeof(sa.salg_type) - 1);
	strncpy((char *)sa.salg_name, name, sizeof(sa.salg_name) - 1);
	int fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (key && setsockopt(fd, SOL_ALG, ALG_SET_KEY, key, (socklen_t)klen))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* digest of msg through tfm fd; returns its length or -1. */
static ssize_t digest(int t, const void *msg, size_t len, uint8_t *out, size_t cap)
{
	int op = accept(t, NULL, 0);
	if (op < 0)
		return -1;
	ssize_t r = write(op, msg, len) == (ssize_t)len ? read(op, out, cap) : -1;
	close(op);
	return r;
}

static void test_hashes(void)
{
	uint8_t md[64], key[20];
	int t = tfm("hash", "sha256", NULL, 0);
	check(t >= 0 && digest(t, "abc", 3, md, sizeof(md)) == 32 &&
		      same_hex(md, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	      "sha256(\"abc\"), FIPS 180-2 B.1");
	/* The same op socket used twice, through a dup in the range, and a
	 * message split over two writes (MSG_MORE). */
	int op = t >= 0 ? accept(t, NULL, 0) : -1;
	int d = op >= 0 ? fcntl(op, F_DUPFD_CLOEXEC, 0) : -1;
	struct iovec v[2] = { { "a", 1 }, { "bc", 2 } };
	int ok = d >= 0 && d != op && send(op, "ab", 2, MSG_MORE) == 2 && send(d, "c", 1, 0) == 1 &&
		 readv(d, v, 0) == 0 && recv(op, md, sizeof(md), 0) == 32 &&
		 same_hex(md, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check(ok, "sha256 over send(MSG_MORE) on an fd and its fcntl(F_DUPFD_CLOEXEC) dup");
	/* splice from a pipe of the target's into the op socket. */
	int pp[2];
	ok = op >= 0 && !pipe(pp) && write(pp[1], "abc", 3) == 3 && splice(pp[0], NULL, op, NULL, 3, 0) == 3 &&
	     read(op, md, sizeof(md)) == 32 &&
	     same_hex(md, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check(ok, "sha256 of \"abc\" spliced from a pipe");
	/* A forked child hashes on the op socket it inherited. */
	pid_t pid = op >= 0 ? fork() : -1;
	if (pid == 0) {
		uint8_t m[32];
		_exit(!(writev(op, v, 2) == 3 && read(op, m, 32) == 32 &&
			same_hex(m, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")));
	}
	int st = 1;
	check(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "sha256 in a forked child on the inherited op socket (writev)");
	close(d);
	close(op);
	close(t);
	/* FIPS 180-2 B.3 in one write, and 20 MiB (more than the
	 * supervisor moves at once) in one write against 20 of 1 MiB. */
	size_t big = 20u << 20;
	char *a = malloc(big);
	uint8_t md2[32];
	memset(a, 'a', big);
	t = tfm("hash", "sha256", NULL, 0);
	check(a && t >= 0 && digest(t, a, 1000000, md, sizeof(md)) == 32 &&
		      same_hex(md, 32, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	      "sha256 of a million 'a', FIPS 180-2 B.3");
	op = t >= 0 ? accept(t, NULL, 0) : -1;
	ok = op >= 0 && digest(t, a, big, md, sizeof(md)) == 32;
	for (int i = 0; ok && i < 20; i++)
		ok = send(op, a + ((size_t)i << 20), 1u << 20, i < 19 ? MSG_MORE : 0) == 1 << 20;
	check(ok && read(op, md2, 32) == 32 && !memcmp(md, md2, 32),
	      "sha256 of 20 MiB in one write equals 20 writes of 1 MiB");
	free(a);
	close(op);
	close(t);
	memset(key, 0x0b, sizeof(key));
	t = tfm("hash", "hmac(sha256)", key, sizeof(key));
	check(t >= 0 && digest(t, "Hi There", 8, md, sizeof(md)) == 32 &&
		      same_hex(md, 32, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
	      "hmac(sha256), RFC 4231 test case 1");
	close(t);
}

/* One sendmsg with the op, IV and (AEAD) assoclen in control data. */
static ssize_t crypt_msg(int op, int enc, const uint8_t *iv, uint32_t ivlen, int aead, uint32_t assoclen,
			 const uint8_t *in, size_t len)
{
	union { char b[256]; struct cmsghdr align; } ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec v = { (void *)in, len };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = ctl.b };
	size_t used = 0;
	struct cmsghdr *c = (struct cmsghdr *)ctl.b;
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(4);
	*(uint32_t *)CMSG_DATA(c) = enc ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
	used += CMSG_SPACE(4);
	c = (struct cmsghdr *)(ctl.b + used);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_IV;
	c->cmsg_len = CMSG_LEN(4 + ivlen);
	struct af_alg_iv *ivp = (struct af_alg_iv *)CMSG_DATA(c);
	ivp->ivlen = ivlen;
	memcpy(ivp->iv, iv, ivlen);
	used += CMSG_SPACE(4 + ivlen);
	if (aead) {
		c = (struct cmsghdr *)(ctl.b + used);
		c->cmsg_level = SOL_ALG;
		c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
		c->cmsg_len = CMSG_LEN(4);
		*(uint32_t *)CMSG_DATA(c) = assoclen;
		used += CMSG_SPACE(4);
	}
	m.msg_controllen = used;
	return sendmsg(op, &m, 0);
}

static void test_cbc(void)
{
	uint8_t key[16], iv[16], pt[32], out[32], back[32];
	unhex("c286696d887c9aa0611bbb3e2025a45a", key);
	unhex("562e17996d093d28ddb3ba695a2e6f58", iv);
	unhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", pt);
	int t = tfm("skcipher", "cbc(aes)", key, 16);
	int op = t >= 0 ? accept(t, NULL, 0) : -1;
	check(op >= 0 && crypt_msg(op, 1, iv, 16, 0, 0, pt, 32) == 32 && read(op, out, 32) == 32 &&
		      same_hex(out, 32, "d296cd94c2cccf8a3a863028b5e1dc0a7586602d253cfff91b8266bea6d61ab1"),
	      "cbc(aes) encryption, RFC 3602 case 2");
	struct iovec v = { back, 32 };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1 };
	check(op >= 0 && crypt_msg(op, 0, iv, 16, 0, 0, out, 32) == 32 && recvmsg(op, &m, 0) == 32 &&
		      !memcmp(back, pt, 32),
	      "cbc(aes) decryption back to the plaintext (recvmsg)");
	close(op);
	close(t);
}

static void test_gcm(void)
{
	uint8_t key[16], iv[12], in[128], out[128];
	int t = tfm("aead", "gcm(aes)", (uint8_t[16]){ 0 }, 16);
	int ok = t >= 0 && !setsockopt(t, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL, 16);
	int op = ok ? accept(t, NULL, 0) : -1;
	memset(in, 0, 16);
	memset(iv, 0, 12);
	check(op >= 0 && crypt_msg(op, 1, iv, 12, 1, 0, in, 16) == 16 && read(op, out, 32) == 32 &&
		      same_hex(out, 32, "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf"),
	      "gcm(aes) encryption, McGrew-Viega test case 2");
	close(op);
	close(t);
	/* Test case 4: 20 bytes of associated data, 60 of plaintext. */
	unhex("feffe9928665731c6d6a8f9467308308", key);
	unhex("cafebabefacedbaddecaf888", iv);
	size_t n = unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2", in);
	n += unhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449"
		   "a6b525b16aedf5aa0de657ba637b39", in + n);
	t = tfm("aead", "gcm(aes)", key, 16);
	ok = t >= 0 && !setsockopt(t, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL, 16);
	op = ok ? accept(t, NULL, 0) : -1;
	const char *want = "feedfacedeadbeeffeedfacedeadbeefabaddad2"
			   "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
			   "5bc94fbc3221a5db94fae95ae7121a47";
	check(op >= 0 && crypt_msg(op, 1, iv, 12, 1, 20, in, n) == (ssize_t)n && read(op, out, n + 16) == (ssize_t)(n + 16) &&
		      same_hex(out, n + 16, want),
	      "gcm(aes) encryption with associated data, McGrew-Viega test case 4");
	out[n + 15] ^= 1;	/* a bad tag: EBADMSG, as the kernel's */
	uint8_t back[128];
	check(op >= 0 && crypt_msg(op, 0, iv, 12, 1, 20, out, n + 16) == (ssize_t)(n + 16) &&
		      read(op, back, n) < 0 && errno == EBADMSG,
	      "gcm(aes) decryption with a corrupted tag: EBADMSG");
	close(op);
	close(t);
}

/* What the supervisor must refuse as the kernel does, from a program that
 * sends it anything; and sockets closed by the thousand free their slots. */
static void test_hostile(void)
{
	static struct iovec many[1025];
	uint8_t md[32];
	int t = tfm("hash", "sha256", NULL, 0);
	int op = t >= 0 ? accept(t, NULL, 0) : -1;
	for (int i = 0; i < 1025; i++)
		many[i] = (struct iovec){ md, 1 };
	check(op >= 0 && writev(op, many, 1025) < 0 && errno == EINVAL, "writev of 1025 iovecs: EINVAL");
	struct msghdr m = { .msg_iov = many, .msg_iovlen = 1025 };
	check(op >= 0 && sendmsg(op, &m, 0) < 0 && errno == EMSGSIZE, "sendmsg of 1025 iovecs: EMSGSIZE");
	void *volatile unmapped = (void *)16;
	check(op >= 0 && write(op, unmapped, 8) < 0 && errno == EFAULT, "write from an unmapped address: EFAULT");
	static char ctl[65536];
	struct iovec one = { md, sizeof(md) };
	struct msghdr big = { .msg_iov = &one, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	check(op >= 0 && write(op, "abc", 3) == 3 && recvmsg(op, &big, 0) == 32 && big.msg_controllen == 0 &&
		      same_hex(md, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	      "recvmsg with 64 KiB of control room: the digest, no control data");
	big.msg_controllen = sizeof(ctl);	/* past Linux 6.1's optmem_max */
	/* musl's sendmsg() refuses more than 1 KiB of control data itself. */
	check(op >= 0 && syscall(SYS_sendmsg, op, &big, 0) < 0 && errno == ENOBUFS, "sendmsg with 64 KiB of control data: ENOBUFS");
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int s = socket(AF_ALG, SOCK_SEQPACKET, 0);
	check(s >= 0 && bind(s, (struct sockaddr *)&sa, 4096) < 0 && errno == EINVAL, "bind with a 4096-byte address: EINVAL");
	check(s >= 0 && dup2(s, 100) < 0 && errno == EINVAL, "dup2 out of the supervised range: refused (EINVAL)");
	close(s);
	close(op);
	close(t);
	int ok = 1;
	for (int i = 0; i < 1500 && ok; i++) {
		int f = socket(AF_ALG, SOCK_SEQPACKET, 0);
		ok = f >= 0 && !close(f);
	}
	check(ok, "1500 sockets opened and closed in turn (more than the range holds)");
}

/* A thread parked in a read that nothing will answer (a cbc(aes) op
 * socket with no data) holds up no other call: the main thread hashes on
 * another socket meanwhile, and the parked one ends with the process. */
static void *park(void *arg)
{
	uint8_t b[16];
	ssize_t r = read(*(int *)arg, b, sizeof(b));
	(void)r;
	return NULL;
}

static void test_parked(void)
{
	uint8_t md[32], key[16] = { 0 };
	pthread_t th;
	int t = tfm("skcipher", "cbc(aes)", key, 16);
	static int op;
	op = t >= 0 ? accept(t, NULL, 0) : -1;
	struct pollfd p = { .fd = op, .events = POLLIN | POLLOUT };
	check(op >= 0 && poll(&p, 1, -1) == 1 && (p.revents & POLLOUT),
	      "poll on an emulated fd answers (readable and writable)");
	int started = op >= 0 && !pthread_create(&th, NULL, park, &op);
	int h = tfm("hash", "sha256", NULL, 0);
	check(started && h >= 0 && digest(h, "abc", 3, md, sizeof(md)) == 32 &&
		      same_hex(md, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	      "sha256 while another thread waits in a read");
	close(h);
}

/* crypto_user over NETLINK_CRYPTO (<linux/cryptouser.h>): CRYPTO_MSG_GETALG
 * for "sha256" answers one report naming a sha256 driver. */
static void test_netlink(void)
{
	struct {
		struct { uint32_t len; uint16_t type, flags; uint32_t seq, pid; } h;
		struct { char name[64], driver[64], module[64]; uint32_t type, mask, refcnt, flags; } alg;
	} req = { .h = { sizeof(req), 0x13 /* CRYPTO_MSG_GETALG */, 1 /* NLM_F_REQUEST */, 1, 0 } };
	union { uint8_t b[4096]; uint32_t align; } rep;
	strcpy(req.alg.name, "sha256");
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 21 /* NETLINK_CRYPTO */);
	ssize_t n = s >= 0 && send(s, &req, sizeof(req), 0) == sizeof(req) ? recv(s, rep.b, sizeof(rep.b), 0) : -1;
	uint16_t type = 0;
	if (n >= (ssize_t)sizeof(req))
		memcpy(&type, rep.b + 4, 2);
	check(n >= (ssize_t)sizeof(req) && type == 0x13 && !strncmp((char *)rep.b + 16 + 64, "sha256-", 7),
	      "NETLINK_CRYPTO: CRYPTO_MSG_GETALG for sha256 names a sha256 driver");
	close(s);
}

/* A driver name only ualg has: a kernel's own AF_ALG cannot bind it. */
static int probe(void)
{
	uint8_t md[32];
	int t = tfm("hash", "sha256-openssl", NULL, 0);
	return t >= 0 && digest(t, "abc", 3, md, 32) == 32 ? 0 : 3;
}

static int devnull_then_hash(long n)
{
	uint8_t md[32];
	int f = open("/dev/null", O_WRONLY);
	for (long i = 0; i < n; i++)
		if (write(f, "x", 1) != 1)
			return 1;
	/* socket, bind, accept, write, read: the supervisor's 5 (close
	 * never reaches it). */
	int t = socket(AF_ALG, SOCK_SEQPACKET, 0);
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "hash", .salg_name = "sha256" };
	if (t < 0 || bind(t, (struct sockaddr *)&sa, sizeof(sa)))
		return 1;
	int op = accept(t, NULL, 0);
	if (op < 0 || write(op, "abc", 3) != 3 || read(op, md, 32) != 32)
		return 1;
	return !same_hex(md, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static int bench(long n)
{
	struct timespec a, b;
	int f = open("/dev/null", O_WRONLY);
	for (long i = 0; i < n / 10; i++)	/* warm up */
		write(f, "x", 1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		write(f, "x", 1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n;
	printf("%.1f\n", ns);
	return 0;
}

static int hashbench(long n)
{
	struct timespec a, b;
	uint8_t md[32], msg[64] = { 0 };
	int t = tfm("hash", "sha256", NULL, 0);
	int op = t >= 0 ? accept(t, NULL, 0) : -1;
	if (op < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		if (write(op, msg, 64) != 64 || read(op, md, 32) != 32)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.2f\n", ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3) / (double)n);
	return 0;
}

/* ioctl's request: musl's is an int, glibc's an unsigned long; the kernel
 * takes the low 32 bits either way. */
#ifdef __GLIBC__
typedef unsigned long ioctl_req;
#else
typedef int ioctl_req;
#endif

static int ioctls(void)
{
	static const struct { const char *name; unsigned int cmd; } calls[] = {
		{ "SIOCGSTAMP_OLD", 0x8906 }, { "SIOCGSTAMPNS_OLD", 0x8907 },
		{ "SIOCGSTAMP_NEW", 0x80108906 }, { "SIOCGSTAMPNS_NEW", 0x80108907 },
		{ "FIONREAD", 0x541B }, { "TCGETS", 0x5401 }, { "SIOCGIFCONF", 0x8912 },
		{ "FIOGETOWN", 0x8903 }, { "FIONBIO", 0x5421 }, { "FIOCLEX", 0x5451 },
	};
	int t = tfm("hash", "sha256", NULL, 0);
	int op = t >= 0 ? accept(t, NULL, 0) : -1;
	if (op < 0)
		return 1;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
			/* Room for any of the answers (ifconf, termios, timespec). */
			long long arg[8] = { 0 };
			errno = 0;
			int r = ioctl(k ? op : t, (ioctl_req)calls[i].cmd, arg);
			printf("%s %s ret=%d errno=%d\n", k ? "op" : "tfm", calls[i].name, r, r < 0 ? errno : 0);
		}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "ioctls"))
		return ioctls();
	if (argc > 1 && !strcmp(argv[1], "probe"))
		return probe();
	if (argc > 2 && !strcmp(argv[1], "devnull"))
		return devnull_then_hash(atol(argv[2]));
	if (argc > 2 && !strcmp(argv[1], "bench"))
		return bench(atol(argv[2]));
	if (argc > 2 && !strcmp(argv[1], "hashbench"))
		return hashbench(atol(argv[2]));
	test_hashes();
	test_cbc();
	test_gcm();
	test_hostile();
	test_netlink();
	test_parked();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
