/* algctl preload enable|disable|status (see preload_file.h).
 *
 * glibc's ld.so reads /etc/ld.so.preload in every dynamically linked
 * program, set-user-ID ones included: names separated by white space or
 * ':', '#' starting a comment.  Other entries and comments are kept as
 * they are; the file is replaced by rename(2), so a program starting
 * meanwhile reads the old file or the new one, never half of one. */
#include "preload_file.h"
#include "ualg_paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PRELOAD_FILE "/etc/ld.so.preload"
#define SHIM_NAME "libualg-preload.so"
#define FILE_MAX (1 << 20)

struct text {
	char *buf;
	size_t len;
};

/* The file's text ("" when it does not exist), or -1 (said why). */
static int read_file(const char *path, struct text *t, mode_t *mode)
{
	struct stat st;

	t->buf = NULL;
	t->len = 0;
	*mode = 0644;
	if (lstat(path, &st)) {
		if (errno != ENOENT) {
			fprintf(stderr, "algctl: %s: %s\n", path, strerror(errno));
			return -1;
		}
		t->buf = calloc(1, 1);
		return t->buf ? 0 : -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > FILE_MAX) {
		fprintf(stderr, "algctl: %s is not a regular file (edit it by hand)\n", path);
		return -1;
	}
	*mode = st.st_mode & 07777;
	FILE *f = fopen(path, "re");
	t->buf = malloc((size_t)st.st_size + 1);
	if (!f || !t->buf) {
		fprintf(stderr, "algctl: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	t->len = fread(t->buf, 1, (size_t)st.st_size, f);
	t->buf[t->len] = '\0';
	bool bad = ferror(f) || memchr(t->buf, '\0', t->len);
	fclose(f);
	if (bad) {
		fprintf(stderr, "algctl: cannot read %s\n", path);
		return -1;
	}
	return 0;
}

static bool is_ours(const char *entry, size_t len, const char *shim)
{
	const size_t nlen = strlen(SHIM_NAME);

	if (len == strlen(shim) && !memcmp(entry, shim, len))
		return true;
	/* Any copy of the shim, wherever it was installed. */
	return len > nlen && entry[len - nlen - 1] == '/' && !memcmp(entry + len - nlen, SHIM_NAME, nlen);
}

/* The first entry outside comments that is a shim: its offset and length. */
static bool find_entry(const struct text *t, const char *shim, size_t *off, size_t *len)
{
	for (size_t i = 0; i < t->len;) {
		if (t->buf[i] == '#') {
			while (i < t->len && t->buf[i] != '\n')
				i++;
			continue;
		}
		size_t n = strcspn(t->buf + i, " \t\n:#");
		if (n && is_ours(t->buf + i, n, shim)) {
			*off = i;
			*len = n;
			return true;
		}
		i += n ? n : 1;
	}
	return false;
}

/* Writes text to a new file beside path and renames it over path. */
static int replace_file(const char *path, const char *text, size_t len, mode_t mode)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s.ualg-XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int err = 0;
	if (fchmod(fd, mode) || write(fd, text, len) != (ssize_t)len || fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* The shim must be there (in the target tree): a missing entry would make
 * ld.so complain in every program. */
static int check_shim(const char *root, const char *shim)
{
	char path[PATH_MAX];
	unsigned char magic[4];
	struct stat st;

	if (shim[0] != '/') {
		fprintf(stderr, "algctl: the shim's path must be absolute: %s\n", shim);
		return -1;
	}
	snprintf(path, sizeof(path), "%s%s", root, shim);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
		  read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	if (fd >= 0)
		close(fd);
	if (!ok) {
		fprintf(stderr, "algctl: %s is missing or not an ELF shared library; not enabling it\n", path);
		return -1;
	}
	return 0;
}

static int enable(const char *path, struct text *t, mode_t mode, const char *root, const char *shim)
{
	size_t off, len;

	if (check_shim(root, shim))
		return 1;
	if (find_entry(t, shim, &off, &len)) {
		printf("already enabled: %.*s in %s\n", (int)len, t->buf + off, path);
		return 0;
	}
	size_t need = t->len + strlen(shim) + 3;
	char *out = malloc(need);
	if (!out)
		return 1;
	const char *sep = t->len && t->buf[t->len - 1] != '\n' ? "\n" : "";
	int n = snprintf(out, need, "%s%s%s\n", t->buf, sep, shim);
	int err = replace_file(path, out, (size_t)n, mode);
	free(out);
	if (err) {
		fprintf(stderr, "algctl: cannot write %s: %s\n", path, strerror(-err));
		return 1;
	}
	printf("enabled: %s in %s\n", shim, path);
	return 0;
}

/* Removes every entry of the shim, and lines left empty by that. */
static int disable(const char *path, struct text *t, mode_t mode, const char *shim)
{
	size_t off, len;
	bool changed = false;

	while (find_entry(t, shim, &off, &len)) {
		size_t end = off + len, start = off;
		/* a line holding nothing else goes as a whole */
		while (start > 0 && (t->buf[start - 1] == ' ' || t->buf[start - 1] == '\t'))
			start--;
		size_t stop = end + strspn(t->buf + end, " \t");
		if ((start == 0 || t->buf[start - 1] == '\n') && (stop == t->len || t->buf[stop] == '\n')) {
			off = start;
			end = stop < t->len ? stop + 1 : stop;
		}
		memmove(t->buf + off, t->buf + end, t->len - end + 1);
		t->len -= end - off;
		changed = true;
	}
	if (!changed) {
		printf("not enabled in %s\n", path);
		return 0;
	}
	int err = t->len == strspn(t->buf, " \t\n") ? (unlink(path) ? -errno : 0) :
		  replace_file(path, t->buf, t->len, mode);
	if (err) {
		fprintf(stderr, "algctl: cannot write %s: %s\n", path, strerror(-err));
		return 1;
	}
	printf("disabled: removed from %s\n", path);
	return 0;
}

int preload_command(const char *cmd, const char *root, const char *shim)
{
	char path[PATH_MAX];
	struct text t;
	mode_t mode;
	size_t off, len;
	int r;

	if (!shim)
		shim = UALG_INSTALLED_PRELOAD;
	if (!root)
		root = "";
	if (snprintf(path, sizeof(path), "%s%s", root, PRELOAD_FILE) >= (int)sizeof(path))
		return 1;
	if (strcmp(cmd, "enable") && strcmp(cmd, "disable") && strcmp(cmd, "status"))
		return 2;
	if (read_file(path, &t, &mode))
		return 1;
	if (!strcmp(cmd, "enable")) {
		r = enable(path, &t, mode, root, shim);
	} else if (!strcmp(cmd, "disable")) {
		r = disable(path, &t, mode, shim);
	} else if (find_entry(&t, shim, &off, &len)) {
		printf("enabled: %.*s in %s\n", (int)len, t.buf + off, path);
		r = 0;
	} else {
		printf("not enabled in %s\n", path);
		r = 1;
	}
	free(t.buf);
	return r;
}
