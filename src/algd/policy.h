/* Who may use algd: a small allow-list of uids and gids, checked against
 * every client's SO_PEERCRED when it connects. */
#ifndef UALG_ALGD_POLICY_H
#define UALG_ALGD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ualg_alg;

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

/* For a named key's allow list (keystore.c), from a client's frame: len
 * bytes (no NUL inside), numeric ids only ("uid:1000,gid:27"), so that algd
 * never consults NSS on a client's behalf; 0 bytes is the empty list.
 * Replaces *p.  Returns 0, or -1 (then *p is empty or unchanged). */
int policy_parse_ids(struct policy *p, const char *spec, size_t len);
/* The list in the numeric syntax, into buf; -1 when it does not fit. */
int policy_format(const struct policy *p, char *buf, size_t size);
/* Whether uid, gid or one of the groups is on the list (no exception for
 * root: callers decide). */
bool policy_matches(const struct policy *p, uid_t uid, gid_t gid, const gid_t *groups,
		    size_t ngroups);

/* An empty list leaves the decision to the socket's permissions (0600 by
 * default: algd's own user; an administrator may open it up); a list is
 * checked against SO_PEERCRED.  Root is always allowed (it could read
 * algd's memory anyway). */
bool policy_allows(const struct policy *p, uid_t uid, gid_t gid, uid_t self);

/* Per-algorithm rules (algd --alg-allow NAME=LIST, repeatable): only the
 * clients on LIST (and root) may use an algorithm whose name or driver
 * name is NAME, or any algorithm built on one (a rule on "aes" covers
 * cbc(aes) and gcm(aes)).  Algorithms no rule names are open to every
 * client algd serves. */
#define ALG_RULES_MAX 32

/* Adds one rule; names in LIST are resolved now.  Returns 0, or -1 when
 * NAME is empty, too long or holds a byte outside [A-Za-z0-9_(),-.], LIST
 * does not parse, or the table is full. */
int policy_add_alg_rule(const char *spec);
bool policy_has_alg_rules(void);
/* Whether the caller may use alg and everything it is built on. */
bool policy_alg_allowed(const struct ualg_alg *alg, uid_t uid, gid_t gid, const gid_t *groups,
			size_t ngroups);

#endif
