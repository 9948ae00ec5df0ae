/* omp_gcc.c: an OpenMP program built with gcc (libgomp), which ovnirun runs
 * on LLVM libomp so that OMPT works: parallel regions, loops, sections,
 * single, critical, a lock, tasks with taskwait and taskgroup, untied tasks
 * with taskyield. Usage: omp_gcc [NTASKS]; prints one checksum line. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static long total;
static omp_lock_t lock;

NOINLINE static void gcc_child(long *acc)
{
#pragma omp atomic
	acc[0] += 1;
}

NOINLINE static void gcc_spawn(int n, long *acc)
{
	for (int i = 0; i < n; i++) {
#pragma omp task
		gcc_child(acc);
	}
#pragma omp taskwait
#pragma omp taskgroup
	{
		for (int i = 0; i < n; i++) {
#pragma omp task untied
			{
#pragma omp taskyield
				gcc_child(acc);
			}
		}
	}
}

NOINLINE static void gcc_loops(long *acc)
{
#pragma omp for schedule(dynamic, 4) reduction(+ : acc[0])
	for (int i = 0; i < 100; i++)
		acc[0] += i;
#pragma omp for schedule(static) reduction(+ : acc[0])
	for (int i = 0; i < 100; i++)
		acc[0] += i;
#pragma omp sections
	{
#pragma omp section
		gcc_child(acc);
#pragma omp section
		gcc_child(acc);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	long acc = 0, loops = 0;
	omp_init_lock(&lock);
#pragma omp parallel shared(acc, loops)
	{
		gcc_loops(&loops);
#pragma omp critical
		total += 1;
		omp_set_lock(&lock);
		total += 1;
		omp_unset_lock(&lock);
#pragma omp barrier
#pragma omp single
		gcc_spawn(n, &acc);
	}
	printf("gcc tasks=%ld loops=%ld\n", acc, loops);
	fprintf(stderr, "threads %ld\n", total / 2);
	return 0;
}
