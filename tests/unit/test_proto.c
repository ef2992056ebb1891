/* The message decoders of src/proto/msg.h: each accepts its well-formed
 * bodies (and finds their variable parts where they lie) and refuses
 * truncated, oversized and field-corrupted ones, at the protocol's limits
 * exactly. */
#include "msg.h"
#include "kabi.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static uint8_t body[UALG_FRAME_MAX];

/* The wrappers give every decoder one shape, for the length sweeps. */
typedef int decoder(const void *b, size_t len);

#define WRAP(name, T)                                  \
	static int name(const void *b, size_t len)     \
	{                                              \
		T out;                                 \
		return ualg_decode_##name(b, len, &out); \
	}
WRAP(hello, struct ualg_hello)
/* Not "bind": kabi.h brings <sys/socket.h>'s. */
static int bind_msg(const void *b, size_t len)
{
	struct ualg_bind_msg out;
	return ualg_decode_bind(b, len, &out);
}
WRAP(sockopt, struct ualg_sockopt_msg)
WRAP(sndbuf, struct ualg_sndbuf)
WRAP(adopt, struct ualg_adopt_msg)
WRAP(alg_req, struct ualg_alg_req)
WRAP(key_add, struct ualg_key_add_msg)
WRAP(key_name, struct ualg_key_name_msg)
WRAP(key_list_req, struct ualg_key_list_req)
WRAP(ring_setup, struct ualg_ring_setup)
WRAP(ring_open, struct ualg_ring_open_msg)
WRAP(ring_setkey, struct ualg_ring_setkey_msg)
WRAP(ring_setkey_named, struct ualg_ring_setkey_named_msg)
WRAP(ring_close, struct ualg_ring_close)
WRAP(ring_setauthsize, struct ualg_ring_setauthsize)

static int send_inline(const void *b, size_t len)
{
	struct ualg_send_msg m;
	return ualg_decode_send(b, len, false, &m);
}
static int send_shm(const void *b, size_t len)
{
	struct ualg_send_msg m;
	return ualg_decode_send(b, len, true, &m);
}
static int recv_inline(const void *b, size_t len)
{
	struct ualg_recv_msg m;
	return ualg_decode_recv(b, len, false, &m);
}
static int recv_shm(const void *b, size_t len)
{
	struct ualg_recv_msg m;
	return ualg_decode_recv(b, len, true, &m);
}
static int rfc_write(const void *b, size_t len)
{
	struct ualg_rfc_io_msg m;
	return ualg_decode_rfc_io(b, len, UALG_MSG_RFC_WRITE, &m);
}
static int rfc_read(const void *b, size_t len)
{
	struct ualg_rfc_io_msg m;
	return ualg_decode_rfc_io(b, len, UALG_MSG_RFC_READ, &m);
}

/* A body of exactly len bytes: accepted, refused at every shorter length
 * and one byte longer.  The body lies at the end of a heap block, so that
 * a decoder reading past len is caught under ASan and valgrind. */
static void sweep(const char *what, decoder *dec, const void *good, size_t len)
{
	uint8_t *b = malloc(len + 1);
	int shorter = 0;

	memcpy(b, good, len);
	ok(dec(b, len) == 0, "%s: the well-formed body is accepted", what);
	for (size_t n = 0; n < len; n++) {
		uint8_t *t = malloc(n ? n : 1);
		memcpy(t, good, n);
		shorter += dec(t, n) == 0;
		free(t);
	}
	ok(shorter == 0, "%s: every truncation is refused", what);
	b[len] = 0;
	ok(dec(b, len + 1) == -1, "%s: one byte more is refused", what);
	free(b);
}

/* good with one field set to value: refused? */
#define CORRUPT(dec, good, field, value, what)                         \
	do {                                                           \
		__typeof__(good) c_ = (good);                          \
		c_.field = (value);                                    \
		memcpy(body, &c_, sizeof(c_));                         \
		ok(dec(body, sizeof(c_)) == -1, "%s", what);           \
	} while (0)

