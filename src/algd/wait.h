/* Requests the kernel would sleep in (a receive with nothing queued, a
 * send into a full queue): parked on their connection with how far they
 * got, run again after each later request on it or on another channel
 * of its socket (proto.h, ATTACH), and ended by the
 * client's CANCEL when a signal interrupts its wait. */
#ifndef UALG_ALGD_WAIT_H
#define UALG_ALGD_WAIT_H

#include "dispatch.h"

/* A request the kernel would sleep in, kept with how far it got. */
struct parked {
	uint8_t *frame;
	size_t len;
	struct request req;
	struct ualg_budget *mem;	/* the owner's, charged what wait_park() took */
	size_t charged;
};

/* Keeps the request in d->rxbuf (n bytes) as c's parked one.  Returns 0,
 * or -1 (drop the connection). */
int wait_park(struct dispatcher *d, struct conn *c, size_t n, const struct request *req);
/* Runs c's parked request again with its saved progress (on the offload
 * worker when offload_wanted() says so). */
void wait_retry(struct dispatcher *d, struct conn *c);
/* Runs pk, taken off c, again: parked anew when it would still wait, else
 * freed.  0, or -1 (drop the connection). */
int wait_rerun(struct dispatcher *d, struct conn *c, struct parked *pk);
/* After a request on done, an op socket's channel: runs again what the
 * socket's other channels have parked, from start (done's neighbour, taken
 * before the request, as done may have closed; NULL: none). */
void wait_wake_channels(struct dispatcher *d, struct conn *start, const struct conn *done);
/* CANCEL: 0, or -1 (drop the connection). */
int wait_cancel(struct conn *c, size_t len);
void parked_free(struct parked *pk);

#endif
