/* The memory algd shares with its clients: per op socket's connection the
 * payload area (SHM_SETUP), through which SEND_SHM and RECV_SHM carry
 * their data instead of the frame, and the notify counter (NOTIFY_SETUP)
 * bumped after every reply; for all, the read-only control page
 * (CONTROL_SETUP).  All are sealed memfds algd creates, maps and passes; the client may rewrite the area at any time, so what algd
 * computes on is read from a private copy unless the type only copies it. */
#ifndef UALG_ALGD_PAYLOAD_H
#define UALG_ALGD_PAYLOAD_H

#include "conn.h"
#include "proto.h"

#include <stddef.h>
#include <stdint.h>

/* The private copy of a payload area's input, grown on demand. */
struct payload_copy {
	uint8_t *buf;
	size_t cap;
};

/* The bytes of the payload area that ref names, or NULL when the
 * connection has none or ref leaves it. */
uint8_t *payload_range(const struct conn *c, const struct ualg_shm_ref *ref);
/* Input in the area, as the request's type may read it: in place, or
 * copied into copy->buf (which the caller wipes after use).  NULL when out
 * of memory. */
const uint8_t *payload_input(struct payload_copy *copy, const struct conn *c, const uint8_t *in,
			     size_t len);

/* SHM_SETUP and NOTIFY_SETUP: 0, or -1 when the frame is malformed or the
 * reply cannot be sent (drop the connection). */
int payload_setup(struct conn *c, size_t len);
int notify_setup(struct conn *c, size_t len);

/* A sealed memfd of size bytes for c's client, mapped at *map and charged
 * to the uid's memory budget: its fd, or -errno (-ENOMEM over the budget),
 * with nothing charged then.  Whoever drops the mapping uncharges it. */
int payload_memfd(struct conn *c, const char *name, size_t size, void **map);

/* The control page (proto.h, CONTROL_SETUP), one for every client, made
 * by control_init() at start (0 or -errno); control_setup() answers the
 * request (0, or -1 as above); control_close() marks the page dead as
 * algd stops, so that programs ask the next algd afresh;
 * control_publish() stores the registry's generation there, called before
 * every reply so that no client hears of a change before the page says it. */
int control_init(void);
void control_close(void);
int control_setup(struct conn *c, size_t len);
void control_publish(void);

/* Unmaps them and gives their memory back to the uid's budget. */
void payload_drop(struct conn *c);
void notify_drop(struct conn *c);

#endif
