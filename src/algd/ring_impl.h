/* The ring service's private parts, shared by ring.c (control requests,
 * event-loop thread), ring_worker.c (the worker threads) and ring_exec.c
 * (running a ring's requests on its worker).
 *
 * Threads: the event loop owns the registry and every transform's life
 * (open, setkey, close); a ring's worker runs its requests.  The two meet
 * only in the ring's lock, which the worker holds for one batch and the
 * event loop for one control request, so a transform is never used by two
 * threads at once.  Rings are added to and removed from a worker through
 * its command queue; only the worker frees a ring's memory, after which
 * the event loop never touches it again. */
#ifndef UALG_ALGD_RING_IMPL_H
#define UALG_ALGD_RING_IMPL_H

#include "ring.h"
#include "account.h"
#include "crypto.h"
#include "ualg_abi.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GROUP_MAX 64u	/* requests per multi-buffer call */

struct ring_tfm {
	struct ualg_tfm *tfm;	/* NULL: slot free */
	enum ualg_alg_type type;
	unsigned digestsize, ivsize;
	struct ualg_hash_desc desc;	/* kept between requests: no allocation per hash */
};

struct worker;

struct ring {
	pthread_mutex_t lock;	/* tfms and closed: event loop vs worker */
	unsigned ctl_waiting;	/* the event loop wants the lock (atomic) */
	bool ctl_held;		/* the event loop holds it for a control request */
	bool closed;		/* transforms gone: serve nothing more */
	struct ring_tfm tfms[UALG_RING_MAX_TFMS];

	/* Set up once by the event loop before the worker sees the ring. */
	uint8_t *map;
	size_t map_size;
	struct ualg_ring_shared *sh;
	struct ualg_sqe *sq;
	struct ualg_cqe *cq;
	uint8_t *buf;
	uint64_t bufsize;
	uint32_t entries;
	int memfd, sq_efd, cq_efd;
	struct worker *worker;
	struct account *acct;	/* charged map_size, 3 fds, a socket per transform */

	/* The worker's own: never read back from shared memory. */
	uint32_t sq_head, cq_tail;
	bool broken;
	bool cq_full;		/* requests wait for completion space */
	uint8_t *scratch;	/* AEAD decryption happens here, not in shared memory */
	size_t scratch_size;
	struct ualg_sqe batch[GROUP_MAX];	/* private copies of a group's requests */
	int32_t batch_res[GROUP_MAX];
	struct ring *next;	/* the worker's list of its rings */
	struct ring *cmd_next;	/* a command queue (written under cmd_lock) */
};

struct worker {
	pthread_t thread;
	int epfd, cmd_efd;
	pthread_mutex_t cmd_lock;
	struct ring *adds, *removes;	/* commands from the event loop */
	int pending;			/* commands queued (atomic) */
	bool stop;
	struct ring *rings;
	unsigned poll_us;		/* current busy-poll window */
	int cq_full_wait_ms;		/* sleep bound while a ring's CQ is full */
};

/* ring_exec.c: serves what is queued, bounded by completion space;
 * returns how many requests were completed. */
unsigned ring_service(struct ring *r);
/* ring_exec.c: frees the ring's scratch buffer (after each batch). */
void ring_scratch_drop(struct ring *r);

/* ring.c: frees a ring nothing uses any more (its worker at removal, or
 * the event loop before any worker saw it). */
void ring_free(struct ring *r);

/* ring_worker.c: starts the workers on the first ring; 0 or -errno. */
int ring_workers_start(void);
/* The worker for the next ring, round robin. */
struct worker *ring_worker_pick(void);
/* Queues adding r to w's rings (add) or removing and freeing it. */
void ring_worker_command(struct worker *w, struct ring *r, bool add);

#endif
