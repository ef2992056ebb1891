/* The native ring service's control side (see ring.h): setting a ring up,
 * opening, keying and closing its transforms, on the event-loop thread.
 * Its requests run on worker threads (ring_worker.c, ring_exec.c). */
#include "ring_impl.h"
#include "keystore.h"
#include "policy.h"
#include "msg.h"
#include "proto.h"

_Static_assert(UALG_KEY_BYTES_MAX == UALG_MAX_KEYSIZE, "RING_SETKEY's limit is the core's");

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

/* By its worker once removed from it, or by the event loop before any
 * worker saw it. */
void ring_free(struct ring *r)
{
	munmap(r->map, r->map_size);
	close(r->memfd);
	close(r->sq_efd);
	close(r->cq_efd);
	pthread_mutex_destroy(&r->lock);
	ring_scratch_drop(r);
	free(r);
}

/* The ring's lock for the event loop: the worker, which holds it for one
 * request or group at a time, steps aside between two. */
static void ctl_lock(struct ring *r)
{
	if (r->ctl_held)	/* for the whole request (ring_ctl_begin()) */
		return;
	__atomic_fetch_add(&r->ctl_waiting, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_lock(&r->lock);
}

static void ctl_unlock(struct ring *r)
{
	if (r->ctl_held)
		return;
	pthread_mutex_unlock(&r->lock);
	__atomic_fetch_sub(&r->ctl_waiting, 1, __ATOMIC_ACQ_REL);
}

bool ring_ctl_held(const struct ring *r)
{
	return r->ctl_held;
}

bool ring_ctl_begin(struct ring *r, bool waited)
{
	if (!waited)
		__atomic_fetch_add(&r->ctl_waiting, 1, __ATOMIC_ACQ_REL);
	if (pthread_mutex_trylock(&r->lock)) {
		__atomic_fetch_sub(&r->ctl_waiting, 1, __ATOMIC_ACQ_REL);
		return false;
	}
	r->ctl_held = true;
	return true;
}

void ring_ctl_end(struct ring *r)
{
	r->ctl_held = false;
	pthread_mutex_unlock(&r->lock);
	__atomic_fetch_sub(&r->ctl_waiting, 1, __ATOMIC_ACQ_REL);
}

void ring_ctl_wait(struct ring *r)
{
	__atomic_fetch_add(&r->ctl_waiting, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_lock(&r->lock);
	pthread_mutex_unlock(&r->lock);
}

static int reply(int fd, uint16_t type, int32_t result, const void *data, size_t len, int pass_fd)
{
	struct iovec part = { (void *)data, len };
	return ualg_frame_send(fd, type, UALG_HDR_REPLY, result, &part, len ? 1 : 0, pass_fd);
}

static size_t page_round(size_t n)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (n + page - 1) / page * page;
}

/* The memfd is sealed at its size before the client gets it: a client
 * that could shrink it would make algd's accesses fault. */
static int ring_map(struct ring *r, struct ualg_ring_setup_reply *rep)
{
	rep->entries = r->entries;
	rep->sq_off = page_round(sizeof(struct ualg_ring_shared));
	rep->cq_off = rep->sq_off + page_round(r->entries * sizeof(struct ualg_sqe));
	rep->buf_off = rep->cq_off + page_round(r->entries * sizeof(struct ualg_cqe));
	rep->bufsize = r->bufsize;
	rep->map_size = rep->buf_off + page_round(r->bufsize);
	r->map_size = rep->map_size;

	void *m;
	r->memfd = ualg_memfd_create("ualg-ring", r->map_size, &m);
	if (r->memfd < 0)
		return r->memfd;
	r->map = m;
	r->sh = m;
	r->sq = (struct ualg_sqe *)(r->map + rep->sq_off);
	r->cq = (struct ualg_cqe *)(r->map + rep->cq_off);
	r->buf = r->map + rep->buf_off;
	return 0;
}

static struct ring *ring_new(const struct ualg_ring_setup *s, struct ualg_ring_setup_reply *rep, int *err)
{
	struct ring *r = calloc(1, sizeof(*r));

	if (!r) {
		*err = ENOMEM;
		return NULL;
	}
	r->memfd = r->sq_efd = r->cq_efd = -1;
	r->entries = s->entries;
	r->bufsize = s->bufsize;
	pthread_mutex_init(&r->lock, NULL);
	*err = -ring_map(r, rep);
	if (!*err) {
		r->sq_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		r->cq_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (r->sq_efd < 0 || r->cq_efd < 0)
			*err = errno;
	}
	if (*err) {
		if (r->map)
			munmap(r->map, r->map_size);
		if (r->memfd >= 0)
			close(r->memfd);
		if (r->sq_efd >= 0)
			close(r->sq_efd);
		if (r->cq_efd >= 0)
			close(r->cq_efd);
		pthread_mutex_destroy(&r->lock);
		free(r);
		return NULL;
	}
	return r;
}

/* Three replies, each passing one fd: the memfd (with the layout), then
 * the submission and the completion eventfd. */
static int on_setup(struct ring **ringp, int fd, struct account *acct, const uint8_t *body,
		    size_t len)
{
	struct ualg_ring_setup s;
	struct ualg_ring_setup_reply rep = { 0 };
	int err = 0;

	if (ualg_decode_ring_setup(body, len, &s))
		return -1;
	if (*ringp)
		return reply(fd, UALG_MSG_RING_SETUP, -EBUSY, NULL, 0, -1) ? -1 : 0;
	if (s.entries == 0 || s.entries > UALG_RING_MAX_ENTRIES || (s.entries & (s.entries - 1)) ||
	    s.bufsize == 0 || s.bufsize > UALG_RING_MAX_BUF)
		return reply(fd, UALG_MSG_RING_SETUP, -EINVAL, NULL, 0, -1) ? -1 : 0;
	if ((err = ring_workers_start()))
		return reply(fd, UALG_MSG_RING_SETUP, err, NULL, 0, -1) ? -1 : 0;
	/* Its memfd and two eventfds stay open in algd, and its memory is
	 * the uid's (as io_uring's rings count against the caller's
	 * RLIMIT_MEMLOCK). */
	if ((err = account_fds(acct, 3)))
		return reply(fd, UALG_MSG_RING_SETUP, err, NULL, 0, -1) ? -1 : 0;
	struct ring *r = ring_new(&s, &rep, &err);
	if (r && !ualg_budget_charge(&acct->mem, r->map_size)) {
		err = ENOMEM;
		ring_free(r);
		r = NULL;
	}
	if (!r) {
		account_fds_put(acct, 3);
		return reply(fd, UALG_MSG_RING_SETUP, -err, NULL, 0, -1) ? -1 : 0;
	}
	r->acct = acct;
	r->worker = ring_worker_pick();
	*ringp = r;
	ring_worker_command(r->worker, r, true);
	if (reply(fd, UALG_MSG_RING_SETUP, 0, &rep, sizeof(rep), r->memfd) ||
	    reply(fd, UALG_MSG_RING_SETUP, 0, NULL, 0, r->sq_efd) ||
	    reply(fd, UALG_MSG_RING_SETUP, 0, NULL, 0, r->cq_efd))
		return -1;
	return 0;
}

static int alg_type_of(const char *name, enum ualg_alg_type *type)
{
	if (!strcmp(name, "hash"))
		*type = UALG_ALG_SHASH;
	else if (!strcmp(name, "skcipher"))
		*type = UALG_ALG_SKCIPHER;
	else if (!strcmp(name, "aead"))
		*type = UALG_ALG_AEAD;
	else
		return -ENOENT;
	return 0;
}

static int open_tfm(struct ring *r, const struct key_caller *who, const char *typename,
		    const char *name, struct ualg_ring_tfm_info *info)
{
	enum ualg_alg_type type;
	int err = alg_type_of(typename, &type);

	if (err)
		return err;
	unsigned id = 0;
	while (id < UALG_RING_MAX_TFMS && r->tfms[id].tfm)
		id++;
	if (id == UALG_RING_MAX_TFMS || account_sockets_full(r->acct))
		return -EMFILE;
	struct ualg_alg *alg = ualg_alg_lookup(type, name, &err);
	if (!alg)
		return -err;
	if (policy_has_alg_rules() &&
	    !policy_alg_allowed(alg, who->uid, who->gid, who->groups, who->ngroups)) {
		ualg_alg_put(alg);
		return -EACCES;
	}
	struct ualg_tfm *tfm = ualg_tfm_new(alg, &err);
	ualg_alg_put(alg);
	if (!tfm)
		return -err;
	struct ring_tfm t = { .tfm = tfm, .type = type };
	info->blocksize = alg->blocksize;
	if (type == UALG_ALG_SHASH) {
		t.digestsize = info->digestsize = alg->u.shash.digestsize;
	} else if (type == UALG_ALG_AEAD) {
		t.ivsize = info->ivsize = alg->u.aead.ivsize;
		info->digestsize = tfm->authsize;
	} else {
		t.ivsize = info->ivsize = alg->u.skcipher.ivsize;
		info->chunksize = alg->u.skcipher.chunksize;
	}
	ctl_lock(r);
	r->tfms[id] = t;
	ctl_unlock(r);
	r->acct->sockets++;
	return (int)id;
}

static int on_open(struct ring *r, int fd, const struct key_caller *who, const uint8_t *body,
		   size_t len)
{
	struct ualg_ring_open_msg o;
	struct ualg_ring_tfm_info info = { 0 };

	if (ualg_decode_ring_open(body, len, &o))
		return -1;
	int id = r ? open_tfm(r, who, (const char *)o.hdr.type, o.name, &info) : -ENXIO;
	return reply(fd, UALG_MSG_RING_OPEN, id, &info, id >= 0 ? sizeof(info) : 0, -1) ? -1 : 0;
}

/* A control request's transform id: 0 when it names an open transform. */
static int tfm_id_check(const struct ring *r, uint32_t id)
{
	if (!r)
		return -ENXIO;
	return id < UALG_RING_MAX_TFMS && r->tfms[id].tfm ? 0 : -EBADF;
}

static int on_setkey(struct ring *r, int fd, const uint8_t *body, size_t len)
{
	struct ualg_ring_setkey_msg km;
	int err;

	if (ualg_decode_ring_setkey(body, len, &km))
		return -1;
	const struct ualg_ring_setkey k = km.hdr;
	err = tfm_id_check(r, k.tfm);
	if (!err && !ualg_tfm_has_setkey(r->tfms[k.tfm].tfm))
		err = -ENOPROTOOPT;
	if (!err) {
		ctl_lock(r);
		err = ualg_tfm_setkey(r->tfms[k.tfm].tfm, km.key, k.keylen);
		ctl_unlock(r);
	}
	return reply(fd, UALG_MSG_RING_SETKEY, err, NULL, 0, -1) ? -1 : 0;
}

/* As on_setkey with a named key's bytes; the caller is the client that
 * opened the connection tree, as for UALG_SET_KEY_BY_NAME. */
static int on_setkey_named(struct ring *r, int fd, const struct key_caller *who,
			   const uint8_t *body, size_t len)
{
	struct ualg_ring_setkey_named_msg km;

	if (ualg_decode_ring_setkey_named(body, len, &km))
		return -1;
	const struct ualg_ring_setkey_named k = km.hdr;
	int err = tfm_id_check(r, k.tfm);
	struct key *key = NULL;
	if (!err && !(key = keystore_find(km.name, k.name_len, who, &err)))
		err = -err;
	if (key && !ualg_tfm_has_setkey(r->tfms[k.tfm].tfm))
		err = -ENOPROTOOPT;
	else if (key) {
		ctl_lock(r);
		err = keystore_setkey(r->tfms[k.tfm].tfm, key);
		ctl_unlock(r);
	}
	return reply(fd, UALG_MSG_RING_SETKEY_NAMED, err, NULL, 0, -1) ? -1 : 0;
}

static void close_tfm(struct ring *r, unsigned id)
{
	ctl_lock(r);
	struct ualg_tfm *tfm = r->tfms[id].tfm;
	ualg_hash_exit(&r->tfms[id].desc);
	memset(&r->tfms[id], 0, sizeof(r->tfms[id]));
	ctl_unlock(r);
	ualg_tfm_free(tfm);
	r->acct->sockets--;
}

static int on_close(struct ring *r, int fd, const uint8_t *body, size_t len)
{
	struct ualg_ring_close c;
	if (ualg_decode_ring_close(body, len, &c))
		return -1;
	int err = tfm_id_check(r, c.tfm);
	if (!err)
		close_tfm(r, c.tfm);
	return reply(fd, UALG_MSG_RING_CLOSE, err, NULL, 0, -1) ? -1 : 0;
}

static int on_setauthsize(struct ring *r, int fd, const uint8_t *body, size_t len)
{
	struct ualg_ring_setauthsize a;
	int err;

	if (ualg_decode_ring_setauthsize(body, len, &a))
		return -1;
	err = tfm_id_check(r, a.tfm);
	if (!err && r->tfms[a.tfm].type != UALG_ALG_AEAD)
		err = -ENOPROTOOPT;
	if (!err) {
		ctl_lock(r);
		err = ualg_aead_setauthsize(r->tfms[a.tfm].tfm, a.authsize);
		ctl_unlock(r);
	}
	return reply(fd, UALG_MSG_RING_SETAUTHSIZE, err, NULL, 0, -1) ? -1 : 0;
}

int ring_request(struct ring **ringp, int fd, const struct key_caller *who, struct account *acct,
		 uint16_t type, const uint8_t *body, size_t len)
{
	switch (type) {
	case UALG_MSG_RING_SETUP: return on_setup(ringp, fd, acct, body, len);
	case UALG_MSG_RING_OPEN: return on_open(*ringp, fd, who, body, len);
	case UALG_MSG_RING_SETKEY: return on_setkey(*ringp, fd, body, len);
	case UALG_MSG_RING_SETKEY_NAMED: return on_setkey_named(*ringp, fd, who, body, len);
	case UALG_MSG_RING_CLOSE: return on_close(*ringp, fd, body, len);
	case UALG_MSG_RING_SETAUTHSIZE: return on_setauthsize(*ringp, fd, body, len);
	default: return -1;
	}
}

void ring_release(struct ring *r)
{
	if (!r)
		return;
	ctl_lock(r);
	r->closed = true;
	ctl_unlock(r);
	for (unsigned id = 0; id < UALG_RING_MAX_TFMS; id++)
		if (r->tfms[id].tfm)
			close_tfm(r, id);
	if (r->ctl_held)	/* taken by ring_ctl_begin() */
		ring_ctl_end(r);
	/* The worker frees the memory and fds soon after this. */
	ualg_budget_uncharge(&r->acct->mem, r->map_size);
	account_fds_put(r->acct, 3);
	ring_worker_command(r->worker, r, false);
}
