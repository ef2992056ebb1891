// The C entry point of cxx_libs.h over Boost.CRC (crc64-rocksoft).
#include "cxx_libs.h"

#include <boost/crc.hpp>

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
