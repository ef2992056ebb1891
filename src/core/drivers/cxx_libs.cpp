// The C entry points of cxx_libs.h over Botan's, Boost's and Crypto++'s
// C++ interfaces.  Every exception stops here and becomes -errno.
#include "cxx_libs.h"

#include <cerrno>
#include <memory>
#include <new>

#include <boost/crc.hpp>
#include <botan/stream_cipher.h>
#include <cryptopp/aes.h>
#include <cryptopp/vmac.h>

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

// ---- crc64-rocksoft (Boost.CRC) ---------------------------------------------

uint64_t ualg_cxx_crc64_rocksoft(uint64_t crc, const uint8_t *data, size_t len)
{
	// Reflected in and out, no final inversion here: the register starts
	// from ~crc and the result is inverted back, as lib/crc64.c.  Boost
	// takes the initial register unreflected (it reflects it for a
	// reflected CRC), so ~crc goes in bit-reversed.
	uint64_t init = 0;

	for (int i = 0; i < 64; i++)
		init |= (~crc >> i & 1) << (63 - i);
	boost::crc_optimal<64, 0xad93d23594c93659ULL, 0, 0, true, true> c(init);

	c.process_bytes(data, len);
	return ~c.checksum();
}

// ---- vmac64 (Crypto++) ---------------------------------------------------------

struct ualg_cxx_vmac64 {
	CryptoPP::VMAC<CryptoPP::AES, 64> mac;
};

int ualg_cxx_vmac64_new(struct ualg_cxx_vmac64 **out, const uint8_t key[16], const uint8_t nonce[16])
{
	try {
		std::unique_ptr<ualg_cxx_vmac64> m(new ualg_cxx_vmac64);
		m->mac.SetKeyWithIV(key, 16, nonce, 16);
		*out = m.release();
		return 0;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EINVAL;
	}
}

int ualg_cxx_vmac64_update(struct ualg_cxx_vmac64 *m, const uint8_t *data, size_t len)
{
	try {
		m->mac.Update(data, len);
		return 0;
	} catch (...) {
		return -EINVAL;
	}
}

int ualg_cxx_vmac64_final(struct ualg_cxx_vmac64 *m, uint8_t tag[8])
{
	try {
		m->mac.Final(tag);	// the tag big-endian, as the kernel's
		return 0;
	} catch (...) {
		return -EINVAL;
	}
}

int ualg_cxx_vmac64_clone(struct ualg_cxx_vmac64 **out, const struct ualg_cxx_vmac64 *src)
{
	try {
		*out = new ualg_cxx_vmac64(*src);
		return 0;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EINVAL;
	}
}

void ualg_cxx_vmac64_free(struct ualg_cxx_vmac64 *m)
{
	delete m;	// Crypto++ wipes its keys (SecBlock) on destruction
}
