/* The real libc functions behind the interposed ones, resolved once with
 * dlsym(RTLD_NEXT), and the shim's constructor. */
#include "interpose.h"

#include <dlfcn.h>

struct real_fns real;
struct next_fns next;

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

#define RESOLVE(tbl, name) (tbl).name = (__typeof__((tbl).name))dlsym(RTLD_NEXT, #name)

static void resolve(void)
{
	RESOLVE(real, socket); RESOLVE(real, close); RESOLVE(real, dup);
	RESOLVE(real, dup2); RESOLVE(real, dup3); RESOLVE(real, fcntl);
	RESOLVE(real, bind); RESOLVE(real, setsockopt); RESOLVE(real, getsockopt);
	RESOLVE(next, read); RESOLVE(next, write); RESOLVE(next, readv); RESOLVE(next, writev);
	RESOLVE(next, send); RESOLVE(next, sendto); RESOLVE(next, sendmsg);
	RESOLVE(next, recv); RESOLVE(next, recvfrom); RESOLVE(next, recvmsg);
	RESOLVE(next, accept); RESOLVE(next, accept4); RESOLVE(next, connect);
	RESOLVE(next, listen); RESOLVE(next, getsockname); RESOLVE(next, getpeername);
	RESOLVE(next, shutdown); RESOLVE(next, splice); RESOLVE(next, sendfile);
	RESOLVE(next, sendmmsg); RESOLVE(next, recvmmsg); RESOLVE(next, ioctl);
}

void shim_resolve(void)
{
	pthread_once(&resolve_once, resolve);
}

__attribute__((constructor)) static void shim_init(void)
{
	shim_resolve();
	client_init();
	shim_adopt_inherited();
	inproc_init();
	local_init();
	pool_init();
}
