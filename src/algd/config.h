/* algd's configuration file: one setting per line, '#' starts a comment.
 *
 *   socket PATH            where algd listens (read at start only)
 *   admin-group GROUP      who besides root may change algorithms
 *   priority DRIVER N      a driver's priority (0..2147483647)
 *   disable DRIVER         keep a driver out of lookups
 *   engine inproc|algd     where AF_ALG data is served by default (inproc:
 *                          in the program where algd allows it)
 *   engine-algd NAME       an algorithm or driver whose data algd serves
 *   dpdk-eal ARGS...       start DPDK's EAL with ARGS and serve its crypto
 *                          devices (read at start only; dpdk.h)
 *   dpdk-device NAME [N]   use this device (repeatable; none: every one),
 *                          its drivers at priority N (default by its kind)
 *
 * Parsing is strict: an unknown keyword, a missing or extra word, a bad
 * number or a line over 255 bytes rejects the whole file, and a reload
 * (SIGHUP) that fails keeps the settings in force.  Settings apply to the
 * drivers registered when the file is read; a reload applies what the file
 * says and re-enables drivers it no longer disables. */
#ifndef UALG_ALGD_CONFIG_H
#define UALG_ALGD_CONFIG_H

#include <stdbool.h>
#include <sys/types.h>

#define CONFIG_PATH_MAX 108	/* sun_path */

#define CONFIG_ENGINE_RULES_MAX 64
#define CONFIG_NAME_MAX 128
#define CONFIG_DPDK_EAL_MAX 256
#define CONFIG_DPDK_DEVICES_MAX 16

struct algd_config {
	char socket_path[CONFIG_PATH_MAX];	/* empty: not set */
	bool has_admin_gid;
	gid_t admin_gid;
	bool engine_algd;			/* "engine algd" */
	unsigned n_engine_keep;
	char engine_keep[CONFIG_ENGINE_RULES_MAX][CONFIG_NAME_MAX];	/* "engine-algd NAME" */
	char dpdk_eal[CONFIG_DPDK_EAL_MAX];	/* "dpdk-eal ARGS"; empty: no DPDK */
	unsigned n_dpdk_devices;
	struct {
		char name[64];
		int priority;			/* -1: by the device's kind */
	} dpdk_devices[CONFIG_DPDK_DEVICES_MAX];	/* "dpdk-device NAME [N]" */
};
/* --engine algd on the command line: as "engine algd", whatever the file says. */
void config_set_engine_algd(bool algd_only);
/* Whether every socket stays in algd (the command line or the file). */
bool config_engine_all_algd(void);
/* algctl engine: as the file's "engine" (name NULL) or "engine-algd NAME"
 * line added (algd) or removed; kept until a reload, written by a save.
 * 0, -ENOSPC or -ENAMETOOLONG. */
int config_engine(const char *name, bool algd);

/* Reads and applies path (remembered for reloads and saves), starting
 * DPDK first when it says so (its drivers' settings then apply too).
 * Returns 0, or -1 after printing why to stderr, changing nothing. */
int config_load(const char *path);
/* Reads the remembered file again: 0, or -1 keeping the old settings. */
int config_reload(void);
/* Writes the current settings to the remembered file: 0 or -errno
 * (-ENOENT when algd runs without a file). */
int config_save(void);
const struct algd_config *config_get(void);

#endif
