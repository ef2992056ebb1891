/* algctl: the administrator's view of algd's algorithms, as /proc/crypto
 * and crypto_user give one of the kernel's.
 *
 *   algctl [--socket PATH] [--json] list | show NAME | stats
 *   algctl [--socket PATH] priority DRIVER N | add NAME | del DRIVER
 *                          | disable DRIVER | enable DRIVER | save
 *
 * Exit status: 0 done, 1 algd refused or found nothing, 2 usage, 3 algd
 * cannot be reached. */
#include "proto.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

enum { EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NO_ALGD = 3 };

/* The core's enum ualg_alg_type and enum ualg_selftest, as /proc/crypto
 * names them. */
static const char *const type_names[] = { "cipher", "shash", "skcipher", "aead", "rng" };

static bool json;

static void usage(FILE *f)
{
	fputs("usage: algctl [--socket PATH] [--json] COMMAND\n"
	      "  list               every driver, in /proc/crypto's format\n"
	      "  show NAME          the drivers whose name or driver name is NAME\n"
	      "  stats              operations, bytes and errors per driver\n"
	      "  priority DRIVER N  set DRIVER's priority (new transforms follow it)\n"
	      "  add NAME           instantiate a template, e.g. 'cbc(aes)'\n"
	      "  del DRIVER         remove an unused template instance\n"
	      "  disable DRIVER     keep DRIVER out of lookups; enable DRIVER undoes it\n"
	      "  save               write the settings to algd's configuration file\n", f);
}

