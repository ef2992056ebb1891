/* SEND and RECV requests, inline or through the payload area (see
 * transfer_serve.h). */
#include "transfer_serve.h"
#include "fast_serve.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int transfer_serve_send(struct dispatcher *d, struct conn *c, const uint8_t *body, size_t len, bool shm,
			struct request *req)
{
	struct ualg_send_msg sm;

	if (ualg_decode_send(body, len, shm, &sm))
		return -1;
	const struct ualg_send m = sm.hdr;
	const uint8_t *data = sm.data;
	size_t dlen = sm.len;
	if (shm) {
		const uint8_t *in = payload_range(c, &sm.ref);
		if (!in)
			return -1;
		if (!(data = payload_input(&d->copy, c, in, dlen)))
			return conn_reply(c, UALG_MSG_SEND_SHM, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	}
	const struct afalg_send s = {
		.ctl = {
			.present = m.flags & UALG_SEND_CTL,
			.invalid = m.flags & UALG_SEND_CTL_BAD,
			.op = m.op,
			.has_iv = m.flags & UALG_SEND_IV,
			.ivlen = m.ivlen,
			.iv = sm.iv,
			.assoclen = m.assoclen,
		},
		.first = m.flags & UALG_SEND_FIRST,
		.last = m.flags & UALG_SEND_LAST,
		.more = m.flags & UALG_SEND_MORE,
		.dontwait = m.flags & UALG_SEND_DONTWAIT,
		.fault = m.flags & UALG_SEND_FAULT,
		.data = data,
		.len = dlen,
	};
	/* Only a call's first frame may start one: the types' send() rely
	 * on it (a hash without its state; found by tests/fuzz). */
	if (!s.first && !c->sending)
		return -1;
	if (c->fast_serving && !afalg_ready(c->sk, true, dlen))
		return fast_serve_decline(c, UALG_MSG_SEND);
	int r = afalg_send(c->sk, &s, &req->progress);
	if (data == d->copy.buf)
		ualg_wipe(d->copy.buf, dlen);
	if (r == AFALG_WAIT)
		return DISPATCH_PARKED;
	c->sending = r >= 0 && !s.last;
	const bool quiet = m.flags & UALG_SEND_QUIET;	/* never with shm (decode) */
	if (quiet && r >= 0)
		return 0;	/* its success has no reply */
	return conn_reply(c, shm ? UALG_MSG_SEND_SHM : UALG_MSG_SEND, quiet ? UALG_HDR_QUIET : 0, r, NULL, 0,
			  -1) ? -1 : 0;
}

static int send_answer(struct conn *c, const struct recv_dest *dest, uint16_t flags,
		       int32_t result, const uint8_t *data, size_t len)
{
	if (!dest->area)
		return conn_reply(c, dest->type, flags, result, data, len, -1);
	if (len && data != dest->area)
		memcpy(dest->area, data, len);
	return conn_reply(c, dest->type, flags, result, NULL, 0, -1);
}

int transfer_serve_answer_recv(struct conn *c, const struct recv_dest *dest, uint16_t flags,
			       int32_t result, uint8_t *out, size_t part)
{
	const size_t n = result > 0 ? (size_t)result : 0;
	const size_t first = n < part ? n : part;
	const bool private = out != dest->area;

	if (n > first) {
		const bool charged = ualg_budget_charge(&c->cl->acct->mem, n - first);
		if (!charged || !(c->rest = malloc(n - first))) {
			if (charged)
				ualg_budget_uncharge(&c->cl->acct->mem, n - first);
			if (private)
				ualg_wipe(out, n);
			return conn_reply(c, dest->type, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
		}
		memcpy(c->rest, out + first, n - first);
		c->rest_len = n - first;
	}
	int s = send_answer(c, dest, flags, result, out, first);
	if (private)
		ualg_wipe(out, n);
	return s ? -1 : 0;
}

static int send_rest(struct conn *c, const struct recv_dest *dest, size_t len)
{
	if (!c->rest)	/* another process on the same socket took it */
		return conn_reply(c, dest->type, 0, -EPROTO, NULL, 0, -1) ? -1 : 0;
	size_t n = c->rest_len - c->rest_off < len ? c->rest_len - c->rest_off : len;
	int s = send_answer(c, dest, 0, (int32_t)n, c->rest + c->rest_off, n);
	c->rest_off += n;
	if (c->rest_off == c->rest_len)
		conn_rest_drop(c);
	return s ? -1 : 0;
}

bool transfer_serve_parse_recv(const struct conn *c, const uint8_t *body, size_t len, bool shm,
			       struct ualg_recv *m, struct recv_dest *dest)
{
	struct ualg_recv_msg rm;

	*dest = (struct recv_dest){ shm ? UALG_MSG_RECV_SHM : UALG_MSG_RECV, NULL };
	if (ualg_decode_recv(body, len, shm, &rm))
		return false;
	*m = rm.hdr;
	if (!shm)
		return true;
	dest->area = payload_range(c, &rm.ref);
	return dest->area != NULL;
}

int transfer_serve_recv(struct dispatcher *d, struct conn *c, const uint8_t *body, size_t len, bool shm,
			struct request *req)
{
	struct ualg_recv m;
	struct recv_dest dest;
	bool trunc = false;

	if (!transfer_serve_parse_recv(c, body, len, shm, &m, &dest))
		return -1;
	if (m.flags & UALG_RECV_REST)
		return send_rest(c, &dest, m.len);
	req->recv_len = m.len;
	const bool whole = afalg_recv_whole(c->sk);
	if (whole)
		req->recv_len = m.total < AFALG_RECV_MAX ? m.total : AFALG_RECV_MAX;
	/* Declined before anything changes, the remainder of an earlier
	 * answer included. */
	if (c->fast_serving && !afalg_ready(c->sk, false, req->recv_len))
		return fast_serve_decline(c, dest.type);
	conn_rest_drop(c);
	/* Whole-buffer types (AEAD) compute in algd's memory, so that
	 * nothing but the released result reaches the area; the others
	 * write their output range directly (never reading it back as
	 * input). */
	req->recv_private = !dest.area || whole;
	uint8_t *out = !req->recv_private ? dest.area
		     : req->recv_out     ? req->recv_out
					 : dispatcher_recv_buffer(d, req->recv_len);
	if (!out)
		return conn_reply(c, dest.type, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	int r = afalg_recv(c->sk, out, req->recv_len, m.flags & UALG_RECV_DONTWAIT, &trunc,
			   &req->progress);
	if (r == AFALG_WAIT)
		return DISPATCH_PARKED;
	return transfer_serve_answer_recv(c, &dest, trunc ? UALG_HDR_TRUNC : 0, r, out, m.len);
}
