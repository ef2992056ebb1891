/* A program about to be replaced: sockets algd has not seen become algd's
 * (local.c) and in-process op sockets move to algd first (inproc.c), so that the new program, which inherits the fds, finds their
 * state there, and the new program's environment names the op sockets it
 * inherits (handon.c).  glibc's exec*() and posix_spawn*() call each other
 * internally, past the PLT, so each entry point is interposed; those that
 * pass the caller's environ implicitly call the variant that takes one. */
#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* The program's sockets are about to be shared with a new image. */
static void before_sharing(void)
{
	local_share_all();
	client_settle_all();
	inproc_handover_all();
	pool_before_sharing();
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

/* Runs the call with envp, or the environment handon_env() made of it. */
#define WITH_ENV(envp, call)                                   \
	({                                                     \
		char **env_ = handon_env(envp);                \
		char *const *envp_ = env_ ? env_ : (envp);     \
		int r_ = (call);                               \
		int e_ = errno;                                \
		free(env_);                                    \
		errno = e_;                                    \
		r_;                                            \
	})

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	before_sharing();
	return WITH_ENV(envp, NEXT(execve)(path, argv, envp_));
}

EXPORT int execv(const char *path, char *const argv[])
{
	before_sharing();
	return WITH_ENV(environ, NEXT(execve)(path, argv, envp_));
}

EXPORT int execvp(const char *file, char *const argv[])
{
	before_sharing();
	return WITH_ENV(environ, NEXT(execvpe)(file, argv, envp_));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	before_sharing();
	return WITH_ENV(envp, NEXT(execvpe)(file, argv, envp_));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	before_sharing();
	return WITH_ENV(envp, NEXT(fexecve)(fd, argv, envp_));
}

/* execl, execle and execlp gather their arguments into an array. */
static char **gather(const char *arg0, va_list ap, char *const **envp)
{
	va_list n;
	size_t count = 1;
	va_copy(n, ap);
	while (va_arg(n, char *))
		count++;
	va_end(n);
	char **argv = malloc((count + 1) * sizeof(*argv));
	if (!argv)
		return NULL;
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= count; i++)
		argv[i] = va_arg(ap, char *);
	if (envp)
		*envp = va_arg(ap, char *const *);
	return argv;
}

/* execl and execlp: the list as an array, then execv or execvp. */
static int exec_list(int (*exec)(const char *, char *const[]), const char *file, const char *arg,
		     va_list ap)
{
	char **argv = gather(arg, ap, NULL);
	if (!argv)
		return -1;
	int r = exec(file, argv);
	free(argv);
	return r;
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int r = exec_list(execv, path, arg, ap);
	va_end(ap);
	return r;
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int r = exec_list(execvp, file, arg, ap);
	va_end(ap);
	return r;
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char *const *envp;
	va_start(ap, arg);
	char **argv = gather(arg, ap, &envp);
	va_end(ap);
	if (!argv)
		return -1;
	int r = execve(path, argv, envp);
	free(argv);
	return r;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	before_sharing();
	return WITH_ENV(envp, NEXT(posix_spawn)(pid, path, fa, attr, argv, envp_));
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	before_sharing();
	return WITH_ENV(envp, NEXT(posix_spawnp)(pid, file, fa, attr, argv, envp_));
}
