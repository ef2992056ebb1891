/* Whether this process's OpenSSL hands a cipher to an ENGINE (openssl.h).
 * The ENGINE API is deprecated in OpenSSL 3, but it is the only way to ask
 * what OpenSSL still does with it. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "openssl.h"

#include <openssl/engine.h>

bool ualg_openssl_engine_routed(const EVP_CIPHER *cipher)
{
#ifdef OPENSSL_NO_ENGINE
	(void)cipher;
	return false;
#else
	ENGINE *e = ENGINE_get_cipher_engine(EVP_CIPHER_get_nid(cipher));
	if (e)
		ENGINE_finish(e);
	return e != NULL;
#endif
}
