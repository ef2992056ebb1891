/* Control messages of sendmsg(), parsed exactly as the kernel does: once
 * ____sys_sendmsg() has copied them in (kabi_msg_import(): ENOBUFS,
 * EFAULT), af_alg_cmsg_send() walks them with the kernel's own CMSG_OK and
 * __cmsg_nxthdr rules, which differ from glibc's macros at the edges. */
#include "shim.h"
#include "kabi.h"

#include <linux/if_alg.h>
#include <string.h>
#include <sys/uio.h>

static size_t kcmsg_align(size_t len)
{
	return (len + sizeof(long) - 1) & ~(sizeof(long) - 1);
}

/* The kernel's CMSG_LEN on its own struct cmsghdr (same layout as ours). */
static size_t kcmsg_len(size_t len)
{
	return kcmsg_align(sizeof(struct cmsghdr)) + len;
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void walk(const uint8_t *buf, size_t size, struct shim_ctl *ctl)
{
	size_t off = 0;
	struct cmsghdr c;

	if (size < sizeof(c))
		return;		/* __CMSG_FIRSTHDR gives NULL: nothing to parse */
	for (;;) {
		memcpy(&c, buf + off, sizeof(c));
		if (c.cmsg_len < sizeof(c) || c.cmsg_len > size - off) {
			ctl->invalid = true;	/* !CMSG_OK */
			return;
		}
		const uint8_t *data = buf + off + kcmsg_align(sizeof(c));
		if (c.cmsg_level == KABI_SOL_ALG) {
			switch (c.cmsg_type) {
			case ALG_SET_IV:
				if (c.cmsg_len < kcmsg_len(sizeof(struct af_alg_iv))) {
					ctl->invalid = true;
					return;
				}
			{
				/* ctl->iv and ivlen change only together, and only
				 * for a valid IV (found by tests/fuzz/fuzz_cmsg.c). */
				const uint32_t ivlen = get_u32(data);
				if (c.cmsg_len < kcmsg_len((size_t)ivlen + sizeof(struct af_alg_iv))) {
					ctl->invalid = true;
					return;
				}
				/* Longer than any cipher's IV: the length check
				 * after parsing would reject it anyway. */
				if (ivlen > UALG_IV_MAX) {
					ctl->invalid = true;
					return;
				}
				ctl->ivlen = ivlen;
				ctl->has_iv = true;
				memcpy(ctl->iv, data + sizeof(struct af_alg_iv), ctl->ivlen);
				break;
			}
			case ALG_SET_OP:
			case ALG_SET_AEAD_ASSOCLEN:
				if (c.cmsg_len < kcmsg_len(sizeof(uint32_t))) {
					ctl->invalid = true;
					return;
				}
				if (c.cmsg_type == ALG_SET_OP) {
					ctl->op = get_u32(data);
					ctl->has_op = true;
				} else {
					ctl->assoclen = get_u32(data);
				}
				break;
			default:
				ctl->invalid = true;
				return;
			}
		}
		/* __cmsg_nxthdr: the next header must fit whole. */
		size_t next = off + kcmsg_align(c.cmsg_len);
		if (next < off || next + sizeof(c) > size)
			return;
		off = next;
	}
}

void cmsg_parse(const uint8_t *buf, size_t size, struct shim_ctl *ctl)
{
	memset(ctl, 0, sizeof(*ctl));
	if (!size)
		return;
	ctl->present = true;
	walk(buf, size, ctl);
}
