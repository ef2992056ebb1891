/* algd's event loop: its options, and the loop serving every client. */
#ifndef UALG_ALGD_SERVER_H
#define UALG_ALGD_SERVER_H

#include "policy.h"

#include <stdbool.h>
#include <sys/types.h>

struct server_opts {
	const char *socket_path;
	int ready_fd;		/* written to once listening, or -1 */
	int verbose;
	struct policy policy;	/* who may connect */
	unsigned max_sockets;	/* per client uid, transform and op sockets */
	/* Per client uid (account.h); 0: the default. */
	size_t uid_mem_max;	/* bytes of queues, buffers, ring memory */
	size_t uid_key_heap;	/* bytes of the key heap */
	unsigned uid_fd_max;	/* descriptors algd holds for it */
	bool drop;		/* started as root: become uid:gid once listening */
	uid_t uid;
	gid_t gid;
	bool no_seccomp;	/* for debuggers and sanitizers only */
};

#define SERVER_MAX_SOCKETS_DEFAULT 4096
/* Template instances one client uid keeps built (crypto.h's builder cap);
 * root, the admin group and a private algd's own user are not capped. */
#define SERVER_INSTANCES_PER_UID 128

/* Runs until SIGTERM/SIGINT; returns the exit status. */
int server_run(const struct server_opts *opts);

#endif
