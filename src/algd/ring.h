/* The native ring API's service in algd (see src/lib/ualg_abi.h).
 *
 * Control requests (setup, open, setkey, close) arrive on the connection
 * and are handled on the event-loop thread, which alone touches the core's
 * registry.  Data requests are served from shared memory by worker
 * threads, one per core by default; each ring belongs to one worker, so a
 * transform is only ever used by one thread at a time and the data path
 * takes no global lock. */
#ifndef UALG_ALGD_RING_H
#define UALG_ALGD_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring;

/* Workers to start (0: one per online CPU); before the first ring. */
void ring_set_workers(unsigned n);
/* Busy-poll ceiling of a worker after work, in microseconds. */
void ring_set_poll_us(unsigned us);
unsigned ring_poll_us(void);	/* the value set (default 50) */

struct key_caller;
struct account;

/* Handles one RING_* request on connection fd, whose ring is *ringp; who
 * is the client that opened the connection tree (never fd's SO_PEERCRED:
 * an op socket's peer is algd itself), acct its uid's budgets (account.h:
 * the ring's memory and scratch, its three fds, and each open transform as
 * a socket).  Returns 0, or -1 when the frame is malformed (drop the
 * connection). */
int ring_request(struct ring **ringp, int fd, const struct key_caller *who, struct account *acct,
		 uint16_t type,
		 const uint8_t *body, size_t len);

/* A control request on an existing ring (all but RING_SETUP) runs with
 * the ring's lock held throughout, taken without waiting: its worker holds
 * the lock for one data request at a time, and one request may be large.
 * ring_ctl_begin() takes it (true), or says the worker has it (false);
 * ring_ctl_end() gives it back.  ring_ctl_wait(), on another thread than
 * the event loop (offload.h), waits until the worker lets go, and leaves
 * the worker stepping aside until the next ring_ctl_begin(r, true), which
 * must follow whatever it answers. */
bool ring_ctl_begin(struct ring *r, bool waited);
/* Between ring_ctl_begin() and ring_ctl_end() (or ring_release(), which
 * ends it). */
bool ring_ctl_held(const struct ring *r);
void ring_ctl_end(struct ring *r);
void ring_ctl_wait(struct ring *r);

/* The connection ended: its transforms are freed now, the shared memory
 * once its worker has let go of it. */
void ring_release(struct ring *ring);

#endif
