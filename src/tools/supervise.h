/* ualg-run --supervise: AF_ALG for programs that make raw system calls
 * (static binaries, Go), served through seccomp user notification by a
 * supervisor process that runs with the shim preloaded. */
#ifndef UALG_SUPERVISE_H
#define UALG_SUPERVISE_H

/* The fds the supervisor installs in the target: [base, base + 1024).
 * Only calls whose fd argument lies there (and socket(AF_ALG), socket of
 * NETLINK_CRYPTO) reach the supervisor; the filter lets all others pass. */
#define SUPERVISE_FD_SPAN 1024u

/* The supervisor's entry point: argv is PROGRAM ARGS...; runs PROGRAM
 * under the filter, serves its notifications, and returns its exit status
 * as ualg-run does.  bare: the same filter with every notification turned
 * into "allow", no supervisor (to measure the filter's own cost).
 * stats_path: where to write the notification counts at exit, or NULL. */
int supervise_main(char **argv, int bare, const char *stats_path);

#endif
