/* An op socket's shared request page (proto.h, struct ualg_fast): SEND
 * and RECV without a system call while algd busy-polls, for the socket
 * types that say which calls would wait (alg_type.ready): those are sent
 * back unserved, since the page cannot park a request.
 *
 * algd serves a page's request when the client kicks it (FAST_KICK on the
 * socket) or, while the event loop spins after a data request, when it
 * sees req_seq move on one of the pages it watches.  It watches only the
 * pages it served during the current spin (at most FAST_HOT_MAX), so a
 * spin costs the same with one connection as with thousands. */
#ifndef UALG_ALGD_FAST_SERVE_H
#define UALG_ALGD_FAST_SERVE_H

#include "conn.h"
#include "dispatch.h"

#include <stdbool.h>

/* FAST_SETUP: creates the page (op sockets of those types only, once per
 * connection) and passes it to the client. */
int fast_serve_setup(struct conn *c, size_t len);
/* FAST_KICK: marks c (fast_kicked) to be served once the frame is done. */
int fast_serve_kick(struct conn *c, size_t len);
/* Serves the request c's page holds, if any: 1 served, 0 none (or c is
 * busy), -1 malformed: close c.  Serving it reruns a request parked on
 * c, which may itself end c (then c->fast is NULL). */
int fast_serve_request(struct dispatcher *d, struct conn *c);
/* The page cannot park a request: one that would wait is declined, and
 * the client sends it again on the socket (UALG_HDR_SOCKET). */
int fast_serve_decline(struct conn *c, uint16_t type);
/* The reply of the request being served (conn_reply() while
 * c->fast_serving): into the page.  Nonzero when it cannot go there. */
int fast_serve_reply(struct conn *c, uint16_t type, uint16_t flags, int32_t result, const void *data,
		     size_t len, int fd);
/* Releases c's page (conn_close()). */
void fast_serve_drop(struct conn *c);

/* The spinning event loop: fast_serve_poll() serves the watched pages'
 * requests (returns how many were served or ended their connection); when
 * the spin ends, fast_serve_unwatch() stops watching them, or returns true
 * when a request came meanwhile (then the loop spins on). */
unsigned fast_serve_poll(struct dispatcher *d);
bool fast_serve_unwatch(void);

#endif
