/* The hash sample of the RFC mail (../shared/seeds/002-*), in the order and
 * with the calls the mail shows, run under `ualg-run --rfc`.
 *
 * Added, as the task allows: the #includes (ualg_rfc.h for
 * ALG_HASH_SET_KEY and UALG_RFC_STATE_LEN, the size of every state), the
 * declarations and buffers the fragments leave out, filled with RFC 3566's
 * test case 4 (key 000102..0f, the 20-byte message 000102..13), and the
 * printing.  Changed, marked "mail:": alg.type/alg.name are the salg_type
 * and salg_name arrays (strcpy), bind() gets the usual cast.
 *
 * The mail's sequence: the message goes in with MSG_MORE, its partial
 * state is read and restored, and a zero-length send finalises: the MAC is
 * RFC 3566's 47f51b4564966215b8985c63055ed308. */
#include <linux/if_alg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ualg_rfc.h"

int main(void)
{
	int tfmfd, opfd;
	struct sockaddr_alg alg = { .salg_family = AF_ALG };
	const unsigned char key[16] = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f";
	const int keylen = 16;
	const unsigned char plain[20] = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
					"\x10\x11\x12\x13";
	const int datalen = 20;
	unsigned char state[UALG_RFC_STATE_LEN];
	const int statelen = UALG_RFC_STATE_LEN;
	unsigned char hash[16];
	const int hashlen = 16;

	/* This fd corresponds to a tfm object. */
	tfmfd = socket(AF_ALG, SOCK_STREAM, 0);

	strcpy((char *)alg.salg_type, "hash");		/* mail: alg.type = "hash"; */
	strcpy((char *)alg.salg_name, "xcbc(aes)");	/* mail: alg.name = "xcbc(aes)"; */
	bind(tfmfd, (struct sockaddr *)&alg, sizeof(alg));

	setsockopt(tfmfd, SOL_ALG, ALG_HASH_SET_KEY, key, keylen);

	/* Each listen call generates one or more fds for input/output
	 * that behave like pipes.
	 */
	listen(tfmfd, 0);
	/* fd for hashing */
	opfd = accept(tfmfd, NULL, 0);

	/* MSG_MORE prevents finalisation */
	send(opfd, plain, datalen, MSG_MORE);

	/* Reads partial hash state */
	read(opfd, state, statelen);

	/* Restore from a partial hash state */
	send(opfd, state, statelen, MSG_OOB);

	/* Finalise */
	send(opfd, plain, 0, 0);
	read(opfd, hash, hashlen);

	for (int i = 0; i < hashlen; i++)
		printf("%02x", hash[i]);
	printf("\n");

	close(opfd);
	close(tfmfd);
	return 0;
}
