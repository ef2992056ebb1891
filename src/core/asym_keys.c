/* The key formats the kernel's akcipher and kpp algorithms parse, read as
 * lib/asn1_decoder.c reads them against crypto/rsaprivkey.asn1,
 * rsapubkey.asn1 and the PKCS#3 DHParameter of libkcapi's DH patch:
 * BER, one SEQUENCE of INTEGERs (definite or indefinite length), each
 * INTEGER's content taken as an unsigned big-endian number whatever its
 * sign or leading zeros.  Elements missing at the end of a definite
 * SEQUENCE are skipped, as the decoder skips matches once the data is
 * used up; bytes after the SEQUENCE are ignored.  A malformed structure is
 * EBADMSG (the decoder's answer), a value the kernel's actions refuse
 * (rsa_get_n() and the others) EINVAL. */
#include "crypto.h"

#include <errno.h>
#include <string.h>

#define TAG_INTEGER 0x02
#define TAG_SEQUENCE 0x30
#define TAG_CONS 0x20

/* One element's header at *dp, the data ending at end: its tag and the
 * length of its content (0 and *indef for an indefinite length). */
static int ber_header(const uint8_t *d, size_t end, size_t *dp, uint8_t *tag, size_t *len,
		      bool *indef)
{
	if (end - *dp < 2)
		return -EBADMSG;	/* data overrun */
	*tag = d[(*dp)++];
	if ((*tag & 0x1f) == 0x1f)
		return -EBADMSG;	/* long tags are not supported */
	size_t l = d[(*dp)++];
	*indef = false;
	if (l == 0x80) {
		if (!(*tag & TAG_CONS) || end - *dp < 2)
			return -EBADMSG;
		*indef = true;
		l = 0;
	} else if (l > 0x80) {
		const size_t n = l - 0x80;
		if (n > 2 || end - *dp <= n)
			return -EBADMSG;	/* unsupported length, overrun */
		l = 0;
		for (size_t i = 0; i < n; i++)
			l = l << 8 | d[(*dp)++];
	}
	/* The kernel checks only long forms against the data; a short form
	 * past the end would be read beyond the buffer, so it is refused. */
	if (l > end - *dp)
		return -EBADMSG;
	*len = l;
	return 0;
}

typedef int (*ber_action)(void *ctx, unsigned field, const uint8_t *v, size_t vlen);

/* SEQUENCE { INTEGER x nfields }: act() sees each INTEGER present.  From
 * field optional on, an element of another tag ends the list (OPTIONAL,
 * as the decoder's MATCH_OR_SKIP). */
static int ber_int_seq(const uint8_t *d, size_t len, unsigned nfields, unsigned optional,
		       ber_action act, void *ctx)
{
	size_t dp = 0, seqlen;
	uint8_t tag;
	bool indef, seq_indef;
	int r;

	if (len > 65535)
		return -EMSGSIZE;
	if (!len)
		return -EBADMSG;	/* nothing matched: the END_SEQ underflows */
	if ((r = ber_header(d, len, &dp, &tag, &seqlen, &seq_indef)))
		return r;
	if ((tag ^ TAG_SEQUENCE) & ~TAG_CONS)
		return -EBADMSG;
	const size_t end = seq_indef ? len : dp + seqlen;
	for (unsigned i = 0; i < nfields && dp != end; i++) {
		size_t vlen;
		if (i >= optional && d[dp] != TAG_INTEGER)
			break;
		if ((r = ber_header(d, end, &dp, &tag, &vlen, &indef)))
			return r;
		if (tag != TAG_INTEGER || indef)
			return -EBADMSG;
		if (act && (r = act(ctx, i, d + dp, vlen)))
			return r;
		dp += vlen;
	}
	if (seq_indef)
		return end - dp >= 2 && !d[dp] && !d[dp + 1] ? 0 : -EBADMSG;
	return dp == end ? 0 : -EBADMSG;	/* cons length error */
}

/* rsa_get_n(), rsa_get_e(), rsa_get_d() and rsa_get_p() and the other
 * CRT fields, which the kernel checks but does not use. */
struct rsa_parse {
	struct ualg_rsa_raw_key *k;
	bool priv;
};

static int rsa_field(void *ctx, unsigned field, const uint8_t *v, size_t vlen)
{
	struct rsa_parse *rp = ctx;
	struct ualg_rsa_raw_key *k = rp->k;

	if (rp->priv) {
		if (field == 0)
			return 0;	/* version: anything */
		field--;
	}
	switch (field) {
	case 0:
		if (!vlen)
			return -EINVAL;
		k->n = v;
		k->n_len = vlen;
		return 0;
	case 1:
	case 2:
		if (!vlen || !k->n_len || vlen > k->n_len)
			return -EINVAL;
		if (field == 1) {
			k->e = v;
			k->e_len = vlen;
		} else {
			k->d = v;
			k->d_len = vlen;
		}
		return 0;
	default:
		return !vlen || vlen > k->n_len ? -EINVAL : 0;
	}
}

int ualg_rsa_parse_key(const uint8_t *key, size_t len, bool priv, struct ualg_rsa_raw_key *k)
{
	struct rsa_parse rp = { k, priv };

	memset(k, 0, sizeof(*k));
	return ber_int_seq(key, len, priv ? 9 : 2, priv ? 9 : 2, rsa_field, &rp);
}

/* dh_get_p(), dh_get_g(); PKCS#3's OPTIONAL privateValueLength is taken
 * and ignored. */
static int dh_field(void *ctx, unsigned field, const uint8_t *v, size_t vlen)
{
	struct ualg_rsa_raw_key *k = ctx;	/* n: p, e: g */

	if (field == 0) {
		if (!vlen)
			return -EINVAL;
		k->n = v;
		k->n_len = vlen;
	} else if (field == 1) {
		if (!vlen || !k->n_len || vlen > k->n_len)
			return -EINVAL;
		k->e = v;
		k->e_len = vlen;
	}
	return 0;
}

static void strip(const uint8_t **v, size_t *len)
{
	while (*len && !**v) {
		(*v)++;
		(*len)--;
	}
}

int ualg_dh_decode_params(const uint8_t *der, size_t len, uint8_t *p, size_t *plen, uint8_t *g,
			  size_t *glen)
{
	struct ualg_rsa_raw_key k = { 0 };
	int r = ber_int_seq(der, len, 3, 2, dh_field, &k);

	if (r)
		return r;
	/* dh_set_params(): both there, and dh_check_params_length() on the
	 * size of p as given. */
	if (!k.n_len || !k.e_len || k.n_len * 8 < 1536)
		return -EINVAL;
	strip(&k.n, &k.n_len);
	strip(&k.e, &k.e_len);
	if (k.n_len > UALG_DH_MAX_BYTES || k.e_len > UALG_DH_MAX_BYTES)
		return -EINVAL;
	memcpy(p, k.n, k.n_len);
	memcpy(g, k.e, k.e_len);
	*plen = k.n_len;
	*glen = k.e_len;
	return 0;
}