static void test_empty_hello_sndbuf(void)
{
	ok(ualg_decode_empty(0) == 0 && ualg_decode_empty(1) == -1, "empty bodies: 0 bytes only");

	struct ualg_hello h = { UALG_PROTO_MAGIC, UALG_PROTO_VERSION, UALG_ROLE_AFALG };
	sweep("HELLO", hello, &h, sizeof(h));
	CORRUPT(hello, h, magic, 0x55414c48u, "HELLO: another magic is refused");
	CORRUPT(hello, h, role, 2, "HELLO: another role is refused");
	struct ualg_hello v = h;
	v.version = 7;
	ok(hello(&v, sizeof(v)) == 0, "HELLO: another version is algd's answer, not malformed");

	const struct ualg_sndbuf s = { 0xffffffffu };
	sweep("SNDBUF", sndbuf, &s, sizeof(s));
}

/* BIND and RING_OPEN share the name rules. */
static size_t put_named(void *fixed, size_t fixed_len, const char *name, size_t name_len)
{
	memcpy(body, fixed, fixed_len);
	memcpy(body + fixed_len, name, name_len);
	return fixed_len + name_len;
}

static void test_bind(void)
{
	struct ualg_bind b = { .type = "skcipher", .name_len = 9 };
	size_t n = put_named(&b, sizeof(b), "cbc(aes)", 9);
	struct ualg_bind_msg m;

	sweep("BIND", bind_msg, body, n);
	ok(ualg_decode_bind(body, n, &m) == 0 && m.name == (const char *)body + sizeof(b) &&
	   !strcmp(m.name, "cbc(aes)") && m.hdr.name_len == 9, "BIND: the name is found in the body");
	b.reserved = 1;
	n = put_named(&b, sizeof(b), "cbc(aes)", 9);
	ok(bind_msg(body, n) == -1, "BIND: reserved set is refused");
	b.reserved = 0;
	memset(b.type, 'x', sizeof(b.type));
	n = put_named(&b, sizeof(b), "cbc(aes)", 9);
	ok(bind_msg(body, n) == -1, "BIND: a type without NUL is refused");
	memcpy(b.type, "hash", 5);
	b.name_len = 8;
	n = put_named(&b, sizeof(b), "cbc(aes)", 8);
	ok(bind_msg(body, n) == -1, "BIND: a name without its NUL is refused");
	b.name_len = 9;
	n = put_named(&b, sizeof(b), "cbc\0aes)", 9);
	ok(bind_msg(body, n) == -1, "BIND: a NUL inside the name is refused");
	b.name_len = 0;
	ok(bind_msg(body, put_named(&b, sizeof(b), "", 0)) == -1, "BIND: an empty name is refused");

	static char name[UALG_BIND_NAME_MAX + 1];
	memset(name, 'a', sizeof(name));
	name[UALG_BIND_NAME_MAX - 1] = 0;
	b.name_len = UALG_BIND_NAME_MAX;
	ok(bind_msg(body, put_named(&b, sizeof(b), name, b.name_len)) == 0,
	   "BIND: a name of UALG_BIND_NAME_MAX bytes is accepted");
	name[UALG_BIND_NAME_MAX - 1] = 'a';
	name[UALG_BIND_NAME_MAX] = 0;
	b.name_len = UALG_BIND_NAME_MAX + 1;
	ok(bind_msg(body, put_named(&b, sizeof(b), name, b.name_len)) == -1,
	   "BIND: a name of UALG_BIND_NAME_MAX + 1 bytes is refused");
	b.name_len = 0xffffffffu;
	ok(bind_msg(body, put_named(&b, sizeof(b), "cbc(aes)", 9)) == -1,
	   "BIND: a name_len past the body is refused");
}

static size_t put_sockopt(const struct ualg_sockopt *o, size_t vallen)
{
	memcpy(body, o, sizeof(*o));
	memset(body + sizeof(*o), 0x5a, vallen);
	return sizeof(*o) + vallen;
}

