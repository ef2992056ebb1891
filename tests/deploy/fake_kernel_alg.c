/* A stand-in for a kernel that has AF_ALG, for tests/deploy/install.sh:
 * preloaded after the shim, it is the "real" socket() the shim's RTLD_NEXT
 * finds.  socket(AF_ALG, ...) succeeds with a plain datagram socket and
 * writes one line to stderr, so the test can count who asked the kernel:
 * the shim's probe and, where the shim stays passive, the program. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_ALG
#define AF_ALG 38
#endif

int socket(int domain, int type, int protocol)
{
	static int (*next)(int, int, int);

	if (!next)
		next = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	if (domain != AF_ALG)
		return next(domain, type, protocol);
	(void)!write(2, "kernel AF_ALG\n", 14);
	return next(AF_UNIX, SOCK_DGRAM | (type & (SOCK_CLOEXEC | SOCK_NONBLOCK)), 0);
}
