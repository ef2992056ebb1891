// The C entry points of cxx_libs.h over Crypto++'s VMAC (vmac64(aes)).
// Every exception stops here and becomes -errno.
#include "cxx_libs.h"

#include <cerrno>
#include <memory>
#include <new>

#include <cryptopp/aes.h>
#include <cryptopp/vmac.h>

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
