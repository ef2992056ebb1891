/* algd's log: one line per message on stderr.  Started by hand each line
 * reads "algd: TEXT"; under systemd, when stderr is the journal
 * ($JOURNAL_STREAM names it), each line starts with its syslog level,
 * "<N>TEXT", which journald records as the entry's priority. */
#ifndef UALG_ALGD_LOG_H
#define UALG_ALGD_LOG_H

#include <stdarg.h>
#include <syslog.h>

/* Decides the format; call first thing in main. */
void log_init(void);
/* prio: LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG. */
void algd_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void algd_vlog(int prio, const char *fmt, va_list ap);

/* The event loop's messages by verbosity: level 0 is always logged (as
 * LOG_NOTICE), 1 with -v (LOG_INFO), 2 with -vv (LOG_DEBUG). */
void log_set_verbosity(int verbose);
void log_verbose(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
