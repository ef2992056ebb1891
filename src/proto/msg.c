/* The message decoders of msg.h: every check of a body's shape, one
 * function per message. */
#include "msg.h"
#include "kabi.h"	/* KABI_ALG_SET_KEY_BY_KEY_SERIAL */

#include <string.h>

/* Copies the fixed part of a body that is at least size bytes long. */
static int fixed(const void *body, size_t len, void *out, size_t size)
{
	if (len < size)
		return -1;
	memcpy(out, body, size);
	return 0;
}

/* As fixed() for a body that is exactly size bytes. */
static int exact(const void *body, size_t len, void *out, size_t size)
{
	return len == size ? fixed(body, len, out, size) : -1;
}

/* A salg_type-like field: NUL-terminated within. */
static bool has_nul(const void *field, size_t size)
{
	return memchr(field, 0, size) != NULL;
}

/* A name of name_len bytes, NUL included, as BIND and RING_OPEN carry
 * (name_len bytes of it lie in the body). */
static bool name_ok(const char *name, uint32_t name_len)
{
	return name_len != 0 && name_len <= UALG_BIND_NAME_MAX &&
	       strnlen(name, name_len) == name_len - 1;
}

int ualg_decode_empty(size_t len)
{
	return len ? -1 : 0;
}

int ualg_decode_hello(const void *body, size_t len, struct ualg_hello *out)
{
	if (exact(body, len, out, sizeof(*out)))
		return -1;
	return out->magic == UALG_PROTO_MAGIC && out->role == UALG_ROLE_AFALG ? 0 : -1;
}

int ualg_decode_bind(const void *body, size_t len, struct ualg_bind_msg *out)
{
	struct ualg_bind *b = &out->hdr;

	if (fixed(body, len, b, sizeof(*b)))
		return -1;
	out->name = (const char *)body + sizeof(*b);
	if (b->reserved || len != sizeof(*b) + b->name_len || !has_nul(b->type, sizeof(b->type)) ||
	    !name_ok(out->name, b->name_len))
		return -1;
	return 0;
}

int ualg_decode_sockopt(const void *body, size_t len, struct ualg_sockopt_msg *out)
{
	struct ualg_sockopt *o = &out->hdr;

	if (fixed(body, len, o, sizeof(*o)))
		return -1;
	out->value = (const uint8_t *)body + sizeof(*o);
	if (o->vallen >= UALG_SOCKOPT_MAX || len != sizeof(*o) + o->vallen || o->keyref_err > 4095 ||
	    (o->keyref_err && (o->vallen || o->optname != KABI_ALG_SET_KEY_BY_KEY_SERIAL)) ||
	    (o->flags & ~UALG_SOCKOPT_FLAGS_ALL) || (o->flags && o->vallen) ||
	    (o->vallen && o->vallen != o->optlen && o->optname != KABI_ALG_SET_KEY_BY_KEY_SERIAL))
		return -1;
	return 0;
}

int ualg_decode_send(const void *body, size_t len, bool shm, struct ualg_send_msg *out)
{
	struct ualg_send *m = &out->hdr;

	if (fixed(body, len, m, sizeof(*m)))
		return -1;
	if ((m->flags & ~UALG_SEND_FLAGS_ALL) || (shm && (m->flags & UALG_SEND_QUIET)) || m->ivlen > UALG_IV_MAX ||
	    len < sizeof(*m) + m->ivlen || (!(m->flags & UALG_SEND_IV) && m->ivlen))
		return -1;
	out->iv = (const uint8_t *)body + sizeof(*m);
	out->data = out->iv + m->ivlen;
	out->len = len - sizeof(*m) - m->ivlen;
	memset(&out->ref, 0, sizeof(out->ref));
	if (shm) {
		if (out->len != sizeof(out->ref))
			return -1;
		memcpy(&out->ref, out->data, sizeof(out->ref));
		if (out->ref.len > INT32_MAX)
			return -1;
		out->data = NULL;
		out->len = (size_t)out->ref.len;
	}
	return (m->flags & UALG_SEND_FAULT) && out->len ? -1 : 0;
}

