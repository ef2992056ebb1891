/* Self-tests of the akcipher, kpp and compression types, as testmgr.c's
 * test_akcipher(), test_kpp() and test_comp(): known answers both ways,
 * rejection of failing signatures, and for compression the decoding of a
 * real peer's stream and a round trip through our own encoder. */
#include "crypto.h"
#include "testvec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *u8(const char *s)
{
	return (const uint8_t *)s;
}

static const struct ualg_test_desc *find_asym(const char *name)
{
	for (size_t i = 0; i < ualg_test_descs_asym_count; i++)
		if (!strcmp(ualg_test_descs_asym[i].alg, name))
			return &ualg_test_descs_asym[i];
	return NULL;
}

/* Output of one operation equals want (len bytes); *flip corrupts the
 * expectation once. */
static bool same(const uint8_t *got, size_t n, const char *want, size_t len, bool *flip)
{
	if (n != len)
		return false;
	if (*flip && len) {
		*flip = false;
		return got[0] == (uint8_t)(want[0] ^ 1) && !memcmp(got + 1, want + 1, len - 1);
	}
	return !memcmp(got, want, len);
}

static int run_ak(struct ualg_tfm *tfm, enum ualg_akcipher_op op, const char *in, size_t inlen,
		  uint8_t *out, size_t *n)
{
	*n = UALG_AKCIPHER_MAX_OUT;
	return ualg_akcipher_run(tfm, op, u8(in), inlen, out, n);
}

static int test_akcipher_vec(struct ualg_tfm *tfm, const struct ualg_akcipher_testvec *v,
			     bool *flip)
{
	uint8_t out[UALG_AKCIPHER_MAX_OUT];
	size_t n;

	if (v->verify_only) {
		if (ualg_akcipher_set_pub_key(tfm, u8(v->pub), v->plen))
			return -1;
		int r = run_ak(tfm, UALG_AK_VERIFY, v->m, v->mlen, out, &n);
		bool want_bad = v->bad != *flip;
		*flip = false;
		return want_bad ? (r == -EBADMSG ? 0 : -1) : (r ? -1 : 0);
	}
	/* rsa: m^e = c and c^d = m; pkcs1pad: sign(m) = c and verify(c) = m.
	 * With the private key both ways, with the public one the public
	 * direction only. */
	const enum ualg_akcipher_op fwd = v->sign ? UALG_AK_SIGN : UALG_AK_ENCRYPT;
	const enum ualg_akcipher_op back = v->sign ? UALG_AK_VERIFY : UALG_AK_DECRYPT;
	const enum ualg_akcipher_op pub_op = v->sign ? back : fwd;
	const char *pub_in = v->sign ? v->c : v->m, *pub_out = v->sign ? v->m : v->c;
	const size_t pub_inlen = v->sign ? v->clen : v->mlen, pub_outlen = v->sign ? v->mlen : v->clen;
	const enum ualg_akcipher_op priv_only = v->sign ? fwd : back;

	if (ualg_tfm_setkey(tfm, u8(v->key), v->klen) ||
	    run_ak(tfm, fwd, v->m, v->mlen, out, &n) || !same(out, n, v->c, v->clen, flip) ||
	    run_ak(tfm, back, v->c, v->clen, out, &n) || !same(out, n, v->m, v->mlen, flip))
		return -1;
	if (ualg_akcipher_set_pub_key(tfm, u8(v->pub), v->plen) ||
	    run_ak(tfm, pub_op, pub_in, pub_inlen, out, &n) ||
	    !same(out, n, pub_out, pub_outlen, flip))
		return -1;
	if (run_ak(tfm, priv_only, v->sign ? v->m : v->c, v->sign ? v->mlen : v->clen, out, &n) !=
	    -EINVAL)
		return -1;
	if (!v->sign)
		return 0;
	/* signature || digest: verified with no output; a changed digest is
	 * refused. */
	uint8_t both[UALG_AKCIPHER_MAX_OUT + 64];
	if (v->clen + v->mlen > sizeof(both))
		return -1;
	memcpy(both, v->c, v->clen);
	memcpy(both + v->clen, v->m, v->mlen);
	n = sizeof(out);
	if (ualg_akcipher_run(tfm, back, both, v->clen + v->mlen, out, &n) || n)
		return -1;
	both[v->clen] ^= 1;
	n = sizeof(out);
	return ualg_akcipher_run(tfm, back, both, v->clen + v->mlen, out, &n) == -EBADMSG ? 0 : -1;
}

