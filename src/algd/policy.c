/* The client allow-list (see policy.h).  Parsed strictly: one bad byte
 * rejects the whole option, so a typo never widens access. */
#include "policy.h"
#include "crypto.h"
#include "template.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#define ID_MAX 0xfffffffeu	/* (uid_t)-1 means "no id" */
#define NAME_MAX_LEN 32

static bool parse_number(const char *s, size_t len, uint32_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 10 || (len > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > ID_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Debian's NAME_REGEX, in short: [a-z_][a-z0-9_-]* */
static bool valid_name(const char *s, size_t len)
{
	if (len == 0 || len > NAME_MAX_LEN || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

static bool resolve_name(const char *s, size_t len, bool is_gid, uint32_t *out)
{
	char name[NAME_MAX_LEN + 1];

	if (!valid_name(s, len))
		return false;
	memcpy(name, s, len);
	name[len] = '\0';
	if (is_gid) {
		const struct group *g = getgrnam(name);
		if (g)
			*out = g->gr_gid;
		return g != NULL;
	}
	const struct passwd *pw = getpwnam(name);
	if (pw)
		*out = pw->pw_uid;
	return pw != NULL;
}

static bool parse_entry(const char *s, size_t len, struct policy_entry *e, bool names)
{
	if (len > 4 && !memcmp(s, "uid:", 4))
		e->is_gid = false;
	else if (len > 4 && !memcmp(s, "gid:", 4))
		e->is_gid = true;
	else
		return false;
	s += 4, len -= 4;
	if (s[0] >= '0' && s[0] <= '9')
		return parse_number(s, len, &e->id);
	return names && resolve_name(s, len, e->is_gid, &e->id);
}

/* spec: len bytes, not necessarily NUL-terminated; never read beyond. */
static int parse_list(struct policy *p, const char *spec, size_t len, bool names)
{
	struct policy next = *p;

	for (const char *s = spec, *end = spec + len;;) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		size_t n = comma ? (size_t)(comma - s) : (size_t)(end - s);
		if (next.n == POLICY_MAX || !parse_entry(s, n, &next.e[next.n], names))
			return -1;
		next.n++;
		if (!comma)
			break;
		s = comma + 1;
	}
	*p = next;
	return 0;
}

int policy_parse(struct policy *p, const char *spec)
{
	return parse_list(p, spec, strlen(spec), true);
}

int policy_parse_ids(struct policy *p, const char *spec, size_t len)
{
	p->n = 0;
	if (len == 0)
		return 0;
	if (memchr(spec, '\0', len))
		return -1;
	return parse_list(p, spec, len, false);
}

int policy_format(const struct policy *p, char *buf, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return -1;
	buf[0] = '\0';
	for (unsigned i = 0; i < p->n; i++) {
		int n = snprintf(buf + used, size - used, "%s%s:%u", i ? "," : "",
				 p->e[i].is_gid ? "gid" : "uid", p->e[i].id);
		if (n < 0 || (size_t)n >= size - used)
			return -1;
		used += (size_t)n;
	}
	return 0;
}

bool policy_matches(const struct policy *p, uid_t uid, gid_t gid, const gid_t *groups,
		    size_t ngroups)
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct policy_entry *e = &p->e[i];
		if (!e->is_gid && e->id == uid)
			return true;
		if (e->is_gid && e->id == gid)
			return true;
		for (size_t g = 0; e->is_gid && g < ngroups; g++)
			if (groups[g] == e->id)
				return true;
	}
	return false;
}

bool policy_allows(const struct policy *p, uid_t uid, gid_t gid, uid_t self)
{
	(void)self;
	if (uid == 0 || p->n == 0)
		return true;
	for (unsigned i = 0; i < p->n; i++)
		if (p->e[i].id == (p->e[i].is_gid ? gid : uid))
			return true;
	return false;
}

static struct alg_rule {
	char name[UALG_MAX_ALG_NAME];
	struct policy who;
} alg_rules[ALG_RULES_MAX];
static unsigned n_alg_rules;

static bool valid_alg_name(const char *s, size_t len)
{
	if (len == 0 || len >= UALG_MAX_ALG_NAME)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("_(),-.", s[i])))
			return false;
	return true;
}