int ualg_decode_recv(const void *body, size_t len, bool shm, struct ualg_recv_msg *out)
{
	struct ualg_recv *m = &out->hdr;

	memset(&out->ref, 0, sizeof(out->ref));
	if (len != sizeof(*m) + (shm ? sizeof(out->ref) : 0))
		return -1;
	memcpy(m, body, sizeof(*m));
	if ((m->flags & ~UALG_RECV_FLAGS_ALL) || m->total < m->len || m->reserved)
		return -1;
	if (!shm)
		return m->len <= UALG_DATA_MAX ? 0 : -1;
	memcpy(&out->ref, (const uint8_t *)body + sizeof(*m), sizeof(out->ref));
	return out->ref.len == m->len ? 0 : -1;
}

int ualg_decode_rfc_io(const void *body, size_t len, uint16_t type, struct ualg_rfc_io_msg *out)
{
	struct ualg_rfc_io *m = &out->hdr;

	if (fixed(body, len, m, sizeof(*m)))
		return -1;
	out->data = (const uint8_t *)body + sizeof(*m);
	if (m->len > UALG_DATA_MAX || (m->flags & ~UALG_RFC_FLAGS_ALL) ||
	    (type == UALG_MSG_RFC_READ ? m->flags || len != sizeof(*m) : len != sizeof(*m) + m->len))
		return -1;
	return 0;
}

int ualg_decode_sndbuf(const void *body, size_t len, struct ualg_sndbuf *out)
{
	return exact(body, len, out, sizeof(*out));
}

int ualg_decode_attach(const void *body, size_t len, struct ualg_attach *out)
{
	return exact(body, len, out, sizeof(*out));
}

int ualg_decode_adopt(const void *body, size_t len, struct ualg_adopt_msg *out)
{
	struct ualg_adopt *m = &out->hdr;

	if (fixed(body, len, m, sizeof(*m)))
		return -1;
	if ((m->flags & ~UALG_ADOPT_PART) || m->keylen > UALG_KEY_BYTES_MAX || m->len > len ||
	    len - sizeof(*m) != (size_t)m->keylen + m->len || !has_nul(m->driver, sizeof(m->driver)))
		return -1;
	out->key = (const uint8_t *)body + sizeof(*m);
	out->data = out->key + m->keylen;
	return 0;
}

int ualg_decode_alg_req(const void *body, size_t len, struct ualg_alg_req *out)
{
	if (exact(body, len, out, sizeof(*out)))
		return -1;
	if (!has_nul(out->name, sizeof(out->name)) || !has_nul(out->driver, sizeof(out->driver)) ||
	    (out->flags & ~UALG_ALG_REQ_FLAGS_ALL) || out->reserved)
		return -1;
	return 0;
}

int ualg_decode_key_fixed(uint16_t type, size_t len)
{
	switch (type) {
	case UALG_MSG_KEY_ADD: return len < sizeof(struct ualg_key_add) ? -1 : 0;
	case UALG_MSG_KEY_DEL: return len < sizeof(struct ualg_key_name) ? -1 : 0;
	default: return -1;
	}
}

int ualg_decode_key_add(const void *body, size_t len, struct ualg_key_add_msg *out)
{
	struct ualg_key_add *a = &out->hdr;

	if (fixed(body, len, a, sizeof(*a)))
		return -1;
	if (a->reserved || a->name_len > UALG_KEY_NAME_MAX || a->allow_len > UALG_KEY_ALLOW_MAX ||
	    a->key_len > UALG_KEY_BYTES_MAX ||
	    len != sizeof(*a) + (size_t)a->name_len + a->allow_len + a->key_len)
		return -1;
	out->name = (const char *)body + sizeof(*a);
	out->allow = out->name + a->name_len;
	out->key = (const uint8_t *)out->allow + a->allow_len;
	return 0;
}

int ualg_decode_key_name(const void *body, size_t len, struct ualg_key_name_msg *out)
{
	struct ualg_key_name *q = &out->hdr;

	if (fixed(body, len, q, sizeof(*q)))
		return -1;
	if (q->reserved || q->name_len > UALG_KEY_NAME_MAX || len != sizeof(*q) + q->name_len)
		return -1;
	out->name = (const char *)body + sizeof(*q);
	return 0;
}

int ualg_decode_key_list_req(const void *body, size_t len, struct ualg_key_list_req *out)
{
	if (exact(body, len, out, sizeof(*out)))
		return -1;
	return out->reserved ? -1 : 0;
}

