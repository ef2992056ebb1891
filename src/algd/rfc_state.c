/* Sealing and opening RFC mode's partial hash states (rfc_state.h). */
#include "rfc_state.h"
#include "crypto.h"
#include "ualg_rfc.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#define MAGIC "UAHS"
#define HEAD_LEN 20		/* magic, version, 3 zero bytes, nonce */
#define NONCE_LEN 12
#define TAG_LEN 16
#define NAME_LEN UALG_MAX_ALG_NAME
#define PLAIN_HEAD (NAME_LEN + RFC_FP_LEN + 4)

/* Drawn at first use, in the secure heap, never written anywhere. */
struct secrets {
	uint8_t seal[32];
	uint8_t fp[32];
	uint8_t prefix[4];
	uint64_t counter;
};
static struct secrets *secrets;

static int fill_random(void *p, size_t n)
{
	uint8_t *b = p;
	while (n) {
		ssize_t r = getrandom(b, n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

static int secrets_ready(void)
{
	if (secrets)
		return 0;
	struct secrets *s = ualg_secure_zalloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	int r = fill_random(s, offsetof(struct secrets, counter));
	if (r) {
		ualg_secure_free(s);
		return r;
	}
	secrets = s;
	return 0;
}

int rfc_state_fingerprint(const uint8_t *key, size_t len, bool keyed, uint8_t fp[RFC_FP_LEN])
{
	int r = secrets_ready();
	if (r)
		return r;
	/* A domain byte keeps "no key" apart from an empty key. */
	uint8_t msg[1 + UALG_MAX_KEYSIZE];
	unsigned outlen = 0;
	if (len > UALG_MAX_KEYSIZE)
		return -EINVAL;
	msg[0] = keyed;
	if (len)
		memcpy(msg + 1, key, len);
	bool ok = HMAC(EVP_sha256(), secrets->fp, sizeof(secrets->fp), msg, 1 + len, fp, &outlen) &&
		  outlen == RFC_FP_LEN;
	ualg_wipe(msg, sizeof(msg));
	return ok ? 0 : -ENOMEM;
}

/* One AES-256-GCM pass: encrypt (tag written) or decrypt (tag checked);
 * returns 0 or -EBADMSG. */
static int gcm(bool enc, const uint8_t *head, const uint8_t *in, size_t n, uint8_t *out,
	       uint8_t *tag)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int len = 0;
	bool ok = c && EVP_CipherInit_ex(c, EVP_aes_256_gcm(), NULL, NULL, NULL, enc) &&
		  EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, NONCE_LEN, NULL) &&
		  EVP_CipherInit_ex(c, NULL, NULL, secrets->seal, head + 8, enc) &&
		  EVP_CipherUpdate(c, NULL, &len, head, HEAD_LEN) &&
		  EVP_CipherUpdate(c, out, &len, in, (int)n) &&
		  (enc || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, TAG_LEN, tag)) &&
		  EVP_CipherFinal_ex(c, out + len, &len) &&
		  (!enc || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, TAG_LEN, tag));
	EVP_CIPHER_CTX_free(c);
	return ok ? 0 : -EBADMSG;
}

int rfc_state_seal(const char *driver, const uint8_t fp[RFC_FP_LEN], const uint8_t *state,
		   size_t n, uint8_t *out, size_t cap)
{
	uint8_t plain[UALG_RFC_STATE_LEN];
	const size_t plen = UALG_RFC_STATE_LEN - HEAD_LEN - TAG_LEN;	/* zero-padded */
	const uint32_t n32 = (uint32_t)n;
	int r = secrets_ready();

	if (r)
		return r;
	if (cap < UALG_RFC_STATE_LEN || PLAIN_HEAD + n > plen)
		return -EOVERFLOW;
	memset(plain, 0, sizeof(plain));
	strncpy((char *)plain, driver, NAME_LEN - 1);
	memcpy(plain + NAME_LEN, fp, RFC_FP_LEN);
	memcpy(plain + NAME_LEN + RFC_FP_LEN, &n32, 4);
	memcpy(plain + PLAIN_HEAD, state, n);
	memcpy(out, MAGIC, 4);
	out[4] = UALG_RFC_STATE_VERSION;
	memset(out + 5, 0, 3);
	memcpy(out + 8, secrets->prefix, 4);
	const uint64_t ctr = ++secrets->counter;	/* never reused under one key */
	for (int i = 0; i < 8; i++)
		out[12 + i] = (uint8_t)(ctr >> (56 - 8 * i));
	r = gcm(true, out, plain, plen, out + HEAD_LEN, out + HEAD_LEN + plen);
	ualg_wipe(plain, sizeof(plain));
	return r ? -ENOMEM : UALG_RFC_STATE_LEN;
}

int rfc_state_open(const char *driver, const uint8_t fp[RFC_FP_LEN], const uint8_t *blob,
		   size_t n, uint8_t *state, size_t statesize)
{
	uint8_t plain[UALG_RFC_STATE_LEN];
	uint8_t tag[TAG_LEN];
	uint8_t name[NAME_LEN] = { 0 };
	uint32_t n32;
	int r = secrets_ready();

	if (r)
		return r;
	if (n != UALG_RFC_STATE_LEN)
		return -EINVAL;
	if (memcmp(blob, MAGIC, 4) || blob[4] != UALG_RFC_STATE_VERSION || blob[5] || blob[6] ||
	    blob[7])
		return -EBADMSG;
	const size_t plen = n - HEAD_LEN - TAG_LEN;
	memcpy(tag, blob + n - TAG_LEN, TAG_LEN);
	r = gcm(false, blob, blob + HEAD_LEN, plen, plain, tag);
	strncpy((char *)name, driver, NAME_LEN - 1);
	if (!r) {
		memcpy(&n32, plain + NAME_LEN + RFC_FP_LEN, 4);
		/* Sealed by us, so well formed; checked all the same. */
		if (memcmp(plain, name, NAME_LEN) || ualg_memneq(plain + NAME_LEN, fp, RFC_FP_LEN) ||
		    n32 != statesize || PLAIN_HEAD + statesize > plen)
			r = -EBADMSG;
	}
	if (!r)
		memcpy(state, plain + PLAIN_HEAD, statesize);
	else
		ualg_wipe(state, statesize);
	ualg_wipe(plain, sizeof(plain));
	return r;
}
