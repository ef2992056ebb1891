/* Internal status values: what one part of ualg returns to another
 * through an int or ssize_t result that otherwise carries a count, 0 or
 * -errno.  None of them crosses the wire or reaches a program.
 *
 * Each value is distinct from every other here.  The negative ones lie
 * below -4095, so that no -errno (the kernel's MAX_ERRNO) and no count is
 * ever taken for one; the positive ones travel only through results that
 * are otherwise 0 or -1 (algd's request handlers).
 *
 * Error out-parameters (int *err, set when a function returns NULL) hold a
 * positive errno throughout the tree, as errno itself does: the core's
 * lookups and transforms (ualg_alg_lookup(), ualg_tfm_new()), every
 * template's create() and the backend modules' struct ualg_core_api all
 * set it so, and those are most of its setters and callers.  A caller
 * that passes one on as a result negates it (return -err). */
#ifndef UALG_STATUS_H
#define UALG_STATUS_H

#include <limits.h>
#include <sys/types.h>

/* afalg_send()/afalg_recv() (a type's send or recv, afalg_tx_*()) where the
 * kernel would sleep: algd parks the request (transfer_serve.c), the shim's
 * engine waits for the socket to change (inproc.c); each calls again with
 * the same progress. */
#define AFALG_WAIT (-100000)
/* An alg_type's setsockopt() for an option it leaves to af_alg.c, which
 * then serves it as for any type. */
#define AFALG_OPT_GENERIC (-100001)

/* keystore_request() for a malformed request: dispatch() ends the
 * connection (also outside KEY_LIST's counts). */
#define KEYSTORE_BAD_FRAME (-200000)
/* admin_request() for a malformed request: dispatch() ends the connection
 * (also outside DUMP's record counts). */
#define ADMIN_BAD_FRAME (-200001)

/* The shim's in-process data calls (inproc_send(), inproc_recv()) when the
 * socket went to algd meanwhile: the caller (alg_io.c) serves the call as
 * for any algd socket. */
#define INPROC_MOVED (-1000000)
/* fast_xact() when the request is for the socket (the caller's data cannot
 * be read, or algd would wait): the caller (client.c) sends it there. */
#define FAST_DECLINED (-(ssize_t)INT_MAX)

/* algd's data handlers (transfer_serve.c), through dispatch(), for a call that
 * waits: dispatch_settle() parks it (wait.h); wait_rerun() keeps it. */
#define DISPATCH_PARKED 1
/* dispatch() for a ring control request whose ring's lock its worker
 * holds: nothing was done; the caller runs it again after ring_ctl_wait()
 * (offload_ring_wait()). */
#define DISPATCH_RING_BUSY 2

_Static_assert(AFALG_WAIT < -4095 && AFALG_OPT_GENERIC < -4095 && KEYSTORE_BAD_FRAME < -4095 &&
		       ADMIN_BAD_FRAME < -4095 && INPROC_MOVED < -4095 && FAST_DECLINED < -4095,
	       "status values lie outside the -errno range");

#endif
