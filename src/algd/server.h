/* algd's event loop: connections, frame parsing and replies. */
#ifndef UALG_ALGD_SERVER_H
#define UALG_ALGD_SERVER_H

struct server_opts {
	const char *socket_path;
	int ready_fd;		/* written to once listening, or -1 */
	int verbose;
};

/* Runs until SIGTERM/SIGINT; returns the exit status. */
int server_run(const struct server_opts *opts);

#endif