static void test_sockopt(void)
{
	struct ualg_sockopt o = { .level = 279, .optname = 1, .optlen = 16, .vallen = 16 };
	struct ualg_sockopt_msg m;
	size_t n = put_sockopt(&o, 16);

	sweep("SETSOCKOPT", sockopt, body, n);
	ok(ualg_decode_sockopt(body, n, &m) == 0 && m.value == body + sizeof(o),
	   "SETSOCKOPT: the value is found in the body");
	o.optlen = 17;
	ok(sockopt(body, put_sockopt(&o, 16)) == -1, "SETSOCKOPT: a value of other than optlen bytes is refused");
	o.optname = KABI_ALG_SET_KEY_BY_KEY_SERIAL;
	ok(sockopt(body, put_sockopt(&o, 16)) == 0, "SETSOCKOPT: a key serial's payload may differ from optlen");
	o = (struct ualg_sockopt){ .level = 279, .optname = 1, .optlen = UALG_SOCKOPT_MAX - 1,
				   .vallen = UALG_SOCKOPT_MAX - 1 };
	ok(sockopt(body, put_sockopt(&o, o.vallen)) == 0, "SETSOCKOPT: a value just under UALG_SOCKOPT_MAX is accepted");
	o.optlen = o.vallen = UALG_SOCKOPT_MAX;
	ok(sockopt(body, put_sockopt(&o, o.vallen)) == -1, "SETSOCKOPT: a value of UALG_SOCKOPT_MAX is refused");
	o = (struct ualg_sockopt){ .level = 279, .optname = 1, .optlen = 100000, .flags = UALG_SOCKOPT_TOOBIG };
	ok(sockopt(body, put_sockopt(&o, 0)) == 0, "SETSOCKOPT: TOOBIG without a value is accepted");
	o.vallen = o.optlen = 1;
	ok(sockopt(body, put_sockopt(&o, 1)) == -1, "SETSOCKOPT: a flag with a value is refused");
	o = (struct ualg_sockopt){ .level = 279, .optname = 1, .flags = 0x4 };
	ok(sockopt(body, put_sockopt(&o, 0)) == -1, "SETSOCKOPT: an unknown flag is refused");
	o = (struct ualg_sockopt){ .level = 279, .optname = KABI_ALG_SET_KEY_BY_KEY_SERIAL, .optlen = 4,
				   .keyref_err = 126 };
	ok(sockopt(body, put_sockopt(&o, 0)) == 0, "SETSOCKOPT: a key serial's errno is accepted");
	o.keyref_err = 4096;
	ok(sockopt(body, put_sockopt(&o, 0)) == -1, "SETSOCKOPT: an errno over 4095 is refused");
	o.keyref_err = 126;
	o.optname = 1;
	ok(sockopt(body, put_sockopt(&o, 0)) == -1, "SETSOCKOPT: an errno for another option is refused");
	o.optname = KABI_ALG_SET_KEY_BY_KEY_SERIAL;
	o.vallen = 4;
	ok(sockopt(body, put_sockopt(&o, 4)) == -1, "SETSOCKOPT: an errno with a value is refused");
}

static size_t put_send(const struct ualg_send *s, size_t rest, const void *tail)
{
	memcpy(body, s, sizeof(*s));
	memset(body + sizeof(*s), 0x11, s->ivlen);
	if (tail)
		memcpy(body + sizeof(*s) + s->ivlen, tail, rest);
	else
		memset(body + sizeof(*s) + s->ivlen, 0x22, rest);
	return sizeof(*s) + s->ivlen + rest;
}

