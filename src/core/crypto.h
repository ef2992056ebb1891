/* ualg core crypto API.
 *
 * Modelled on the kernel's crypto/: algorithms are registered by type with a
 * generic name ("cbc(aes)"), a driver name ("cbc-aes-openssl") and a priority;
 * lookups pick the highest-priority tested driver; templates ("cbc", "hmac")
 * build new algorithms out of others on demand.  This layer knows nothing of
 * sockets or clients: the daemon wraps it.
 *
 * Not thread-safe: the registry is owned by one thread (algd's event loop).
 * A transform, once created, may be used from another thread (algd's ring
 * workers), by one thread at a time; creating and freeing it stay with the
 * registry's thread.
 */
#ifndef UALG_CORE_CRYPTO_H
#define UALG_CORE_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UALG_MAX_ALG_NAME 128	/* CRYPTO_MAX_ALG_NAME */
#define UALG_MAX_BLOCKSIZE 16
#define UALG_MAX_IVSIZE 32	/* xchacha20 */
#define UALG_MAX_DIGESTSIZE 64
#define UALG_MAX_KEYSIZE 2048	/* hmac keys may be long, nhpoly1305 has 1088 bytes; ciphers check their own */
#define UALG_MAX_SPAWNS 3	/* adiantum: stream cipher, block cipher, hash */

enum ualg_alg_type {
	UALG_ALG_CIPHER,	/* single-block cipher: "aes" */
	UALG_ALG_SHASH,		/* message digest or keyed hash */
	UALG_ALG_SKCIPHER,	/* symmetric cipher mode over a byte stream */
	UALG_ALG_AEAD,		/* authenticated encryption with associated data */
	UALG_ALG_RNG,		/* deterministic random bit generator */
	UALG_ALG_AKCIPHER,	/* asymmetric cipher: "rsa", "pkcs1pad(rsa,sha256)" */
	UALG_ALG_KPP,		/* key agreement: "dh", "ecdh-nist-p256" */
	UALG_ALG_COMP,		/* one-shot compression: "deflate", "lz4" */
};

/* Registration state, as /proc/crypto reports it. */
enum ualg_selftest {
	UALG_SELFTEST_UNKNOWN,
	UALG_SELFTEST_PASSED,
	UALG_SELFTEST_FAILED,	/* never handed out by lookups */
};

struct ualg_alg;
struct ualg_tfm;
struct ualg_hash_desc;

struct ualg_cipher_ops {
	unsigned min_keysize, max_keysize;
	int (*setkey)(struct ualg_tfm *tfm, const uint8_t *key, size_t len);
	void (*encrypt)(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src);
	void (*decrypt)(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src);
};

/* One of several independent one-shot digests (digest_many). */
struct ualg_digest_req {
	const uint8_t *data;
	size_t len;
	uint8_t *out;		/* digestsize bytes */
};

/* Hash state lives in a descriptor of descsize bytes owned by the caller.
 * init/clone may allocate inside it; exit releases and wipes. */
struct ualg_shash_ops {
	unsigned digestsize;
	size_t descsize;
	/* A key that may be left unset (CRYPTO_ALG_OPTIONAL_KEY): the seed of
	 * crc32, crc32c and xxhash64, blake2b's key. */
	bool optional_key;
	/* The message starts with key material (poly1305's 32-byte key,
	 * vmac64's 16-byte nonce): a final fails on a message shorter than
	 * msg_key_len, or whose first byte has a bit of msg_key_clear set
	 * (vmac64's nonce is 127 bits). */
	uint8_t msg_key_len, msg_key_clear;
	int (*setkey)(struct ualg_tfm *tfm, const uint8_t *key, size_t len);
	int (*init)(struct ualg_hash_desc *desc);
	int (*update)(struct ualg_hash_desc *desc, const uint8_t *data, size_t len);
	int (*final)(struct ualg_hash_desc *desc, uint8_t *out);
	int (*clone)(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src);
	void (*exit)(struct ualg_hash_desc *desc);
	/* Optional, for drivers whose library works on several messages at
	 * once (multi-buffer): n one-shot digests, res[i] the 0 or -errno of
	 * each; returns -errno when none ran. */
	int (*digest_many)(struct ualg_tfm *tfm, unsigned n, const struct ualg_digest_req *reqs, int *res);
	/* Optional, as the kernel's shash export/import (RFC mode's partial
	 * hash states): export writes statesize bytes from which import
	 * rebuilds an equal state in a desc that init prepared.  import must
	 * refuse (-EINVAL) bytes that would make a later update or final
	 * misbehave (an index past the block, say): they may be forged. */
	size_t statesize;
	int (*export)(const struct ualg_hash_desc *desc, uint8_t *out);
	int (*import)(struct ualg_hash_desc *desc, const uint8_t *in);
};

