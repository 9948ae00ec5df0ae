/* run_delay.h: for the ground-truth programs (truth_pthread.c, clang_omp_truth.c). */
#ifndef OA_TEST_RUN_DELAY_H
#define OA_TEST_RUN_DELAY_H

#include <stdint.h>
#include <stdio.h>

/* Nanoseconds this thread has waited on a run queue (preempted), from
 * /proc/thread-self/schedstat; -1 when not available.  (The agent records
 * nothing of reading it.) */
static inline int64_t run_delay(void)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	long long run = 0, delay = -1;
	if (f) {
		if (fscanf(f, "%lld %lld", &run, &delay) != 2)
			delay = -1;
		fclose(f);
	}
	return delay;
}

#endif
