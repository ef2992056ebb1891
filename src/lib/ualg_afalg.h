/* ualg's additions to AF_ALG, for programs that know they run under
 * ualg-run (with the preload shim) and want what the kernel lacks.
 *
 * UALG_SET_KEY_BY_NAME (level SOL_ALG, on a transform socket): the value is
 * the name of a key an administrator stored in algd (`algctl key add`),
 * optionally NUL-terminated; optlen is its length.  algd keys the transform
 * with the stored bytes exactly as ALG_SET_KEY with them would (the same
 * errno for a key length the algorithm refuses), and the bytes never leave
 * algd.  Errors besides ALG_SET_KEY's: EINVAL for a name that does not
 * parse, ENOKEY when no key has that name, EACCES when the socket's opener
 * (SO_PEERCRED) is not on the key's allow list.  The kernel answers this
 * optname with ENOPROTOOPT.
 *
 *	setsockopt(tfm, SOL_ALG, UALG_SET_KEY_BY_NAME, "disk-key", 8);
 */
#ifndef UALG_AFALG_H
#define UALG_AFALG_H

/* Far from the kernel's own SOL_ALG options (1-7 in Linux 6.2). */
#define UALG_SET_KEY_BY_NAME 0x7501

/* A key name: 1 to 63 bytes of [A-Za-z0-9._-], starting with a letter or
 * digit. */
#define UALG_KEY_NAME_MAX 63

#endif
