/* algd's log (see log.h). */
#include "log.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static bool to_journal;
static int verbosity;

/* systemd sets JOURNAL_STREAM to "DEV:INO" of the stream it connected to
 * stderr; if stderr is still that stream, journald reads our prefixes. */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char tail;

	if (!e || sscanf(e, "%llu:%llu%c", &dev, &ino, &tail) != 2 || fstat(STDERR_FILENO, &st))
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_init(void)
{
	to_journal = stderr_is_journal();
}

void algd_vlog(int prio, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	/* One write per line, so that lines of threads never interleave. */
	if (to_journal)
		fprintf(stderr, "<%d>%s\n", prio & LOG_PRIMASK, line);
	else
		fprintf(stderr, "algd: %s\n", line);
}

void algd_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	algd_vlog(prio, fmt, ap);
	va_end(ap);
}

void log_set_verbosity(int verbose)
{
	verbosity = verbose;
}

void log_verbose(int level, const char *fmt, ...)
{
	if (level > verbosity)
		return;
	va_list ap;
	va_start(ap, fmt);
	algd_vlog(level == 0 ? LOG_NOTICE : level == 1 ? LOG_INFO : LOG_DEBUG, fmt, ap);
	va_end(ap);
}
