/* Small pieces of mode arithmetic that the generic templates and the
 * whole-mode drivers must agree on, bit for bit. */
#ifndef UALG_CORE_MODES_H
#define UALG_CORE_MODES_H

#include <stddef.h>
#include <stdint.h>

/* Adds n to a big-endian counter block, as n calls of the kernel's
 * crypto_inc(): the whole block is the counter. */
static inline void ualg_ctr_add(uint8_t *ctr, size_t bs, uint64_t n)
{
	for (size_t i = bs; i-- > 0 && n;) {
		uint64_t sum = (uint64_t)ctr[i] + (n & 0xff);
		ctr[i] = (uint8_t)sum;
		n = (n >> 8) + (sum >> 8);
	}
}

static inline void ualg_xor(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = a[i] ^ b[i];
}

/* The output IVs of Linux 6.1's x86 AES drivers (cts-cbc-aes-aesni,
 * xts-aes-aesni), which are what a program on such a kernel gets for
 * "cts(cbc(aes))" and "xts(aes)"; they differ from the generic templates'.
 * cts: the CBC pass covers all but the last two blocks and its chaining
 * value stays in the IV (a single block is plain CBC).  Returns the offset
 * of the ciphertext block left in the IV, or -1 when the IV is unchanged. */
static inline long ualg_cts_aesni_iv_offset(size_t len, size_t bs)
{
	if (len <= bs)
		return 0;
	size_t cbc_blocks = (len + bs - 1) / bs - 2;
	return cbc_blocks ? (long)((cbc_blocks - 1) * bs) : -1;
}

/* Multiplies an XTS tweak by x in GF(2^128), little-endian (IEEE 1619). */
static inline void ualg_xts_mul_x(uint8_t t[16])
{
	uint8_t carry = 0;

	for (int i = 0; i < 16; i++) {
		uint8_t next = t[i] >> 7;
		t[i] = (uint8_t)(t[i] << 1) | carry;
		carry = next;
	}
	if (carry)
		t[0] ^= 0x87;
}

/* Multiplies an XTS tweak by x^n: what n calls of ualg_xts_mul_x() do, a
 * shift of up to 56 bits at a time on two 64-bit words.  The bits shifted
 * out past x^127 (h, below 2^56) fold back as h * (x^7 + x^2 + x + 1),
 * which stays below 2^64, so one fold per step suffices.  A 1 MiB request
 * takes 1171 steps instead of 65536 byte-wise doublings. */
static inline void ualg_xts_mul_xn(uint8_t t[16], uint64_t n)
{
	uint64_t lo = 0, hi = 0;

	for (int i = 7; i >= 0; i--) {
		lo = lo << 8 | t[i];
		hi = hi << 8 | t[8 + i];
	}
	while (n) {
		const unsigned k = n < 56 ? (unsigned)n : 56;
		const uint64_t h = hi >> (64 - k);

		hi = hi << k | lo >> (64 - k);
		lo = lo << k ^ h ^ h << 1 ^ h << 2 ^ h << 7;
		n -= k;
	}
	for (int i = 0; i < 8; i++) {
		t[i] = (uint8_t)(lo >> (8 * i));
		t[8 + i] = (uint8_t)(hi >> (8 * i));
	}
}

/* The kernel's ChaCha block counter is the 32-bit state word 12 alone: it
 * wraps to 0 without carrying into word 13 (part of the nonce), where
 * libraries carry.  Returns how many of len bytes may be processed from
 * block counter ctr before the wrap; the caller restarts at counter 0
 * with the same nonce for the rest. */
static inline size_t ualg_chacha_bytes_before_wrap(uint32_t ctr, size_t len)
{
	const uint64_t room = ((uint64_t)1 << 32) - ctr;	/* blocks */

	return (uint64_t)len / 64 < room ? len : (size_t)(room * 64);
}

#endif
