/* algd's confinement: privileges, resource limits and the seccomp filter,
 * applied once start-up (listening socket, self-tests) is done. */
#ifndef UALG_ALGD_SANDBOX_H
#define UALG_ALGD_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Looks up the user algd runs as; returns 0 or -1 with a message. */
int sandbox_lookup_user(const char *name, uid_t *uid, gid_t *gid);

/* No core files, and as many fds as the hard limit allows (every client
 * socket is one fd here). */
void sandbox_limits(void);

/* setgroups/setresgid/setresuid to uid:gid and checks that root cannot be
 * regained.  Returns 0 or -1 with a message. */
int sandbox_drop_privileges(uid_t uid, gid_t gid);

/* The buffer that sees keys in transit is locked in memory and kept out
 * of core dumps. */
void sandbox_protect(void *buf, size_t len);

/* Installs the syscall allow-list: only what the event loop, the ring
 * workers, algd.conf, malloc and OpenSSL's RNG use.  Anything else kills
 * the process (SIGSYS): no sockets but AF_UNIX socketpairs (socket() fails
 * with EAFNOSUPPORT), no connect,
 * no executable memory, no exec, fork, ptrace or credential change.
 * Returns 0 or -1 with a message. */
int sandbox_seccomp(void);
/* sandbox_seccomp(), or (enabled false: for debuggers and sanitizers) a
 * warning that algd runs without it. */
int sandbox_filter(bool enabled);

#endif