static int connect_algd(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[sizeof(sa.sun_path)];

	if (!path) {
		if (ualg_default_socket_path(buf, sizeof(buf)))
			return -1;
		path = buf;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "algctl: socket path too long\n");
		return -1;
	}
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) || ualg_hello(fd)) {
		fprintf(stderr, "algctl: cannot reach algd at %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The whole registry, newest first as /proc/crypto lists it. */
static struct ualg_alg_rec *fetch_all(int fd, size_t *count)
{
	static struct ualg_alg_rec chunk[UALG_DATA_MAX / sizeof(struct ualg_alg_rec)];
	struct ualg_alg_req q = { .start = 0 };
	struct ualg_alg_rec *all = NULL;
	size_t got;
	int n;

	*count = 0;
	while ((n = ualg_admin_call(fd, UALG_MSG_ALG_DUMP, &q, chunk, sizeof(chunk), &got)) > 0) {
		struct ualg_alg_rec *more = realloc(all, (*count + (size_t)n) * sizeof(*all));
		if (!more) {
			free(all);
			return NULL;
		}
		all = more;
		memcpy(all + *count, chunk, (size_t)n * sizeof(*all));
		*count += (size_t)n;
		q.start += (uint32_t)n;
	}
	if (n < 0) {
		fprintf(stderr, "algctl: listing failed: %s\n", strerror(-n));
		free(all);
		return NULL;
	}
	return all ? all : malloc(1);
}

static const char *type_name(const struct ualg_alg_rec *r)
{
	return r->type < sizeof(type_names) / sizeof(type_names[0]) ? type_names[r->type] : "unknown";
}

/* crypto/proc.c c_show() and the types' show functions. */
static void print_stanza(const struct ualg_alg_rec *r)
{
	printf("name         : %s\n", r->name);
	printf("driver       : %s\n", r->driver);
	printf("module       : %s\n", r->module);
	printf("priority     : %d\n", r->priority);
	printf("refcnt       : %u\n", r->refcnt);
	printf("selftest     : %s\n", (r->kflags & UALG_KFLAG_TESTED) ? "passed" : "unknown");
	printf("internal     : no\n");
	if (r->fips != UALG_FIPS_OFF)	/* crypto/proc.c: only when fips_enabled */
		printf("fips         : %s\n", r->fips == UALG_FIPS_APPROVED ? "yes" : "no");
	printf("type         : %s\n", type_name(r));
	switch (r->type) {
	case 0:
		printf("blocksize    : %u\nmin keysize  : %u\nmax keysize  : %u\n",
		       r->blocksize, r->min_keysize, r->max_keysize);
		break;
	case 1:
		printf("blocksize    : %u\ndigestsize   : %u\n", r->blocksize, r->digestsize);
		break;
	case 2:
		printf("async        : no\nblocksize    : %u\nmin keysize  : %u\nmax keysize  : %u\n"
		       "ivsize       : %u\nchunksize    : %u\nwalksize     : %u\n",
		       r->blocksize, r->min_keysize, r->max_keysize, r->ivsize, r->chunksize,
		       r->chunksize);
		break;
	case 3:
		printf("async        : no\nblocksize    : %u\nivsize       : %u\nmaxauthsize  : %u\n"
		       "geniv        : <none>\n", r->blocksize, r->ivsize, r->maxauthsize);
		break;
	case 4:
		printf("seedsize     : %u\n", r->seedsize);
		break;
	}
	putchar('\n');
}

static void json_string(const char *key, const char *s)
{
	printf("\"%s\": \"", key);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	printf("\", ");
}

static void print_json(const struct ualg_alg_rec *r, bool first)
{
	printf("%s{", first ? "" : ",\n ");
	json_string("name", r->name);
	json_string("driver", r->driver);
	json_string("module", r->module);
	printf("\"priority\": %d, \"refcnt\": %u, ", r->priority, r->refcnt);
	json_string("selftest", (r->kflags & UALG_KFLAG_TESTED) ? "passed" : "unknown");
	json_string("type", type_name(r));
	printf("\"instance\": %s, \"disabled\": %s, ", (r->kflags & UALG_KFLAG_INSTANCE) ? "true" : "false",
	       r->disabled ? "true" : "false");
	if (r->fips != UALG_FIPS_OFF)
		printf("\"fips\": %s, ", r->fips == UALG_FIPS_APPROVED ? "true" : "false");
	printf("\"blocksize\": %u, ", r->blocksize);
	if (r->type == 1)
		printf("\"digestsize\": %u, ", r->digestsize);
	else if (r->type == 0 || r->type == 2)
		printf("\"min_keysize\": %u, \"max_keysize\": %u, ", r->min_keysize, r->max_keysize);
	if (r->type == 2)
		printf("\"ivsize\": %u, \"chunksize\": %u, ", r->ivsize, r->chunksize);
	else if (r->type == 3)
		printf("\"ivsize\": %u, \"maxauthsize\": %u, ", r->ivsize, r->maxauthsize);
	else if (r->type == 4)
		printf("\"seedsize\": %u, ", r->seedsize);
	printf("\"stats\": {\"ops\": %llu, \"bytes\": %llu, \"errors\": %llu}}",
	       (unsigned long long)r->ops, (unsigned long long)r->bytes,
	       (unsigned long long)r->errors);
}

/* list, show and stats: one pass over the registry. */
static int cmd_print(int fd, const char *cmd, const char *only)
{
	size_t n, shown = 0;
	struct ualg_alg_rec *all = fetch_all(fd, &n);

	if (!all)
		return EXIT_REFUSED;
	if (json)
		putchar('[');
	if (!json && !strcmp(cmd, "stats"))
		printf("%-32s %12s %16s %8s\n", "driver", "ops", "bytes", "errors");
	for (size_t i = 0; i < n; i++) {
		const struct ualg_alg_rec *r = &all[i];
		if (only && strcmp(r->name, only) && strcmp(r->driver, only))
			continue;
		if (json)
			print_json(r, !shown);
		else if (!strcmp(cmd, "stats"))
			printf("%-32s %12llu %16llu %8llu\n", r->driver, (unsigned long long)r->ops,
			       (unsigned long long)r->bytes, (unsigned long long)r->errors);
		else
			print_stanza(r);
		shown++;
	}
	if (json)
		puts("]");
	free(all);
	if (only && !shown) {
		fprintf(stderr, "algctl: no algorithm named %s\n", only);
		return EXIT_REFUSED;
	}
	return 0;
}

static int copy_name(char dst[128], const char *src)
{
	if (strlen(src) >= 128) {
		fprintf(stderr, "algctl: name too long: %.40s...\n", src);
		return -1;
	}
	strcpy(dst, src);
	return 0;
}

static int parse_priority(const char *s, uint32_t *out)
{
	char *end;

	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < 0 || v > INT_MAX) {
		fprintf(stderr, "algctl: priority must be a number from 0 to %d\n", INT_MAX);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int cmd_change(int fd, const char *cmd, char **args, int nargs)
{
	struct ualg_alg_req q = { .flags = 0 };
	uint16_t type;
	size_t got;

	if (!strcmp(cmd, "save") && nargs == 0) {
		type = UALG_MSG_ALG_SAVE;
	} else if (!strcmp(cmd, "priority") && nargs == 2) {
		if (copy_name(q.driver, args[0]) || parse_priority(args[1], &q.priority))
			return EXIT_USAGE;
		q.flags = UALG_ALG_REQ_EXACT | UALG_ALG_REQ_PRIORITY;
		type = UALG_MSG_ALG_UPDATE;
	} else if (!strcmp(cmd, "add") && nargs == 1) {
		if (copy_name(q.name, args[0]))
			return EXIT_USAGE;
		type = UALG_MSG_ALG_NEW;
	} else if ((!strcmp(cmd, "del") || !strcmp(cmd, "disable") || !strcmp(cmd, "enable")) &&
		   nargs == 1) {
		if (copy_name(q.driver, args[0]))
			return EXIT_USAGE;
		q.flags = UALG_ALG_REQ_EXACT;
		type = !strcmp(cmd, "del") ? UALG_MSG_ALG_DEL : UALG_MSG_ALG_DISABLE;
		q.priority = !strcmp(cmd, "disable");
	} else {
		usage(stderr);
		return EXIT_USAGE;
	}
	int r = ualg_admin_call(fd, type, &q, NULL, 0, &got);
	if (r < 0) {
		const char *why = r == -EPERM ? "only root or algd's admin group may change algorithms" :
				  r == -EBUSY ? "in use" :
				  r == -EEXIST ? "already registered" :
				  r == -EINVAL && type == UALG_MSG_ALG_DEL ? "not a template instance" :
				  r == -ENOENT && type == UALG_MSG_ALG_SAVE ? "algd runs without --config" :
				  strerror(-r);
		fprintf(stderr, "algctl: %s%s%s: %s\n", cmd, nargs ? " " : "", nargs ? args[0] : "", why);
		return EXIT_REFUSED;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': path = optarg; break;
		case 'j': json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[optind];
	char **args = argv + optind + 1;
	const int nargs = argc - optind - 1;
	const bool printing = !strcmp(cmd, "list") || !strcmp(cmd, "stats") || !strcmp(cmd, "show");
	if (printing && nargs != !strcmp(cmd, "show")) {
		usage(stderr);
		return EXIT_USAGE;
	}
	int fd = connect_algd(path);
	if (fd < 0)
		return EXIT_NO_ALGD;
	int r = printing ? cmd_print(fd, cmd, nargs ? args[0] : NULL) : cmd_change(fd, cmd, args, nargs);
	close(fd);
	return r;
}
