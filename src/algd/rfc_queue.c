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
			size_t cap = q->used + len;
			uint8_t *b = malloc(cap ? cap : 1);
			if (!b)
				return -ENOMEM;
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
	ualg_wipe(q->buf, q->cap);
	free(q->buf);
	*q = (struct rfc_queue){ 0 };
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
