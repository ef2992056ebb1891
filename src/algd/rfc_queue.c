/* RFC mode's byte queues (see rfc_queue.h). */
#include "rfc_queue.h"
#include "kabi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rfc_queue_add(struct rfc_queue *q, const uint8_t *data, size_t len)
{
	if (!len)
		return 0;
	if (q->head + q->used + len > q->cap) {
		if (q->used + len <= q->cap) {
			memmove(q->buf, q->buf + q->head, q->used);
		} else {
			/* Doubling: a queue filled in parts is copied a
			 * bounded number of times, and leaves few holes. */
			size_t cap = q->cap ? q->cap : 4096;
			while (cap < q->used + len)
				cap *= 2;
			if (q->mem && !ualg_budget_charge(q->mem, cap - q->cap))
				return -ENOMEM;
			uint8_t *b = malloc(cap);
			if (!b) {
				if (q->mem)
					ualg_budget_uncharge(q->mem, cap - q->cap);
				return -ENOMEM;
			}
			if (q->used)
				memcpy(b, q->buf + q->head, q->used);
			ualg_wipe(q->buf, q->cap);
			free(q->buf);
			q->buf = b;
			q->cap = cap;
		}
		q->head = 0;
	}
	memcpy(q->buf + q->head + q->used, data, len);
	q->used += len;
	return 0;
}

uint8_t *rfc_queue_data(const struct rfc_queue *q)
{
	return q->buf ? q->buf + q->head : NULL;	/* never NULL + 0 */
}

void rfc_queue_pull(struct rfc_queue *q, size_t n)
{
	if (!n)
		return;
	ualg_wipe(q->buf + q->head, n);
	q->head += n;
	q->used -= n;
	if (!q->used)
		q->head = 0;
}

void rfc_queue_free(struct rfc_queue *q)
{
	if (q->mem)
		ualg_budget_uncharge(q->mem, q->cap);
	ualg_wipe(q->buf, q->cap);
	free(q->buf);
	*q = (struct rfc_queue){ .mem = q->mem };
}

int rfc_queue_take(struct rfc_queue *q, uint8_t *out, size_t len)
{
	size_t n = len < q->used ? len : q->used;
	if (!n)
		return 0;
	memcpy(out, rfc_queue_data(q), n);
	rfc_queue_pull(q, n);
	return (int)n;
}

size_t rfc_queue_room(const struct alg_sock *sk, const struct rfc_queue *q)
{
	size_t cap = sk->sndbuf ? sk->sndbuf : KABI_WMEM_DEFAULT;
	return q->used < cap ? cap - q->used : 0;
}

int rfc_queue_write(const struct alg_sock *sk, struct rfc_queue *q, const uint8_t *data,
		       size_t len, size_t *taken)
{
	size_t n = rfc_queue_room(sk, q);
	if (n > len)
		n = len;
	*taken = n;
	if (!n && len)
		return -EAGAIN;
	int r = rfc_queue_add(q, data, n);
	return r ? r : (int)n;
}
