/* Decoders for the bodies of the wire protocol's messages (proto.h).
 *
 * algd treats every byte a client sends as hostile: clients may skip the
 * shim and speak the protocol directly.  So a body is read only through
 * one of these functions, each the single place where its message's shape
 * is checked: sizes, lengths that must add up, reserved fields that must be
 * zero, names that must be NUL-terminated, flag masks and the protocol's
 * limits.  Each takes the body (the frame after struct ualg_hdr) and its
 * length, copies the fixed part into *out (so nothing is read twice from
 * memory a client shares) and points the variable parts into body.  Each
 * returns 0 for a well-formed body and -1 for a malformed one: algd then
 * ends that client's connection.  On -1, *out is unspecified.
 *
 * Checks that need algd's state (is the socket bound, does the payload
 * area hold that range, may this caller change keys, is the ring's entry
 * count acceptable) are not made here: those are answered with an errno,
 * not with the end of the connection.
 *
 * Replies are decoded the same way on the client side (libualg, algctl,
 * the shim): ualg_decode_*_reply.
 */
#ifndef UALG_PROTO_MSG_H
#define UALG_PROTO_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* ---- requests (client to algd) -------------------------------------- */

/* ACCEPT, SHM_SETUP, NOTIFY_SETUP, POLL, CANCEL, DESCRIBE, ENGINE,
 * RFC_MODE, RFC_LISTEN: the body is empty. */
int ualg_decode_empty(size_t len);

/* HELLO: exactly a struct ualg_hello with UALG_PROTO_MAGIC and
 * UALG_ROLE_AFALG.  The version is not checked: algd answers another
 * version with -EPROTONOSUPPORT. */
int ualg_decode_hello(const void *body, size_t len, struct ualg_hello *out);

/* BIND: struct ualg_bind, then name_len bytes of name.  reserved is zero,
 * type[] holds a NUL, name_len is 1..UALG_BIND_NAME_MAX and the name's
 * only NUL is its last byte. */
struct ualg_bind_msg {
	struct ualg_bind hdr;
	const char *name;	/* NUL-terminated, hdr.name_len bytes with it */
};
int ualg_decode_bind(const void *body, size_t len, struct ualg_bind_msg *out);

/* SETSOCKOPT: struct ualg_sockopt, then vallen bytes of value.  vallen is
 * under UALG_SOCKOPT_MAX; flags within UALG_SOCKOPT_FLAGS_ALL and only
 * without a value; keyref_err 0..4095 and, when set, only without a value
 * and for ALG_SET_KEY_BY_KEY_SERIAL; a value is optlen bytes long except
 * for ALG_SET_KEY_BY_KEY_SERIAL (the key's payload). */
struct ualg_sockopt_msg {
	struct ualg_sockopt hdr;
	const uint8_t *value;	/* hdr.vallen bytes */
};
int ualg_decode_sockopt(const void *body, size_t len, struct ualg_sockopt_msg *out);

/* SEND (shm false): struct ualg_send, ivlen bytes of IV, then the data.
 * SEND_SHM (shm true): struct ualg_send, its IV, then exactly a struct
 * ualg_shm_ref whose len is at most INT32_MAX.  flags within
 * UALG_SEND_FLAGS_ALL, ivlen at most UALG_IV_MAX and zero without
 * UALG_SEND_IV; with UALG_SEND_FAULT there is no data (len 0).  Whether
 * the ref lies in the connection's payload area is algd's check. */
struct ualg_send_msg {
	struct ualg_send hdr;
	const uint8_t *iv;	/* hdr.ivlen bytes */
	const uint8_t *data;	/* SEND: len bytes; SEND_SHM: NULL */
	size_t len;		/* bytes of data (SEND_SHM: ref.len) */
	struct ualg_shm_ref ref;	/* SEND_SHM: where the data lie */
};
int ualg_decode_send(const void *body, size_t len, bool shm, struct ualg_send_msg *out);

/* RECV (shm false): exactly a struct ualg_recv with len at most
 * UALG_DATA_MAX.  RECV_SHM (shm true): exactly a struct ualg_recv and a
 * struct ualg_shm_ref with ref.len == len.  Both: flags within
 * UALG_RECV_FLAGS_ALL, total >= len, reserved zero. */
