/* Seeded checksums as the kernel exposes them through shash: crc32 (zlib),
 * crc32c (Intel's ISA-L) and xxhash64 (libxxhash); and the unkeyed
 * crct10dif (ISA-L) and crc64-rocksoft (Boost.CRC, through cxx_libs.h).
 *
 * Kernel semantics (crypto/crc32_generic.c, crc32c_generic.c,
 * xxhash_generic.c): the optional key is the seed, little-endian, of
 * exactly the digest size; the digest is the final value little-endian.
 * crct10dif and crc64-rocksoft have no key.
 * crc32 is the raw reflected CRC (seed 0, no final inversion); crc32c
 * starts from ~0 by default and inverts at the end; xxhash64 is seeded 0. */
#include "others.h"
#include "openssl.h"
#include "cxx_libs.h"

#include <errno.h>
#include <string.h>

#include <isa-l/crc.h>
#define XXH_STATIC_LINKING_ONLY	/* the state's layout: it moves (export) */
#include <xxhash.h>
#include <zlib.h>

struct checksum_ctx {
	uint64_t seed;
};

struct checksum_state {
	uint64_t crc;		/* crc32, crc32c: the running register */
	XXH64_state_t xxh;	/* xxhash64 */
};

struct checksum_impl {
	unsigned size;		/* key and digest bytes */
	uint64_t default_seed;
	void (*update)(struct checksum_state *st, const uint8_t *data, size_t len);
	uint64_t (*value)(const struct checksum_state *st);
	bool keyless;		/* no setkey, as the kernel's */
};

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* zlib inverts the register before and after; the kernel's crc32_le does
 * neither, so the inversions are undone around the call.  zlib takes an
 * unsigned int length: long inputs go in pieces. */
static void crc32_update(struct checksum_state *st, const uint8_t *data, size_t len)
{
	uint32_t crc = (uint32_t)st->crc;

	while (len) {
		unsigned n = len > (1u << 30) ? 1u << 30 : (unsigned)len;
		crc = ~(uint32_t)crc32(~crc & 0xffffffffu, data, n);
		data += n;
		len -= n;
	}
	st->crc = crc;
}

/* crc32, crct10dif and crc64-rocksoft: the register as it stands. */
static uint64_t register_value(const struct checksum_state *st)
{
	return st->crc;
}

/* ISA-L's AVX-512 CRCs (crc32_iscsi_by16_10, crc16_t10dif_by16_10) return
 * with the upper halves of the vector registers dirty (no vzeroupper):
 * every SSE instruction after them, in the caller's code built for SSE
 * only, then pays a state transition, which cost more than the CRC of a
 * 256-byte write.  They run only on CPUs with AVX, where vzeroupper is
 * the remedy; elsewhere it is not made. */
__attribute__((target("avx"))) static void vzeroupper(void)
{
	__builtin_ia32_vzeroupper();
}

static void isal_done(void)
{
	static int avx = -1;
	if (avx < 0)
		avx = __builtin_cpu_supports("avx");
	if (avx)
		vzeroupper();
}

/* ISA-L's crc32_iscsi is the raw register update, as __crc32c_le. */
static void crc32c_update(struct checksum_state *st, const uint8_t *data, size_t len)
{
	uint32_t crc = (uint32_t)st->crc;

	while (len) {
		int n = len > (1u << 30) ? 1 << 30 : (int)len;
		crc = crc32_iscsi((unsigned char *)data, n, crc);
		data += n;
		len -= (size_t)n;
	}
	isal_done();
	st->crc = crc;
}

static uint64_t crc32c_value(const struct checksum_state *st)
{
	return ~(uint32_t)st->crc;
}

/* crct10dif (crypto/crct10dif_generic.c): CRC-16 with the T10 DIF
 * polynomial 0x8bb7, unreflected, from 0 with no inversion, as ISA-L's
 * crc16_t10dif; no key. */
static void t10dif_update(struct checksum_state *st, const uint8_t *data, size_t len)
{
	uint16_t crc = (uint16_t)st->crc;

	while (len) {
		uint64_t n = len > (1u << 30) ? 1u << 30 : len;
		crc = crc16_t10dif(crc, data, n);
		data += n;
		len -= (size_t)n;
	}
	isal_done();
	st->crc = crc;
}

/* crc64-rocksoft (crypto/crc64_rocksoft_generic.c): from 0, each update
 * crc64_rocksoft_generic(), which inverts on the way in and out; no key. */
static void crc64_rocksoft_update(struct checksum_state *st, const uint8_t *data, size_t len)
{
	st->crc = ualg_cxx_crc64_rocksoft(st->crc, data, len);
}

static void xxh64_update(struct checksum_state *st, const uint8_t *data, size_t len)
{
	XXH64_update(&st->xxh, data, len);
}

static uint64_t xxh64_value(const struct checksum_state *st)
{
	return XXH64_digest(&st->xxh);
}

