/* Drivers backed by OpenSSL's libcrypto (EVP): primitives (hashes, block
 * ciphers) that templates build on, and whole-mode drivers of higher
 * priority, as the kernel has cbc(aes) beside cbc-aes-aesni. */
#ifndef UALG_CORE_DRIVERS_OPENSSL_H
#define UALG_CORE_DRIVERS_OPENSSL_H

int ualg_openssl_register(void);

#define UALG_OPENSSL_PRIO_PRIMITIVE 300	/* templates inherit this */
#define UALG_OPENSSL_PRIO_WHOLE 400	/* whole-mode drivers win by default */

#endif
