/* clang_omp_taskloop.c: taskloops in many short parallel regions, the
 * pattern that once gave traces the emulator rejects one run in two (libomp
 * splits a large taskloop into helper tasks that create the rest of its
 * tasks on whichever thread runs them).  Each mode prints its checksum and
 * the number of taskloop tasks that ran user code, counted by the program
 * itself (a firstprivate flag per task).
 * Usage: clang_omp_taskloop MODE [REGIONS]
 *   master    master + taskloop num_tasks(k), k = 1..120, then grainsize(g)
 *   single    single + taskloop num_tasks(k) / grainsize(g)
 *   nogroup   master + taskloop num_tasks(k) nogroup, then taskwait
 *   intask    single + a task that runs the taskloop (inside a task) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256
#define NOINLINE __attribute__((noinline))

static double a[N];
static long ntasks;

NOINLINE static void loop_num_tasks(int r, int k)
{
	int first = 1;
#pragma omp taskloop num_tasks(k) firstprivate(first)
	for (int i = 0; i < N; i++) {
		if (first) {
			first = 0;
			__atomic_fetch_add(&ntasks, 1, __ATOMIC_RELAXED);
		}
		a[i] = (double)i * r;
	}
}

NOINLINE static void loop_grainsize(int r, int g)
{
	int first = 1;
#pragma omp taskloop grainsize(g) firstprivate(first)
	for (int i = 0; i < N; i++) {
		if (first) {
			first = 0;
			__atomic_fetch_add(&ntasks, 1, __ATOMIC_RELAXED);
		}
		a[i] = (double)i * r + 1;
	}
}

NOINLINE static void loop_nogroup(int r, int k)
{
	int first = 1;
#pragma omp taskloop num_tasks(k) nogroup firstprivate(first)
	for (int i = 0; i < N; i++) {
		if (first) {
			first = 0;
			__atomic_fetch_add(&ntasks, 1, __ATOMIC_RELAXED);
		}
		a[i] = (double)i * r + 2;
	}
#pragma omp taskwait
}

NOINLINE static void loop_in_task(int r, int k)
{
#pragma omp task firstprivate(r, k)
	loop_num_tasks(r, k);
#pragma omp taskwait
}

static long sum(void)
{
	long s = 0;
	for (int i = 0; i < N; i++)
		s += (long)a[i];
	return s;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "master";
	int regions = argc > 2 ? atoi(argv[2]) : 360;
	long total = 0;
	for (int r = 0; r < regions; r++) {
		int k = 1 + r % 120, g = 1 + r % 64;
		if (!strcmp(mode, "master")) {
#pragma omp parallel
#pragma omp master
			{
				loop_num_tasks(r, k);
				loop_grainsize(r, g);
			}
		} else if (!strcmp(mode, "single")) {
#pragma omp parallel
#pragma omp single
			{
				loop_num_tasks(r, k);
				loop_grainsize(r, g);
			}
		} else if (!strcmp(mode, "nogroup")) {
#pragma omp parallel
#pragma omp master
			loop_nogroup(r, k);
		} else if (!strcmp(mode, "intask")) {
#pragma omp parallel
#pragma omp single
			loop_in_task(r, k);
		} else {
			fprintf(stderr, "unknown mode %s\n", mode);
			return 2;
		}
		total += sum();
	}
	printf("%s %ld tasks %ld\n", mode, total, ntasks);
	return 0;
}
