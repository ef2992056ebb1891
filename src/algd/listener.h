/* algd's listening socket: passed by systemd (socket activation, the
 * LISTEN_PID/LISTEN_FDS protocol of sd_listen_fds(3)), or bound by algd
 * itself at the configured path; and the refusal of clients it will not
 * serve. */
#ifndef UALG_ALGD_LISTENER_H
#define UALG_ALGD_LISTENER_H

#include "server.h"

#include <stddef.h>

/* The passed socket if there is one, else a new one at opts->socket_path.
 * Its path goes into path (for the log).  Returns a non-blocking,
 * close-on-exec fd, or -1 (said why). */
int listener_open(const struct server_opts *opts, char *path, size_t size);
/* Closes it; a socket algd bound itself is also unlinked, a passed one
 * stays for systemd to hand to the next algd. */
void listener_close(int fd, const struct server_opts *opts);

/* Refusing a client: its HELLO is answered in advance with why (err),
 * and it is hung up on, so that its socket() fails with that errno. */
void listener_refuse(int fd, int err);
/* Keeps a spare fd (a dup of fd) for listener_refuse_pending(). */
void listener_keep_spare(int fd);
/* Out of fds, the pending connection would keep the listener readable
 * forever: the spare fd is given up to accept it and refuse it (EMFILE). */
void listener_refuse_pending(int fd);

/* For tests of the protocol: the passed fd (3), -1 when nothing was
 * passed to this process, -2 when what was passed is not one listening
 * AF_UNIX SOCK_SEQPACKET socket.  Clears LISTEN_* from the environment. */
int listener_from_systemd(void);

#endif