struct ualg_recv_msg {
	struct ualg_recv hdr;
	struct ualg_shm_ref ref;	/* RECV_SHM: where the answer goes */
};
int ualg_decode_recv(const void *body, size_t len, bool shm, struct ualg_recv_msg *out);

/* RFC_WRITE: struct ualg_rfc_io, then exactly len bytes; RFC_READ:
 * exactly a struct ualg_rfc_io with flags zero.  Both: len at most
 * UALG_DATA_MAX, flags within UALG_RFC_FLAGS_ALL.  type is the message's. */
struct ualg_rfc_io_msg {
	struct ualg_rfc_io hdr;
	const uint8_t *data;	/* RFC_WRITE: hdr.len bytes */
};
int ualg_decode_rfc_io(const void *body, size_t len, uint16_t type, struct ualg_rfc_io_msg *out);

/* SNDBUF: exactly a struct ualg_sndbuf (any value: algd clamps it). */
int ualg_decode_sndbuf(const void *body, size_t len, struct ualg_sndbuf *out);

/* ATTACH: exactly a struct ualg_attach. */
int ualg_decode_attach(const void *body, size_t len, struct ualg_attach *out);

/* ADOPT: struct ualg_adopt, keylen bytes of key, then len bytes of data,
 * nothing more.  flags within UALG_ADOPT_PART, keylen at most
 * UALG_KEY_BYTES_MAX, driver[] holds a NUL.  The state itself is checked
 * by algd as its own (afalg_import).  The caller wipes *out after use: it
 * holds the hash state. */
struct ualg_adopt_msg {
	struct ualg_adopt hdr;
	const uint8_t *key;	/* hdr.keylen bytes */
	const uint8_t *data;	/* hdr.len bytes */
};
int ualg_decode_adopt(const void *body, size_t len, struct ualg_adopt_msg *out);

/* ALG_GET ... ALG_ENGINE: exactly a struct ualg_alg_req whose name[] and
 * driver[] hold a NUL, flags within UALG_ALG_REQ_FLAGS_ALL, reserved zero. */
int ualg_decode_alg_req(const void *body, size_t len, struct ualg_alg_req *out);

/* KEY_ADD and KEY_DEL: whether the body holds the message's fixed part
 * (struct ualg_key_add, struct ualg_key_name), all algd checks before it
 * knows whether the caller may change keys (else -EPERM). */
int ualg_decode_key_fixed(uint16_t type, size_t len);

/* KEY_ADD: struct ualg_key_add, then name_len bytes of name, allow_len
 * bytes of allow list, key_len bytes of key, nothing more.  reserved zero,
 * name_len at most UALG_KEY_NAME_MAX, allow_len at most UALG_KEY_ALLOW_MAX,
 * key_len at most UALG_KEY_BYTES_MAX.  The name's characters, the list's
 * syntax and a key_len of 0 are algd's checks (-EINVAL). */
struct ualg_key_add_msg {
	struct ualg_key_add hdr;
	const char *name;	/* hdr.name_len bytes, no NUL */
	const char *allow;	/* hdr.allow_len bytes, no NUL */
	const uint8_t *key;	/* hdr.key_len bytes */
};
int ualg_decode_key_add(const void *body, size_t len, struct ualg_key_add_msg *out);

/* KEY_DEL: struct ualg_key_name, then exactly name_len bytes of name;
 * reserved zero, name_len at most UALG_KEY_NAME_MAX. */
struct ualg_key_name_msg {
	struct ualg_key_name hdr;
	const char *name;	/* hdr.name_len bytes, no NUL */
};
int ualg_decode_key_name(const void *body, size_t len, struct ualg_key_name_msg *out);

/* KEY_LIST: exactly a struct ualg_key_list_req with reserved zero. */
int ualg_decode_key_list_req(const void *body, size_t len, struct ualg_key_list_req *out);

/* RING_SETUP: exactly a struct ualg_ring_setup with reserved zero (the
 * entry count and buffer size are answered with -EINVAL by algd). */
