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

/* Where the kernel's cts(cbc) leaves its output IV: the ciphertext block
 * before the stolen pair (crypto/cts.c), or the only block. */
static inline size_t ualg_cts_iv_offset(size_t len, size_t bs)
{
	size_t offset = (len - 1) / bs * bs;	/* rounddown(len - 1, bs) */

	return offset > bs ? offset - bs : 0;
}

#endif
