/* aegis128, as crypto/aegis128-core.c: AEGIS-128 (Wu and Preneel, CAESAR
 * submission v1.1), not AEGIS-128L; a 16-byte key and nonce, tags of 8 to
 * 16 bytes.  No library ualg links has it (libsodium has AEGIS-128L and
 * AEGIS-256 only), so the mode is written here from the specification:
 * five 16-byte state blocks, each update one AES encryption round per
 * block (S_i = AESRound(S_{i-1}, S_i)).
 *
 * The AES round comes in two forms, each a driver of its own and each
 * self-tested against testmgr.h's vectors: "aegis128-aesni" uses the
 * AES-NI instruction (_mm_aesenc_si128), registered only where the CPU
 * has it; "aegis128-ualg" computes the round without tables, the S-box as
 * inversion in GF(2^8) (x^254 by constant-time multiplications) followed
 * by the affine map, so that no memory access or branch depends on the
 * state, unlike the kernel's generic code, which uses the AES T-tables. */
#include "others.h"
#include "openssl.h"

#include <errno.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_AESNI 1
#endif

#define BLK 16
#define KEY_SIZE 16
#define MIN_AUTH 8
#define MAX_AUTH 16

typedef void aesround_fn(uint8_t dst[BLK], const uint8_t src[BLK], const uint8_t key[BLK]);

struct aegis_ctx {
	uint8_t key[KEY_SIZE];
};

struct aegis_state {
	uint8_t s[5][BLK];
	aesround_fn *round;
};

/* ---- the AES round, table-free ------------------------------------------- */

static uint8_t xtime(uint8_t a)
{
	return (uint8_t)((a << 1) ^ (0x1b & -(a >> 7)));
}

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
	uint8_t p = 0;

	for (int i = 0; i < 8; i++) {
		p ^= a & (uint8_t)-(b & 1);
		a = xtime(a);
		b >>= 1;
	}
	return p;
}

static uint8_t sbox(uint8_t x)
{
	/* x^254 = x^-1 (0 for 0): x^2, x^3, x^12, x^15, x^240, x^254. */
	const uint8_t x2 = gf_mul(x, x), x3 = gf_mul(x2, x);
	const uint8_t x6 = gf_mul(x3, x3), x12 = gf_mul(x6, x6), x15 = gf_mul(x12, x3);
	uint8_t y = x15;
	for (int i = 0; i < 4; i++)
		y = gf_mul(y, y);				/* x^240 */
	y = gf_mul(gf_mul(y, x12), x2);				/* x^254 */
	const unsigned b = y;
	unsigned r = b ^ (b << 1) ^ (b << 2) ^ (b << 3) ^ (b << 4);
	return (uint8_t)(r ^ (r >> 8) ^ 0x63);
}

/* SubBytes, ShiftRows, MixColumns, then the round key, on the column-major
 * state (byte r + 4c is row r of column c), as AESENC. */
static void aesround_ct(uint8_t dst[BLK], const uint8_t src[BLK], const uint8_t key[BLK])
{
	uint8_t t[BLK];

	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 4; r++)
			t[r + 4 * c] = sbox(src[r + 4 * ((c + r) % 4)]);
	for (int c = 0; c < 4; c++) {
		const uint8_t *a = t + 4 * c;
		const uint8_t all = a[0] ^ a[1] ^ a[2] ^ a[3];
		for (int r = 0; r < 4; r++)
			dst[r + 4 * c] = a[r] ^ all ^ xtime(a[r] ^ a[(r + 1) % 4]) ^ key[r + 4 * c];
	}
	ualg_wipe(t, sizeof(t));
}

#ifdef HAVE_AESNI
__attribute__((target("aes,sse2")))
static void aesround_ni(uint8_t dst[BLK], const uint8_t src[BLK], const uint8_t key[BLK])
{
	const __m128i s = _mm_loadu_si128((const __m128i *)(const void *)src);
	const __m128i k = _mm_loadu_si128((const __m128i *)(const void *)key);

	_mm_storeu_si128((__m128i *)(void *)dst, _mm_aesenc_si128(s, k));
}
#endif

