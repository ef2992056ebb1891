/* Whether this process emulates AF_ALG, and which algd serves it.
 *
 * Run by ualg-run ($UALG_SOCKET is set): always, through $UALG_SOCKET.
 * Loaded into every program (/etc/ld.so.preload, `algctl preload enable`):
 * as the file UALG_SYSCONFDIR/preload.conf says, one setting a line:
 *     mode auto        emulate only if the kernel has no AF_ALG (default)
 *     mode always      emulate even where the kernel has it
 *     mode off         never emulate
 *     socket PATH      the system algd (default /run/ualg/algd.sock)
 * A missing file means the defaults; one that does not parse means off
 * (the shim never guesses in every program of the host).  $UALG_PRELOAD_MODE
 * (auto, always, off) overrides the mode (algd sets off for itself) and
 * $UALG_PRELOAD_CONF names another file; a set-user-ID program (secure
 * execution) ignores all three variables and $UALG_SOCKET.
 *
 * Decided once, at the first AF_ALG or NETLINK_CRYPTO socket (or inherited
 * candidate fd): a program that never asks pays nothing.  In auto mode the
 * kernel is probed with the real socket(AF_ALG); while algd is not running
 * the emulated socket() fails with EAFNOSUPPORT, as such a kernel's would.
 * Nothing is ever printed. */
#include "shim.h"
#include "kabi.h"
#include "ualg_paths.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

enum shim_mode { MODE_AUTO, MODE_ALWAYS, MODE_OFF };

#define CONF_MAX 4096
#define SOCKET_PATH_MAX sizeof(((struct sockaddr_un *)0)->sun_path)

static pthread_once_t decide_once = PTHREAD_ONCE_INIT;
static enum shim_mode mode;
static char socket_path[SOCKET_PATH_MAX];
enum { KERNEL_UNKNOWN, KERNEL_HAS_AF_ALG, KERNEL_LACKS_AF_ALG };
static atomic_int kernel = KERNEL_UNKNOWN;

static int parse_mode(const char *s, enum shim_mode *m)
{
	if (!strcmp(s, "auto"))
		*m = MODE_AUTO;
	else if (!strcmp(s, "always"))
		*m = MODE_ALWAYS;
	else if (!strcmp(s, "off"))
		*m = MODE_OFF;
	else
		return -1;
	return 0;
}

static int set_socket_path(const char *p)
{
	if (p[0] != '/' || strlen(p) >= sizeof(socket_path))
		return -1;
	strcpy(socket_path, p);
	return 0;
}

/* One line, without its newline: "", "# ...", "mode WORD", "socket PATH". */
static int parse_line(char *line)
{
	char *save, *key = strtok_r(line, " \t", &save);
	if (!key || key[0] == '#')
		return 0;
	char *value = strtok_r(NULL, " \t", &save);
	if (!value || strtok_r(NULL, " \t", &save))
		return -1;
	if (!strcmp(key, "mode"))
		return parse_mode(value, &mode);
	if (!strcmp(key, "socket"))
		return set_socket_path(value);
	return -1;
}

static int parse_conf(char *text, size_t len)
{
	if (memchr(text, '\0', len))
		return -1;
	text[len] = '\0';
	for (char *rest = text, *line; (line = strsep(&rest, "\n"));)
		if (parse_line(line))
			return -1;
	return 0;
}

static void read_conf(const char *path)
{
	static char text[CONF_MAX + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t len = 0;
	ssize_t n = 0;

	if (fd < 0)
		return;		/* no file: the defaults */
	while (len < CONF_MAX && (n = read(fd, text + len, CONF_MAX - len)) > 0)
		len += (size_t)n;
	char more;
	bool bad = n < 0 || (len == CONF_MAX && read(fd, &more, 1) != 0);
	real.close(fd);
	if (bad || parse_conf(text, len))
		mode = MODE_OFF;
}

static void decide(void)
{
	const char *sock = secure_getenv("UALG_SOCKET");
	const char *env_mode = secure_getenv("UALG_PRELOAD_MODE");

	if (sock && *sock) {		/* ualg-run, or a user who asked */
		mode = set_socket_path(sock) ? MODE_OFF : MODE_ALWAYS;
	} else {
		const char *conf = secure_getenv("UALG_PRELOAD_CONF");
		mode = MODE_AUTO;
		strcpy(socket_path, UALG_SYSTEM_SOCKET);
		read_conf(conf && *conf ? conf : UALG_SYSCONFDIR "/preload.conf");
	}
	if (env_mode && parse_mode(env_mode, &mode))
		mode = MODE_OFF;
}

/* The kernel's own AF_ALG, probed once with the real socket(). */
static bool kernel_lacks_af_alg(void)
{
	int k = atomic_load(&kernel);

	if (k == KERNEL_UNKNOWN) {
		int fd = real.socket(KABI_AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			real.close(fd);
			k = KERNEL_HAS_AF_ALG;
		} else if (errno == EAFNOSUPPORT) {
			k = KERNEL_LACKS_AF_ALG;
		} else {
			return false;	/* out of fds, a filter: ask again later */
		}
		atomic_store(&kernel, k);
	}
	return k == KERNEL_LACKS_AF_ALG;
}

bool shim_active(void)
{
	const int saved = errno;
	bool active;

	shim_resolve();
	pthread_once(&decide_once, decide);
	active = mode == MODE_ALWAYS || (mode == MODE_AUTO && kernel_lacks_af_alg());
	errno = saved;
	return active;
}

const char *shim_socket_path(void)
{
	pthread_once(&decide_once, decide);
	return socket_path;
}

/* /dev/crypto (devcrypto.c) is served unless the mode is off: it is only
 * ever served where the kernel has none. */
bool shim_devcrypto_enabled(void)
{
	pthread_once(&decide_once, decide);
	return mode != MODE_OFF;
}

/* A module installed beside this shim (libualg-engine.so,
 * libualg-cryptodev.so), opened on first use: NULL, with dlerror(), when
 * it cannot be. */
void *shim_dlopen_beside(const char *file)
{
	Dl_info info;
	char path[PATH_MAX];
	if (!dladdr((void *)shim_dlopen_beside, &info) || !info.dli_fname)
		return NULL;
	const char *slash = strrchr(info.dli_fname, '/');
	int n = snprintf(path, sizeof(path), "%.*s%s", slash ? (int)(slash - info.dli_fname + 1) : 0,
			 info.dli_fname, file);
	if (n < 0 || (size_t)n >= sizeof(path))
		return NULL;
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}
