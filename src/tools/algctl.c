/* algctl: the administrator's view of algd's algorithms, as /proc/crypto
 * and crypto_user give one of the kernel's.
 *
 *   algctl [--socket PATH] [--json] list | show NAME | stats
 *   algctl [--socket PATH] priority DRIVER N | add NAME | del DRIVER
 *                          | disable DRIVER | enable DRIVER | save
 *                          | engine inproc|algd [NAME]
 *   algctl [--socket PATH] key add NAME --from-file FILE [--allow LIST]
 *                          | key del NAME | key list
 *   algctl [--root DIR] [--shim PATH] preload enable | disable | status
 *
 * Exit status: 0 done, 1 algd refused or found nothing, 2 usage, 3 algd
 * cannot be reached. */
#include "proto.h"
#include "msg.h"
#include "preload_file.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
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
static const char *const type_names[] = { "cipher", "shash", "skcipher", "aead", "rng",
					   "akcipher", "kpp", "scomp" };

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
	      "  save               write the settings to algd's configuration file\n"
	      "  engine inproc|algd [NAME]\n"
	      "                     where programs' AF_ALG data is served, for NAME (an\n"
	      "                     algorithm or driver) or for all: algd.conf(5), engine\n"
	      "  key add NAME --from-file FILE [--allow uid:1000,gid:ualg]\n"
	      "                     store FILE's bytes in algd as NAME; clients on the allow\n"
	      "                     list (default: root only) key transforms by\n"
	      "                     name and can never read it\n"
	      "  key del NAME       forget a key (keyed transforms keep their copy)\n"
	      "  key list           names, lengths, allow lists and uses (never key bytes)\n"
	      "  preload enable|disable|status [--root DIR] [--shim PATH]\n"
	      "                     the shim in DIR/etc/ld.so.preload for every program\n"
	      "                     (default: the running system and the installed shim)\n", f);
}

