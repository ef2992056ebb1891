/* What the /dev/crypto session layer's files share (see cryptodev.h): an
 * open file's sessions and queue of completions, and the functions each
 * ioctl's file gives the dispatch in cryptodev.c.  Every function here is
 * called with the layer's one lock held. */
#ifndef UALG_CRYPTODEV_INTERNAL_H
#define UALG_CRYPTODEV_INTERNAL_H

#include "cryptodev.h"
#include "crypto.h"
#include "ualg_cryptodev.h"

#include <stdbool.h>
#include <stdint.h>

struct session {
	uint32_t sid;
	struct ualg_tfm *cipher;	/* skcipher, or aead when aead */
	bool aead, stream;
	unsigned blocksize, ivsize;
	uint8_t iv[UALG_MAX_IVSIZE];
	struct ualg_tfm *hash;
	struct ualg_hash_desc desc;
	bool desc_live;			/* an open hash state */
	struct session *next;
};

/* A request in flight: the crypt_op and what its completion copies out. */
struct kop {
	struct crypt_op cop;
	unsigned ivlen, digestsize;
	uint8_t iv[UALG_MAX_IVSIZE];
	uint8_t digest[UALG_MAX_DIGESTSIZE];
};

struct done {
	struct kop k;
	int result;
	struct done *next;
};

struct cdev_file {
	unsigned refs;
	struct session *sessions;
	struct done *head, *tail;
	unsigned queued;
};

static inline uint64_t uptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* cryptodev_session.c: sessions (CIOCGSESSION, CIOCFSESSION,
 * CIOCGSESSINFO, CIOCCPHASH) and a session's hash state. */
void cdev_session_free(struct session *s);
struct session *cdev_find_session(struct cdev_file *f, uint32_t sid);
int cdev_create_session(struct cdev_file *f, struct session2_op *sop, bool named,
			const struct cdev_mem *m);
int cdev_finish_session(struct cdev_file *f, uint32_t sid);
int cdev_session_info(struct cdev_file *f, struct session_info_op *si);
int cdev_copy_hash_state(struct cdev_file *f, uint32_t dst_sid, uint32_t src_sid);
/* The session's hash state: started afresh, fed, finished (which leaves
 * none open); an update or final without an open state starts one. */
int cdev_hash_reset(struct session *s);
int cdev_hash_update(struct session *s, const uint8_t *p, size_t n);
int cdev_hash_final(struct session *s, uint8_t *out);

/* cryptodev_crypt.c: CIOCCRYPT, CIOCASYNCCRYPT, CIOCASYNCFETCH. */
int cdev_crypt_ioctl(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m);
int cdev_async_crypt(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m, int evfd);
int cdev_async_fetch(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m, int evfd);

/* cryptodev_authcrypt.c: CIOCAUTHCRYPT. */
int cdev_authcrypt_ioctl(struct cdev_file *f, uint64_t arg, const struct cdev_mem *m);

#endif
