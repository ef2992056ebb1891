/* setsockopt() and getsockopt() of emulated sockets: the options algd
 * keeps (keys, IVs, tag lengths, SO_SNDBUF) go to it as the kernel would
 * take them in; the others reach the real socket. */
#include "interpose.h"

#include <fcntl.h>
#include <linux/if_alg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SO_SNDBUF of an AF_ALG socket bounds its TX queue (af_alg_sndbuf()), which
 * algd keeps: the value is computed as sock_setsockopt() does and never set
 * on the real socket, whose frames must keep fitting. */
#define SOCK_MIN_SNDBUF_ 4608	/* 2 * (2048 + sizeof(struct sk_buff)) on 6.1 */

static int wmem_max(void)
{
	static atomic_int cached;
	int v = atomic_load(&cached);
	if (v)
		return v;
	v = KABI_WMEM_MAX;	/* the sysctl's default, if unreadable */
	int f = open("/proc/sys/net/core/wmem_max", O_RDONLY | O_CLOEXEC);
	if (f >= 0) {
		char b[32] = { 0 };
		if (next.read(f, b, sizeof(b) - 1) > 0 && atoi(b) > 0)
			v = atoi(b);
		real.close(f);
	}
	atomic_store(&cached, v);
	return v;
}

int sndbuf_bytes(const void *val, socklen_t len, int *bytes)
{
	int v;
	if (len < sizeof(int))
		return -EINVAL;
	if (copy_in(&v, val, sizeof(v)))
		return -EFAULT;
	unsigned u = (unsigned)v < (unsigned)wmem_max() ? (unsigned)v : (unsigned)wmem_max();
	*bytes = (int)(u * 2) > SOCK_MIN_SNDBUF_ ? (int)(u * 2) : SOCK_MIN_SNDBUF_;
	return 0;
}

static int set_sndbuf(int fd, struct afd *a, const void *val, socklen_t len)
{
	int bytes;
	int e = sndbuf_bytes(val, len, &bytes);
	if (e)
		return fail(-e);
	if (a->op) {
		struct ualg_sndbuf b = { (uint32_t)bytes };
		struct iovec part = { &b, sizeof(b) };
		struct xact x = { .type = UALG_MSG_SNDBUF, .parts = &part, .nparts = 1 };
		int r = client_xact(a, fd, &x);
		if (r < 0)
			return fail(-r);
		if (a->ipo)
			inproc_sndbuf(a, bytes);
		/* Its shadow's queue no longer says what fits (alg_io.c). */
		atomic_store(&a->fresh, false);
	}
	a->sndbuf = bytes;
	return 0;
}

/* SOL_SOCKET on every AF_ALG kind. */
static int sol_socket(int fd, struct afd *a, int optname, const void *val, socklen_t len)
{
	if (optname == SO_SNDBUF)
		return set_sndbuf(fd, a, val, len);
	a->poolable = false;	/* the connection's own: it would stay with a kept one (pool.c) */
	return real.setsockopt(fd, SOL_SOCKET, optname, val, len);
}

/* The options of libkcapi's akcipher and kpp sockets whose value algd
 * reads as a key's, by the kernel patches' numbers and by libkcapi's
 * (src/afalg/afalg.h): ALG_SET_PUBKEY, 6 or 7, where a 7 of four bytes
 * is ALG_SET_KEY_BY_KEY_SERIAL's serial; on kpp, 7 and 8 are
 * ALG_SET_DH_PARAMETERS (not ALG_SET_KEY_BY_KEY_SERIAL), 8 and 9
 * ALG_SET_ECDH_CURVE. */
static bool asym_value_option(const struct afd *a, int optname, socklen_t len)
{
	if (a->type == ALG_TYPE_AKCIPHER)
		return optname == 6 || (optname == 7 && len != sizeof(int32_t));
	return a->type == ALG_TYPE_KPP && optname >= 6 && optname <= 9;
}

int alg_sockopt_xact(struct afd *a, int fd, int optname, const void *val, uint32_t vallen,
		     uint32_t optlen, uint32_t *key_gen)
{
	struct ualg_sockopt o = { KABI_SOL_ALG, optname, optlen, 0, vallen, 0 };
	struct iovec parts[2] = { { &o, sizeof(o) }, { (void *)val, vallen } };
	struct ualg_sockopt_reply rep = { 0 };
	struct iovec body = { &rep, sizeof(rep) };
	struct xact x = { .type = UALG_MSG_SETSOCKOPT, .parts = parts, .nparts = 2,
			  .rbody = &body, .nrbody = 1, .ahead = !key_gen };
	int r = client_xact(a, fd, &x);
	if (key_gen)
		*key_gen = rep.key_gen;
	return r;
}