int ualg_decode_ring_setup(const void *body, size_t len, struct ualg_ring_setup *out);

/* RING_OPEN: struct ualg_ring_open, then name_len bytes of name; as BIND:
 * reserved zero, type[] holds a NUL, name_len 1..UALG_BIND_NAME_MAX and
 * the name's only NUL is its last byte. */
struct ualg_ring_open_msg {
	struct ualg_ring_open hdr;
	const char *name;	/* NUL-terminated, hdr.name_len bytes with it */
};
int ualg_decode_ring_open(const void *body, size_t len, struct ualg_ring_open_msg *out);

/* RING_SETKEY: struct ualg_ring_setkey, then exactly keylen bytes of key,
 * keylen at most UALG_KEY_BYTES_MAX (the core's UALG_MAX_KEYSIZE). */
struct ualg_ring_setkey_msg {
	struct ualg_ring_setkey hdr;
	const uint8_t *key;	/* hdr.keylen bytes */
};
int ualg_decode_ring_setkey(const void *body, size_t len, struct ualg_ring_setkey_msg *out);

/* RING_SETKEY_NAMED: struct ualg_ring_setkey_named, then exactly name_len
 * bytes of name, name_len at most UALG_KEY_NAME_MAX. */
struct ualg_ring_setkey_named_msg {
	struct ualg_ring_setkey_named hdr;
	const char *name;	/* hdr.name_len bytes, no NUL */
};
int ualg_decode_ring_setkey_named(const void *body, size_t len,
				  struct ualg_ring_setkey_named_msg *out);

/* RING_CLOSE, RING_SETAUTHSIZE: exactly their struct (the transform id is
 * algd's check, -EBADF). */
int ualg_decode_ring_close(const void *body, size_t len, struct ualg_ring_close *out);
int ualg_decode_ring_setauthsize(const void *body, size_t len, struct ualg_ring_setauthsize *out);

/* ---- replies (algd to client) --------------------------------------- */

/* Replies are received straight into the caller's buffer; these check
 * that the body's length is the one the header's result announces.  All
 * return 0 or -1 (the client answers -EPROTO). */

/* ALG_GET with result >= 0: exactly one struct ualg_alg_rec; ALG_DUMP with
 * result n >= 0: exactly n records; any other reply: no body. */
int ualg_decode_alg_reply(uint16_t type, int32_t result, size_t len);

/* KEY_LIST with result n > 0: exactly n struct ualg_key_recs (a result of
 * 0, the end, or an error is not checked further). */
int ualg_decode_key_list_reply(int32_t result, size_t len);

/* The replies of an AF_ALG socket's requests (the shim's client.c), whose
 * body went into cap bytes of buffer: at most cap bytes; on an error
 * (result < 0) none; on success SHM_SETUP a struct ualg_shm_setup_reply,
 * ENGINE a struct ualg_engine_info, DESCRIBE a struct ualg_describe,
 * ACCEPT a struct ualg_accept_reply, SETSOCKOPT a struct ualg_sockopt_reply,
 * RFC_READ exactly result bytes, RECV exactly result bytes or, for an
 * answer longer than a frame, a full buffer (cap bytes, result more);
 * every other reply no body.  The header's type and flags are the
 * caller's to check. */
int ualg_decode_afalg_reply(uint16_t type, int32_t result, size_t len, size_t cap);

/* DESCRIBE's reply body: exactly a struct ualg_describe whose type[]
 * holds a NUL. */
int ualg_decode_describe(const void *body, size_t len, struct ualg_describe *out);

/* A reply whose success carries one fixed struct of size bytes (RING_SETUP:
 * struct ualg_ring_setup_reply, RING_OPEN: struct ualg_ring_tfm_info,
 * SHM_SETUP: struct ualg_shm_setup_reply, DESCRIBE: struct ualg_describe,
 * ENGINE: struct ualg_engine_info): with result >= 0, exactly size bytes;
 * an error's body is not checked. */
int ualg_decode_fixed_reply(int32_t result, size_t len, size_t size);

#endif
