/* alg_type.ready against the calls themselves: a long random walk of
 * sends and reads on skcipher and aead op sockets (src/afalg, no daemon),
 * each read and send made after asking ready().  A call ready() passed
 * must never wait (algd's shared page serves exactly those, and cannot
 * park one); a call it refused must wait or fail, or the page would send
 * to the socket what it could have served.  A small send buffer makes
 * sends wait too.  TAP output. */
#include "afalg.h"
#include "kabi.h"
#include "tap.h"

#include <linux/if_alg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15u;	/* fixed: the walk repeats */

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

struct tally {
	unsigned ready, waited, refused_ok, wrong_wait, wrong_refusal;
};

/* A new op socket on tfm, with a send buffer of three pages: sends of a
 * page or more wait. */
static struct alg_sock *fresh(struct alg_sock *tfm, struct alg_sock *old)
{
	struct alg_sock *op = NULL;
	if (old)
		afalg_sock_put(old);
	if (afalg_accept(tfm, &op))
		return NULL;
	op->sndbuf = 3 * 4096;
	return op;
}

/* Single-threaded, a socket may wait for ever (a full queue of an open
 * request) or refuse every call (a request too short for its associated
 * data, which no send may follow): after a few calls in a row that took
 * or gave nothing, the walk goes on with a new op socket. */
static bool walk(struct alg_sock *tfm, bool aead, unsigned steps, struct tally *t)
{
	struct alg_sock *op = fresh(tfm, NULL);
	unsigned stuck = 0;
	static const size_t send_lens[] = { 0, 1, 5, 16, 17, 48, 100, 4096, 5000, 9000 };
	static const size_t recv_lens[] = { 0, 1, 15, 16, 32, 48, 116, 132, 4096, 10000 };
	static uint8_t data[9000], out[16384];
	const uint8_t iv[16] = { 0 };

	for (unsigned i = 0; op && i < steps; i++) {
		if (stuck == 6) {
			op = fresh(tfm, op);
			stuck = 0;
			if (!op)
				break;
		}
		const bool send = rnd(2);
		struct afalg_progress p = { 0 };
		size_t len;
		bool ready;
		int r;
		if (send) {
			struct afalg_send s = { .first = true, .last = true, .more = rnd(3) == 0, .data = data };
			s.len = len = send_lens[rnd(sizeof(send_lens) / sizeof(send_lens[0]))];
			if (rnd(3) == 0)
				s.ctl = (struct afalg_ctl){ .present = true, .op = rnd(2) ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT,
							    .has_iv = true, .ivlen = aead ? 12 : 16, .iv = iv,
							    .assoclen = aead ? rnd(3) * 16 : 0 };
			ready = afalg_ready(op, true, len);
			r = afalg_send(op, &s, &p);
		} else {
			bool trunc = false;
			len = recv_lens[rnd(sizeof(recv_lens) / sizeof(recv_lens[0]))];
			ready = afalg_ready(op, false, len);
			r = afalg_recv(op, out, len, false, &trunc, &p);
		}
		stuck = r <= 0 ? stuck + 1 : 0;
		if (ready) {
			t->ready++;
			t->wrong_wait += r == AFALG_WAIT;
		} else if (r == AFALG_WAIT) {
			t->waited++;
		} else {
			/* Refused but answered: only a failure the state did not
			 * show (a tag, a request too short for its operation). */
			t->refused_ok += r <= 0;
			t->wrong_refusal += r > 0;
		}
	}
	if (!op)
		return false;
	afalg_sock_put(op);
	return true;
}

static void check_type(const char *type, const char *name, bool aead)
{
	static const uint8_t key[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
					 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
	struct alg_sock *tfm = afalg_sock_new();
	struct afalg_optval k = { .data = key, .len = sizeof(key), .optlen = sizeof(key) };
	struct afalg_optval as = { .optlen = 16 };
	int r = !tfm ? -1 : afalg_bind(tfm, type, 0, 0, name, NULL);
	if (!r)
		r = afalg_setsockopt(tfm, KABI_SOL_ALG, ALG_SET_KEY, &k);
	if (!r && aead)
		r = afalg_setsockopt(tfm, KABI_SOL_ALG, ALG_SET_AEAD_AUTHSIZE, &as);
	struct alg_sock *op = r ? NULL : fresh(tfm, NULL);
	ok(op && afalg_knows_ready(op), "%s: an op socket whose type says when a call would wait", name);
	if (!op)
		return;
	afalg_sock_put(op);
	struct tally t = { 0 };
	ok(walk(tfm, aead, 20000, &t), "%s: 20000 random calls, on new op sockets where one was stuck", name);
	ok(!t.wrong_wait, "%s: no call ready() passed waited (%u passed, %u of them waited)", name, t.ready,
	   t.wrong_wait);
	ok(!t.wrong_refusal, "%s: every call it refused waited or failed (%u waited, %u failed, %u answered)",
	   name, t.waited, t.refused_ok, t.wrong_refusal);
	ok(t.ready > 1000 && t.waited > 1000, "%s: the walk took both branches often (%u ready, %u waiting)",
	   name, t.ready, t.waited);
	afalg_sock_put(tfm);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	ualg_selftest_defer();
	ok(ualg_core_init() == 0, "the core's drivers registered");
	check_type("skcipher", "cbc(aes)", false);
	check_type("skcipher", "ctr(aes)", false);
	check_type("aead", "gcm(aes)", true);
	return tap_done();
}
