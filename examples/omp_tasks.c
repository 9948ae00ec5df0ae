/* omp_tasks.c: a small OpenMP program for the example run: a parallel loop,
 * a critical section, and recursive tasks with taskwait. Built with clang
 * -fopenmp (LLVM libomp, which has OMPT). */
#include <omp.h>
#include <stdio.h>

static long fib(int n)
{
	long a, b;
	if (n < 2)
		return n;
	if (n < 15)
		return fib(n - 1) + fib(n - 2);
#pragma omp task shared(a)
	a = fib(n - 1);
#pragma omp task shared(b)
	b = fib(n - 2);
#pragma omp taskwait
	return a + b;
}

static double work(int i)
{
	double x = 0;
	for (int k = 0; k < 20000; k++)
		x += (double)((i * k) % 7);
	return x;
}

int main(void)
{
	double sum = 0;
	long f = 0;
#pragma omp parallel
	{
#pragma omp for schedule(dynamic, 4)
		for (int i = 0; i < 400; i++) {
			double x = work(i);
#pragma omp critical
			sum += x;
		}
#pragma omp single
		f = fib(27);
	}
	printf("sum %.0f, fib(27) %ld, %d threads\n", sum, f, omp_get_max_threads());
	return 0;
}