static void test_send(void)
{
	struct ualg_send s = { .flags = UALG_SEND_FIRST | UALG_SEND_LAST | UALG_SEND_IV, .ivlen = 16 };
	struct ualg_send_msg m;
	size_t n = put_send(&s, 100, NULL);

	ok(ualg_decode_send(body, n, false, &m) == 0 && m.iv == body + sizeof(s) &&
	   m.data == body + sizeof(s) + 16 && m.len == 100, "SEND: IV and data are found in the body");
	int shorter = 0;
	for (size_t k = 0; k < sizeof(s) + 16; k++)
		shorter += send_inline(body, k) == 0;
	ok(shorter == 0, "SEND: every body short of its IV is refused");
	s.ivlen = UALG_IV_MAX;
	ok(send_inline(body, put_send(&s, 0, NULL)) == 0, "SEND: an IV of UALG_IV_MAX is accepted");
	s.ivlen = UALG_IV_MAX + 1;
	ok(send_inline(body, put_send(&s, 0, NULL)) == -1, "SEND: a longer IV is refused");
	s.ivlen = 16;
	s.flags &= ~UALG_SEND_IV;
	ok(send_inline(body, put_send(&s, 10, NULL)) == -1, "SEND: an IV without UALG_SEND_IV is refused");
	s.flags = 0x200;
	s.ivlen = 0;
	ok(send_inline(body, put_send(&s, 10, NULL)) == -1, "SEND: an unknown flag is refused");
	s.flags = UALG_SEND_FIRST | UALG_SEND_QUIET;
	ok(send_inline(body, put_send(&s, 10, NULL)) == 0, "SEND: QUIET is accepted inline");
	s.flags = UALG_SEND_FIRST | UALG_SEND_FAULT;
	ok(send_inline(body, put_send(&s, 0, NULL)) == 0, "SEND: FAULT without data is accepted");
	ok(send_inline(body, put_send(&s, 1, NULL)) == -1, "SEND: FAULT with data is refused");

	struct ualg_shm_ref ref = { 4096, 1000 };
	s = (struct ualg_send){ .flags = UALG_SEND_FIRST | UALG_SEND_IV, .ivlen = 8 };
	n = put_send(&s, sizeof(ref), &ref);
	sweep("SEND_SHM", send_shm, body, n);
	ok(ualg_decode_send(body, n, true, &m) == 0 && !m.data && m.len == 1000 && m.ref.off == 4096,
	   "SEND_SHM: the ref is decoded");
	ref.len = INT32_MAX;
	ok(send_shm(body, put_send(&s, sizeof(ref), &ref)) == 0, "SEND_SHM: a ref of INT32_MAX bytes is accepted");
	ref.len = (uint64_t)INT32_MAX + 1;
	ok(send_shm(body, put_send(&s, sizeof(ref), &ref)) == -1, "SEND_SHM: a longer ref is refused");
	ref.len = 1000;
	s.flags |= UALG_SEND_QUIET;
	ok(send_shm(body, put_send(&s, sizeof(ref), &ref)) == -1,
	   "SEND_SHM: QUIET is refused (its reply frees the area)");
	s.flags &= ~UALG_SEND_QUIET;
	s.flags |= UALG_SEND_FAULT;
	ref.len = 1;
	ok(send_shm(body, put_send(&s, sizeof(ref), &ref)) == -1, "SEND_SHM: FAULT with data is refused");
	ref.len = 0;
	ok(send_shm(body, put_send(&s, sizeof(ref), &ref)) == 0, "SEND_SHM: FAULT without data is accepted");
}

static void test_recv(void)
{
	struct ualg_recv r = { UALG_RECV_DONTWAIT, 100, 200, 0 };

	sweep("RECV", recv_inline, &r, sizeof(r));
	CORRUPT(recv_inline, r, flags, 0x4, "RECV: an unknown flag is refused");
	CORRUPT(recv_inline, r, total, 99, "RECV: total under len is refused");
	CORRUPT(recv_inline, r, reserved, 1, "RECV: reserved set is refused");
	struct ualg_recv big = { 0, UALG_DATA_MAX, UALG_DATA_MAX, 0 };
	ok(recv_inline(&big, sizeof(big)) == 0, "RECV: len UALG_DATA_MAX is accepted");
	big.len = big.total = UALG_DATA_MAX + 1;
	ok(recv_inline(&big, sizeof(big)) == -1, "RECV: a longer len is refused");

	struct {
		struct ualg_recv r;
		struct ualg_shm_ref ref;
	} s = { { 0, 1u << 20, 1u << 20, 0 }, { 0, 1u << 20 } };
	struct ualg_recv_msg m;
	sweep("RECV_SHM", recv_shm, &s, sizeof(s));
	ok(ualg_decode_recv(&s, sizeof(s), true, &m) == 0 && m.ref.len == 1u << 20,
	   "RECV_SHM: len past UALG_DATA_MAX is accepted, the ref decoded");
	s.ref.len--;
	ok(recv_shm(&s, sizeof(s)) == -1, "RECV_SHM: a ref of other than len bytes is refused");
}