/* One request of a skcipher batch (crypt_many): len bytes from src to dst
 * (which may alias), iv as for encrypt and decrypt. */
struct ualg_skcipher_req {
	uint8_t *iv;
	const uint8_t *src;
	uint8_t *dst;
	size_t len;
};

/* One request processes len bytes from src to dst (which may alias) and
 * leaves in iv what the next request continues from, as the kernel's
 * skcipher API does (last ciphertext block for cbc, next counter for ctr). */
struct ualg_skcipher_ops {
	unsigned min_keysize, max_keysize, ivsize;
	unsigned chunksize;	/* a request's length must be a multiple, except the last */
	int (*setkey)(struct ualg_tfm *tfm, const uint8_t *key, size_t len);
	int (*encrypt)(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len);
	int (*decrypt)(struct ualg_tfm *tfm, uint8_t *iv, const uint8_t *src, uint8_t *dst, size_t len);
	/* Optional, for drivers that run several requests at once (a DPDK
	 * device's burst): n independent requests, each as encrypt or
	 * decrypt would run it (its own iv updated), res[i] the 0 or -errno
	 * of each; returns -errno when none ran. */
	int (*crypt_many)(struct ualg_tfm *tfm, bool enc, unsigned n, const struct ualg_skcipher_req *reqs,
			  int *res);
};

/* One AEAD request, as the kernel's aead_request after algif_aead has copied
 * the input to the output buffer: the text is processed in place.  aad and
 * text are separate pointers so that templates (rfc4106, authencesn) can
 * hand an inner algorithm part of the associated data without moving it.
 * Encryption: cryptlen bytes of plaintext; the tag (tfm->authsize bytes) is
 * written at text + cryptlen.  Decryption: cryptlen counts ciphertext and
 * tag; on success the plaintext replaces the ciphertext; a tag mismatch
 * gives -EBADMSG and the text must not be released. */
struct ualg_aead_req {
	const uint8_t *aad;
	size_t assoclen;
	uint8_t *text;
	size_t cryptlen;
	uint8_t *iv;		/* ivsize bytes; authenc leaves the CBC chaining value */
	/* Encryption only, for algorithms whose ops set src_ok: the
	 * plaintext's own cryptlen bytes, read from there and written to
	 * text (out of place).  NULL: text holds it (in place). */
	const uint8_t *src;
};

struct ualg_aead_ops {
	unsigned ivsize, maxauthsize;
	int (*setkey)(struct ualg_tfm *tfm, const uint8_t *key, size_t len);
	/* NULL: any size from 1 to maxauthsize (crypto_aead_setauthsize()). */
	int (*setauthsize)(struct ualg_tfm *tfm, unsigned authsize);
	int (*encrypt)(struct ualg_tfm *tfm, const struct ualg_aead_req *req);
	int (*decrypt)(struct ualg_tfm *tfm, const struct ualg_aead_req *req);
	/* Optional, as shash's digest_many: n independent encryptions. */
	int (*encrypt_many)(struct ualg_tfm *tfm, unsigned n, const struct ualg_aead_req *reqs, int *res);
	/* Optional, as encrypt_many: n independent decryptions, res[i] as
	 * decrypt would answer (-EBADMSG: the tag did not verify).  A
	 * request that fails leaves its text as it was: no plaintext is
	 * written there before its tag verified. */
	int (*decrypt_many)(struct ualg_tfm *tfm, unsigned n, const struct ualg_aead_req *reqs, int *res);
	bool src_ok;		/* encrypt takes req->src (out of place) */
};