static int test_kpp_vec(struct ualg_tfm *tfm, const struct ualg_kpp_testvec *v, bool *flip)
{
	uint8_t out[UALG_AKCIPHER_MAX_OUT];
	size_t n = sizeof(out);

	if (ualg_tfm_setkey(tfm, u8(v->secret), v->slen))
		return -1;
	if (ualg_kpp_gen_pubkey(tfm, out, &n) || !same(out, n, v->pub, v->publen, flip))
		return -1;
	n = sizeof(out);
	if (ualg_kpp_compute_ss(tfm, u8(v->peer), v->peerlen, out, &n) ||
	    !same(out, n, v->ss, v->sslen, flip))
		return -1;
	/* A peer key off the group (all zero) is refused. */
	uint8_t zero[UALG_AKCIPHER_MAX_OUT] = { 0 };
	n = sizeof(out);
	return ualg_kpp_compute_ss(tfm, zero, v->peerlen, out, &n) == -EINVAL ? 0 : -1;
}

/* The peer's stream decodes to the plain text; our own encoding of it
 * decodes back; a truncated stream and too small an output both fail. */
static int test_comp_vec(struct ualg_tfm *tfm, const struct ualg_comp_testvec *v, bool *flip)
{
	const size_t cap = 2 * v->plen + 1024;
	uint8_t *a = malloc(cap), *b = malloc(cap);
	int bad = -1;
	size_t n = cap, m = cap;

	if (!a || !b)
		goto out;
	if (ualg_comp_run(tfm, false, u8(v->stream), v->slen, a, &n) ||
	    !same(a, n, v->plain, v->plen, flip))
		goto out;
	n = cap;
	if (ualg_comp_run(tfm, true, u8(v->plain), v->plen, a, &n) ||
	    ualg_comp_run(tfm, false, a, n, b, &m) || !same(b, m, v->plain, v->plen, flip))
		goto out;
	m = v->plen - 1;
	if (ualg_comp_run(tfm, false, u8(v->stream), v->slen, b, &m) != -ENOSPC)
		goto out;
	m = cap;
	if (ualg_comp_run(tfm, false, u8(v->stream), v->slen / 2, b, &m) != -EBADMSG)
		goto out;
	bad = 0;
out:
	free(a);
	free(b);
	return bad;
}

int ualg_selftest_asym(struct ualg_alg *alg, bool corrupt)
{
	const struct ualg_test_desc *d = find_asym(alg->name);
	int err = 0, bad = 0;

	if (!d)
		return 0;
	struct ualg_tfm *tfm = ualg_tfm_new(alg, &err);
	if (!tfm)
		return -1;
	for (size_t i = 0; !bad && i < d->count; i++) {
		switch (d->kind) {
		case UALG_TEST_AKCIPHER:
			bad = test_akcipher_vec(tfm, &((const struct ualg_akcipher_testvec *)d->vecs)[i],
						&corrupt);
			break;
		case UALG_TEST_KPP:
			bad = test_kpp_vec(tfm, &((const struct ualg_kpp_testvec *)d->vecs)[i], &corrupt);
			break;
		case UALG_TEST_COMP:
			bad = test_comp_vec(tfm, &((const struct ualg_comp_testvec *)d->vecs)[i], &corrupt);
			break;
		default:
			bad = -1;
		}
	}
	ualg_tfm_free(tfm);
	return bad ? -1 : 0;
}
