/* Parked requests: kept, run again and cancelled (see wait.h). */
#include "wait.h"
#include "offload.h"
#include "transfer_serve.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void parked_free(struct parked *pk)
{
	if (!pk)
		return;
	if (pk->mem)
		ualg_budget_uncharge(pk->mem, pk->charged);
	ualg_wipe(pk->frame, pk->len);
	free(pk->frame);
	ualg_wipe(pk->req.recv_out, pk->req.recv_len);
	free(pk->req.recv_out);
	free(pk);
}

int wait_rerun(struct dispatcher *d, struct conn *c, struct parked *pk)
{
	int r = dispatch(d, c, pk->frame, pk->len, &pk->req);
	if (r == DISPATCH_PARKED) {
		c->parked = pk;
		return 0;
	}
	parked_free(pk);
	return r < 0 ? -1 : 0;
}

void wait_retry(struct dispatcher *d, struct conn *c)
{
	struct parked *pk = c->parked;

	c->parked = NULL;
	if (d->offload && offload_wanted(c, pk->frame, pk->len)) {
		if (offload_submit(c, pk->frame, pk->len, pk))
			conn_close(c);	/* pk went with it */
		return;
	}
	if (wait_rerun(d, c, pk))
		conn_close(c);
}

void wait_wake_channels(struct dispatcher *d, struct conn *start, const struct conn *done)
{
	struct conn *s = start;
	for (unsigned n = 0; s && n < CONN_CHANNELS_MAX; n++) {
		struct conn *next = s->chan_next;
		if (s != done && !s->closed && !s->busy && s->parked)
			wait_retry(d, s);
		if (!next || next == start)
			break;
		s = next;
	}
}

/* Keeps the frame, its progress and, for a receive into recvbuf, the
 * output so far (recvbuf serves the next one).  Past the uid's memory
 * budget the request gets ENOMEM instead. */
int wait_park(struct dispatcher *d, struct conn *c, size_t n, const struct request *req)
{
	const uint16_t type = ((struct ualg_hdr *)d->rxbuf)->type;
	const bool keep_out = (type == UALG_MSG_RECV || type == UALG_MSG_RECV_SHM) && req->recv_private;
	const size_t charge = n + (keep_out ? req->recv_len : 0);
	if (!ualg_budget_charge(&c->cl->acct->mem, charge))
		return conn_reply(c, type, 0, -ENOMEM, NULL, 0, -1) ? -1 : 0;
	struct parked *pk = calloc(1, sizeof(*pk));

	if (!pk || !(pk->frame = malloc(n))) {
		ualg_budget_uncharge(&c->cl->acct->mem, charge);
		free(pk);
		return -1;
	}
	pk->mem = &c->cl->acct->mem;
	pk->charged = charge;
	memcpy(pk->frame, d->rxbuf, n);
	pk->len = n;
	pk->req = (struct request){ .progress = req->progress };
	if (keep_out) {
		pk->req.recv_len = req->recv_len;
		if (!(pk->req.recv_out = malloc(req->recv_len ? req->recv_len : 1))) {
			parked_free(pk);
			return -1;
		}
		memcpy(pk->req.recv_out, d->recvbuf, req->progress.done);
	}
	c->parked = pk;
	return 0;
}

/* A signal ended the client's wait: the parked request is answered with
 * what it had done, or EINTR, as the kernel's interrupted sleep returns;
 * then the cancel itself.  Without a parked request the earlier reply is
 * already on its way and only the cancel is answered. */
int wait_cancel(struct conn *c, size_t len)
{
	if (ualg_decode_empty(len))
		return -1;
	struct parked *pk = c->parked;
	c->sending = false;	/* the interrupted call has ended */
	if (pk) {
		c->parked = NULL;
		const struct ualg_hdr *h = (const struct ualg_hdr *)pk->frame;
		const size_t done = pk->req.progress.done;
		int32_t result = done ? (int32_t)done : -EINTR;
		int r;
		if (h->type == UALG_MSG_RECV || h->type == UALG_MSG_RECV_SHM) {
			struct ualg_recv m;
			struct recv_dest dest;
			/* Parsed when it parked: the area has not changed since. */
			transfer_serve_parse_recv(c, pk->frame + sizeof(*h), pk->len - sizeof(*h),
						  h->type == UALG_MSG_RECV_SHM, &m, &dest);
			r = transfer_serve_answer_recv(c, &dest, 0, result,
						       pk->req.recv_out ? pk->req.recv_out : dest.area, m.len);
		} else {
			r = conn_reply(c, h->type, 0, result, NULL, 0, -1);
		}
		parked_free(pk);
		if (r)
			return -1;
	}
	return conn_reply(c, UALG_MSG_CANCEL, 0, 0, NULL, 0, -1) ? -1 : 0;
}
