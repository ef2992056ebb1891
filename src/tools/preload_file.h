/* algctl preload: the shim in /etc/ld.so.preload, for every program. */
#ifndef UALG_TOOLS_PRELOAD_FILE_H
#define UALG_TOOLS_PRELOAD_FILE_H

/* "enable", "disable" or "status" on ROOT/etc/ld.so.preload (root: "" for
 * the running system) with shim (absolute; NULL: the installed one).
 * Returns algctl's exit status: 0 done (status: enabled), 1 refused or
 * failed (status: not enabled), 2 usage. */
int preload_command(const char *cmd, const char *root, const char *shim);

#endif
