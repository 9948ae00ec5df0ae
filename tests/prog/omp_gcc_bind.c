/* omp_gcc_bind.c: a gcc-built OpenMP program that prints its team size, the
 * processors OpenMP sees and each thread's CPU set (in thread order): what
 * OMP_PROC_BIND, OMP_PLACES and GOMP_CPU_AFFINITY change, and what libgomp's
 * binding of the initial thread would narrow once the program runs on
 * libomp (t341). */
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#define MAXT 64

int main(void)
{
	static char sets[MAXT][64];
	int n = 0;
#pragma omp parallel
	{
		int me = omp_get_thread_num();
#pragma omp single
		n = omp_get_num_threads();
		cpu_set_t s;
		if (me < MAXT && sched_getaffinity(0, sizeof(s), &s) == 0) {
			size_t len = 0;
			for (int c = 0; c < CPU_SETSIZE && len < sizeof(sets[me]) - 8; c++)
				if (CPU_ISSET(c, &s))
					len += (size_t)snprintf(sets[me] + len, sizeof(sets[me]) - len, "%s%d",
								len ? "," : "", c);
		}
	}
	printf("threads %d procs %d\n", n, omp_get_num_procs());
	for (int i = 0; i < n && i < MAXT; i++)
		printf("thread %d cpus %s\n", i, sets[i]);
	return 0;
}
