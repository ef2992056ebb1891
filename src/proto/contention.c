/* Waiting for the other side (proto.h): how long a client polls
 * (ualg_poll_us()), and whether polling can pay now (ualg_cpu_contended()). */
#include "proto.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_NS 2000000u	/* how long one reading of the load stands */

static _Atomic uint64_t sampled_at;	/* 0: never */
static atomic_bool contended;
static atomic_int cpus;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);	/* the vDSO: no system call */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* /proc/loadavg's "R/T" field: the tasks runnable now.  Raw system calls:
 * the shim interposes open(), and the fd is never the program's. */
static int runnable(void)
{
	char buf[128];
	const int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/loadavg", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	const ssize_t n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *p = buf;
	for (int field = 0; field < 3 && p; field++) {
		while (*p && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
	}
	return *p ? atoi(p) : -1;
}

unsigned ualg_poll_us(void)
{
	static atomic_int cached = -1;
	int v = atomic_load_explicit(&cached, memory_order_relaxed);
	if (v < 0) {
		const char *e = getenv("UALG_POLL_US");
		v = e && *e ? atoi(e) : (int)UALG_POLL_US_DEFAULT;
		v = v < 0 ? 0 : v > (int)UALG_POLL_US_MAX ? (int)UALG_POLL_US_MAX : v;
		atomic_store_explicit(&cached, v, memory_order_relaxed);
	}
	return (unsigned)v;
}

uint64_t ualg_poll_window_ns(unsigned poll_us, uint64_t bytes)
{
	const uint64_t data_us = bytes / 512 < UALG_POLL_US_MAX ? bytes / 512 : UALG_POLL_US_MAX;
	return poll_us ? (poll_us + data_us) * 1000u : 0;
}

bool ualg_cpu_contended(void)
{
	const uint64_t now = now_ns();
	const uint64_t last = atomic_load_explicit(&sampled_at, memory_order_relaxed);
	if (last && now - last < SAMPLE_NS)
		return atomic_load_explicit(&contended, memory_order_relaxed);
	atomic_store_explicit(&sampled_at, now, memory_order_relaxed);
	int n = atomic_load_explicit(&cpus, memory_order_relaxed);
	if (!n) {
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
		atomic_store_explicit(&cpus, n > 0 ? n : 1, memory_order_relaxed);
	}
	const int r = runnable();
	const bool busy = r > 0 && r > n;
	atomic_store_explicit(&contended, busy, memory_order_relaxed);
	return busy;
}