static void test_rfc(void)
{
	struct ualg_rfc_io io = { UALG_RFC_MORE, 10 };
	struct ualg_rfc_io_msg m;

	memcpy(body, &io, sizeof(io));
	memset(body + sizeof(io), 1, 10);
	sweep("RFC_WRITE", rfc_write, body, sizeof(io) + 10);
	ok(ualg_decode_rfc_io(body, sizeof(io) + 10, UALG_MSG_RFC_WRITE, &m) == 0 &&
	   m.data == body + sizeof(io), "RFC_WRITE: the data is found in the body");
	io.flags = 0x4;
	memcpy(body, &io, sizeof(io));
	ok(rfc_write(body, sizeof(io) + 10) == -1, "RFC_WRITE: an unknown flag is refused");
	io = (struct ualg_rfc_io){ 0, UALG_DATA_MAX + 1 };
	memcpy(body, &io, sizeof(io));
	ok(rfc_write(body, sizeof(io) + UALG_DATA_MAX + 1) == -1, "RFC_WRITE: len over UALG_DATA_MAX is refused");

	struct ualg_rfc_io rd = { 0, UALG_DATA_MAX };
	sweep("RFC_READ", rfc_read, &rd, sizeof(rd));
	CORRUPT(rfc_read, rd, flags, UALG_RFC_MORE, "RFC_READ: flags are refused");
	CORRUPT(rfc_read, rd, len, UALG_DATA_MAX + 1, "RFC_READ: len over UALG_DATA_MAX is refused");
}

static void test_adopt(void)
{
	struct ualg_adopt a = { .flags = 0, .keylen = 16, .len = 5 };
	struct ualg_adopt_msg m;
	size_t n = sizeof(a) + 21;

	strcpy(a.driver, "hmac(sha256-generic)");
	memcpy(body, &a, sizeof(a));
	memset(body + sizeof(a), 7, 21);
	sweep("ADOPT", adopt, body, n);
	ok(ualg_decode_adopt(body, n, &m) == 0 && m.key == body + sizeof(a) &&
	   m.data == body + sizeof(a) + 16, "ADOPT: key and data are found in the body");
	a.flags = 0x2;
	memcpy(body, &a, sizeof(a));
	ok(adopt(body, n) == -1, "ADOPT: an unknown flag is refused");
	a.flags = UALG_ADOPT_PART;
	memset(a.driver, 'd', sizeof(a.driver));
	memcpy(body, &a, sizeof(a));
	ok(adopt(body, n) == -1, "ADOPT: a driver without NUL is refused");
	a = (struct ualg_adopt){ .keylen = UALG_KEY_BYTES_MAX + 1 };
	memcpy(body, &a, sizeof(a));
	ok(adopt(body, sizeof(a) + UALG_KEY_BYTES_MAX + 1) == -1, "ADOPT: a key over UALG_KEY_BYTES_MAX is refused");
	a.keylen = UALG_KEY_BYTES_MAX;
	memcpy(body, &a, sizeof(a));
	ok(adopt(body, sizeof(a) + UALG_KEY_BYTES_MAX) == 0, "ADOPT: a key of UALG_KEY_BYTES_MAX is accepted");
	a = (struct ualg_adopt){ .keylen = 0xffffffffu, .len = 1 };
	memcpy(body, &a, sizeof(a));
	ok(adopt(body, sizeof(a)) == -1, "ADOPT: lengths that wrap are refused");
}

static void test_alg_req(void)
{
	struct ualg_alg_req q = { .name = "sha256", .flags = UALG_ALG_REQ_FLAGS_ALL };

	sweep("ALG_*", alg_req, &q, sizeof(q));
	CORRUPT(alg_req, q, flags, 0x4, "ALG_*: an unknown flag is refused");
	CORRUPT(alg_req, q, reserved, 1, "ALG_*: reserved set is refused");
	struct ualg_alg_req c = q;
	memset(c.name, 'n', sizeof(c.name));
	ok(alg_req(&c, sizeof(c)) == -1, "ALG_*: a name without NUL is refused");
	c = q;
	memset(c.driver, 'd', sizeof(c.driver));
	ok(alg_req(&c, sizeof(c)) == -1, "ALG_*: a driver without NUL is refused");
}

static size_t put_key_add(struct ualg_key_add a)
{
	memcpy(body, &a, sizeof(a));
	memset(body + sizeof(a), 'k', (size_t)a.name_len + a.allow_len + a.key_len);
	return sizeof(a) + a.name_len + a.allow_len + a.key_len;
}