static const struct checksum_impl crc32_impl = { 4, 0, crc32_update, register_value, false };
static const struct checksum_impl crc32c_impl = { 4, 0xffffffffu, crc32c_update, crc32c_value, false };
static const struct checksum_impl t10dif_impl = { 2, 0, t10dif_update, register_value, true };
static const struct checksum_impl crc64_rocksoft_impl = { 8, 0, crc64_rocksoft_update, register_value, true };
static const struct checksum_impl xxh64_impl = { 8, 0, xxh64_update, xxh64_value, false };

static const struct checksum_impl *impl_of(const struct ualg_tfm *tfm)
{
	return tfm->alg->priv;
}

static int checksum_init_tfm(struct ualg_tfm *tfm)
{
	struct checksum_ctx *c = tfm->ctx;

	c->seed = impl_of(tfm)->default_seed;
	return 0;
}

static int checksum_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	struct checksum_ctx *c = tfm->ctx;

	if (len != impl_of(tfm)->size)
		return -EINVAL;
	c->seed = get_le(key, (unsigned)len);
	return 0;
}

static int checksum_init(struct ualg_hash_desc *desc)
{
	const struct checksum_ctx *c = desc->tfm->ctx;
	struct checksum_state *st = desc->state;

	if (impl_of(desc->tfm) != &xxh64_impl) {
		st->crc = c->seed;
		return 0;
	}
	XXH64_reset(&st->xxh, c->seed);
	return 0;
}

static int checksum_update(struct ualg_hash_desc *desc, const uint8_t *data, size_t len)
{
	impl_of(desc->tfm)->update(desc->state, data, len);
	return 0;
}

static int checksum_final(struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct checksum_impl *impl = impl_of(desc->tfm);

	put_le(out, impl->value(desc->state), impl->size);
	return 0;
}

/* The states hold no pointers: a copy is a clone. */
static int checksum_clone(struct ualg_hash_desc *dst, const struct ualg_hash_desc *src)
{
	memcpy(dst->state, src->state, sizeof(struct checksum_state));
	return 0;
}

static void checksum_exit(struct ualg_hash_desc *desc)
{
	(void)desc;	/* tfm.c wipes the state */
}

/* States that move (the in-process engine's, RFC mode's): a register's
 * value, little-endian, or xxHash's state as the library lays it out.  A
 * forged one must not make an update read or write past the state:
 * xxHash's memsize (bytes waiting in mem64) must lie within it, and a
 * register must fit its width. */
static size_t checksum_statesize(const struct checksum_impl *impl)
{
	return impl == &xxh64_impl ? sizeof(XXH64_state_t) : sizeof(uint64_t);
}

static int checksum_export(const struct ualg_hash_desc *desc, uint8_t *out)
{
	const struct checksum_state *st = desc->state;

	if (impl_of(desc->tfm) == &xxh64_impl)
		memcpy(out, &st->xxh, sizeof(st->xxh));
	else
		put_le(out, st->crc, sizeof(uint64_t));
	return 0;
}

static int checksum_import(struct ualg_hash_desc *desc, const uint8_t *in)
{
	const struct checksum_impl *impl = impl_of(desc->tfm);
	struct checksum_state *st = desc->state;

	if (impl == &xxh64_impl) {
		XXH64_state_t x;
		memcpy(&x, in, sizeof(x));
		if (x.memsize >= sizeof(x.mem64))
			return -EINVAL;
		st->xxh = x;
		return 0;
	}
	const uint64_t v = get_le(in, sizeof(uint64_t));
	if (impl->size < sizeof(uint64_t) && v >> (8 * impl->size))
		return -EINVAL;
	st->crc = v;
	return 0;
}

static int register_checksum(const char *name, const char *driver, const char *module,
			     const struct checksum_impl *impl, unsigned blocksize)
{
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, UALG_ALG_SHASH, UALG_OPENSSL_PRIO_PRIMITIVE);

	if (!a)
		return -ENOMEM;
	a->module = module;
	a->blocksize = blocksize;
	a->priv = impl;
	a->ctxsize = sizeof(struct checksum_ctx);
	a->init_tfm = checksum_init_tfm;
	a->u.shash = (struct ualg_shash_ops){
		.digestsize = impl->size,
		.descsize = sizeof(struct checksum_state),
		.optional_key = true,
		.setkey = impl->keyless ? NULL : checksum_setkey,
		.init = checksum_init, .update = checksum_update, .final = checksum_final,
		.clone = checksum_clone, .exit = checksum_exit,
		.statesize = checksum_statesize(impl),
		.export = checksum_export, .import = checksum_import,
	};
	return ualg_openssl_reg(a);
}

int ualg_checksum_register(void)
{
	int r = register_checksum("crc32", "crc32-zlib", "zlib", &crc32_impl, 1);

	if (!r)
		r = register_checksum("crc32c", "crc32c-isal", "isal", &crc32c_impl, 1);
	if (!r)
		r = register_checksum("crct10dif", "crct10dif-isal", "isal", &t10dif_impl, 1);
	if (!r)
		r = register_checksum("crc64-rocksoft", "crc64-rocksoft-boost", "boost", &crc64_rocksoft_impl, 1);
	if (!r)
		r = register_checksum("xxhash64", "xxhash64-libxxhash", "libxxhash", &xxh64_impl, 32);
	return r;
}
