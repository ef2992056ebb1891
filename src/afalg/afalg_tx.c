/* The send side that skcipher and aead sockets share, as the kernel's
 * af_alg_sendmsg(), af_alg_pull_tsgl() and af_alg_poll(): data queues up to
 * the socket's send buffer together with the operation, IV and associated
 * data length from control messages; a read consumes it. */
#include "afalg.h"
#include "kabi.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

/* sk_sndbuf of a new socket (net.core.wmem_default), rounded down to pages
 * as af_alg_sndbuf() does. */
#define PAGE_SIZE_ 4096u

static size_t sndbuf_limit(const struct afalg_tx *tx)
{
	return tx->sndbuf && *tx->sndbuf ? *tx->sndbuf & ~(PAGE_SIZE_ - 1) : KABI_WMEM_DEFAULT;
}

static size_t sndbuf_left(const struct afalg_tx *tx)
{
	size_t buf = sndbuf_limit(tx);
	return tx->used < buf ? buf - tx->used : 0;
}

/* af_alg_writable(): at least a page of room. */
static bool writable(const struct afalg_tx *tx)
{
	return sndbuf_left(tx) >= PAGE_SIZE_;
}

/* The queue grows geometrically (never past the send buffer), so that
 * filling it costs linear time; its capacity is charged to the owner's
 * budget, and a charge refused is ENOMEM, as sock_kmalloc() past optmem. */
static int tx_append(struct afalg_tx *tx, const uint8_t *data, size_t len)
{
	if (tx->head + tx->used + len > tx->cap) {
		if (tx->head) {
			memmove(tx->buf, tx->buf + tx->head, tx->used);
			ualg_wipe(tx->buf + tx->used, tx->head);
			tx->head = 0;
		}
		if (tx->used + len > tx->cap) {
			const size_t need = tx->used + len, limit = sndbuf_limit(tx);
			size_t cap = tx->cap ? tx->cap : PAGE_SIZE_;
			while (cap < need)
				cap *= 2;
			if (cap > limit && need <= limit)
				cap = limit;
			if (tx->mem && !ualg_budget_charge(tx->mem, cap - tx->cap))
				return -ENOMEM;
			uint8_t *buf = malloc(cap);
			if (!buf) {
				if (tx->mem)
					ualg_budget_uncharge(tx->mem, cap - tx->cap);
				return -ENOMEM;
			}
			if (tx->used)
				memcpy(buf, tx->buf, tx->used);
			ualg_wipe(tx->buf, tx->cap);
			free(tx->buf);
			tx->buf = buf;
			tx->cap = cap;
		}
	}
	memcpy(tx->buf + tx->head + tx->used, data, len);
	tx->used += len;
	return 0;
}

const uint8_t *afalg_tx_data(const struct afalg_tx *tx)
{
	return tx->buf + tx->head;
}

/* Once the queue is empty, a new request must start with its own
 * operation and IV unless MSG_MORE said more was coming.  The bytes pulled
 * stay until the socket overwrites or frees them (afalg_tx_release()
 * wipes the buffer), as the kernel's pages do: the queue never changes
 * hands, and wiping each pull cost a tenth of a 64 KiB AEAD operation. */
void afalg_tx_pull(struct afalg_tx *tx, size_t len)
{
	tx->head += len;
	tx->used -= len;
	if (!tx->used) {
		tx->head = 0;
		tx->init = tx->more;
	}
}

/* A one-shot request (akcipher, kpp, compression) takes the whole queue,
 * which may be empty. */
void afalg_tx_pull_all(struct afalg_tx *tx)
{
	if (tx->used)
		afalg_tx_pull(tx, tx->used);
	else
		tx->init = tx->more;
}

int afalg_tx_whole(const struct afalg_tx *tx, bool dontwait, const uint8_t **data)
{
	if (!tx->init || tx->more)
		return dontwait ? -EAGAIN : AFALG_WAIT;
	*data = tx->used ? afalg_tx_data(tx) : NULL;
	return 0;
}

/* The checks af_alg_sendmsg() makes once per call, before any data:
 * the control data, and the queue before its first part. */
static int send_check(const struct afalg_tx *tx, const struct afalg_send *s, unsigned ivsize)
{
	if (s->ctl.present) {
		const uint32_t ops = tx->ops ? tx->ops : 1u << ALG_OP_DECRYPT | 1u << ALG_OP_ENCRYPT;
		if (s->ctl.invalid || s->ctl.op > 31 || !(ops & 1u << s->ctl.op))
			return -EINVAL;
		if (s->ctl.has_iv && s->ctl.ivlen != ivsize)
			return -EINVAL;
		if (s->ctl.assoclen > INT32_MAX)	/* as Linux 6.1 answers */
			return -EINVAL;
	}
	if (tx->init && !tx->more && tx->used)
		return -EINVAL;
	return 0;
}

