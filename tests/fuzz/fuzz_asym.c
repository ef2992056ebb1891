/* libFuzzer: the parsers of client bytes of the akcipher, kpp and
 * compression types, as ALG_SET_KEY, ALG_SET_PUBKEY and
 * ALG_SET_DH_PARAMETERS hand them over, and the decompressors.
 *
 * Input: [variant:1][bytes...].  Variant % 10 picks: rsa private key,
 * rsa public key, ecdsa-nist-p256 public point, a dh packed secret, an
 * ecdh-nist-p256 packed secret, PKCS#3 DH parameters, or a stream for
 * deflate, lz4, lzo, zstd.  An accepted key must work: one operation on a
 * fixed input runs without crashing; a decoded stream fits its room. */
#include "crypto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ualg_tfm *rsa, *ecdsa, *dh, *ecdh, *comp[4];
static const char *const comp_names[4] = { "deflate", "lz4", "lzo", "zstd" };

static struct ualg_tfm *tfm_of(enum ualg_alg_type type, const char *name)
{
	int err = 0;
	struct ualg_alg *alg = ualg_alg_lookup(type, name, &err);
	struct ualg_tfm *tfm = alg ? ualg_tfm_new(alg, &err) : NULL;
	if (!tfm)
		__builtin_trap();	/* the harness itself is broken */
	ualg_alg_put(alg);
	return tfm;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	if (ualg_core_init())
		return 1;
	rsa = tfm_of(UALG_ALG_AKCIPHER, "rsa");
	ecdsa = tfm_of(UALG_ALG_AKCIPHER, "ecdsa-nist-p256");
	dh = tfm_of(UALG_ALG_KPP, "dh");
	ecdh = tfm_of(UALG_ALG_KPP, "ecdh-nist-p256");
	for (int i = 0; i < 4; i++)
		comp[i] = tfm_of(UALG_ALG_COMP, comp_names[i]);
	return 0;
}

static uint8_t out[1 << 16];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	size_t n = sizeof(out);

	if (size < 1)
		return 0;
	const unsigned v = data[0] % 10;
	data++, size--;
	switch (v) {
	case 0:
	case 1:
		if (!(v ? ualg_akcipher_set_pub_key(rsa, data, size) : ualg_tfm_setkey(rsa, data, size)))
			ualg_akcipher_run(rsa, UALG_AK_ENCRYPT, in, sizeof(in), out, &n);
		break;
	case 2:
		if (!ualg_akcipher_set_pub_key(ecdsa, data, size))
			ualg_akcipher_run(ecdsa, UALG_AK_VERIFY, data, size, out, &n);
		break;
	case 3:
	case 4: {
		struct ualg_tfm *t = v == 3 ? dh : ecdh;
		if (!ualg_tfm_setkey(t, data, size))
			ualg_kpp_gen_pubkey(t, out, &n);
		break;
	}
	case 5: {
		uint8_t p[UALG_DH_MAX_BYTES], g[UALG_DH_MAX_BYTES];
		size_t plen, glen;
		if (!ualg_dh_decode_params(data, size, p, &plen, g, &glen) &&
		    (plen > UALG_DH_MAX_BYTES || glen > UALG_DH_MAX_BYTES))
			__builtin_trap();
		break;
	}
	default: {
		int r = ualg_comp_run(comp[v - 6], false, data, size, out, &n);
		if (!r && n > sizeof(out))
			__builtin_trap();
		break;
	}
	}
	return 0;
}
