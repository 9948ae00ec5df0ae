/* clock.h: the trace clock, CLOCK_MONOTONIC in nanoseconds (vDSO, no syscall). */
#ifndef OA_CLOCK_H
#define OA_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t oa_clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
