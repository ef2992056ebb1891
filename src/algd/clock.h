/* The monotonic clock in microseconds, for the event loop's and the ring
 * workers' busy-poll deadlines. */
#ifndef UALG_ALGD_CLOCK_H
#define UALG_ALGD_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

#endif
