/* Drivers backed by libraries other than OpenSSL, each for what OpenSSL
 * lacks or does differently from the kernel.  They register through the
 * OpenSSL driver's helpers (ualg_openssl_alloc/reg) with their own module
 * name, at the primitive priority. */
#ifndef UALG_CORE_DRIVERS_OTHERS_H
#define UALG_CORE_DRIVERS_OTHERS_H

int ualg_checksum_register(void);	/* checksum.c: crc32, crc32c, crct10dif, crc64-rocksoft, xxhash64 */
int ualg_sodium_register(void);		/* sodium.c: blake2b-*, xchacha20 */
int ualg_nettle_more_register(void);	/* nettle_ciphers.c: serpent, twofish, ghash, poly1305 */

int ualg_ipsecmb_register(void);	/* ipsecmb*.c: multi-buffer sha, cbc(aes), gcm(aes) */
int ualg_asym_register(void);		/* openssl_asym.c: rsa, pkcs1pad, ecdsa, dh, ecdh */
int ualg_comp_register(void);		/* compress.c: deflate, lz4, lzo, zstd */
int ualg_null_register(void);		/* null.c: cipher_null, ecb(cipher_null), digest_null */
int ualg_botan_register(void);		/* botan.c: cast6, streebog*, wp*, xchacha12 */
int ualg_cryptopp_register(void);	/* cryptopp.c: vmac64(aes) */
int ualg_jitter_register(void);		/* jitter.c: jitterentropy_rng (getrandom) */

/* Written here from their specifications, where no library in Debian has
 * them (the block cipher under ansi_cprng is OpenSSL's AES). */
int ualg_fcrypt_register(void);		/* fcrypt.c: fcrypt (AFS's Rx cipher) */
int ualg_michael_mic_register(void);	/* michael_mic.c: michael_mic (TKIP's MIC) */
int ualg_ansi_cprng_register(void);	/* ansi_cprng.c: ansi_cprng (X9.31, AES-128) */

/* The core's own implementations, written from their specifications where
 * no library has the primitive, over library pieces where one has them;
 * module "ualg". */
#define UALG_OWN_MODULE "ualg"
int ualg_own_register(void);		/* nhpoly1305.c and aegis128.c */
int ualg_nhpoly1305_register(void);	/* nhpoly1305.c: nhpoly1305 (NH, OpenSSL's Poly1305) */
int ualg_aegis128_register(void);	/* aegis128.c: aegis128 */
#endif
