/* Op sockets handed on across execve(): the new program finds each op
 * socket's token (proto.h, ATTACH) in $UALG_CHANNELS, FD:COOKIE:TOKEN
 * entries separated by commas, so that its very first request, the
 * DESCRIBE that tells it what the fd is, already goes on a channel of its
 * own and never on the stream the fd shares with the processes that had
 * it before.  COOKIE is the socket's SO_COOKIE, which tells the new
 * program whether FD is still that socket (a spawn's file actions, or the
 * program between fork and exec, may have put another there); a stale or
 * foreign entry is ignored, and DESCRIBE goes on the fd as it would
 * without one.  A token is a capability among the processes of one uid,
 * as the environment is. */
#include "shim.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VAR "UALG_CHANNELS"
#define ENTRY_MAX (12 + 1 + 16 + 1 + 2 * UALG_TOKEN_BYTES + 1)
#define ENTRIES_MAX 64

static uint64_t cookie_of(int fd)
{
	uint64_t c = 0;
	socklen_t l = sizeof(c);
	return real.getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c, &l) ? 0 : c;
}

/* ---- the program that execs ------------------------------------------- */

static char value[sizeof(VAR) + ENTRIES_MAX * ENTRY_MAX];
static size_t used, entries;

static void add(int fd, struct afd *a)
{
	const int fl = real.fcntl(fd, F_GETFD);
	const uint64_t cookie = a->op && a->has_token && fl >= 0 && !(fl & FD_CLOEXEC) ? cookie_of(fd) : 0;
	if (!cookie || entries == ENTRIES_MAX)
		return;
	int n = snprintf(value + used, sizeof(value) - used, "%s%d:%llx:", entries ? "," : "", fd,
			 (unsigned long long)cookie);
	for (size_t i = 0; i < UALG_TOKEN_BYTES && n > 0; i++)
		n += snprintf(value + used + (size_t)n, sizeof(value) - used - (size_t)n, "%02x", a->token[i]);
	used += (size_t)n;
	entries++;
}

char **handon_env(char *const envp[])
{
	size_t n = 0, stale = 0;
	for (; envp && envp[n]; n++)
		stale += !strncmp(envp[n], VAR "=", sizeof(VAR));
	used = (size_t)snprintf(value, sizeof(value), VAR "=");
	entries = 0;
	afd_for_each(add);
	if (!entries && !stale)
		return NULL;
	char **env = malloc((n + 2) * sizeof(*env));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], VAR "=", sizeof(VAR)))
			env[k++] = envp[i];
	if (entries)
		env[k++] = value;
	env[k] = NULL;
	return env;
}

/* ---- the program exec()ed --------------------------------------------- */

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool handon_token(int fd, uint8_t token[UALG_TOKEN_BYTES])
{
	const char *v = getenv(VAR);
	const uint64_t cookie = v ? cookie_of(fd) : 0;
	while (v && cookie && *v) {
		char *end;
		const long f = strtol(v, &end, 10);
		unsigned long long c = 0;
		bool good = *end == ':';
		if (good)
			c = strtoull(end + 1, &end, 16);
		good = good && *end == ':';
		const char *t = end + 1;
		for (size_t i = 0; good && i < UALG_TOKEN_BYTES; i++) {
			const int hi = hexval(t[2 * i]), lo = hi < 0 ? -1 : hexval(t[2 * i + 1]);
			good = lo >= 0;
			if (good)
				token[i] = (uint8_t)(hi << 4 | lo);
		}
		if (good && f == fd && c == cookie)
			return true;
		v = strchr(v, ',');
		v = v ? v + 1 : NULL;
	}
	return false;
}
