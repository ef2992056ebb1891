/* The AEAD sample of the RFC mail (../shared/seeds/002-*), in the order and
 * with the calls the mail shows, run under `ualg-run --rfc`.
 *
 * Added, as the task allows: the #includes (ualg_rfc.h for ALG_AEAD_*),
 * the declarations and buffers the fragments leave out, filled with a
 * standard vector (NIST CAVP CCM, VADT128.rsp, [Alen = 32] Count = 320,
 * Tlen 16, CCM's IV in the kernel's form: L-1, nonce, zero counter), the
 * pipes the splice lines read from, and the printing.  Changed, each marked
 * "mail:" where it is: the mail assigns strings to alg.type/alg.name (the
 * fields are salg_type/salg_name arrays: strcpy), passes bind() the
 * sockaddr_alg without a cast, passes op by value to setsockopt (&op),
 * reads the decryption from "defd" (opfd), spells SPLICE_F_MORE
 * "SPLIFE_F_MORE", and leaves out the tag: encryption's output is the
 * ciphertext followed by the tag, decryption's input likewise.
 * Prints the ciphertext||tag, the plaintext, and the plaintext again after
 * the spliced decryption. */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ualg_rfc.h"

static void hex(const char *what, const unsigned char *p, size_t n)
{
	printf("%s ", what);
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

/* A pipe holding n bytes of buf; returns its read end. */
static int pipe_with(const void *buf, size_t n)
{
	int p[2];
	if (pipe(p))
		return -1;
	if (write(p[1], buf, n) != (ssize_t)n)
		return -1;
	close(p[1]);
	return p[0];
}

int main(void)
{
	int tfmfd, opfd, adfd, cryptfd, cryptfd2, adatafd;
	struct sockaddr_alg alg = { .salg_family = AF_ALG };
	const unsigned char key[16] = "\x5a\x33\x98\x0e\x71\xe7\xd6\x7f\xd6\xcf\x17\x14\x54\xdc\x96\xe5";
	const int keylen = 16;
	const unsigned char iv[16] = "\x01\x33\xae\x68\xeb\xb8\x01\x0c\x6b\x3d\xa6\xb9\xcb\x29\x00\x00";
	const int ivlen = 16;
	unsigned char plain[24] = "\xa3\x4d\xfa\x24\x84\x7c\x36\x52\x91\xce\x1b\x54"
				  "\xbc\xf8\xd9\xa7\x5d\x86\x1e\x51\x33\xcc\x3a\x74";
	const unsigned char ad[32] = "\xec\xa6\x22\xa3\x75\x70\xdf\x61\x9e\x10\xeb\xb1\x8b\xeb\xad\xb2"
				     "\xf2\xb4\x9c\x4d\x2b\x2f\xf7\x15\x87\x3b\xb6\x72\xe3\x0f\xc0\xff";
	unsigned char crypt[24 + 16];
	const int datalen = 24, adlen = 32, taglen = 16;
	int op;

	/* This fd corresponds to a tfm object. */
	tfmfd = socket(AF_ALG, SOCK_STREAM, 0);

	strcpy((char *)alg.salg_type, "aead");		/* mail: alg.type = "aead"; */
	strcpy((char *)alg.salg_name, "ccm(aes)");	/* mail: alg.name = "ccm(aes)"; */
	bind(tfmfd, (struct sockaddr *)&alg, sizeof(alg));

	setsockopt(tfmfd, SOL_ALG, ALG_AEAD_SET_KEY, key, keylen);

	/* Each listen call generates one or more fds for input/output
	 * that behave like pipes.
	 */
	listen(tfmfd, 0);
	/* fd for encryption/decryption */
	opfd = accept(tfmfd, NULL, 0);
	/* fd for associated data */
	adfd = accept(tfmfd, NULL, 0);

	/* These may also be set through sendmsg(2) cmsgs. */
	op = ALG_AEAD_OP_ENCRYPT;
	setsockopt(opfd, SOL_ALG, ALG_AEAD_OP, &op, sizeof(op));	/* mail: op */
	setsockopt(opfd, SOL_ALG, ALG_AEAD_SET_IV, iv, ivlen);

	/* Like pipes, larges writes will block!
	 * For AEAD, ensure the socket buffer is large enough.
	 * For ciphers, whenever the write blocks start reading.
	 * For hashes, writes should never block.
	 */
	write(opfd, plain, datalen);
	write(adfd, ad, adlen);

	/* The first read triggers the operation. */
	read(opfd, crypt, datalen);
	read(opfd, crypt + datalen, taglen);	/* mail: (the tag) */
	hex("encrypted", crypt, sizeof(crypt));

	op = ALG_AEAD_OP_DECRYPT;
	setsockopt(opfd, SOL_ALG, ALG_AEAD_OP, &op, sizeof(op));	/* mail: op */

	write(opfd, crypt, datalen + taglen);	/* mail: datalen */
	write(adfd, ad, adlen);

	/* Returns -1 with errno EBADMSG if auth fails */
	memset(plain, 0, sizeof(plain));
	if (read(opfd, plain, datalen) < 0)	/* mail: defd */
		printf("decryption: %s\n", strerror(errno));
	hex("decrypted", plain, sizeof(plain));

	cryptfd = pipe_with(crypt, datalen);
	cryptfd2 = pipe_with(crypt + datalen, taglen);
	adatafd = pipe_with(ad, adlen);
	/* Zero-copy */
	splice(cryptfd, NULL, opfd, NULL, datalen, SPLICE_F_MOVE|SPLICE_F_MORE);	/* mail: SPLIFE_F_MORE */
	/* We allow writes to be split into multiple system calls. */
	splice(cryptfd2, NULL, opfd, NULL, datalen, SPLICE_F_MOVE);
	splice(adatafd, NULL, adfd, NULL, adlen, SPLICE_F_MOVE);

	/* For now reading is copy-only, if and when vmsplice
	 * starts supporting zero-copy to user then we can do it
	 * as well.
	 */
	memset(plain, 0, sizeof(plain));
	read(opfd, plain, datalen);
	hex("spliced", plain, sizeof(plain));

	close(adfd);
	close(opfd);
	close(tfmfd);
	return 0;
}