static void test_keys(void)
{
	struct ualg_key_add_msg m;
	size_t n = put_key_add((struct ualg_key_add){ 4, 8, 32, 0 });

	ok(ualg_decode_key_fixed(UALG_MSG_KEY_ADD, sizeof(struct ualg_key_add)) == 0 &&
	   ualg_decode_key_fixed(UALG_MSG_KEY_ADD, sizeof(struct ualg_key_add) - 1) == -1 &&
	   ualg_decode_key_fixed(UALG_MSG_KEY_DEL, sizeof(struct ualg_key_name)) == 0 &&
	   ualg_decode_key_fixed(UALG_MSG_KEY_DEL, sizeof(struct ualg_key_name) - 1) == -1 &&
	   ualg_decode_key_fixed(UALG_MSG_KEY_LIST, 100) == -1, "KEY_ADD, KEY_DEL: the fixed part");
	sweep("KEY_ADD", key_add, body, n);
	ok(ualg_decode_key_add(body, n, &m) == 0 && m.name == (const char *)body + 16 &&
	   m.allow == m.name + 4 && m.key == (const uint8_t *)m.allow + 8, "KEY_ADD: the parts are found");
	n = put_key_add((struct ualg_key_add){ UALG_KEY_NAME_MAX, UALG_KEY_ALLOW_MAX, UALG_KEY_BYTES_MAX, 0 });
	ok(key_add(body, n) == 0, "KEY_ADD: every part at its limit is accepted");
	n = put_key_add((struct ualg_key_add){ UALG_KEY_NAME_MAX + 1, 0, 1, 0 });
	ok(key_add(body, n) == -1, "KEY_ADD: a name over UALG_KEY_NAME_MAX is refused");
	n = put_key_add((struct ualg_key_add){ 1, UALG_KEY_ALLOW_MAX + 1, 1, 0 });
	ok(key_add(body, n) == -1, "KEY_ADD: an allow list over UALG_KEY_ALLOW_MAX is refused");
	n = put_key_add((struct ualg_key_add){ 1, 0, UALG_KEY_BYTES_MAX + 1, 0 });
	ok(key_add(body, n) == -1, "KEY_ADD: a key over UALG_KEY_BYTES_MAX is refused");
	n = put_key_add((struct ualg_key_add){ 1, 0, 1, 1 });
	ok(key_add(body, n) == -1, "KEY_ADD: reserved set is refused");
	n = put_key_add((struct ualg_key_add){ 1, 0, 0, 0 });
	ok(key_add(body, n) == 0, "KEY_ADD: an empty key is algd's -EINVAL, not malformed");

	struct ualg_key_name kn = { 5, 0 };
	memcpy(body, &kn, sizeof(kn));
	memcpy(body + sizeof(kn), "mykey", 5);
	sweep("KEY_DEL", key_name, body, sizeof(kn) + 5);
	kn.reserved = 1;
	memcpy(body, &kn, sizeof(kn));
	ok(key_name(body, sizeof(kn) + 5) == -1, "KEY_DEL: reserved set is refused");
	kn = (struct ualg_key_name){ UALG_KEY_NAME_MAX + 1, 0 };
	memcpy(body, &kn, sizeof(kn));
	ok(key_name(body, sizeof(kn) + UALG_KEY_NAME_MAX + 1) == -1,
	   "KEY_DEL: a name over UALG_KEY_NAME_MAX is refused");

	struct ualg_key_list_req l = { 3, 0 };
	sweep("KEY_LIST", key_list_req, &l, sizeof(l));
	CORRUPT(key_list_req, l, reserved, 1, "KEY_LIST: reserved set is refused");
}

