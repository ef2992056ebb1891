/* libFuzzer: the authenc key blob (src/core/templates/authenc.c), as a
 * client's ALG_SET_KEY hands it over: an rtattr holding a big-endian
 * crypto_authenc_key_param { enckeylen }, then authkey || enckey.
 *
 * Input: [variant:1][blob...].  The low two bits pick one of four keyed
 * transforms (authenc and authencesn, over sha1/cbc(aes) and
 * sha256/ctr(aes)).  An accepted key must work: a round trip over a fixed
 * message decrypts to the plaintext, and a flipped tag bit is EBADMSG. */
#include "crypto.h"

#include <errno.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[4] = {
	"authenc(hmac(sha1),cbc(aes))",
	"authencesn(hmac(sha1),cbc(aes))",
	"authenc(hmac(sha256),ctr(aes))",
	"authencesn(hmac(sha256),cbc(aes))",
};
static struct ualg_tfm *tfms[4];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	if (ualg_core_init())
		return 1;
	for (int i = 0; i < 4; i++) {
		int err = 0;
		struct ualg_alg *alg = ualg_alg_lookup(UALG_ALG_AEAD, names[i], &err);
		if (!alg || !(tfms[i] = ualg_tfm_new(alg, &err)))
			__builtin_trap();	/* the harness itself is broken */
		ualg_alg_put(alg);	/* the transform holds its own reference */
	}
	return 0;
}

/* Encrypts AAD || 32 bytes in place and decrypts them back. */
static void round_trip(struct ualg_tfm *tfm)
{
	uint8_t buf[8 + 32 + 64], iv[16] = { 1, 2, 3 }, iv2[16];
	const uint8_t plain[32] = "authenc fuzzing: a fixed message";
	const unsigned authsize = tfm->authsize;

	memset(buf, 0xA5, 8);	/* esn: SPI and sequence numbers */
	memcpy(buf + 8, plain, sizeof(plain));
	memcpy(iv2, iv, sizeof(iv));
	const struct ualg_aead_req enc = { buf, 8, buf + 8, sizeof(plain), iv, NULL };
	if (ualg_aead_encrypt(tfm, &enc))
		__builtin_trap();	/* a key that setkey took must encrypt */
	const struct ualg_aead_req dec = { buf, 8, buf + 8, sizeof(plain) + authsize, iv2, NULL };
	uint8_t copy[sizeof(buf)];
	memcpy(copy, buf, sizeof(buf));
	if (ualg_aead_decrypt(tfm, &dec) || memcmp(buf + 8, plain, sizeof(plain)))
		__builtin_trap();
	memcpy(buf, copy, sizeof(buf));
	buf[8 + sizeof(plain)] ^= 1;	/* first tag byte */
	memcpy(iv2, (uint8_t[16]){ 1, 2, 3 }, 16);
	if (ualg_aead_decrypt(tfm, &dec) != -EBADMSG)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1024)
		return -1;	/* ALG_SET_KEY takes far less than optmem_max */
	struct ualg_tfm *tfm = tfms[data[0] & 3];
	int r = ualg_tfm_setkey(tfm, data + 1, size - 1);
	if (r == 0)
		round_trip(tfm);
	else if (r != -EINVAL)
		__builtin_trap();	/* the kernel's only answer for a bad blob */
	return 0;
}
