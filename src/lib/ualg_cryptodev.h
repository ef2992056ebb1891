/* /dev/crypto under ualg: the ioctl interface of the cryptodev-linux module
 * (OpenBSD-style cryptodev), written from its ABI: the same ioctl numbers,
 * structure layouts, algorithm ids and flags, so that a program built
 * against cryptodev-linux's <crypto/cryptodev.h> runs unchanged under
 * ualg-run.  See ualg-cryptodev(7).
 *
 * One addition of ualg's own, marked below: CIOCGSESSION2 takes the
 * algorithms by kernel name ("cbc(aes)", "hmac(sha256)"). */
#ifndef UALG_CRYPTODEV_H
#define UALG_CRYPTODEV_H

/* No kernel headers: it builds with musl as with glibc. */
#include <stdint.h>
#include <sys/ioctl.h>

#define CRYPTO_HMAC_MAX_KEY_LEN		512
#define CRYPTO_CIPHER_MAX_KEY_LEN	64

enum cryptodev_crypto_op_t {
	CRYPTO_DES_CBC = 1,
	CRYPTO_3DES_CBC = 2,
	CRYPTO_BLF_CBC = 3,
	CRYPTO_CAST_CBC = 4,
	CRYPTO_SKIPJACK_CBC = 5,
	CRYPTO_MD5_HMAC = 6,
	CRYPTO_SHA1_HMAC = 7,
	CRYPTO_RIPEMD160_HMAC = 8,
	CRYPTO_MD5_KPDK = 9,
	CRYPTO_SHA1_KPDK = 10,
	CRYPTO_RIJNDAEL128_CBC = 11,
	CRYPTO_AES_CBC = CRYPTO_RIJNDAEL128_CBC,
	CRYPTO_ARC4 = 12,
	CRYPTO_MD5 = 13,
	CRYPTO_SHA1 = 14,
	CRYPTO_DEFLATE_COMP = 15,
	CRYPTO_NULL = 16,
	CRYPTO_LZS_COMP = 17,
	CRYPTO_SHA2_256_HMAC = 18,
	CRYPTO_SHA2_384_HMAC = 19,
	CRYPTO_SHA2_512_HMAC = 20,
	CRYPTO_AES_CTR = 21,
	CRYPTO_AES_XTS = 22,
	CRYPTO_AES_ECB = 23,
	CRYPTO_AES_GCM = 50,
	CRYPTO_CAMELLIA_CBC = 101,
	CRYPTO_RIPEMD160,
	CRYPTO_SHA2_224,
	CRYPTO_SHA2_256,
	CRYPTO_SHA2_384,
	CRYPTO_SHA2_512,
	CRYPTO_SHA2_224_HMAC,
	CRYPTO_ALGORITHM_ALL
};
#define CRYPTO_ALGORITHM_MAX	(CRYPTO_ALGORITHM_ALL - 1)

#define DES_BLOCK_LEN		8
#define DES3_BLOCK_LEN		8
#define RIJNDAEL128_BLOCK_LEN	16
#define AES_BLOCK_LEN		RIJNDAEL128_BLOCK_LEN
#define CAMELLIA_BLOCK_LEN	16
#define BLOWFISH_BLOCK_LEN	8
#define SKIPJACK_BLOCK_LEN	8
#define CAST128_BLOCK_LEN	8
#define EALG_MAX_BLOCK_LEN	16
#define AALG_MAX_RESULT_LEN	64
#define CRYPTODEV_MAX_ALG_NAME	64
#define HASH_MAX_LEN		64

/* CIOCGSESSION */
struct session_op {
	uint32_t cipher;		/* cryptodev_crypto_op_t, or 0 */
	uint32_t mac;		/* cryptodev_crypto_op_t, or 0 */
	uint32_t keylen;
	uint8_t *key;
	uint32_t mackeylen;
	uint8_t *mackey;
	uint32_t ses;		/* out: session id */
};

struct session_info_op {
	uint32_t ses;
	struct alg_info {
		char cra_name[CRYPTODEV_MAX_ALG_NAME];
		char cra_driver_name[CRYPTODEV_MAX_ALG_NAME];
	} cipher_info, hash_info;
	uint16_t alignmask;
	uint32_t flags;		/* SIOP_FLAG_* */
};
#define SIOP_FLAG_KERNEL_DRIVER_ONLY 1

#define COP_ENCRYPT	0
#define COP_DECRYPT	1

/* CIOCCRYPT, CIOCASYNCCRYPT, CIOCASYNCFETCH */
struct crypt_op {
	uint32_t ses;
	uint16_t op;		/* COP_ENCRYPT or COP_DECRYPT */
	uint16_t flags;		/* COP_FLAG_* */
	uint32_t len;
	uint8_t *src;
	uint8_t *dst;
	uint8_t *mac;		/* digest output of a hash or MAC session */
	uint8_t *iv;
};

