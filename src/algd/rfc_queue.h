/* RFC mode's byte queues (algif_rfc.c): an op socket's input, output and
 * associated data, each a growable buffer whose bytes are wiped as they
 * are consumed.  Writers are bounded by the socket's send buffer. */
#ifndef UALG_ALGD_RFC_QUEUE_H
#define UALG_ALGD_RFC_QUEUE_H

#include "afalg.h"

#include <stddef.h>
#include <stdint.h>

struct rfc_queue {
	uint8_t *buf;
	size_t head, used, cap;
	struct ualg_budget *mem;	/* cap is charged here, or NULL */
};

/* Appends len bytes, growing the buffer: 0, or -ENOMEM (also past the
 * budget). */
int rfc_queue_add(struct rfc_queue *q, const uint8_t *data, size_t len);
/* The queued bytes (q->used of them); NULL when none was ever queued. */
uint8_t *rfc_queue_data(const struct rfc_queue *q);
/* Drops (and wipes) the first n queued bytes. */
void rfc_queue_pull(struct rfc_queue *q, size_t n);
void rfc_queue_free(struct rfc_queue *q);
/* Reads give what is there, at most len: the count taken. */
int rfc_queue_take(struct rfc_queue *q, uint8_t *out, size_t len);
/* Bytes sk's send buffer still has room for in q. */
size_t rfc_queue_room(const struct alg_sock *sk, const struct rfc_queue *q);
/* Takes what fits (*taken bytes): their count, -EAGAIN when nothing
 * does, or -ENOMEM. */
int rfc_queue_write(const struct alg_sock *sk, struct rfc_queue *q, const uint8_t *data,
		    size_t len, size_t *taken);

#endif
