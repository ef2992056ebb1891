/* The data path of an AF_ALG socket's connection: SEND and RECV, with the
 * data in the frame or (SEND_SHM, RECV_SHM) in the payload area.  An
 * answer longer than the caller's part size is sent in parts: the first
 * now, the rest on its UALG_RECV_REST requests. */
#ifndef UALG_ALGD_TRANSFER_SERVE_H
#define UALG_ALGD_TRANSFER_SERVE_H

#include "dispatch.h"
#include "msg.h"

/* Where a receive's answer goes: inline in the reply frame, or (RECV_SHM)
 * into the named range of the payload area, the reply carrying no data. */
struct recv_dest {
	uint16_t type;		/* UALG_MSG_RECV or UALG_MSG_RECV_SHM */
	uint8_t *area;		/* RECV_SHM: the output range */
};

/* The handlers: 0, DISPATCH_PARKED when the request was parked (it would
 * wait), or -1 (drop the connection). */
int transfer_serve_send(struct dispatcher *d, struct conn *c, const uint8_t *body, size_t len, bool shm,
			struct request *req);
int transfer_serve_recv(struct dispatcher *d, struct conn *c, const uint8_t *body, size_t len, bool shm,
			struct request *req);

/* A receive's request and where its answer goes; false if malformed. */
bool transfer_serve_parse_recv(const struct conn *c, const uint8_t *body, size_t len, bool shm,
			       struct ualg_recv *m, struct recv_dest *dest);
/* Answers a receive of result bytes: the first part (up to the caller's
 * part size) now, the rest kept for UALG_RECV_REST requests.  out is
 * algd's buffer (wiped here), or the area itself when the type wrote there
 * directly.  0, or -1 (drop the connection). */
int transfer_serve_answer_recv(struct conn *c, const struct recv_dest *dest, uint16_t flags,
			       int32_t result, uint8_t *out, size_t part);

#endif
