/* Compression drivers (scomp), in the kernel's formats: "deflate" is raw
 * deflate made as crypto/deflate.c makes it (zlib, 2 KiB window, memLevel
 * 9), "lz4" the LZ4 block format (LZ4_compress_default, no frame), "lzo"
 * LZO1X-1, "zstd" a zstd frame at level 3 (crypto/zstd.c).  Decompression
 * writes into the caller's buffer only, and says -ENOSPC when the output
 * would not fit, so that the caller bounds what a stream may expand to. */
#include "openssl.h"
#include "others.h"

#include <errno.h>
#include <string.h>

#include <lz4.h>
#include <lzo/lzo1x.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define DEFLATE_DEF_WINBITS 11
#define DEFLATE_DEF_MEMLEVEL 9	/* MAX_MEM_LEVEL */
#define ZSTD_DEF_LEVEL 3

static int deflate_compress(struct ualg_tfm *tfm, const uint8_t *src, size_t slen, uint8_t *dst,
			    size_t *dlen)
{
	z_stream s = { 0 };

	(void)tfm;
	if (slen > UINT32_MAX || *dlen > UINT32_MAX)
		return -EINVAL;
	if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -DEFLATE_DEF_WINBITS,
			 DEFLATE_DEF_MEMLEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	s.next_in = (Bytef *)src;
	s.avail_in = (uInt)slen;
	s.next_out = dst;
	s.avail_out = (uInt)*dlen;
	int r = deflate(&s, Z_FINISH);
	*dlen = s.total_out;
	deflateEnd(&s);
	return r == Z_STREAM_END ? 0 : -ENOSPC;
}

/* Any raw deflate stream decodes, whatever window it was made with (the
 * kernel's 2 KiB window refuses references farther back); the stream must
 * end exactly at the end of the input. */
static int deflate_decompress(struct ualg_tfm *tfm, const uint8_t *src, size_t slen,
			      uint8_t *dst, size_t *dlen)
{
	z_stream s = { 0 };

	(void)tfm;
	if (slen > UINT32_MAX || *dlen > UINT32_MAX)
		return -EINVAL;
	if (inflateInit2(&s, -MAX_WBITS) != Z_OK)
		return -ENOMEM;
	s.next_in = (Bytef *)src;
	s.avail_in = (uInt)slen;
	s.next_out = dst;
	s.avail_out = (uInt)*dlen;
	int r = inflate(&s, Z_FINISH);
	*dlen = s.total_out;
	const bool rest = s.avail_in != 0, full = s.avail_out == 0;
	inflateEnd(&s);
	if (r == Z_STREAM_END)
		return rest ? -EBADMSG : 0;
	/* The output is full and the stream has not ended: more room may
	 * see it through (or find it cut short). */
	if (full && (r == Z_OK || r == Z_BUF_ERROR))
		return -ENOSPC;
	return -EBADMSG;
}

static int lz4_compress(struct ualg_tfm *tfm, const uint8_t *src, size_t slen, uint8_t *dst,
			size_t *dlen)
{
	(void)tfm;
	if (slen > LZ4_MAX_INPUT_SIZE)
		return -EINVAL;
	const int cap = *dlen > INT32_MAX ? INT32_MAX : (int)*dlen;
	int n = LZ4_compress_default((const char *)src, (char *)dst, (int)slen, cap);
	if (n <= 0)
		return -ENOSPC;
	*dlen = (size_t)n;
	return 0;
}

/* LZ4_decompress_safe() fails alike on bad input and on too little room;
 * decoding only as much as fits tells them apart. */
static int lz4_decompress(struct ualg_tfm *tfm, const uint8_t *src, size_t slen, uint8_t *dst,
			  size_t *dlen)
{
	(void)tfm;
	if (slen > INT32_MAX)
		return -EINVAL;
	const int cap = *dlen > INT32_MAX ? INT32_MAX : (int)*dlen;
	int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)slen, cap);
	if (n >= 0) {
		*dlen = (size_t)n;
		return 0;
	}
	n = LZ4_decompress_safe_partial((const char *)src, (char *)dst, (int)slen, cap, cap);
	return n == cap && cap > 0 ? -ENOSPC : -EBADMSG;
}

static int lzo_compress(struct ualg_tfm *tfm, const uint8_t *src, size_t slen, uint8_t *dst,
			size_t *dlen)
{
	uint8_t wrk[LZO1X_1_MEM_COMPRESS];

	(void)tfm;
	/* lzo1x_1_compress() does not check its output's room. */
	if (*dlen < slen + slen / 16 + 64 + 3)
		return -ENOSPC;
	lzo_uint n = *dlen;
	int r = lzo1x_1_compress(src, slen, dst, &n, wrk);
	if (r != LZO_E_OK)
		return -EINVAL;
	*dlen = n;
	return 0;
}

static int lzo_decompress(struct ualg_tfm *tfm, const uint8_t *src, size_t slen, uint8_t *dst,
			  size_t *dlen)
{
	(void)tfm;
	lzo_uint n = *dlen;
	int r = lzo1x_decompress_safe(src, slen, dst, &n, NULL);
	if (r == LZO_E_OUTPUT_OVERRUN)
		return -ENOSPC;
	if (r != LZO_E_OK)
		return -EBADMSG;
	*dlen = n;
	return 0;
}

static int zstd_compress(struct ualg_tfm *tfm, const uint8_t *src, size_t slen, uint8_t *dst,
			 size_t *dlen)
{
	(void)tfm;
	size_t n = ZSTD_compress(dst, *dlen, src, slen, ZSTD_DEF_LEVEL);
	if (ZSTD_isError(n))
		return ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall ? -ENOSPC : -EINVAL;
	*dlen = n;
	return 0;
}

/* A frame that declares more content than fits is refused before any of
 * it is decoded. */
static int zstd_decompress(struct ualg_tfm *tfm, const uint8_t *src, size_t slen, uint8_t *dst,
			   size_t *dlen)
{
	(void)tfm;
	size_t n = ZSTD_decompress(dst, *dlen, src, slen);
	if (ZSTD_isError(n))
		return ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall ? -ENOSPC : -EBADMSG;
	*dlen = n;
	return 0;
}

static int reg_comp(const char *name, const char *driver,
		    int (*compress)(struct ualg_tfm *, const uint8_t *, size_t, uint8_t *, size_t *),
		    int (*decompress)(struct ualg_tfm *, const uint8_t *, size_t, uint8_t *,
				      size_t *))
{
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, UALG_ALG_COMP,
						UALG_OPENSSL_PRIO_PRIMITIVE);
	if (!a)
		return -ENOMEM;
	a->module = "compress";
	a->u.comp.compress = compress;
	a->u.comp.decompress = decompress;
	return ualg_openssl_reg(a);
}

int ualg_comp_register(void)
{
	if (lzo_init() != LZO_E_OK)
		return -ELIBBAD;
	int r = reg_comp("deflate", "deflate-generic", deflate_compress, deflate_decompress);
	if (!r)
		r = reg_comp("lz4", "lz4-generic", lz4_compress, lz4_decompress);
	if (!r)
		r = reg_comp("lzo", "lzo-generic", lzo_compress, lzo_decompress);
	if (!r)
		r = reg_comp("zstd", "zstd-generic", zstd_compress, zstd_decompress);
	return r;
}
