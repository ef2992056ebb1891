/* libFuzzer: sendmsg() control data as the shim parses it (src/shim/cmsg.c,
 * af_alg_cmsg_send()'s rules), straight from a hostile program. */
#include "shim.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shim_ctl ctl;

	cmsg_parse(data, size, &ctl);
	if (ctl.ivlen > sizeof(ctl.iv) || (!ctl.has_iv && ctl.ivlen))
		__builtin_trap();	/* the IV and its length stay consistent */
	return 0;
}
