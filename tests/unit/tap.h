/* A minimal TAP producer for the unit tests: ok() per check, then
 * tap_done() prints the plan and gives main()'s exit status.  Each line
 * goes out at once, so a run cut short (a timeout, a crash) shows the
 * checks it made. */
#ifndef UALG_TESTS_TAP_H
#define UALG_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int n_test, n_fail;

__attribute__((format(printf, 2, 3)))
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%sok %d - ", cond ? "" : "not ", ++n_test);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	n_fail += !cond;
}

static inline int tap_done(void)
{
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}

#endif
