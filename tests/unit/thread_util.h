/* What the threaded C tests share: a wait until a thread has reached the
 * call it blocks in, instead of a sleep that guesses how long that takes. */
#ifndef UALG_TESTS_THREAD_UTIL_H
#define UALG_TESTS_THREAD_UTIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* The calling thread publishes its id for thread_asleep(). */
static inline void thread_publish(_Atomic pid_t *tid)
{
	atomic_store(tid, gettid());
}

/* The state letter of /proc/self/task/TID/stat ('S': asleep), or 0. */
static inline char thread_state(pid_t tid)
{
	char path[64], buf[512], state = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		const char *p = strrchr(buf, ')');
		if (p && p[1] == ' ')
			state = p[2];
	}
	fclose(f);
	return state;
}

/* Waits, 5 s at most, until the thread that published *tid is asleep in
 * the kernel in three samples 1 ms apart: it has reached the call it
 * blocks in.  false when it never was (the check that needs it fails). */
static inline bool thread_asleep(_Atomic pid_t *tid)
{
	const struct timespec ms = { 0, 1000000 };
	int streak = 0;
	for (int i = 0; i < 5000 && streak < 3; i++) {
		const pid_t t = atomic_load(tid);
		streak = t && thread_state(t) == 'S' ? streak + 1 : 0;
		nanosleep(&ms, NULL);
	}
	return streak >= 3;
}

#endif
