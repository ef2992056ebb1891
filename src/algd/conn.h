/* algd's connection table: every AF_ALG socket a client holds is one
 * connection (see proto.h), registered with the event loop's epoll set;
 * and each client uid's share of them (account.h holds its budgets).
 *
 * A connection closed while a batch of events is handled stays allocated
 * (marked closed) until conn_free_closed(): later events of the same batch
 * may still point at it. */
#ifndef UALG_ALGD_CONN_H
#define UALG_ALGD_CONN_H

#include "account.h"
#include "afalg.h"
#include "keystore.h"
#include "proto.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct parked;
struct ring;

/* One client uid's share of algd: every socket it holds counts, op
 * sockets included, wherever their fds went. */
struct client {
	uid_t uid;
	unsigned sockets;
	struct account *acct;	/* the uid's budgets (account.h) */
	struct client *next;
	/* Its connections with a frame to read, in the order they became
	 * readable, and its place in the uids' turns (conn_ready()). */
	struct conn *ready_head, *ready_tail;
	struct client *turn_next;
	bool in_turn;
};

struct conn {
	int fd;
	struct client *cl;
	bool greeted;		/* HELLO seen (op connections are born greeted) */
	struct alg_sock *sk;
	struct parked *parked;	/* at most one waiter per socket (wait.h) */
	bool sending;		/* a sendmsg() whose LAST frame has not come */
	uint8_t *rest;		/* an answer's bytes beyond its first frame */
	size_t rest_len, rest_off;
	/* Who opened the connection tree: recorded when the listener accepted
	 * it and inherited by every op socket accepted from it, so that an
	 * op socket (a socketpair whose SO_PEERCRED is algd itself) carries
	 * its client's identity, as a kernel socket carries its opener's
	 * credentials.  Every identity decision reads these. */
	struct key_caller who;
	bool admin;		/* the opener may change algorithms */
	bool key_admin;		/* the opener may add and delete named keys */
	bool closed;		/* freed after the current batch of events */
	bool hung_up;		/* a reply found the client gone */
	/* A request of it is on the offload worker (offload.h): out of the
	 * epoll set, and touched by nothing else, until it completes. */
	bool busy;
	struct ring *ring;	/* native ring API, once set up */
	uint8_t *shm;		/* the shim's payload area (SHM_SETUP), or NULL */
	_Atomic uint32_t *notify;	/* the reply counter, or NULL */
	bool notify_own;	/* it is NOTIFY_SETUP's page (else in the fast page's) */
	struct ualg_fast *fast;	/* FAST_SETUP's page, or NULL (fast_serve.h) */
	uint32_t fast_seen;	/* the page's last request served: its req_seq */
	bool fast_serving;	/* replies go to the page */
	bool fast_answered;	/* the page's request has its reply */
	bool fast_kicked;	/* FAST_KICK came: serve the page after it */
	bool fast_hot;		/* watched while the loop spins */
	size_t shm_size;
	struct conn *prev, *next;
	bool ready;		/* on its client's ready list */
	struct conn *ready_prev, *ready_next;
	/* An op socket's channels (proto.h, ATTACH): the token that names
	 * it, and the other connections that are the same socket, a ring
	 * (NULL: none). */
	bool has_token;
	uint8_t token[UALG_TOKEN_BYTES];
	struct conn *chan_next, *chan_prev;
};

/* c becomes another channel of op, the op socket whose token it is; at
 * most CONN_CHANNELS_MAX channels to one socket (false: it has them). */
#define CONN_CHANNELS_MAX 64
bool conn_attach(struct conn *c, struct conn *op);

/* The epoll set connections are added to; before the first conn_add(). */
void conn_table_init(int epfd);
/* epoll data of the fds in the set that are no connection (the listener,
 * the signalfd, the offload worker's eventfd): the event loop registers
 * them with these. */
extern char conn_listener_tag, conn_signal_tag, conn_offload_tag;

/* The live connections, newest first (follow ->next). */
struct conn *conn_list(void);

/* The uid's share, with one more socket taken on it; NULL when out of
 * memory.  client_put() gives the socket back. */
struct client *client_get(uid_t uid);
void client_put(struct client *cl);
/* The uid holds as many sockets as it may (ring transforms count too). */
bool client_full(const struct client *cl);

/* A connection on fd (non-blocking), watched for input; it holds the
 * reference on cl that the caller took.  NULL when out of memory. */
struct conn *conn_add(int fd, struct client *cl, struct alg_sock *sk, bool greeted);
/* Closes it and releases everything it holds: socket, ring, payload area,
 * parked request, its fd's and socket's charge on the uid.  Releasing a
 * ring needs its lock: while the ring's worker has it, c is paused (busy)
 * and closed once the worker steps aside (offload_close_deferred()). */
void conn_close(struct conn *c);
/* Releases c's socket, payload area, pages and the rest of an answer,
 * as conn_close() does, and makes c a connection to sk, a fresh socket
 * (proto.h, RESET).  Not on a connection with a ring, a parked request or
 * channels: the caller checks (conn_resettable()). */
bool conn_resettable(const struct conn *c);
void conn_reset(struct conn *c, struct alg_sock *sk);
/* Takes c out of the epoll set while it is busy, and back: frames its
 * clients send meanwhile wait in its socket, in order. */
void conn_pause(struct conn *c);
void conn_resume(struct conn *c);
/* Frees the connections closed since the last call: after a batch. */
void conn_free_closed(void);

/* The uids take turns on the event loop: a readable connection is queued
 * on its uid's list (once), and conn_next_ready() gives the first one of
 * the uid whose turn it is, so that each uid with work gets one frame
 * served per round however many connections it keeps busy.  Closing a
 * connection takes it off its list. */
void conn_ready(struct conn *c);
struct conn *conn_next_ready(void);
bool conn_any_ready(void);

/* Operation sockets of c's transform socket that their client closed are
 * released now, as the kernel releases them within close(): otherwise
 * "close(op); setsockopt(tfm, KEY)" could see EBUSY. */
void conn_reap_closed_children(const struct conn *c);

/* Sends a reply frame (with fd passed, or -1) and bumps the connection's
 * notify counter.  Returns ualg_frame_send()'s result: nonzero when the
 * frame could not be sent. */
int conn_reply(struct conn *c, uint16_t type, uint16_t flags, int32_t result,
	       const void *data, size_t len, int fd);

/* Drops what is left of a receive's answer (UALG_RECV_REST). */
void conn_rest_drop(struct conn *c);

#endif
