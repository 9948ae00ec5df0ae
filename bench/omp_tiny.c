/* omp_tiny.c: N empty tasks created from one single (default 1e6); prints
 * the time of the parallel region. Build with clang -fopenmp.
 * Usage: omp_tiny [N] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
	for (long i = 0; i < n; i++) {
#pragma omp task
		sink++;
	}
	double t1 = omp_get_wtime();
	printf("tiny %ld tasks  %.4f s\n", n, t1 - t0);
	return 0;
}