/* A DRBG: seeding (re)instantiates it with the bytes as personalization
 * string, as the kernel's crypto_rng_reset() on the drbg driver. */
struct ualg_rng_ops {
	unsigned seedsize;
	int (*seed)(struct ualg_tfm *tfm, const uint8_t *seed, size_t len);
	int (*generate)(struct ualg_tfm *tfm, uint8_t *out, size_t len);
};

/* Asymmetric ciphers, as the kernel's akcipher: a public key (DER
 * RSAPublicKey, or an uncompressed EC point) or a private key (DER
 * RSAPrivateKey) set as crypto_akcipher_set_{pub,priv}_key() take them.
 * One call runs one operation on src and writes at most *dlen bytes to
 * dst, setting *dlen to what it wrote; too small a dst gives -EOVERFLOW.
 * Verification takes the signature and answers -EBADMSG on a mismatch:
 * the recovered message goes to dst (rsa, pkcs1pad given the signature
 * alone), or src is the signature followed by the digest and nothing is
 * written (pkcs1pad given both, ecdsa with a DER signature). */
enum ualg_akcipher_op { UALG_AK_ENCRYPT, UALG_AK_DECRYPT, UALG_AK_SIGN, UALG_AK_VERIFY };

#define UALG_AKCIPHER_MAX_OUT 1024	/* the largest key any driver takes: 8192 bits */

struct ualg_akcipher_ops {
	int (*set_pub_key)(struct ualg_tfm *tfm, const uint8_t *key, size_t len);
	int (*set_priv_key)(struct ualg_tfm *tfm, const uint8_t *key, size_t len);
	unsigned (*max_size)(const struct ualg_tfm *tfm);	/* of the key set */
	int (*run)(struct ualg_tfm *tfm, enum ualg_akcipher_op op, const uint8_t *src, size_t slen,
		   uint8_t *dst, size_t *dlen);
};

/* Key agreement, as the kernel's kpp: the secret is crypto_kpp_set_secret()'s
 * packed format (crypto_dh_encode_key()/crypto_ecdh_encode_key()); a zero
 * key length asks for a generated private key.  Outputs as *dlen above. */
struct ualg_kpp_ops {
	int (*set_secret)(struct ualg_tfm *tfm, const uint8_t *secret, size_t len);
	unsigned (*max_size)(const struct ualg_tfm *tfm);
	int (*gen_pubkey)(struct ualg_tfm *tfm, uint8_t *dst, size_t *dlen);
	int (*compute_ss)(struct ualg_tfm *tfm, const uint8_t *peer, size_t plen, uint8_t *dst,
			  size_t *dlen);
};

/* Compression, as the kernel's scomp: one whole buffer each way.  Output
 * beyond *dlen gives -ENOSPC (the caller may retry with more room), input
 * that is not a valid stream -EBADMSG. */
struct ualg_comp_ops {
	int (*compress)(struct ualg_tfm *tfm, const uint8_t *src, size_t slen, uint8_t *dst,
			size_t *dlen);
	int (*decompress)(struct ualg_tfm *tfm, const uint8_t *src, size_t slen, uint8_t *dst,
			  size_t *dlen);
};

struct ualg_alg {
	char name[UALG_MAX_ALG_NAME];	/* generic name, cra_name */
	char driver[UALG_MAX_ALG_NAME];	/* implementation, cra_driver_name */
	const char *module;		/* who provides it, as /proc/crypto's "module" */
	int priority;
	enum ualg_alg_type type;
	unsigned blocksize;
	size_t ctxsize;			/* per-transform context */
	const void *priv;		/* driver data shared by all transforms */