static int connect_algd(const char *path)
{
	char buf[PATH_MAX], why[256];

	if (!path) {
		if (ualg_default_socket_path(buf, sizeof(buf)))
			return -1;
		path = buf;
	}
	int fd = ualg_connect(path, why, sizeof(why));
	int r = fd < 0 ? fd : ualg_hello(fd);
	if (r) {
		if (r == -EPERM && fd < 0)
			fprintf(stderr, "algctl: refusing algd at %s: %s\n", path, why);
		else
			fprintf(stderr, "algctl: cannot reach algd at %s: %s\n", path, strerror(-r));
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
	} else if (!strcmp(cmd, "engine") && (nargs == 1 || nargs == 2) &&
		   (!strcmp(args[0], "inproc") || !strcmp(args[0], "algd"))) {
		if (nargs == 2 && copy_name(q.name, args[1]))
			return EXIT_USAGE;
		q.priority = !strcmp(args[0], "algd");
		type = UALG_MSG_ALG_ENGINE;
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

/* ---- named keys ------------------------------------------------------ */

static const char *errname(int err)
{
	const char *n = strerrorname_np(err);
	return n ? n : "?";
}

static void key_error(const char *what, const char *name, int err)
{
	const char *why = err == EPERM ? "only root, algd's own user or its admin group may do this" :
			  err == EEXIST ? "a key of that name exists (key del it first)" :
			  err == ENOKEY ? "no key of that name" :
			  err == EINVAL ? "refused: a name is 1-63 of [A-Za-z0-9._-], first a letter "
					  "or digit; a key 1-1024 bytes" :
			  err == ENOSPC ? "algd's key store is full" :
			  strerror(err);
	fprintf(stderr, "algctl: key %s%s%s: %s (%s)\n", what, name ? " " : "", name ? name : "",
		why, errname(err));
}

/* One key request: sends parts, receives the reply's data into out. */
static int key_call(int fd, uint16_t type, const struct iovec *parts, int nparts,
		    void *out, size_t outsize, size_t *outlen)
{
	struct iovec body = { out, outsize };
	struct ualg_hdr h;
	int r = ualg_frame_send(fd, type, 0, 0, parts, nparts, -1);

	*outlen = 0;
	if (r)
		return r;
	ssize_t n;
	do
		n = ualg_frame_recv(fd, &h, &body, 1, NULL, 1);
	while (n == -EINTR);
	if (n <= 0)
		return n ? (int)n : -ECONNRESET;
	if (h.type != type || !(h.flags & UALG_HDR_REPLY))
		return -EPROTO;
	*outlen = (size_t)n - sizeof(h);
	return h.result;
}

/* --allow's syntax; user and group names resolved here, since algd takes
 * numeric ids only.  Writes "uid:N,gid:N" into out. */
static int resolve_allow(const char *spec, char *out, size_t size)
{
	size_t used = 0;
	char item[128];

	out[0] = '\0';
	for (const char *s = spec; *s;) {
		size_t len = strcspn(s, ",");
		if (len < 5 || len >= sizeof(item) || (strncmp(s, "uid:", 4) && strncmp(s, "gid:", 4)))
			goto bad;
		memcpy(item, s, len);
		item[len] = '\0';
		const char *id = item + 4;
		char num[16];
		if (*id < '0' || *id > '9') {
			const struct passwd *pw = item[0] == 'u' ? getpwnam(id) : NULL;
			const struct group *gr = item[0] == 'g' ? getgrnam(id) : NULL;
			if (!pw && !gr) {
				fprintf(stderr, "algctl: --allow: no such %s: %s\n",
					item[0] == 'u' ? "user" : "group", id);
				return -1;
			}
			snprintf(num, sizeof(num), "%u", pw ? (unsigned)pw->pw_uid : (unsigned)gr->gr_gid);
			id = num;
		}
		int n = snprintf(out + used, size - used, "%s%.4s%s", used ? "," : "", item, id);
		if (n < 0 || (size_t)n >= size - used) {
			fprintf(stderr, "algctl: --allow: list too long\n");
			return -1;
		}
		used += (size_t)n;
		s += len;
		if (*s == ',' && !*++s)
			goto bad;
	}
	return 0;
bad:
	fprintf(stderr, "algctl: --allow: expected uid:N,gid:N,uid:NAME,gid:NAME, got %s\n", spec);
	return -1;
}

/* The key file's bytes, at most UALG_KEY_BYTES_MAX; wiped by the caller. */
static ssize_t read_key_file(const char *path, uint8_t *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0) {
		fprintf(stderr, "algctl: cannot open %s: %s (%s)\n", path, strerror(errno),
			errname(errno));
		return -1;
	}
	for (;;) {
		ssize_t n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "algctl: cannot read %s: %s (%s)\n", path, strerror(errno),
				errname(errno));
			close(fd);
			return -1;
		}
		if (n == 0 || (got += (size_t)n) == size)
			break;
	}
	close(fd);
	if (got == 0 || got == size) {
		fprintf(stderr, "algctl: %s: a key is 1 to %u bytes\n", path, UALG_KEY_BYTES_MAX);
		return -1;
	}
	return (ssize_t)got;
}

static int key_add(int fd, const char *name, const char *file, const char *allow_spec)
{
	static uint8_t key[UALG_KEY_BYTES_MAX + 1];
	char allow[UALG_KEY_ALLOW_MAX + 1];
	size_t got;

	if (strlen(name) > UALG_KEY_NAME_MAX) {
		key_error("add", name, EINVAL);
		return EXIT_USAGE;
	}
	if (allow_spec && resolve_allow(allow_spec, allow, sizeof(allow)))
		return EXIT_USAGE;
	ssize_t n = read_key_file(file, key, sizeof(key));
	if (n < 0)
		return EXIT_USAGE;
	struct ualg_key_add a = {
		.name_len = (uint32_t)strlen(name),
		.allow_len = allow_spec ? (uint32_t)strlen(allow) : 0,
		.key_len = (uint32_t)n,
	};
	struct iovec parts[] = {
		{ &a, sizeof(a) }, { (void *)name, a.name_len }, { allow, a.allow_len }, { key, (size_t)n },
	};
	int r = key_call(fd, UALG_MSG_KEY_ADD, parts, 4, NULL, 0, &got);
	explicit_bzero(key, sizeof(key));
	if (r < 0) {
		key_error("add", name, -r);
		return EXIT_REFUSED;
	}
	return 0;
}

