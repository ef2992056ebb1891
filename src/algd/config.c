/* The configuration file (format in config.h). */
#include "log.h"
#include "config.h"
#include "crypto.h"
#include "dpdk.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE_MAX_LEN 256
#define MAX_SETTINGS 512

struct driver_setting {
	char driver[UALG_MAX_ALG_NAME];
	bool disable;
	int priority;
};

struct parsed {
	struct algd_config cfg;
	struct driver_setting set[MAX_SETTINGS];
	size_t nset;
};

static struct algd_config current;
static bool cmdline_engine_algd;	/* algd --engine algd */
static char config_path[PATH_MAX];

const struct algd_config *config_get(void)
{
	return &current;
}

static int parse_uint(const char *s, long max, long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_group(const char *s, gid_t *gid)
{
	long v;

	if (!parse_uint(s, INT_MAX, &v)) {
		*gid = (gid_t)v;
		return 0;
	}
	const struct group *g = getgrnam(s);
	if (!g)
		return -1;
	*gid = g->gr_gid;
	return 0;
}

/* Splits line into at most 3 words; returns how many, or 4 for more. */
static int split(char *line, char *w[3])
{
	int n = 0;

	for (char *tok = strtok(line, " \t"); tok; tok = strtok(NULL, " \t")) {
		if (n == 3)
			return 4;
		w[n++] = tok;
	}
	return n;
}

/* "dpdk-eal ARGS...": the rest of the line, as EAL's arguments. */
static const char *parse_dpdk_eal(const char *args, struct parsed *p)
{
	args += strspn(args, " \t");
	if (!*args)
		return "dpdk-eal needs EAL's arguments";
	if (strlen(args) >= sizeof(p->cfg.dpdk_eal))
		return "dpdk-eal arguments too long";
	strcpy(p->cfg.dpdk_eal, args);
	return NULL;
}

static const char *parse_line(char *line, struct parsed *p)
{
	char *w[3];
	long v;
	const char *start = line + strspn(line, " \t");
	if (!strncmp(start, "dpdk-eal", 8) && (!start[8] || start[8] == ' ' || start[8] == '\t'))
		return parse_dpdk_eal(start + 8, p);
	int n = split(line, w);

	if (n == 0)
		return NULL;
	if (!strcmp(w[0], "socket") && n == 2) {
		if (strlen(w[1]) >= sizeof(p->cfg.socket_path) || w[1][0] != '/')
			return "socket path must be absolute and under 108 bytes";
		strcpy(p->cfg.socket_path, w[1]);
		return NULL;
	}
	if (!strcmp(w[0], "admin-group") && n == 2) {
		if (parse_group(w[1], &p->cfg.admin_gid))
			return "unknown group";
		p->cfg.has_admin_gid = true;
		return NULL;
	}
	if (!strcmp(w[0], "engine") && n == 2) {
		if (strcmp(w[1], "inproc") && strcmp(w[1], "algd"))
			return "engine must be inproc or algd";
		p->cfg.engine_algd = !strcmp(w[1], "algd");
		return NULL;
	}
	if (!strcmp(w[0], "engine-algd") && n == 2) {
		if (strlen(w[1]) >= CONFIG_NAME_MAX)
			return "algorithm name too long";
		if (p->cfg.n_engine_keep == CONFIG_ENGINE_RULES_MAX)
			return "too many engine-algd settings";
		strcpy(p->cfg.engine_keep[p->cfg.n_engine_keep++], w[1]);
		return NULL;
	}
	if (!strcmp(w[0], "dpdk-device") && (n == 2 || n == 3)) {
		if (strlen(w[1]) >= sizeof(p->cfg.dpdk_devices[0].name))
			return "device name too long";
		if (p->cfg.n_dpdk_devices == CONFIG_DPDK_DEVICES_MAX)
			return "too many dpdk-device settings";
		if (n == 3 && parse_uint(w[2], INT_MAX, &v))
			return "priority must be a number from 0 to 2147483647";
		unsigned i = p->cfg.n_dpdk_devices++;
		strcpy(p->cfg.dpdk_devices[i].name, w[1]);
		p->cfg.dpdk_devices[i].priority = n == 3 ? (int)v : -1;
		return NULL;
	}
	const bool prio = !strcmp(w[0], "priority") && n == 3;
	if (prio || (!strcmp(w[0], "disable") && n == 2)) {
		if (strlen(w[1]) >= UALG_MAX_ALG_NAME)
			return "driver name too long";
		if (p->nset == MAX_SETTINGS)
			return "too many settings";
		if (prio && parse_uint(w[2], INT_MAX, &v))
			return "priority must be a number from 0 to 2147483647";
		struct driver_setting *s = &p->set[p->nset++];
		strcpy(s->driver, w[1]);
		s->disable = !prio;
		s->priority = prio ? (int)v : 0;
		return NULL;
	}
	return "expected: socket PATH | admin-group GROUP | priority DRIVER N | disable DRIVER | "
	       "engine inproc|algd | engine-algd NAME | dpdk-eal ARGS | dpdk-device NAME [N]";
}

static int parse_file(const char *path, struct parsed *p)
{
	FILE *f = fopen(path, "re");
	char line[LINE_MAX_LEN + 1];
	unsigned lineno = 0;
	int r = 0;

	if (!f) {
		algd_log(LOG_ERR, "%s: %s", path, strerror(errno));
		return -1;
	}
	memset(p, 0, sizeof(*p));
	while (!r && fgets(line, sizeof(line), f)) {
		lineno++;
		size_t len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(f)) {
			algd_log(LOG_ERR, "%s:%u: line too long", path, lineno);
			r = -1;
			break;
		}
		if (strlen(line) != len || strchr(line, '\r')) {
			algd_log(LOG_ERR, "%s:%u: stray control character", path, lineno);
			r = -1;
			break;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		const char *err = parse_line(line, p);
		if (err) {
			algd_log(LOG_ERR, "%s:%u: %s", path, lineno, err);
			r = -1;
		}
	}
	if (ferror(f))
		r = -1;
	fclose(f);
	return r;
}

static struct ualg_alg *find_driver(const char *driver)
{
	for (const struct ualg_alg *a = ualg_alg_next(NULL); a; a = ualg_alg_next(a))
		if (!strcmp(a->driver, driver))
			return (struct ualg_alg *)a;
	return NULL;
}

void config_set_engine_algd(bool algd_only)
{
	cmdline_engine_algd = algd_only;
}

bool config_engine_all_algd(void)
{
	return cmdline_engine_algd || current.engine_algd;
}

int config_engine(const char *name, bool algd)
{
	ualg_alg_changed();
	if (!name) {
		current.engine_algd = algd;
	} else if (strlen(name) >= CONFIG_NAME_MAX) {
		return -ENAMETOOLONG;
	} else {
		unsigned i = 0;
		while (i < current.n_engine_keep && strcmp(current.engine_keep[i], name))
			i++;
		if (algd && i == current.n_engine_keep) {
			if (i == CONFIG_ENGINE_RULES_MAX)
				return -ENOSPC;
			strcpy(current.engine_keep[current.n_engine_keep++], name);
		} else if (!algd && i < current.n_engine_keep) {
			memmove(current.engine_keep[i], current.engine_keep[i + 1],
				(current.n_engine_keep - i - 1) * sizeof(current.engine_keep[0]));
			current.n_engine_keep--;
		}
	}
	return 0;
}

static void apply(const struct parsed *p)
{
	for (const struct ualg_alg *a = ualg_alg_next(NULL); a; a = ualg_alg_next(a))
		((struct ualg_alg *)a)->disabled = false;
	for (size_t i = 0; i < p->nset; i++) {
		struct ualg_alg *a = find_driver(p->set[i].driver);
		if (!a) {
			algd_log(LOG_WARNING, "config: no driver %s (ignored)", p->set[i].driver);
			continue;
		}
		if (p->set[i].disable)
			a->disabled = true;
		else if (a->priority != p->set[i].priority)
			ualg_alg_set_priority(a, p->set[i].priority);
	}
	current = p->cfg;
	ualg_alg_changed();
}

/* DPDK starts with the first load only: a reload keeps the EAL arguments
 * and devices in force. */
static int load(const char *path, bool first)
{
	static struct parsed p;	/* large: not on the stack */

	if (parse_file(path, &p))
		return -1;
	if (first)
		algd_dpdk_start(&p.cfg);
	if (!first) {
		memcpy(p.cfg.dpdk_eal, current.dpdk_eal, sizeof(p.cfg.dpdk_eal));
		p.cfg.n_dpdk_devices = current.n_dpdk_devices;
		memcpy(p.cfg.dpdk_devices, current.dpdk_devices, sizeof(p.cfg.dpdk_devices));
	}
	apply(&p);
	return 0;
}

int config_load(const char *path)
{
	if (strlen(path) >= sizeof(config_path)) {
		algd_log(LOG_ERR, "config path too long");
		return -1;
	}
	strcpy(config_path, path);
	return load(path, true);
}

int config_reload(void)
{
	return config_path[0] ? load(config_path, false) : 0;
}

/* Every driver's priority (instances follow their spawns) and the
 * disabled ones, written beside the file and renamed over it. */
int config_save(void)
{
	char tmp[PATH_MAX + 8];

	if (!config_path[0])
		return -ENOENT;
	snprintf(tmp, sizeof(tmp), "%s.new", config_path);
	FILE *f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fputs("# algd configuration, written by algctl save\n", f);
	if (current.socket_path[0])
		fprintf(f, "socket %s\n", current.socket_path);
	if (current.has_admin_gid)
		fprintf(f, "admin-group %u\n", (unsigned)current.admin_gid);
	if (current.engine_algd)
		fputs("engine algd\n", f);
	for (unsigned i = 0; i < current.n_engine_keep; i++)
		fprintf(f, "engine-algd %s\n", current.engine_keep[i]);
	if (current.dpdk_eal[0])
		fprintf(f, "dpdk-eal %s\n", current.dpdk_eal);
	for (unsigned i = 0; i < current.n_dpdk_devices; i++) {
		fprintf(f, "dpdk-device %s", current.dpdk_devices[i].name);
		if (current.dpdk_devices[i].priority >= 0)
			fprintf(f, " %d", current.dpdk_devices[i].priority);
		fputc('\n', f);
	}
	for (const struct ualg_alg *a = ualg_alg_next(NULL); a; a = ualg_alg_next(a)) {
		if (ualg_alg_is_instance(a))
			continue;
		fprintf(f, "priority %s %d\n", a->driver, a->priority);
		if (a->disabled)
			fprintf(f, "disable %s\n", a->driver);
	}
	int r = ferror(f) ? -EIO : 0;
	if (fclose(f) && !r)
		r = -errno;
	if (!r && rename(tmp, config_path))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}
