/* omp_regions.c: many short parallel regions, each a `master` + `taskloop
 * num_tasks(k)` (k = 1..120) over a small array, then a `single` + taskloop
 * grainsize(g): the pattern of OpenMP test suites and of codes with small
 * time steps.  Prints the time of the loop of regions.
 * Build with clang -fopenmp.  Usage: omp_regions [REGIONS] (default 3600) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256
static double a[N];

int main(int argc, char **argv)
{
	int regions = argc > 1 ? atoi(argv[1]) : 3600;
	double sum = 0, t0 = omp_get_wtime();
	for (int r = 0; r < regions; r++) {
		int k = 1 + r % 120, g = 1 + r % 64;
#pragma omp parallel
		{
#pragma omp master
			{
#pragma omp taskloop num_tasks(k)
				for (int i = 0; i < N; i++)
					a[i] = (double)i * r;
			}
#pragma omp barrier
#pragma omp single
			{
#pragma omp taskloop grainsize(g)
				for (int i = 0; i < N; i++)
					a[i] += 1;
			}
		}
		sum += a[r % N];
	}
	printf("regions %d sum %.0f time %.4f s\n", regions, sum, omp_get_wtime() - t0);
	return 0;
}