/* CIOCAUTHCRYPT */
struct crypt_auth_op {
	uint32_t ses;
	uint16_t op;
	uint16_t flags;		/* 0, COP_FLAG_AEAD_TLS_TYPE or COP_FLAG_AEAD_SRTP_TYPE */
	uint32_t len;		/* out: the length of dst's result */
	uint32_t auth_len;
	uint8_t *auth_src;
	uint8_t *src;
	uint8_t *dst;
	uint8_t *tag;		/* SRTP: where the tag goes */
	uint32_t tag_len;		/* 0: the full digest or tag */
	uint8_t *iv;
	uint32_t iv_len;
};

#define COP_FLAG_NONE		(0 << 0)
#define COP_FLAG_UPDATE		(1 << 0)
#define COP_FLAG_FINAL		(1 << 1)
#define COP_FLAG_WRITE_IV	(1 << 2)
#define COP_FLAG_NO_ZC		(1 << 3)
#define COP_FLAG_AEAD_TLS_TYPE	(1 << 4)
#define COP_FLAG_AEAD_SRTP_TYPE	(1 << 5)
#define COP_FLAG_RESET		(1 << 6)

#define CRYPTO_ALG_FLAG_SUPPORTED	1
#define CRYPTO_ALG_FLAG_RNG_ENABLE	2
#define CRYPTO_ALG_FLAG_DSA_SHA		4

struct crparam {
	uint8_t *crp_p;
	uint32_t crp_nbits;
};
#define CRK_MAXPARAM	8

/* CIOCKEY: not implemented by the module (nor by ualg) */
struct crypt_kop {
	uint32_t crk_op;
	uint32_t crk_status;
	uint16_t crk_iparams;
	uint16_t crk_oparams;
	uint32_t crk_pad1;
	struct crparam crk_param[CRK_MAXPARAM];
};

enum cryptodev_crk_op_t {
	CRK_MOD_EXP = 0,
	CRK_MOD_EXP_CRT = 1,
	CRK_DSA_SIGN = 2,
	CRK_DSA_VERIFY = 3,
	CRK_DH_COMPUTE_KEY = 4,
	CRK_ALGORITHM_ALL
};
#define CRK_ALGORITHM_MAX	(CRK_ALGORITHM_ALL - 1)

/* CIOCCPHASH */
struct cphash_op {
	uint32_t dst_ses;
	uint32_t src_ses;
};

#define CRF_MOD_EXP		(1 << CRK_MOD_EXP)
#define CRF_MOD_EXP_CRT		(1 << CRK_MOD_EXP_CRT)
#define CRF_DSA_SIGN		(1 << CRK_DSA_SIGN)
#define CRF_DSA_VERIFY		(1 << CRK_DSA_VERIFY)
#define CRF_DH_COMPUTE_KEY	(1 << CRK_DH_COMPUTE_KEY)

#define CRIOGET		_IOWR('c', 101, uint32_t)
#define CIOCGSESSION	_IOWR('c', 102, struct session_op)
#define CIOCFSESSION	_IOW('c', 103, uint32_t)
#define CIOCCRYPT	_IOWR('c', 104, struct crypt_op)
#define CIOCKEY		_IOWR('c', 105, struct crypt_kop)
#define CIOCASYMFEAT	_IOR('c', 106, uint32_t)
#define CIOCGSESSINFO	_IOWR('c', 107, struct session_info_op)
#define CRIOGET_NOT_NEEDED 1
#define CIOCAUTHCRYPT	_IOWR('c', 109, struct crypt_auth_op)
#define CIOCASYNCCRYPT	_IOW('c', 110, struct crypt_op)
#define CIOCASYNCFETCH	_IOR('c', 111, struct crypt_op)
#define CIOCCPHASH	_IOW('c', 112, struct cphash_op)

/* ualg extension (not in cryptodev-linux): a session whose cipher and MAC
 * are given by kernel algorithm name, as AF_ALG's salg_name.  A non-empty
 * alg_name replaces cipher (a skcipher or an AEAD), a non-empty mac_name
 * replaces mac (a hash, keyed when mackeylen is not 0).  Unknown names
 * fail with ENOENT, as bind() on AF_ALG. */
struct session2_op {
	uint32_t cipher;
	uint32_t mac;
	uint32_t keylen;
	uint8_t *key;
	uint32_t mackeylen;
	uint8_t *mackey;
	uint32_t ses;
	char alg_name[CRYPTODEV_MAX_ALG_NAME];
	char mac_name[CRYPTODEV_MAX_ALG_NAME];
};
#define CIOCGSESSION2	_IOWR('c', 192, struct session2_op)

#endif