/* ---- AEGIS-128 ------------------------------------------------------------ */

static const uint8_t aegis_const[2][BLK] = {
	{ 0x00, 0x01, 0x01, 0x02, 0x03, 0x05, 0x08, 0x0d,
	  0x15, 0x22, 0x37, 0x59, 0x90, 0xe9, 0x79, 0x62 },
	{ 0xdb, 0x3d, 0x18, 0x55, 0x6d, 0xc2, 0x2f, 0xf1,
	  0x20, 0x11, 0x31, 0x42, 0x73, 0xb5, 0x28, 0xdd },
};

static void xor_blk(uint8_t *d, const uint8_t *s)
{
	for (int i = 0; i < BLK; i++)
		d[i] ^= s[i];
}

/* StateUpdate128(S, m). */
static void update(struct aegis_state *st, const uint8_t m[BLK])
{
	uint8_t tmp[BLK];

	memcpy(tmp, st->s[4], BLK);
	for (int i = 4; i > 0; i--)
		st->round(st->s[i], st->s[i - 1], st->s[i]);
	st->round(st->s[0], tmp, st->s[0]);
	xor_blk(st->s[0], m);
}

static void aegis_init(struct aegis_state *st, const uint8_t *key, const uint8_t *iv)
{
	uint8_t key_iv[BLK];

	for (int i = 0; i < BLK; i++)
		key_iv[i] = key[i] ^ iv[i];
	memcpy(st->s[0], key_iv, BLK);
	memcpy(st->s[1], aegis_const[1], BLK);
	memcpy(st->s[2], aegis_const[0], BLK);
	memcpy(st->s[3], key, BLK);
	memcpy(st->s[4], key, BLK);
	xor_blk(st->s[3], aegis_const[0]);
	xor_blk(st->s[4], aegis_const[1]);
	for (int i = 0; i < 5; i++) {
		update(st, key);
		update(st, key_iv);
	}
	ualg_wipe(key_iv, sizeof(key_iv));
}

/* The keystream block: S1 ^ S4 ^ (S2 & S3). */
static void keystream(const struct aegis_state *st, uint8_t z[BLK])
{
	for (int i = 0; i < BLK; i++)
		z[i] = st->s[1][i] ^ st->s[4][i] ^ (st->s[2][i] & st->s[3][i]);
}

static void aegis_ad(struct aegis_state *st, const uint8_t *ad, size_t len)
{
	uint8_t m[BLK];

	for (; len >= BLK; ad += BLK, len -= BLK)
		update(st, ad);
	if (len) {
		memset(m, 0, BLK);
		memcpy(m, ad, len);
		update(st, m);
	}
}

/* Encrypts or decrypts len bytes from src to dst (which may alias); the
 * state absorbs the plaintext, the last block zero-padded. */
static void aegis_crypt(struct aegis_state *st, bool enc, const uint8_t *src, uint8_t *dst, size_t len)
{
	uint8_t z[BLK], m[BLK];

	while (len) {
		const size_t n = len < BLK ? len : BLK;
		keystream(st, z);
		memset(m, 0, BLK);
		memcpy(m, src, n);
		for (size_t i = 0; i < n; i++)
			z[i] ^= m[i];			/* the other text */
		if (!enc) {
			memset(z + n, 0, BLK - n);
			memcpy(m, z, BLK);		/* the plaintext */
		}
		update(st, m);
		memcpy(dst, z, n);
		src += n;
		dst += n;
		len -= n;
	}
	ualg_wipe(z, sizeof(z));
	ualg_wipe(m, sizeof(m));
}