	/* Optional per-transform set-up, e.g. a template allocating its child. */
	int (*init_tfm)(struct ualg_tfm *tfm);
	void (*exit_tfm)(struct ualg_tfm *tfm);

	union {
		struct ualg_cipher_ops cipher;
		struct ualg_shash_ops shash;
		struct ualg_skcipher_ops skcipher;
		struct ualg_aead_ops aead;
		struct ualg_rng_ops rng;
		struct ualg_akcipher_ops akcipher;
		struct ualg_kpp_ops kpp;
		struct ualg_comp_ops comp;
	} u;

	/* Registry bookkeeping. */
	enum ualg_selftest selftest;
	bool dead;			/* unregistered; freed when its last user goes */
	bool disabled;			/* configuration keeps it out of lookups */
	/* FIPS mode: not approved (CRYPTO_ALG_FIPS_INTERNAL), usable only
	 * as a spawn of an approved instance (fips.c). */
	bool fips_internal;
	struct ualg_alg_stats {		/* what CRYPTO_MSG_GETSTAT reported */
		uint64_t ops;		/* requests: cipher calls, blocks, digests */
		uint64_t bytes;		/* bytes they processed */
		uint64_t errors;	/* requests that failed */
	} stats;
	unsigned refcnt;		/* transforms and instances using it */
	uint32_t builder;		/* instances: whose lookup built it (ualg_set_builder) */
	/* Its registration's place in ualg_core_init()'s order (instances
	 * after every driver): the earlier wins among equal priorities. */
	uint8_t rank;
	struct ualg_alg *spawns[UALG_MAX_SPAWNS];	/* what a template instance is built on */
	void (*destroy)(struct ualg_alg *alg);	/* frees an instance */
	struct ualg_alg *next;
};

struct ualg_tfm {
	struct ualg_alg *alg;
	unsigned refs;		/* ualg_tfm_get(); the registry's thread only */
	bool need_key;		/* keyed algorithm without a valid key yet */
	unsigned authsize;	/* aead: tag length, maxauthsize until set */
	void *ctx;		/* alg->ctxsize bytes, wiped on free */
};

struct ualg_hash_desc {
	struct ualg_tfm *tfm;
	void *state;		/* descsize bytes */
};

/* Registry (registry.c) */
int ualg_core_init(void);
/* Whether requests are counted in each algorithm's stats (tfm.c): only a
 * host that reports them (algd: crypto_user, algctl) turns it on. */
void ualg_core_count_stats(bool on);
/* Whether ualg_hash_done() releases a keyed hash's state after its final
 * (tfm.c): a host that shares the key heap among users (algd) turns it
 * on; a program keeps the state for its next operation. */
void ualg_core_release_hash_states(bool on);
/* Before ualg_core_init(): test each driver on its first lookup instead of
 * all of them at registration (the in-process engine, where algd has
 * already tested the same code; never in FIPS mode). */
void ualg_selftest_defer(void);
void ualg_core_exit(void);
int ualg_register(struct ualg_alg *alg);
/* Finds the highest-priority usable algorithm of that type whose generic or
 * driver name is name, instantiating templates as needed.  Returns NULL and
 * sets *err to a positive errno (ENOENT, ELIBBAD, ENAMETOOLONG, ENOMEM) on
 * failure, as every int *err of the tree; on success the caller owns a
 * reference and must ualg_alg_put() it. */
struct ualg_alg *ualg_alg_lookup(enum ualg_alg_type type, const char *name, int *err);
/* As ualg_alg_lookup, among hashes that can export their state (and
 * templates over such): RFC mode's partial states. */
struct ualg_alg *ualg_alg_lookup_exportable(enum ualg_alg_type type, const char *name, int *err);
void ualg_alg_get(struct ualg_alg *alg);
void ualg_alg_put(struct ualg_alg *alg);
/* Iterates the registry in registration order; start with NULL. */
const struct ualg_alg *ualg_alg_next(const struct ualg_alg *prev);

