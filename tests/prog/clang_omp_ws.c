/* clang_omp_ws.c: OpenMP worksharing and synchronisation for the OMPT tests
 * (built with clang -fopenmp).  Every construct sits in a function of its
 * own, so the trace's worksharing labels are these function names.
 * Usage: clang_omp_ws [nthreads]; prints one checksum line. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* One counter per protection, so that the result never races. */
static long total, crit, named, locked, nested;
static omp_lock_t lock;
static omp_nest_lock_t nlock;

__attribute__((noinline)) static void ws_static_loop(long *acc)
{
#pragma omp for schedule(static) reduction(+ : acc[0])
	for (int i = 0; i < 1000; i++)
		acc[0] += i;
}

__attribute__((noinline)) static void ws_dynamic_loop(long *acc)
{
#pragma omp for schedule(dynamic, 7) reduction(+ : acc[0])
	for (int i = 0; i < 1000; i++)
		acc[0] += i;
}

__attribute__((noinline)) static void ws_guided_loop(long *acc)
{
#pragma omp for schedule(guided) reduction(+ : acc[0])
	for (int i = 0; i < 1000; i++)
		acc[0] += i;
}

__attribute__((noinline)) static void ws_sections(long *acc)
{
#pragma omp sections reduction(+ : acc[0])
	{
#pragma omp section
		acc[0] += 1;
#pragma omp section
		acc[0] += 2;
#pragma omp section
		acc[0] += 3;
	}
}

__attribute__((noinline)) static void ws_single(long *acc)
{
#pragma omp single
	acc[0] += 100;
}

__attribute__((noinline)) static void sync_master(void)
{
#pragma omp master
	{
#pragma omp atomic
		total += 10;
	}
#pragma omp barrier
}

__attribute__((noinline)) static void sync_masked(void)
{
#pragma omp masked
	{
#pragma omp atomic
		total += 20;
	}
#pragma omp barrier
}

__attribute__((noinline)) static void sync_critical(void)
{
#pragma omp critical
	crit += 1;
#pragma omp critical(named_one)
	named += 1;
}

__attribute__((noinline)) static void sync_locks(void)
{
	omp_set_lock(&lock);
	locked += 1;
	omp_unset_lock(&lock);
	omp_set_nest_lock(&nlock);
	omp_set_nest_lock(&nlock);
	nested += 1;
	omp_unset_nest_lock(&nlock);
	omp_unset_nest_lock(&nlock);
	if (omp_test_lock(&lock)) {
		locked += 1;
		omp_unset_lock(&lock);
	} else {
#pragma omp atomic
		total += 1;
	}
}

__attribute__((noinline)) static void ws_ordered(long *acc)
{
#pragma omp for ordered schedule(static, 1)
	for (int i = 0; i < 8; i++) {
#pragma omp ordered
		acc[0] = acc[0] * 3 + i;
	}
}

__attribute__((noinline)) static void inner_team(void)
{
#pragma omp parallel num_threads(2)
	{
#pragma omp atomic
		total += 1000;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	long loops = 0, ordered = 0;
	omp_init_lock(&lock);
	omp_init_nest_lock(&nlock);
	omp_set_max_active_levels(2);
#pragma omp parallel num_threads(n) shared(loops, ordered)
	{
		long acc = 0;
		ws_static_loop(&loops);
		ws_dynamic_loop(&loops);
		ws_guided_loop(&loops);
		ws_sections(&loops);
		ws_single(&loops);
		sync_master();
		sync_masked();
		sync_critical();
		sync_locks();
#pragma omp single
		ordered = 0;
		ws_ordered(&ordered);
		acc += 1;
#pragma omp atomic
		total += acc;
	}
	/* Nested parallel regions: 2 x 2 threads. */
#pragma omp parallel num_threads(2)
	inner_team();
	omp_destroy_lock(&lock);
	omp_destroy_nest_lock(&nlock);
	printf("loops=%ld ordered=%ld total=%ld\n", loops, ordered, total + crit + named + locked + nested);
	return 0;
}
