/* Requests whose cost has no small bound (an akcipher's or kpp's
 * operation: an RSA private key operation, a DH key generation or shared
 * secret with an 8192-bit group take a tenth of a second and more), and
 * transfers larger than a quantum (a 1 MiB SEND_SHM into cmac(des3_ede)
 * takes 40 ms), run on the offload worker, a thread of its own, so that
 * the event loop keeps serving every other connection meanwhile.
 *
 * The connection is busy while its request runs (conn_pause()): out of the
 * epoll set, so its next frames, whichever process sharing the socket sent
 * them, wait in its socket and are served in order once it completes, as
 * the kernel's lock_sock() makes them wait.  A CANCEL among them finds the
 * reply already sent: a running operation is not interrupted, as in the
 * kernel.  The worker runs the request with a dispatcher of its own
 * (dispatch.h), answers, parks or refuses it as the event loop would, and
 * hands the connection back through an eventfd in the epoll set; closing
 * the connection or retrying its parked request is left to the event loop.
 *
 * One worker serves every connection, so two of these operations never run
 * at once: operation sockets of one transform socket share its key, and
 * nothing else of algd touches a busy connection, nor the transform of a
 * tree with a request on the worker.  The uids with requests waiting take
 * turns, oldest request first within a uid.
 *
 * The worker also waits, in the event loop's stead, for a ring's worker to
 * let go of the ring's lock (offload_ring_wait()). */
#ifndef UALG_ALGD_OFFLOAD_H
#define UALG_ALGD_OFFLOAD_H

#include "dispatch.h"

/* Starts the worker, its dispatcher a copy of proto's settings; returns
 * the eventfd the event loop watches (tag conn_offload_tag), or -1. */
int offload_start(const struct dispatcher *proto);

/* A ring control request whose ring's worker holds the lock
 * (DISPATCH_RING_BUSY): c is paused while the worker thread waits for the
 * ring's worker to step aside; the event loop then runs it.  0, or -1 when
 * out of memory (drop the connection). */
int offload_ring_wait(struct conn *c, const uint8_t *frame, size_t len);

/* conn_close() of a connection with a ring whose worker holds its lock:
 * c is paused, and closed on the event loop once the worker steps aside
 * (true); false: close it now, the lock taken (ring_release() gives it
 * back) or waited for (out of memory, or after offload_drain()). */
bool offload_close_deferred(struct conn *c);

/* The private algd's user (dispatch.h's owner_uid), once known: before
 * the first request is handed over. */
void offload_set_owner(uid_t uid);

/* The frame (len bytes, a whole frame) is one for the worker: an
 * akcipher's or kpp's operation; a transfer of more than
 * OFFLOAD_QUANTUM_BYTES (SEND_SHM, RECV_SHM, a receive whose operation
 * may run over that much); or any data request of a transform socket's
 * tree that has a request on the worker already, since the worker has the
 * transform to itself until that one is done. */
#define OFFLOAD_QUANTUM_BYTES (64u << 10)
bool offload_wanted(const struct conn *c, const uint8_t *frame, size_t len);

/* A request of c's tree is on the worker: the event loop must not touch
 * its transform (fast_serve.c declines the shared page's requests
 * meanwhile). */
bool offload_tree_busy(const struct conn *c);

/* Hands c's request to the worker: the frame (copied, charged to the
 * client's memory budget, ENOMEM past it as a parked request), or, with
 * pk, c's parked request taken off it to run again.  0, or -1 when out of
 * memory (drop the connection; pk is freed). */
int offload_submit(struct conn *c, const uint8_t *frame, size_t len, struct parked *pk);

/* Before reading c's next frame: when c is a transform socket one of
 * whose op sockets is busy and closed by its client, c is paused until
 * that one completes and is released (true), so that c's request finds
 * it gone, as the kernel releases it within close(). */
bool offload_defer(struct conn *c);

/* The eventfd was readable: finishes the completed requests (their
 * connections back in the epoll set, closed, or their parked request
 * retried). */
void offload_complete(struct dispatcher *d);

/* Waits for every request handed over, finishing each; then hands nothing
 * more over: before exit. */
void offload_drain(struct dispatcher *d);

#endif
