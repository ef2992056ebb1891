/* Drivers backed by GNU Nettle: a second, independent implementation of the
 * core algorithms (AES and its ecb/cbc/ctr modes, SHA-2), registered below
 * OpenSSL's priorities so that picking the default is a real, observable
 * choice (algctl priority). */
#ifndef UALG_CORE_DRIVERS_NETTLE_H
#define UALG_CORE_DRIVERS_NETTLE_H

int ualg_nettle_register(void);

#define UALG_NETTLE_PRIO_PRIMITIVE 200	/* below UALG_OPENSSL_PRIO_PRIMITIVE */
#define UALG_NETTLE_PRIO_WHOLE 350	/* below UALG_OPENSSL_PRIO_WHOLE */

#endif