static int send_begin(struct afalg_tx *tx, const struct afalg_send *s, unsigned ivsize)
{
	int r = send_check(tx, s, ivsize);
	if (r)
		return r;
	tx->init = true;
	if (s->ctl.present) {
		tx->enc = s->ctl.op == ALG_OP_ENCRYPT;
		tx->op = s->ctl.op;
		if (s->ctl.has_iv)
			memcpy(tx->iv, s->ctl.iv, ivsize);
		tx->assoclen = s->ctl.assoclen;
	}
	return 0;
}

int afalg_tx_send(struct afalg_tx *tx, const struct afalg_send *s, struct afalg_progress *p,
		  unsigned ivsize)
{
	if (!p->started) {
		p->started = true;
		if (s->first) {
			int r = send_begin(tx, s, ivsize);
			if (r)
				return r;
		}
		if (s->fault)
			return -EFAULT;
	}
	while (p->done < s->len) {
		if (!writable(tx)) {
			if (s->dontwait)
				return p->done ? (int)p->done : -EAGAIN;
			return AFALG_WAIT;	/* until a read makes room */
		}
		size_t n = s->len - p->done;
		if (n > sndbuf_left(tx))
			n = sndbuf_left(tx);
		int r = tx_append(tx, s->data + p->done, n);
		if (r)
			return p->done ? (int)p->done : r;
		p->done += n;
	}
	if (s->last)
		tx->more = s->more;
	return (int)p->done;
}

/* The loop above waits only for room: none while the data fits and a
 * page of the send buffer is free. */
bool afalg_tx_send_ready(const struct afalg_tx *tx, size_t len)
{
	return !len || (writable(tx) && len <= sndbuf_left(tx));
}

bool afalg_tx_send_ok(const struct afalg_tx *tx, const struct afalg_send *s, unsigned ivsize)
{
	return s->first && s->last && !s->fault && !send_check(tx, s, ivsize) &&
	       afalg_tx_send_ready(tx, s->len);
}

/* af_alg_poll(): readable once a request is complete or data is queued,
 * writable while a page of send buffer is free. */
int afalg_tx_accept(struct alg_sock *op, const struct alg_sock *from)
{
	(void)from;
	afalg_tx_of(op)->sndbuf = &op->sndbuf;
	afalg_tx_of(op)->mem = op->mem;
	return 0;
}

int afalg_tx_export(const struct alg_sock *op, struct afalg_state *st)
{
	const struct afalg_tx *tx = afalg_tx_of(op);

	st->flags = (tx->init ? AFALG_STATE_INIT : 0) | (tx->more ? AFALG_STATE_MORE : 0) |
		    (tx->enc ? AFALG_STATE_ENC : 0);
	st->op = tx->op;
	st->assoclen = tx->assoclen;
	memcpy(st->iv, tx->iv, sizeof(st->iv));
	if (!tx->used)
		return 0;
	if (!(st->data = malloc(tx->used)))
		return -ENOMEM;
	memcpy(st->data, afalg_tx_data(tx), tx->used);
	st->len = tx->used;
	return 0;
}

/* The queue, all parts together, must fit the send buffer as sends would
 * have filled it; the operation must be one the socket allows. */
int afalg_tx_import(struct alg_sock *op, const struct afalg_state *st, bool part)
{
	struct afalg_tx *tx = afalg_tx_of(op);

	if (tx->used + st->len > sndbuf_limit(tx) + (PAGE_SIZE_ - 1))
		return -EINVAL;
	if (st->len && tx_append(tx, st->data, st->len))
		return -ENOMEM;
	if (part)
		return 0;
	const uint32_t ops = tx->ops ? tx->ops : 1u << ALG_OP_DECRYPT | 1u << ALG_OP_ENCRYPT;
	if ((st->flags & AFALG_STATE_RESULT) || st->op > 31 || !(ops & 1u << st->op) ||
	    st->assoclen > INT32_MAX || (!(st->flags & AFALG_STATE_INIT) && tx->used))
		return -EINVAL;
	tx->init = st->flags & AFALG_STATE_INIT;
	tx->more = st->flags & AFALG_STATE_MORE;
	tx->enc = st->flags & AFALG_STATE_ENC;
	tx->op = st->op;
	tx->assoclen = st->assoclen;
	memcpy(tx->iv, st->iv, sizeof(tx->iv));
	return 0;
}

unsigned afalg_tx_poll(const struct alg_sock *op)
{
	const struct afalg_tx *tx = afalg_tx_of(op);
	unsigned mask = 0;

	if (!tx->more || tx->used)
		mask |= POLLIN | POLLRDNORM;
	if (writable(tx))
		mask |= POLLOUT | POLLWRNORM | POLLWRBAND;
	return mask;
}

void afalg_tx_release(struct alg_sock *op)
{
	struct afalg_tx *tx = afalg_tx_of(op);

	if (tx->mem)
		ualg_budget_uncharge(tx->mem, tx->cap);
	ualg_wipe(tx->buf, tx->cap);
	free(tx->buf);
	ualg_wipe(tx, sizeof(*tx));
}
