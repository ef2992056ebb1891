/* Who may use algd: a small allow-list of uids and gids, checked against
 * every client's SO_PEERCRED when it connects. */
#ifndef UALG_ALGD_POLICY_H
#define UALG_ALGD_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define POLICY_MAX 32

struct policy {
	unsigned n;
	struct policy_entry {
		bool is_gid;
		uint32_t id;
	} e[POLICY_MAX];
};

/* Adds the entries of spec: "uid:N", "gid:N", "uid:NAME" or "gid:NAME",
 * separated by commas; names are resolved now.  Returns 0, or -1 when any
 * part does not parse, a name is unknown or the list is full (and then
 * adds nothing). */
int policy_parse(struct policy *p, const char *spec);

/* An empty list leaves the decision to the socket's permissions (0600 by
 * default: algd's own user; an administrator may open it up); a list is
 * checked against SO_PEERCRED.  Root is always allowed (it could read
 * algd's memory anyway). */
bool policy_allows(const struct policy *p, uid_t uid, gid_t gid, uid_t self);

#endif