int ualg_decode_ring_setup(const void *body, size_t len, struct ualg_ring_setup *out)
{
	if (exact(body, len, out, sizeof(*out)))
		return -1;
	return out->reserved ? -1 : 0;
}

int ualg_decode_ring_open(const void *body, size_t len, struct ualg_ring_open_msg *out)
{
	struct ualg_ring_open *o = &out->hdr;

	if (fixed(body, len, o, sizeof(*o)))
		return -1;
	out->name = (const char *)body + sizeof(*o);
	if (o->reserved || len != sizeof(*o) + o->name_len || !has_nul(o->type, sizeof(o->type)) ||
	    !name_ok(out->name, o->name_len))
		return -1;
	return 0;
}

int ualg_decode_ring_setkey(const void *body, size_t len, struct ualg_ring_setkey_msg *out)
{
	struct ualg_ring_setkey *k = &out->hdr;

	if (fixed(body, len, k, sizeof(*k)))
		return -1;
	if (k->keylen > UALG_KEY_BYTES_MAX || len != sizeof(*k) + k->keylen)
		return -1;
	out->key = (const uint8_t *)body + sizeof(*k);
	return 0;
}

int ualg_decode_ring_setkey_named(const void *body, size_t len,
				  struct ualg_ring_setkey_named_msg *out)
{
	struct ualg_ring_setkey_named *k = &out->hdr;

	if (fixed(body, len, k, sizeof(*k)))
		return -1;
	if (k->name_len > UALG_KEY_NAME_MAX || len != sizeof(*k) + k->name_len)
		return -1;
	out->name = (const char *)body + sizeof(*k);
	return 0;
}

int ualg_decode_ring_close(const void *body, size_t len, struct ualg_ring_close *out)
{
	return exact(body, len, out, sizeof(*out));
}

int ualg_decode_ring_setauthsize(const void *body, size_t len, struct ualg_ring_setauthsize *out)
{
	return exact(body, len, out, sizeof(*out));
}

/* ---- replies ---------------------------------------------------------- */

int ualg_decode_alg_reply(uint16_t type, int32_t result, size_t len)
{
	const size_t rec = sizeof(struct ualg_alg_rec);
	size_t want = 0;

	if (result >= 0 && type == UALG_MSG_ALG_GET)
		want = rec;
	else if (result >= 0 && type == UALG_MSG_ALG_DUMP)
		want = (size_t)result * rec;
	return len == want ? 0 : -1;
}

int ualg_decode_key_list_reply(int32_t result, size_t len)
{
	return result > 0 && len != (size_t)result * sizeof(struct ualg_key_rec) ? -1 : 0;
}

int ualg_decode_afalg_reply(uint16_t type, int32_t result, size_t len, size_t cap)
{
	if (len > cap)
		return -1;
	if (result < 0)
		return len == 0 ? 0 : -1;
	switch (type) {
	case UALG_MSG_SHM_SETUP: return len == sizeof(struct ualg_shm_setup_reply) ? 0 : -1;
	case UALG_MSG_ENGINE: return len == sizeof(struct ualg_engine_info) ? 0 : -1;
	case UALG_MSG_DESCRIBE: return len == sizeof(struct ualg_describe) ? 0 : -1;
	case UALG_MSG_ACCEPT:
	case UALG_MSG_ACCEPT_HERE: return len == sizeof(struct ualg_accept_reply) ? 0 : -1;
	case UALG_MSG_SETSOCKOPT: return len == sizeof(struct ualg_sockopt_reply) ? 0 : -1;
	case UALG_MSG_RFC_READ: return (size_t)result == len ? 0 : -1;
	case UALG_MSG_RECV:
		return (size_t)result == len || (len == cap && (size_t)result > len) ? 0 : -1;
	default: return len == 0 ? 0 : -1;
	}
}

int ualg_decode_describe(const void *body, size_t len, struct ualg_describe *out)
{
	if (exact(body, len, out, sizeof(*out)))
		return -1;
	return has_nul(out->type, sizeof(out->type)) ? 0 : -1;
}

int ualg_decode_fixed_reply(int32_t result, size_t len, size_t size)
{
	return result >= 0 && len != size ? -1 : 0;
}
