/* algd's request dispatch: one frame a connection sent, parsed strictly
 * and handed to its handler.  Anything malformed ends that connection
 * only.  A request the kernel would sleep on stays unanswered ("parked",
 * wait.h) and is retried after each later request on the same connection,
 * which is the only place its state can change.
 *
 * The dispatcher knows nothing of the event loop: it is given a readable
 * connection and reads one frame from it. */
#ifndef UALG_ALGD_DISPATCH_H
#define UALG_ALGD_DISPATCH_H

#include "afalg.h"
#include "conn.h"
#include "payload.h"
#include "proto.h"
#include "status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The request being served: a fresh one, or a parked one run again
 * (dispatch() hands it to the data handlers; wait_park() keeps it). */
struct request {
	struct afalg_progress progress;	/* how far the call has come */
	uint8_t *recv_out;	/* a parked receive's output so far (recv_len bytes), or NULL */
	size_t recv_len;	/* a receive: its size */
	bool recv_private;	/* a receive: its output is in recvbuf, so parking copies it */
	bool ring_waited;	/* a ring control request after ring_ctl_wait() */
};

struct dispatcher {
	_Alignas(8) uint8_t rxbuf[UALG_FRAME_MAX];	/* the frame: header, then body */
	_Alignas(8) uint8_t fastbuf[UALG_FAST_FRAME_MAX];	/* a shared page's request (fast_serve.h) */
	uint8_t *recvbuf;	/* output of the receive being served */
	size_t recvbuf_cap;
	struct payload_copy copy;	/* a payload area's input */
	uint8_t admin_out[UALG_DATA_MAX];	/* an admin request's reply body */
	uint32_t wmem_max;	/* net.core.wmem_max */
	/* The user whose private algd this is: algd's uid when it was started
	 * by that user (no --user), else nobody ((uid_t)-1).  Sharing the uid
	 * an algd started as root drops to (--user nobody) gives no rights. */
	uid_t owner_uid;
	/* After a request is served, or a new connection, the loop
	 * busy-polls for the next one until then (ring_poll_us() later), as
	 * the ring workers do: a client streaming data, or setting a socket
	 * up, sends again within microseconds, and waking a sleeping
	 * (halted) core costs more than that.  0: it sleeps at once. */
	uint64_t spin_until;
	/* Closes a descriptor a client attached to a request (none is ever
	 * expected), without making the caller wait for it. */
	void (*dispose_fd)(int fd, void *account);	/* closer_dispose() */
	/* The event loop's: hands requests whose cost has no small bound to
	 * the offload worker (offload.h); false serves everything inline. */
	bool offload;
	bool worker;		/* the offload worker's own dispatcher */
};

/* Defaults, and net.core.wmem_max read (before the sandbox hides /proc). */
void dispatcher_init(struct dispatcher *d, void (*dispose_fd)(int fd, void *account));

/* Reads one frame from c and serves it: answers it, parks it, or closes
 * the connection. */
void dispatch_readable(struct dispatcher *d, struct conn *c);

/* Dispatches one frame; returns 0, DISPATCH_PARKED, DISPATCH_RING_BUSY or -1
 * (drop connection).
 * Key memory it allocates is charged to the client's uid (account.h);
 * named keys, which outlive their administrator's connection, are not. */
int dispatch(struct dispatcher *d, struct conn *c, const uint8_t *frame, size_t len,
	     struct request *req);

/* What follows a dispatched request: nothing more, closing the
 * connection, or running its parked request again (wait_retry()). */
enum settle { SETTLE_DONE, SETTLE_CLOSE, SETTLE_RETRY };
/* After dispatch() of the frame in d->rxbuf (n bytes) returned r: the
 * EPROTO reply of a malformed one, parking one that would wait (or EAGAIN
 * for a second waiter); says what the caller must still do. */
enum settle dispatch_settle(struct dispatcher *d, struct conn *c, size_t n, const struct request *req,
			   int r);

/* The receive buffer, at least n bytes, grown on demand (wiped after
 * every answer); NULL when out of memory. */
uint8_t *dispatcher_recv_buffer(struct dispatcher *d, size_t n);

#endif