int policy_add_alg_rule(const char *spec)
{
	const char *eq = strchr(spec, '=');

	if (!eq || n_alg_rules == ALG_RULES_MAX || !valid_alg_name(spec, (size_t)(eq - spec)))
		return -1;
	struct alg_rule *r = &alg_rules[n_alg_rules];
	memset(r, 0, sizeof(*r));
	memcpy(r->name, spec, (size_t)(eq - spec));
	if (policy_parse(&r->who, eq + 1) || r->who.n == 0)
		return -1;
	n_alg_rules++;
	return 0;
}

bool policy_has_alg_rules(void)
{
	return n_alg_rules > 0;
}

static bool rule_denies(const char *name, uid_t uid, gid_t gid, const gid_t *groups,
			size_t ngroups)
{
	for (unsigned i = 0; i < n_alg_rules; i++)
		if (!strcmp(alg_rules[i].name, name) &&
		    !policy_matches(&alg_rules[i].who, uid, gid, groups, ngroups))
			return true;
	return false;
}

/* Every generic name in a name's tree: "gcm(aes)" is gcm(aes), then aes.
 * A whole-mode driver (cbc-aes-openssl) has no spawns, so the name is
 * what says what it is built on.  Depth is bounded by the name's length. */
static bool name_tree_denied(const char *name, uid_t uid, gid_t gid, const gid_t *groups,
			     size_t ngroups)
{
	char tmpl[UALG_MAX_ALG_NAME], args[UALG_TMPL_MAX_ARGS][UALG_MAX_ALG_NAME];
	unsigned nargs;

	if (rule_denies(name, uid, gid, groups, ngroups))
		return true;
	if (ualg_tmpl_parse(name, tmpl, sizeof(tmpl), args, &nargs))
		return false;	/* a primitive */
	for (unsigned i = 0; i < nargs; i++)
		if (name_tree_denied(args[i], uid, gid, groups, ngroups))
			return true;
	return false;
}

/* What a DRBG driver is built on, as the kernel's drbg_cores name their
 * backends: drbg_{pr,nopr}_ctr_aesN on ctr(aes), drbg_{pr,nopr}_hmac_H on
 * hmac(H), drbg_{pr,nopr}_H on H.  False for any other driver. */
static bool drbg_base(const char *driver, char *out, size_t size)
{
	const char *rest;

	if (!strncmp(driver, "drbg_pr_", 8))
		rest = driver + 8;
	else if (!strncmp(driver, "drbg_nopr_", 10))
		rest = driver + 10;
	else
		return false;
	int n;
	if (!strncmp(rest, "ctr_aes", 7))
		n = snprintf(out, size, "ctr(aes)");
	else if (!strncmp(rest, "hmac_", 5))
		n = snprintf(out, size, "hmac(%s)", rest + 5);
	else
		n = snprintf(out, size, "%s", rest);
	return n > 0 && (size_t)n < size;
}

/* The algorithm's generic name tree, its driver name and, for template
 * instances, what they were built on (cbc(aes-openssl) names a driver). */
static bool alg_denied(const struct ualg_alg *alg, uid_t uid, gid_t gid, const gid_t *groups,
		       size_t ngroups, unsigned depth)
{
	if (!alg)
		return false;
	char base[UALG_MAX_ALG_NAME];

	if (depth > UALG_MAX_ALG_NAME || rule_denies(alg->driver, uid, gid, groups, ngroups) ||
	    name_tree_denied(alg->name, uid, gid, groups, ngroups))
		return true;
	/* A DRBG (stdrng included: alg is the driver it resolved to) is
	 * built on its cipher or hash without being a template instance. */
	if (drbg_base(alg->driver, base, sizeof(base)) &&
	    name_tree_denied(base, uid, gid, groups, ngroups))
		return true;
	for (unsigned i = 0; i < sizeof(alg->spawns) / sizeof(alg->spawns[0]); i++)
		if (alg_denied(alg->spawns[i], uid, gid, groups, ngroups, depth + 1))
			return true;
	return false;
}

bool policy_alg_allowed(const struct ualg_alg *alg, uid_t uid, gid_t gid, const gid_t *groups,
			size_t ngroups)
{
	return uid == 0 || !n_alg_rules || !alg_denied(alg, uid, gid, groups, ngroups, 0);
}
