/* The CPU-bound process the benchmarks measure beside (ualg-bench's busy
 * row, ualg-sweep): forked before any AF_ALG socket exists (a fork would
 * hand the program's sockets to algd), stopped until wanted when asked,
 * and killed with its parent whatever way the parent ends (a reader that
 * closed the pipe, ^C), never left spinning. */
#ifndef UALG_TOOLS_BENCH_HOG_H
#define UALG_TOOLS_BENCH_HOG_H

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

static inline pid_t bench_hog_fork(int stopped)
{
	const pid_t parent = getpid();
	const pid_t hog = fork();
	if (hog == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(0);
		if (stopped)
			raise(SIGSTOP);
		for (volatile unsigned long x = 0;; x++)
			;
	}
	return hog;
}

#endif