static void aegis_final(struct aegis_state *st, size_t assoclen, size_t cryptlen, uint8_t tag[BLK])
{
	uint8_t t[BLK];
	const uint64_t abits = (uint64_t)assoclen * 8, cbits = (uint64_t)cryptlen * 8;

	for (int i = 0; i < 8; i++) {
		t[i] = (uint8_t)(abits >> (8 * i));
		t[8 + i] = (uint8_t)(cbits >> (8 * i));
	}
	xor_blk(t, st->s[3]);
	for (int i = 0; i < 7; i++)
		update(st, t);
	memset(tag, 0, BLK);
	for (int i = 0; i < 5; i++)
		xor_blk(tag, st->s[i]);
}

static int aegis_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct aegis_ctx *c = tfm->ctx;

	if (len != KEY_SIZE)
		return -EINVAL;
	memcpy(c->key, key, KEY_SIZE);
	return 0;
}

static int aegis_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	(void)tfm;
	return authsize < MIN_AUTH || authsize > MAX_AUTH ? -EINVAL : 0;
}

static int aegis_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	const struct aegis_ctx *c = tfm->ctx;
	struct aegis_state st = { .round = (aesround_fn *)(uintptr_t)tfm->alg->priv };
	uint8_t tag[BLK];

	aegis_init(&st, c->key, req->iv);
	aegis_ad(&st, req->aad, req->assoclen);
	aegis_crypt(&st, true, req->src ? req->src : req->text, req->text, req->cryptlen);
	aegis_final(&st, req->assoclen, req->cryptlen, tag);
	memcpy(req->text + req->cryptlen, tag, tfm->authsize);
	ualg_wipe(&st, sizeof(st));
	ualg_wipe(tag, sizeof(tag));
	return 0;
}

/* A wrong tag gives -EBADMSG with the decrypted text wiped, as the
 * specification asks and the kernel does. */
static int aegis_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	const struct aegis_ctx *c = tfm->ctx;
	struct aegis_state st = { .round = (aesround_fn *)(uintptr_t)tfm->alg->priv };
	uint8_t tag[BLK];

	if (req->cryptlen < tfm->authsize)
		return -EINVAL;
	const size_t len = req->cryptlen - tfm->authsize;
	aegis_init(&st, c->key, req->iv);
	aegis_ad(&st, req->aad, req->assoclen);
	aegis_crypt(&st, false, req->text, req->text, len);
	aegis_final(&st, req->assoclen, len, tag);
	const int bad = ualg_memneq(tag, req->text + len, tfm->authsize);
	if (bad)
		ualg_wipe(req->text, len);
	ualg_wipe(&st, sizeof(st));
	ualg_wipe(tag, sizeof(tag));
	return bad ? -EBADMSG : 0;
}

static int register_one(const char *driver, int prio, aesround_fn *round)
{
	struct ualg_alg *a = ualg_openssl_alloc("aegis128", driver, UALG_ALG_AEAD, prio);

	if (!a)
		return -ENOMEM;
	a->module = UALG_OWN_MODULE;
	a->blocksize = 1;
	a->ctxsize = sizeof(struct aegis_ctx);
	a->priv = (const void *)(uintptr_t)round;
	a->u.aead = (struct ualg_aead_ops){
		.ivsize = 16, .maxauthsize = MAX_AUTH,
		.setkey = aegis_setkey, .setauthsize = aegis_setauthsize,
		.encrypt = aegis_encrypt, .decrypt = aegis_decrypt,
		.src_ok = true,
	};
	return ualg_openssl_reg(a);
}

int ualg_aegis128_register(void)
{
	int r = register_one("aegis128-" UALG_OWN_MODULE, UALG_OPENSSL_PRIO_PRIMITIVE, aesround_ct);
#ifdef HAVE_AESNI
	if (!r && __builtin_cpu_supports("aes"))
		r = register_one("aegis128-aesni", UALG_OPENSSL_PRIO_WHOLE, aesround_ni);
#endif
	return r;
}

int ualg_own_register(void)
{
	int r = ualg_nhpoly1305_register();

	return r ? r : ualg_aegis128_register();
}
