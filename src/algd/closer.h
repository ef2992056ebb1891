/* Descriptors a client attached to a request (none is ever expected; the
 * frame ends its connection): closed without the event loop waiting, and
 * none left open. */
#ifndef UALG_ALGD_CLOSER_H
#define UALG_ALGD_CLOSER_H

/* Starts the thread that closes what may sleep in close(). */
int closer_start(void);

/* Takes fd, which the client of account (struct account *) attached.  A
 * socket's close is made abortive (SO_LINGER {1, 0}) and, like a pipe's,
 * done at once; anything else (a FUSE file or a tty may sleep in its last
 * close) goes to the closer thread, charged to the account's descriptors
 * until closed, whatever its budget: the uid's next connections and
 * accepts get EMFILE meanwhile, no one else's. */
void closer_dispose(int fd, void *account);

#endif