static void test_ring(void)
{
	struct ualg_ring_setup s = { 1u << 30, 0, 0 };	/* sizes are algd's -EINVAL */
	sweep("RING_SETUP", ring_setup, &s, sizeof(s));
	CORRUPT(ring_setup, s, reserved, 1, "RING_SETUP: reserved set is refused");

	struct ualg_ring_open o = { .type = "aead", .name_len = 9 };
	size_t n = put_named(&o, sizeof(o), "gcm(aes)", 9);
	struct ualg_ring_open_msg om;
	sweep("RING_OPEN", ring_open, body, n);
	ok(ualg_decode_ring_open(body, n, &om) == 0 && !strcmp(om.name, "gcm(aes)"),
	   "RING_OPEN: the name is found");
	o.name_len = 8;
	ok(ring_open(body, put_named(&o, sizeof(o), "gcm(aes)", 8)) == -1,
	   "RING_OPEN: a name without its NUL is refused");
	o.name_len = 9;
	o.reserved = 1;
	ok(ring_open(body, put_named(&o, sizeof(o), "gcm(aes)", 9)) == -1, "RING_OPEN: reserved set is refused");
	o.reserved = 0;
	memset(o.type, 't', sizeof(o.type));
	ok(ring_open(body, put_named(&o, sizeof(o), "gcm(aes)", 9)) == -1, "RING_OPEN: a type without NUL is refused");

	struct ualg_ring_setkey k = { 2, 16 };
	struct ualg_ring_setkey_msg km;
	memcpy(body, &k, sizeof(k));
	sweep("RING_SETKEY", ring_setkey, body, sizeof(k) + 16);
	ok(ualg_decode_ring_setkey(body, sizeof(k) + 16, &km) == 0 && km.key == body + sizeof(k),
	   "RING_SETKEY: the key is found");
	k.keylen = UALG_KEY_BYTES_MAX;
	memcpy(body, &k, sizeof(k));
	ok(ring_setkey(body, sizeof(k) + k.keylen) == 0, "RING_SETKEY: a key of UALG_MAX_KEYSIZE is accepted");
	k.keylen++;
	memcpy(body, &k, sizeof(k));
	ok(ring_setkey(body, sizeof(k) + k.keylen) == -1, "RING_SETKEY: a longer key is refused");

	struct ualg_ring_setkey_named kn = { 0, UALG_KEY_NAME_MAX };
	memcpy(body, &kn, sizeof(kn));
	sweep("RING_SETKEY_NAMED", ring_setkey_named, body, sizeof(kn) + kn.name_len);
	kn.name_len++;
	memcpy(body, &kn, sizeof(kn));
	ok(ring_setkey_named(body, sizeof(kn) + kn.name_len) == -1,
	   "RING_SETKEY_NAMED: a name over UALG_KEY_NAME_MAX is refused");

	const struct ualg_ring_close c = { 1000 };
	sweep("RING_CLOSE", ring_close, &c, sizeof(c));
	const struct ualg_ring_setauthsize a = { 1, 16 };
	sweep("RING_SETAUTHSIZE", ring_setauthsize, &a, sizeof(a));
}