static int key_del(int fd, const char *name)
{
	size_t got;

	if (strlen(name) > UALG_KEY_NAME_MAX) {
		key_error("del", name, EINVAL);
		return EXIT_USAGE;
	}
	struct ualg_key_name q = { .name_len = (uint32_t)strlen(name) };
	struct iovec parts[] = { { &q, sizeof(q) }, { (void *)name, q.name_len } };
	int r = key_call(fd, UALG_MSG_KEY_DEL, parts, 2, NULL, 0, &got);
	if (r < 0) {
		key_error("del", name, -r);
		return EXIT_REFUSED;
	}
	return 0;
}

static int key_list(int fd)
{
	static struct ualg_key_rec chunk[UALG_DATA_MAX / sizeof(struct ualg_key_rec)];
	struct ualg_key_list_req q = { .start = 0 };
	struct iovec part = { &q, sizeof(q) };
	size_t got;
	int n;

	if (json)
		putchar('[');
	else
		printf("%-32s %6s %10s  %s\n", "name", "bytes", "uses", "allow");
	while ((n = key_call(fd, UALG_MSG_KEY_LIST, &part, 1, chunk, sizeof(chunk), &got)) > 0) {
		if (ualg_decode_key_list_reply(n, got))
			n = -EPROTO;
		for (int i = 0; i < n; i++) {
			struct ualg_key_rec *r = &chunk[i];
			r->name[sizeof(r->name) - 1] = r->allow[sizeof(r->allow) - 1] = '\0';
			if (json) {
				printf("%s{", q.start + (uint32_t)i ? ",\n " : "");
				json_string("name", r->name);
				json_string("allow", r->allow);
				printf("\"bytes\": %u, \"uses\": %llu}", r->key_len,
				       (unsigned long long)r->uses);
			} else {
				printf("%-32s %6u %10llu  %s\n", r->name, r->key_len,
				       (unsigned long long)r->uses,
				       r->allow[0] ? r->allow : "(root only)");
			}
		}
		if (n < 0)
			break;
		q.start += (uint32_t)n;
	}
	if (json)
		puts("]");
	if (n < 0) {
		key_error("list", NULL, -n);
		return EXIT_REFUSED;
	}
	return 0;
}

static int cmd_key(int fd, char **args, int nargs, const char *file, const char *allow)
{
	if (nargs == 2 && !strcmp(args[0], "add") && file)
		return key_add(fd, args[1], file, allow);
	if (file || allow) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (nargs == 2 && !strcmp(args[0], "del"))
		return key_del(fd, args[1]);
	if (nargs == 1 && !strcmp(args[0], "list"))
		return key_list(fd);
	usage(stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "from-file", required_argument, NULL, 'f' },
		{ "allow", required_argument, NULL, 'a' },
		{ "root", required_argument, NULL, 'r' },
		{ "shim", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL, *key_file = NULL, *allow = NULL, *root = NULL, *shim = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': path = optarg; break;
		case 'j': json = true; break;
		case 'f': key_file = optarg; break;
		case 'a': allow = optarg; break;
		case 'r': root = optarg; break;
		case 'S': shim = optarg; break;
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
	if ((root || shim) && strcmp(cmd, "preload")) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "preload")) {	/* a file of this host: no algd involved */
		int r = nargs == 1 && !key_file && !allow ? preload_command(args[0], root, shim) : EXIT_USAGE;
		if (r == EXIT_USAGE)
			usage(stderr);
		return r;
	}
	const bool printing = !strcmp(cmd, "list") || !strcmp(cmd, "stats") || !strcmp(cmd, "show");
	const bool key = !strcmp(cmd, "key");
	if ((printing && nargs != !strcmp(cmd, "show")) || (!key && (key_file || allow))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	int fd = connect_algd(path);
	if (fd < 0)
		return EXIT_NO_ALGD;
	int r = key ? cmd_key(fd, args, nargs, key_file, allow) :
		printing ? cmd_print(fd, cmd, nargs ? args[0] : NULL) : cmd_change(fd, cmd, args, nargs);
	close(fd);
	return r;
}
