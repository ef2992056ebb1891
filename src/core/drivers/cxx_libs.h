/* C entry points to the libraries that have only a C++ interface for what
 * the drivers need, a file each so that each goes with its backend:
 * Botan's ChaCha with 12 rounds and a 24-byte nonce (xchacha12,
 * cxx_botan.cpp), Boost.CRC (crc64-rocksoft, cxx_boost.cpp) and Crypto++'s
 * VMAC (vmac64(aes), cxx_cryptopp.cpp).  None of them throws: errors are
 * -errno. */
#ifndef UALG_CORE_DRIVERS_CXX_LIBS_H
#define UALG_CORE_DRIVERS_CXX_LIBS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* XChaCha with ROUNDS rounds (Botan "ChaCha(ROUNDS)" with a 24-byte nonce):
 * HChaCha of key and nonce[0..16], then ChaCha from the 64-bit block
 * counter hi:lo with nonce[16..24] as the ChaCha nonce.  Botan carries the
 * counter's low word into the high one: callers stop before lo wraps. */
int ualg_cxx_xchacha_xor(unsigned rounds, const uint8_t key[32], const uint8_t nonce[24],
			 uint32_t lo, uint32_t hi, const uint8_t *src, uint8_t *dst, size_t len);

/* The kernel's crc64_rocksoft_generic(crc, data, len) (lib/crc64.c): the
 * reflected CRC-64 with polynomial 0xad93d23594c93659, the register
 * inverted on the way in and out. */
uint64_t ualg_cxx_crc64_rocksoft(uint64_t crc, const uint8_t *data, size_t len);

/* VMAC-64 over AES-128 (Crypto++ VMAC<AES, 64>) of one message: started
 * with the 16-byte key and the 16-byte nonce, whose first bit must be 0. */
struct ualg_cxx_vmac64;
int ualg_cxx_vmac64_new(struct ualg_cxx_vmac64 **out, const uint8_t key[16], const uint8_t nonce[16]);
int ualg_cxx_vmac64_update(struct ualg_cxx_vmac64 *m, const uint8_t *data, size_t len);
int ualg_cxx_vmac64_final(struct ualg_cxx_vmac64 *m, uint8_t tag[8]);
int ualg_cxx_vmac64_clone(struct ualg_cxx_vmac64 **out, const struct ualg_cxx_vmac64 *src);
void ualg_cxx_vmac64_free(struct ualg_cxx_vmac64 *m);

#ifdef __cplusplus
}
#endif
#endif