/* Administration (crypto_user).  An instance is an algorithm a template
 * built.  Changing a priority unregisters the instances built on the
 * algorithm, so that later lookups build them again over the new best
 * choice (crypto_remove_spawns); ones in use live on until released. */
static inline bool ualg_alg_is_instance(const struct ualg_alg *alg)
{
	return alg->spawns[0] != NULL;
}
void ualg_alg_set_priority(struct ualg_alg *alg, int priority);
/* As ualg_alg_lookup, of any type. */
struct ualg_alg *ualg_alg_lookup_any(const char *name, int *err);
/* The driver name here that a kernel driver name stands for (registry.c):
 * "hmac(sha1-generic)" is "hmac(sha1-openssl)"; others are copied. */
void ualg_driver_canon(const char *name, char out[UALG_MAX_ALG_NAME]);
/* Finds or builds name (generic or driver) of any type, as
 * crypto_alg_mod_lookup; returns 0 or -errno, holding no reference. */
int ualg_alg_instantiate(const char *name);
/* Instances one builder (algd: a client uid) keeps: lookups made after
 * ualg_set_builder(id) charge what they build to id.  When id would build
 * past the cap (ualg_instances_cap; 0: none) its unused instances go
 * first, oldest first, as the kernel frees an unused module on
 * crypto_mod_put(); if all are in use the lookup fails with ENOMEM.
 * UALG_BUILDER_NONE (the default) is never capped. */
#define UALG_BUILDER_NONE UINT32_MAX
void ualg_instances_cap(unsigned cap);
void ualg_set_builder(uint32_t id);
/* Unregisters every unused instance id built (its last user went);
 * returns how many went. */
unsigned ualg_instances_reclaim(uint32_t id);
/* Removes an unused instance: -EINVAL for a driver's own algorithm,
 * -EBUSY while transforms or other instances use it. */
int ualg_alg_unregister(struct ualg_alg *alg);
/* Moves whenever something changes that can change what a lookup returns
 * or what is decided from its answer: an algorithm registered or
 * unlinked, a priority set, and (through ualg_alg_changed(), called by
 * whoever changes them) disabled flags and algd's configuration. */
uint32_t ualg_registry_gen(void);
void ualg_alg_changed(void);
const char *ualg_alg_type_name(enum ualg_alg_type type);

/* Transforms (tfm.c) */
/* A new transform holds one reference; whoever shares it (two op sockets
 * of one hash state) takes another with ualg_tfm_get().  ualg_tfm_free()
 * drops one, and the last frees the transform and wipes its key.
 * ualg_tfm_new() returns NULL with *err a positive errno on failure. */
struct ualg_tfm *ualg_tfm_new(struct ualg_alg *alg, int *err);
struct ualg_tfm *ualg_tfm_get(struct ualg_tfm *tfm);
void ualg_tfm_free(struct ualg_tfm *tfm);
int ualg_tfm_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len);
bool ualg_tfm_has_setkey(const struct ualg_tfm *tfm);

int ualg_hash_init(struct ualg_hash_desc *desc, struct ualg_tfm *tfm);
int ualg_hash_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len);
int ualg_hash_final(struct ualg_hash_desc *desc, uint8_t *out);
int ualg_hash_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src);
void ualg_hash_exit(struct ualg_hash_desc *desc);
/* After a final: a keyed hash's state (key-derived values, in the locked
 * key heap) is released where ualg_core_release_hash_states() asked, since
 * the next operation starts with init. */
void ualg_hash_done(struct ualg_hash_desc *desc);
int ualg_hash_digest(struct ualg_tfm *tfm, const uint8_t *data, size_t len, uint8_t *out);
unsigned ualg_hash_digestsize(const struct ualg_tfm *tfm);
/* Partial states (shash export/import): 0 when the hash cannot export.
 * export writes statesize bytes of desc's open state; import makes desc
 * a state of tfm from exactly statesize bytes, -EINVAL for others or for
 * bytes the algorithm refuses. */