static void test_replies(void)
{
	const size_t rec = sizeof(struct ualg_alg_rec);

	ok(ualg_decode_alg_reply(UALG_MSG_ALG_GET, 0, rec) == 0 &&
	   ualg_decode_alg_reply(UALG_MSG_ALG_GET, 0, rec - 1) == -1 &&
	   ualg_decode_alg_reply(UALG_MSG_ALG_GET, 0, 0) == -1 &&
	   ualg_decode_alg_reply(UALG_MSG_ALG_GET, -2, 0) == 0 &&
	   ualg_decode_alg_reply(UALG_MSG_ALG_GET, -2, rec) == -1, "ALG_GET reply: one record, none on error");
	ok(ualg_decode_alg_reply(UALG_MSG_ALG_DUMP, 3, 3 * rec) == 0 &&
	   ualg_decode_alg_reply(UALG_MSG_ALG_DUMP, 3, 2 * rec) == -1 &&
	   ualg_decode_alg_reply(UALG_MSG_ALG_DUMP, 0, 0) == 0 &&
	   ualg_decode_alg_reply(UALG_MSG_ALG_DUMP, 0, rec) == -1, "ALG_DUMP reply: result records");
	ok(ualg_decode_alg_reply(UALG_MSG_ALG_UPDATE, 0, 0) == 0 &&
	   ualg_decode_alg_reply(UALG_MSG_ALG_UPDATE, 0, 1) == -1, "other ALG_* replies: no body");

	const size_t krec = sizeof(struct ualg_key_rec);
	ok(ualg_decode_key_list_reply(2, 2 * krec) == 0 && ualg_decode_key_list_reply(2, krec) == -1 &&
	   ualg_decode_key_list_reply(0, 0) == 0 && ualg_decode_key_list_reply(-1, 0) == 0,
	   "KEY_LIST reply: result records");

	const size_t eng = sizeof(struct ualg_engine_info);
	ok(ualg_decode_afalg_reply(UALG_MSG_ENGINE, 0, eng, eng) == 0 &&
	   ualg_decode_afalg_reply(UALG_MSG_ENGINE, 0, eng - 1, eng) == -1 &&
	   ualg_decode_afalg_reply(UALG_MSG_ENGINE, -1, 1, eng) == -1 &&
	   ualg_decode_afalg_reply(UALG_MSG_ENGINE, -1, 0, eng) == 0, "ENGINE reply: the struct, none on error");
	ok(ualg_decode_afalg_reply(UALG_MSG_RECV, 10, 10, 100) == 0 &&
	   ualg_decode_afalg_reply(UALG_MSG_RECV, 10, 9, 100) == -1 &&
	   ualg_decode_afalg_reply(UALG_MSG_RECV, 200, 100, 100) == 0 &&
	   ualg_decode_afalg_reply(UALG_MSG_RECV, 200, 99, 100) == -1 &&
	   ualg_decode_afalg_reply(UALG_MSG_RECV, 10, 101, 100) == -1, "RECV reply: result bytes, or a full buffer");
	ok(ualg_decode_afalg_reply(UALG_MSG_RFC_READ, 5, 5, 100) == 0 &&
	   ualg_decode_afalg_reply(UALG_MSG_RFC_READ, 6, 5, 100) == -1 &&
	   ualg_decode_afalg_reply(UALG_MSG_BIND, 0, 0, 100) == 0 &&
	   ualg_decode_afalg_reply(UALG_MSG_BIND, 0, 1, 100) == -1, "RFC_READ reply: result bytes; BIND: none");
	struct ualg_describe d = { .type = "hash" }, out;
	ok(ualg_decode_describe(&d, sizeof(d), &out) == 0 && !strcmp((char *)out.type, "hash") &&
	   ualg_decode_describe(&d, sizeof(d) - 1, &out) == -1, "DESCRIBE reply: exactly the struct");
	memset(d.type, 'x', sizeof(d.type));
	ok(ualg_decode_describe(&d, sizeof(d), &out) == -1, "DESCRIBE reply: a type without NUL is refused");
	const size_t ar = sizeof(struct ualg_accept_reply), sr_ = sizeof(struct ualg_sockopt_reply);
	ok(ualg_decode_afalg_reply(UALG_MSG_ACCEPT, 0, ar, ar) == 0 &&
	   ualg_decode_afalg_reply(UALG_MSG_ACCEPT, 0, 0, ar) == -1 &&
	   ualg_decode_afalg_reply(UALG_MSG_ACCEPT, 0, ar - 1, ar) == -1 &&
	   ualg_decode_afalg_reply(UALG_MSG_ACCEPT, -24, 0, ar) == 0,
	   "ACCEPT reply: token and engine verdict, none on failure");
	ok(ualg_decode_afalg_reply(UALG_MSG_SETSOCKOPT, 0, sr_, sr_) == 0 &&
	   ualg_decode_afalg_reply(UALG_MSG_SETSOCKOPT, 256, sr_, sr_) == 0 &&
	   ualg_decode_afalg_reply(UALG_MSG_SETSOCKOPT, 0, 0, sr_) == -1 &&
	   ualg_decode_afalg_reply(UALG_MSG_SETSOCKOPT, -22, 0, sr_) == 0,
	   "SETSOCKOPT reply: the key generation, none on failure");
	struct ualg_attach at = { { 1 } }, at_out;
	ok(ualg_decode_attach(&at, sizeof(at), &at_out) == 0 && at_out.token[0] == 1 &&
	   ualg_decode_attach(&at, sizeof(at) - 1, &at_out) == -1 &&
	   ualg_decode_attach(&at, sizeof(at) + 1, &at_out) == -1, "ATTACH: exactly the struct");

	const size_t sr = sizeof(struct ualg_ring_setup_reply);
	ok(ualg_decode_fixed_reply(0, sr, sr) == 0 && ualg_decode_fixed_reply(0, sr - 1, sr) == -1 &&
	   ualg_decode_fixed_reply(5, sr + 1, sr) == -1 && ualg_decode_fixed_reply(-22, 0, sr) == 0,
	   "fixed replies: exactly the struct on success");
}

int main(void)
{
	test_empty_hello_sndbuf();
	test_bind();
	test_sockopt();
	test_send();
	test_recv();
	test_rfc();
	test_adopt();
	test_alg_req();
	test_keys();
	test_ring();
	test_replies();
	return tap_done();
}
