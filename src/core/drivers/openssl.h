/* Drivers backed by OpenSSL's libcrypto (EVP): primitives (hashes, block
 * ciphers) that templates build on, and whole-mode drivers of higher
 * priority, as the kernel has cbc(aes) beside cbc-aes-aesni. */
#ifndef UALG_CORE_DRIVERS_OPENSSL_H
#define UALG_CORE_DRIVERS_OPENSSL_H

#include "../crypto.h"

#include <openssl/evp.h>

/* OpenSSL hands a cipher to an ENGINE set as the default for it even when
 * it was fetched from a provider (openssl_engine.c).  In a program whose
 * OpenSSL uses its afalg ENGINE so, that would bring the in-process
 * engine's own cipher back to AF_ALG: a mode driver refuses such a key
 * (EBUSY), and the socket stays in algd, which loads no ENGINE. */
bool ualg_openssl_engine_routed(const EVP_CIPHER *cipher);

int ualg_openssl_register(void);
int ualg_openssl_register_aead(void);	/* openssl_aead.c */
int ualg_openssl_register_rng(void);	/* openssl_rng.c */
int ualg_openssl_register_stream(void);	/* openssl_stream.c: chacha20, poly1305 */
int ualg_openssl_sha_register(void);	/* openssl_sha.c: exporting sha1/sha2 */
/* Drops what registration fetched; after every algorithm is destroyed. */
void ualg_openssl_unregister(void);
void ualg_openssl_unregister_stream(void);

/* For the driver files: a driver of this module, and its registration
 * (which frees it when refused). */
struct ualg_alg *ualg_openssl_alloc(const char *name, const char *driver,
				    enum ualg_alg_type type, int prio);
int ualg_openssl_reg(struct ualg_alg *alg);

#define UALG_OPENSSL_PRIO_PRIMITIVE 300	/* templates inherit this */
#define UALG_OPENSSL_PRIO_WHOLE 400	/* whole-mode drivers win by default */

#endif
