/* libFuzzer: src/proto's message decoders on any body.  The first byte
 * picks the message, the rest is the body, copied to a block of its exact
 * size (so ASan catches a read past it).  A body a decoder accepts must
 * have its variable parts inside the body, adding up to its length. */
#include "msg.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* p..p+n lies within b..b+len. */
static void inside(const uint8_t *b, size_t len, const void *p, size_t n)
{
	const uint8_t *q = p;
	if (q < b || q > b + len || n > (size_t)(b + len - q))
		abort();
}

static void check(const uint8_t *b, size_t len, unsigned which)
{
	union {
		struct ualg_hello hello;
		struct ualg_bind_msg bind;
		struct ualg_sockopt_msg sockopt;
		struct ualg_send_msg send;
		struct ualg_recv_msg recv;
		struct ualg_rfc_io_msg rfc;
		struct ualg_sndbuf sndbuf;
		struct ualg_adopt_msg adopt;
		struct ualg_alg_req alg;
		struct ualg_key_add_msg key_add;
		struct ualg_key_name_msg key_name;
		struct ualg_key_list_req key_list;
		struct ualg_ring_setup ring_setup;
		struct ualg_ring_open_msg ring_open;
		struct ualg_ring_setkey_msg ring_setkey;
		struct ualg_ring_setkey_named_msg ring_named;
		struct ualg_ring_close ring_close;
		struct ualg_ring_setauthsize ring_auth;
		struct ualg_describe describe;
		struct ualg_attach attach;
	} m;

	switch (which % 21) {
	case 0: ualg_decode_hello(b, len, &m.hello); break;
	case 1:
		if (!ualg_decode_bind(b, len, &m.bind)) {
			inside(b, len, m.bind.name, m.bind.hdr.name_len);
			if (strlen(m.bind.name) + 1 != m.bind.hdr.name_len)
				abort();
		}
		break;
	case 2:
		if (!ualg_decode_sockopt(b, len, &m.sockopt))
			inside(b, len, m.sockopt.value, m.sockopt.hdr.vallen);
		break;
	case 3:
	case 4:
		if (!ualg_decode_send(b, len, which % 21 == 4, &m.send)) {
			inside(b, len, m.send.iv, m.send.hdr.ivlen);
			if (m.send.data)
				inside(b, len, m.send.data, m.send.len);
		}
		break;
	case 5:
	case 6:
		if (!ualg_decode_recv(b, len, which % 21 == 6, &m.recv) && m.recv.hdr.total < m.recv.hdr.len)
			abort();
		break;
	case 7:
	case 8:
		if (!ualg_decode_rfc_io(b, len, which % 21 == 7 ? UALG_MSG_RFC_WRITE : UALG_MSG_RFC_READ,
					&m.rfc) && which % 21 == 7)
			inside(b, len, m.rfc.data, m.rfc.hdr.len);
		break;
	case 9: ualg_decode_sndbuf(b, len, &m.sndbuf); break;
	case 10:
		if (!ualg_decode_adopt(b, len, &m.adopt)) {
			inside(b, len, m.adopt.key, m.adopt.hdr.keylen);
			inside(b, len, m.adopt.data, m.adopt.hdr.len);
		}
		break;
	case 11: ualg_decode_alg_req(b, len, &m.alg); break;
	case 12:
		if (!ualg_decode_key_add(b, len, &m.key_add)) {
			inside(b, len, m.key_add.name, m.key_add.hdr.name_len);
			inside(b, len, m.key_add.allow, m.key_add.hdr.allow_len);
			inside(b, len, m.key_add.key, m.key_add.hdr.key_len);
			if (m.key_add.key + m.key_add.hdr.key_len != b + len)
				abort();
		}
		break;
	case 13:
		if (!ualg_decode_key_name(b, len, &m.key_name))
			inside(b, len, m.key_name.name, m.key_name.hdr.name_len);
		break;
	case 14: ualg_decode_key_list_req(b, len, &m.key_list); break;
	case 15: ualg_decode_ring_setup(b, len, &m.ring_setup); break;
	case 16:
		if (!ualg_decode_ring_open(b, len, &m.ring_open))
			inside(b, len, m.ring_open.name, m.ring_open.hdr.name_len);
		break;
	case 17:
		if (!ualg_decode_ring_setkey(b, len, &m.ring_setkey))
			inside(b, len, m.ring_setkey.key, m.ring_setkey.hdr.keylen);
		break;
	case 18:
		if (!ualg_decode_ring_setkey_named(b, len, &m.ring_named))
			inside(b, len, m.ring_named.name, m.ring_named.hdr.name_len);
		break;
	case 19:
		ualg_decode_ring_close(b, len, &m.ring_close);
		ualg_decode_ring_setauthsize(b, len, &m.ring_auth);
		break;
	case 20:
		ualg_decode_describe(b, len, &m.describe);
		ualg_decode_attach(b, len, &m.attach);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return -1;
	uint8_t *b = malloc(size - 1 ? size - 1 : 1);
	if (!b)
		return 0;
	memcpy(b, data + 1, size - 1);
	check(b, size - 1, data[0]);
	free(b);
	return 0;
}