size_t ualg_hash_statesize(const struct ualg_tfm *tfm);
int ualg_hash_export(const struct ualg_hash_desc *desc, uint8_t *out);
int ualg_hash_import(struct ualg_hash_desc *desc, struct ualg_tfm *tfm, const uint8_t *in, size_t len);
/* Batches for multi-buffer drivers: true when the transform's driver runs
 * several requests at once; the _many calls then do n requests, res[i]
 * the 0 or -errno of each, and return -errno when none ran. */
bool ualg_hash_has_many(const struct ualg_tfm *tfm);
int ualg_hash_digest_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_digest_req *reqs, int *res);
bool ualg_aead_has_encrypt_many(const struct ualg_tfm *tfm);
int ualg_aead_encrypt_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_aead_req *reqs, int *res);
/* Decryptions: -EINVAL for all when one is shorter than the tag; a
 * request whose tag does not verify (-EBADMSG) or that fails otherwise
 * keeps its text unchanged. */
bool ualg_aead_has_decrypt_many(const struct ualg_tfm *tfm);
int ualg_aead_decrypt_many(struct ualg_tfm *tfm, unsigned n, const struct ualg_aead_req *reqs, int *res);

int ualg_skcipher_crypt(struct ualg_tfm *tfm, bool enc, uint8_t *iv,
			const uint8_t *src, uint8_t *dst, size_t len);
bool ualg_skcipher_has_many(const struct ualg_tfm *tfm);
int ualg_skcipher_crypt_many(struct ualg_tfm *tfm, bool enc, unsigned n, const struct ualg_skcipher_req *reqs,
			     int *res);
int ualg_aead_setauthsize(struct ualg_tfm *tfm, unsigned authsize);
int ualg_aead_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req);
/* Whether ualg_aead_encrypt() takes req->src. */
bool ualg_aead_takes_src(const struct ualg_tfm *tfm);
int ualg_aead_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req);

int ualg_rng_seed(struct ualg_tfm *tfm, const uint8_t *seed, size_t len);
int ualg_rng_generate(struct ualg_tfm *tfm, uint8_t *out, size_t len);

/* akcipher, kpp and compression (tfm.c).  ualg_tfm_setkey() sets an
 * akcipher's private key and a kpp's secret. */
int ualg_akcipher_set_pub_key(struct ualg_tfm *tfm, const uint8_t *key, size_t len);
unsigned ualg_akcipher_max_size(const struct ualg_tfm *tfm);
int ualg_akcipher_run(struct ualg_tfm *tfm, enum ualg_akcipher_op op, const uint8_t *src,
		      size_t slen, uint8_t *dst, size_t *dlen);
unsigned ualg_kpp_max_size(const struct ualg_tfm *tfm);
int ualg_kpp_gen_pubkey(struct ualg_tfm *tfm, uint8_t *dst, size_t *dlen);
int ualg_kpp_compute_ss(struct ualg_tfm *tfm, const uint8_t *peer, size_t plen, uint8_t *dst,
			size_t *dlen);
/* The kernel's key formats (asym_keys.c), BER as lib/asn1_decoder.c reads
 * them.  An RSA key: RSAPrivateKey (priv) or RSAPublicKey; the INTEGERs'
 * contents as they are (unsigned big-endian), NULL where missing; 0,
 * -EBADMSG (malformed) or -EINVAL (a value rsa_helper.c refuses). */
struct ualg_rsa_raw_key {
	const uint8_t *n, *e, *d;
	size_t n_len, e_len, d_len;
};
int ualg_rsa_parse_key(const uint8_t *key, size_t len, bool priv, struct ualg_rsa_raw_key *k);
/* PKCS#3 DHParameter (SEQUENCE { prime, base [, privateValueLength] })
 * into the big-endian p and g without leading zeros, each at most
 * UALG_DH_MAX_BYTES; 0, -EBADMSG or -EINVAL. */
