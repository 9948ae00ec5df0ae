/* omp_fib.c: fib(N) with tasks down to a depth cutoff (default fib(30),
 * cutoff 20: 1.43M tasks); prints the time of the parallel region.
 * Build with clang -fopenmp. Usage: omp_fib [N [CUTOFF]] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int cutoff;

static long fib_seq(int n)
{
	return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2);
}

static long fib(int n, int depth)
{
	long a, b;
	if (n < 2)
		return n;
	if (depth >= cutoff)
		return fib_seq(n);
#pragma omp task shared(a)
	a = fib(n - 1, depth + 1);
#pragma omp task shared(b)
	b = fib(n - 2, depth + 1);
#pragma omp taskwait
	return a + b;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	cutoff = argc > 2 ? atoi(argv[2]) : 20;
	long r = 0;
	double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
	r = fib(n, 0);
	double t1 = omp_get_wtime();
	printf("fib(%d, cutoff %d) = %ld  %.4f s\n", n, cutoff, r, t1 - t0);
	return 0;
}
