// The C entry point of cxx_libs.h over Botan's ChaCha (xchacha12).
// Every exception stops here and becomes -errno.
#include "cxx_libs.h"

#include <cerrno>
#include <new>
#include <string>

#include <botan/stream_cipher.h>

// ---- xchacha (Botan) -------------------------------------------------------

int ualg_cxx_xchacha_xor(unsigned rounds, const uint8_t key[32], const uint8_t nonce[24],
			 uint32_t lo, uint32_t hi, const uint8_t *src, uint8_t *dst, size_t len)
{
	try {
		auto c = Botan::StreamCipher::create_or_throw("ChaCha(" + std::to_string(rounds) + ")");
		c->set_key(key, 32);
		c->set_iv(nonce, 24);	// HChaCha; the counter is then 0
		// ChaCha::seek(offset) sets the counter's low word to that of
		// offset / 64 and adds its high word to the counter's high
		// word.  offset is a byte count of 64 bits, so the high word
		// goes in steps of at most 2^25 (block 2^57, byte 2^63).
		for (uint64_t left = hi; left;) {
			const uint64_t step = left < (1u << 25) ? left : (1u << 25);
			c->seek(step << 32 << 6);
			left -= step;
		}
		c->seek((uint64_t)lo * 64);
		c->cipher(src, dst, len);
		return 0;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EINVAL;
	}
}