#define UALG_DH_MAX_BYTES 1024
int ualg_dh_decode_params(const uint8_t *der, size_t len, uint8_t *p, size_t *plen, uint8_t *g,
			  size_t *glen);
int ualg_comp_run(struct ualg_tfm *tfm, bool compress, const uint8_t *src, size_t slen,
		  uint8_t *dst, size_t *dlen);

/* Constant-time comparison of tags: 0 when equal. */
int ualg_memneq(const void *a, const void *b, size_t len);

void ualg_cipher_encrypt_one(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src);
void ualg_cipher_decrypt_one(struct ualg_tfm *tfm, uint8_t *dst, const uint8_t *src);

/* Self-tests (selftest.c): 0 when the algorithm passes its vectors or has
 * none (as testmgr does), -1 on a mismatch. */
int ualg_selftest_run(struct ualg_alg *alg);

/* Test builds only: the next self-test of the generic name alg runs on
 * vectors with one expected byte flipped, so that it fails (NULL: none). */
void ualg_selftest_corrupt(const char *alg);

/* FIPS mode (fips.c), as Linux 6.1 with fips=1.  ualg_fips_enable() goes
 * before ualg_core_init(), which then also runs the self-tests of every
 * approved name it can build and fails with -ELIBBAD when one of them (or
 * of the drivers) fails, as the kernel panics.  A failure after that, when
 * an instance is built on demand, calls the fatal hook (algd exits). */
void ualg_fips_enable(void);
bool ualg_fips_enabled(void);
bool ualg_fips_alg_approved(const struct ualg_alg *alg);
size_t ualg_fips_approved_names(const char *const **names);
/* -1 when FIPS mode refuses this key (hmac under 112 bits, xts halves
 * equal), else 0. */
int ualg_fips_check_key(const struct ualg_alg *alg, const uint8_t *key, size_t len);
/* Whether this thread had a key refused so since the last call; clears. */
bool ualg_fips_take_refusal(void);
/* The approved algorithm whose self-test failed, or NULL. */
const struct ualg_alg *ualg_fips_failure(void);
void ualg_fips_set_fatal_hook(void (*hook)(const struct ualg_alg *failed));

/* Wipes memory the compiler may not elide. */
void ualg_wipe(void *p, size_t len);

/* Key memory (secmem.c).  ualg_secmem_init() installs the allocator hooks
 * and the locked heap: call it first in main(), before any OpenSSL use.
 * Returns 0, 1 when the heap works but could not be locked, -1 on failure.
 * Without it the functions below fall back to malloc (unit tests). */
int ualg_secmem_init(size_t heap_size);
/* Between begin and end every OpenSSL allocation is in the secure heap;
 * end returns -ENOMEM when one failed because the heap was full. */
void ualg_secure_begin(void);
int ualg_secure_end(void);
bool ualg_secure_active(void);
void *ualg_secure_zalloc(size_t n);
void ualg_secure_free(void *p);	/* wipes; NULL is fine */

/* A budget of bytes (or of any unit), charged and uncharged from any
 * thread; max 0 is no limit.  algd keeps one per client uid. */
struct ualg_budget {
	size_t used, max;
};

static inline bool ualg_budget_charge(struct ualg_budget *b, size_t n)
{
	size_t used = __atomic_load_n(&b->used, __ATOMIC_RELAXED);
	do {
		if (b->max && (n > b->max || used > b->max - n))
			return false;
	} while (!__atomic_compare_exchange_n(&b->used, &used, used + n, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

static inline void ualg_budget_uncharge(struct ualg_budget *b, size_t n)
{
	__atomic_fetch_sub(&b->used, n, __ATOMIC_RELAXED);
}

/* While a budget is set on this thread, every secure-heap block allocated
 * is charged to it, and refused (NULL, -ENOMEM from ualg_secure_end())
 * past its max; the block is uncharged when freed, on any thread.  NULL:
 * charge no one. */
void ualg_secure_set_budget(struct ualg_budget *b);

#endif
