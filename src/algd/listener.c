/* algd's listening socket (see listener.h). */
#include "listener.h"
#include "log.h"
#include "proto.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define SD_LISTEN_FDS_START 3

static bool activated;	/* the socket came from systemd */
static int spare_fd = -1;	/* given up to refuse a client when out of fds */

static int sockopt_int(int fd, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, opt, &v, &l) ? -1 : v;
}

/* A decimal number in 1..max, nothing else. */
static long parse_env_number(const char *s, long max)
{
	char *end;

	if (!s || s[0] < '1' || s[0] > '9')
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	return errno || *end || v > max ? -1 : v;
}

int listener_from_systemd(void)
{
	const char *pid_s = getenv("LISTEN_PID"), *fds_s = getenv("LISTEN_FDS");
	const char *names = getenv("LISTEN_FDNAMES");
	const long pid = parse_env_number(pid_s, 1L << 30);
	const long nfds = parse_env_number(fds_s, 1024);

	/* As sd_listen_fds(1): the variables are for this process only and
	 * must not reach anything it starts. */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (!pid_s || pid != (long)getpid())
		return -1;	/* meant for another process (or none) */
	const int fd = SD_LISTEN_FDS_START;
	if (nfds != 1) {
		algd_log(LOG_ERR, "systemd passed %s sockets; algd listens on exactly one",
			 fds_s ? fds_s : "no");
		return -2;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISSOCK(st.st_mode) || sockopt_int(fd, SO_DOMAIN) != AF_UNIX ||
	    sockopt_int(fd, SO_TYPE) != SOCK_SEQPACKET || sockopt_int(fd, SO_ACCEPTCONN) != 1) {
		algd_log(LOG_ERR, "the socket systemd passed (%s) is not a listening AF_UNIX "
			 "SOCK_SEQPACKET socket (ListenSequentialPacket=)", names ? names : "fd 3");
		return -2;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) || fcntl(fd, F_SETFD, FD_CLOEXEC))
		return -2;
	return fd;
}

/* The socket's directory: created private (0700, or 0711 when the policy
 * lets other users in: they may pass through but not list or plant files).
 * An existing one must be owned by us or root and writable by nobody else,
 * or another user could replace the socket with their own. */
static int socket_dir(const char *dir, const struct server_opts *opts)
{
	const mode_t mode = opts->policy.n ? 0711 : 0700;
	struct stat st;

	if (mkdir(dir, mode) == 0) {
		if (chmod(dir, mode) || (opts->drop && chown(dir, opts->uid, opts->gid))) {
			algd_log(LOG_ERR, "cannot set up %s: %s", dir, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (errno != EEXIST || stat(dir, &st)) {
		algd_log(LOG_ERR, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	const bool owner_ok = st.st_uid == 0 || st.st_uid == geteuid() ||
			      (opts->drop && st.st_uid == opts->uid);
	if (!S_ISDIR(st.st_mode) || !owner_ok || (st.st_mode & 022)) {
		algd_log(LOG_ERR, "%s must be a directory of root or this user, "
			 "writable by no one else", dir);
		return -1;
	}
	return 0;
}

/* 0600 for algd's own user, 0666 when a policy names others: then
 * SO_PEERCRED decides (on_listener). */
static int socket_perms(const char *path, const struct server_opts *opts)
{
	if (chmod(path, opts->policy.n ? 0666 : 0600) ||
	    (opts->drop && chown(path, opts->uid, opts->gid))) {
		algd_log(LOG_ERR, "cannot set up %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int listen_on(const char *path, const struct server_opts *opts)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)];

	if (strlen(path) >= sizeof(sa.sun_path)) {
		algd_log(LOG_ERR, "socket path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	strcpy(dir, path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (socket_dir(dir, opts))
			return -1;
	}
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	/* A stale socket from a dead daemon is replaced; a live one is not. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		algd_log(LOG_ERR, "another algd is serving %s", path);
		close(fd);
		return -1;
	}
	unlink(path);
	/* No window in which the socket is open to others. */
	mode_t old = umask(0177);
	int r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r || listen(fd, 128)) {
		algd_log(LOG_ERR, "cannot listen on %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (socket_perms(path, opts)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Who may connect to a passed socket is its unit's business (SocketMode=,
 * SocketUser=); algd's --allow list still applies on top. */
static void passed_path(int fd, char *path, size_t size)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);

	memset(&sa, 0, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &len) || len <= offsetof(struct sockaddr_un, sun_path))
		snprintf(path, size, "fd %d", fd);
	else if (sa.sun_path[0] == '\0')
		snprintf(path, size, "@%.*s", (int)(len - offsetof(struct sockaddr_un, sun_path) - 1),
			 sa.sun_path + 1);
	else
		snprintf(path, size, "%.*s", (int)sizeof(sa.sun_path), sa.sun_path);
}

int listener_open(const struct server_opts *opts, char *path, size_t size)
{
	int fd = listener_from_systemd();

	if (fd == -2)
		return -1;
	if (fd >= 0) {
		activated = true;
		passed_path(fd, path, size);
		return fd;
	}
	snprintf(path, size, "%s", opts->socket_path);
	return listen_on(opts->socket_path, opts);
}

void listener_close(int fd, const struct server_opts *opts)
{
	close(fd);
	if (!activated)
		unlink(opts->socket_path);
}

void listener_refuse(int fd, int err)
{
	ualg_frame_send(fd, UALG_MSG_HELLO, UALG_HDR_REPLY, -err, NULL, 0, -1);
	close(fd);
}

void listener_keep_spare(int fd)
{
	spare_fd = dup(fd);
}

void listener_refuse_pending(int fd)
{
	if (spare_fd < 0)
		return;
	close(spare_fd);
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (c >= 0)
		listener_refuse(c, EMFILE);
	spare_fd = dup(fd);
}
