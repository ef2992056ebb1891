/* The "aead" socket type, as crypto/algif_aead.c: sends queue associated
 * data and text (afalg_tx.c) until a send without MSG_MORE ends the
 * request; a read runs one AEAD operation per request over the caller's
 * whole buffer, whose size decides how much is processed, and then waits
 * for the next request while buffer space remains, as the kernel does. */
#include "afalg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int aead_send(struct alg_sock *op, const struct afalg_send *s, struct afalg_progress *p)
{
	return afalg_tx_send(afalg_tx_of(op), s, p, afalg_tfm(op)->alg->u.aead.ivsize);
}

/* Decryption reads the tag from the queue, past the output: it runs on a
 * private copy of the whole request and only the plaintext is released. */
static int decrypt_copy(struct ualg_tfm *tfm, struct afalg_tx *tx, uint8_t *out,
			size_t assoclen, size_t cryptlen)
{
	const size_t processed = assoclen + cryptlen;
	uint8_t *buf = malloc(processed ? processed : 1);

	if (!buf)
		return -ENOMEM;
	if (processed)
		memcpy(buf, afalg_tx_data(tx), processed);
	afalg_tx_pull(tx, processed);
	const struct ualg_aead_req req = {
		.aad = buf, .assoclen = assoclen,
		.text = buf + assoclen, .cryptlen = cryptlen, .iv = tx->iv,
	};
	int r = ualg_aead_decrypt(tfm, &req);
	if (!r)
		memcpy(out, buf, processed - tfm->authsize);
	ualg_wipe(buf, processed);
	free(buf);
	return r;
}

/* _aead_recvmsg() without its wait: one operation into out (room for
 * len bytes).  Returns the bytes produced or an error. */
static int aead_one(struct alg_sock *op, uint8_t *out, size_t len)
{
	struct afalg_tx *tx = afalg_tx_of(op);
	struct ualg_tfm *tfm = afalg_tfm(op);
	const size_t as = tfm->authsize, assoclen = tx->assoclen;

	/* aead_sufficient_data(): the associated data, and a tag to check. */
	if (tx->used < assoclen + (tx->enc ? 0 : as))
		return -EINVAL;
	size_t outlen = tx->enc ? tx->used + as : tx->used - as;
	size_t used = tx->used - assoclen;
	/* A smaller buffer processes correspondingly less of the request. */
	if (len < outlen) {
		const size_t less = outlen - len;
		if (used < less)
			return -EINVAL;
		used -= less;
		outlen -= less;
	}
	if (!tx->enc) {
		int r = decrypt_copy(tfm, tx, out, assoclen, used);
		return r ? r : (int)outlen;
	}
	/* The associated data is copied to the output as the kernel copies
	 * it; the text is encrypted from the queue where the algorithm can
	 * (one pass less), else copied and encrypted in place. */
	const uint8_t *in = assoclen + used ? afalg_tx_data(tx) : NULL;	/* empty: no buffer */
	const bool oop = in && ualg_aead_takes_src(tfm);
	if (in)
		memcpy(out, in, oop ? assoclen : assoclen + used);
	const struct ualg_aead_req req = {
		.aad = out, .assoclen = assoclen,
		.text = out + assoclen, .cryptlen = used, .iv = tx->iv,
		.src = oop ? in + assoclen : NULL,
	};
	int r = ualg_aead_encrypt(tfm, &req);
	afalg_tx_pull(tx, assoclen + used);
	if (r)
		ualg_wipe(out, outlen);
	return r ? r : (int)outlen;
}

/* aead_recvmsg(): operations until the buffer is full, each waiting for a
 * complete request; an error ends the call, and a bad tag wins over what
 * earlier operations produced. */
static int aead_recv(struct alg_sock *op, uint8_t *out, size_t len, bool dontwait, bool *trunc,
		     struct afalg_progress *p)
{
	struct afalg_tx *tx = afalg_tx_of(op);

	(void)trunc;
	while (p->done < len) {
		if (!tx->init || tx->more) {
			if (dontwait)
				return p->done ? (int)p->done : -EAGAIN;
			return AFALG_WAIT;
		}
		int r = aead_one(op, out + p->done, len - p->done);
		if (r <= 0)
			return (r == -EBADMSG || !p->done) ? r : (int)p->done;
		p->done += (size_t)r;
	}
	return (int)p->done;
}

static bool aead_send_ok(const struct alg_sock *op, const struct afalg_send *s)
{
	return afalg_tx_send_ok(afalg_tx_of(op), s, afalg_tfm(op)->alg->u.aead.ivsize);
}

/* aead_recv() waits before an operation without a complete request, and
 * after one whose output left part of the buffer empty (the queue is
 * empty then), unless the operation failed: its first operation must
 * fill the buffer, or be refused for want of data. */
static bool aead_ready(const struct alg_sock *op, bool send, size_t len)
{
	const struct afalg_tx *tx = afalg_tx_of(op);
	const size_t as = afalg_tfm(op)->authsize;

	if (send)
		return afalg_tx_send_ready(tx, len);
	if (!len)
		return true;
	if (!tx->init || tx->more)
		return false;
	if (tx->used < tx->assoclen + (tx->enc ? 0 : as))
		return true;	/* EINVAL */
	return len <= (tx->enc ? tx->used + as : tx->used - as);
}

const struct alg_type afalg_type_aead = {
	.name = "aead",
	.alg_type = UALG_ALG_AEAD,
	.ctxsize = sizeof(struct afalg_tx),
	.accept = afalg_tx_accept,
	.accept_on_op = false,
	.send = aead_send,
	.recv = aead_recv,
	.ready = aead_ready,
	.send_ok = aead_send_ok,
	.poll = afalg_tx_poll,
	.send_copies = true,
	.whole_buffer = true,
	.release = afalg_tx_release,
	.export = afalg_tx_export,
	.import = afalg_tx_import,
};