int alg_tfm_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
		       socklen_t len)
{
	if (level == SOL_SOCKET)
		return sol_socket(fd, a, optname, val, len);
	if ((int)len < 0)
		return fail(EINVAL);
	if (inproc_tfm_busy(a))
		return fail(EBUSY);
	struct ualg_sockopt o = { level, optname, len, 0, 0, 0 };
	uint8_t *buf = NULL;
	/* Only a key is copied in by the kernel, and only after its checks:
	 * what goes wrong copying it is algd's to report in order. */
	if (level == KABI_SOL_ALG && (optname == ALG_SET_KEY || optname == UALG_SET_KEY_BY_NAME ||
				      asym_value_option(a, optname, len))) {
		if (len >= KABI_OPTMEM_MAX) {	/* sock_kmalloc() refuses it */
			o.flags = UALG_SOCKOPT_TOOBIG;
		} else if (!(buf = malloc(len ? len : 1))) {
			return fail(ENOMEM);
		} else if (copy_in(buf, val, len)) {
			o.flags = UALG_SOCKOPT_FAULT;
		} else {
			o.vallen = len;
		}
	} else if (level == KABI_SOL_ALG && optname == KABI_ALG_SET_KEY_BY_KEY_SERIAL) {
		size_t n = 0;
		bool by_name = false;
		o.keyref_err = (uint32_t)read_key_by_serial(val, len, &buf, &n, &by_name);
		o.vallen = (uint32_t)n;
		if (by_name) {	/* as UALG_SET_KEY_BY_NAME with the name */
			o.optname = UALG_SET_KEY_BY_NAME;
			o.optlen = (uint32_t)n;
		}
		len = (socklen_t)n;	/* what is wiped below */
	}
	struct iovec parts[2] = { { &o, sizeof(o) }, { buf, o.vallen } };
	struct ualg_sockopt_reply rep = { 0 };
	struct iovec body = { &rep, sizeof(rep) };
	struct xact x = { .type = UALG_MSG_SETSOCKOPT, .parts = parts, .nparts = 2,
			  .rbody = &body, .nrbody = 1 };
	int r = client_xact(a, fd, &x);
	if (r >= 0 && level == KABI_SOL_ALG && optname == ALG_SET_KEY)
		inproc_keyed(a, buf, o.vallen, rep.key_gen);
	else if (r >= 0 && level == KABI_SOL_ALG && (optname == KABI_ALG_SET_KEY_BY_KEY_SERIAL ||
						     optname == UALG_SET_KEY_BY_NAME))
		inproc_keyed(a, NULL, 0, rep.key_gen);
	else if (r >= 0 && level == KABI_SOL_ALG && optname == ALG_SET_AEAD_AUTHSIZE)
		inproc_authsize(a, len);
	if (buf) {
		explicit_bzero(buf, len);	/* a key */
		free(buf);
	}
	/* akcipher and kpp key options answer an output size (algif_akcipher.c) */
	return r < 0 ? fail(-r) : r;
}

int alg_op_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
		      socklen_t len)
{
	if (level == SOL_SOCKET)
		return sol_socket(fd, a, optname, val, len);
	if ((int)len < 0)
		return fail(EINVAL);
	return fail(EOPNOTSUPP);	/* op sockets have no setsockopt */
}

int alg_rfc_setsockopt(int fd, struct afd *a, int level, int optname, const void *val,
		       socklen_t len)
{
	if (level == SOL_SOCKET)
		return sol_socket(fd, a, optname, val, len);
	return rfc_setsockopt(fd, a, level, optname, val, len);
}

EXPORT int setsockopt(int fd, int level, int optname, const void *val, socklen_t len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return real.setsockopt(fd, level, optname, val, len);
	int r;
	pthread_cleanup_push(afd_put_cleanup, a);
	r = a->ops->setsockopt(fd, a, level, optname, val, len);
	pthread_cleanup_pop(1);
	return r;
}

EXPORT int getsockopt(int fd, int level, int optname, void *val, socklen_t *len)
{
	shim_resolve();
	struct afd *a = afd_get(fd);
	if (!a)
		return real.getsockopt(fd, level, optname, val, len);
	/* The real socket is AF_UNIX, SOCK_SEQPACKET; RFC sockets are streams. */
	const int sndbuf = a->sndbuf, so_type = a->ops->so_type;
	afd_put(a);
	if (level == SOL_SOCKET && (optname == SO_DOMAIN || (optname == SO_SNDBUF && sndbuf) ||
				    (optname == SO_TYPE && so_type))) {
		int v = optname == SO_DOMAIN ? KABI_AF_ALG : optname == SO_TYPE ? so_type : sndbuf;
		socklen_t l;
		if (copy_in(&l, len, sizeof(l)))
			return fail(EFAULT);
		if ((int)l < 0)
			return fail(EINVAL);
		l = l < sizeof(v) ? l : sizeof(v);
		memcpy(val, &v, l);
		*len = l;
		return 0;
	}
	if (level == SOL_SOCKET)
		return real.getsockopt(fd, level, optname, val, len);
	return fail(EOPNOTSUPP);	/* no getsockopt in AF_ALG's proto_ops */
}
