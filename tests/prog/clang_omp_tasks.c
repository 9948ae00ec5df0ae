/* clang_omp_tasks.c: OpenMP tasking for the OMPT tests (built with clang
 * -fopenmp, so that untied tasks really are split and can migrate).  Tasks
 * are created in functions of their own, so the trace's task type labels
 * are these function names.
 * Usage: clang_omp_tasks MODE [ARGS]; prints one result line.
 *   fib N CUTOFF     fib(N), tasks down to depth CUTOFF, taskwait
 *   tiny N           N empty tasks from one single
 *   group            taskgroups, nested tasks, taskwait, if(0) and final tasks
 *   taskloop         taskloop grainsize / num_tasks nogroup
 *   deps             depend in/out/inout/mutexinoutset, taskwait depend, if(0) depend
 *   detach           detached tasks fulfilled early and late
 *   cancel           cancel taskgroup and cancel for (needs OMP_CANCELLATION=true)
 *   untied N ITERS   N untied tasks looping ITERS times over taskyield
 *   tied N ITERS     tied tasks with 2 children each looping over taskyield
 *                    (they switch to their children, never migrate)
 *   untiedlock N     untied tasks holding a lock (one each) across taskyields
 *   mutexbar N       a team taking one pthread mutex in turn, then a barrier,
 *                    N times (a lock wait's end, then OpenMP events at once) */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int cutoff;
static long count_tasks;

NOINLINE static long fib(int n, int depth)
{
	long a, b;
	if (n < 2)
		return n;
	if (depth >= cutoff)
		return fib(n - 1, depth + 1) + fib(n - 2, depth + 1);
#pragma omp task shared(a)
	a = fib(n - 1, depth + 1);
#pragma omp task shared(b)
	b = fib(n - 2, depth + 1);
#pragma omp taskwait
	return a + b;
}

static long sink;

NOINLINE static void spawn_tiny(long n)
{
	for (long i = 0; i < n; i++) {
#pragma omp task
		__atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
	}
}

NOINLINE static void child_work(long *acc)
{
#pragma omp atomic
	acc[0] += 1;
}

NOINLINE static void spawn_group(long *acc)
{
#pragma omp taskgroup
	{
		for (int i = 0; i < 4; i++) {
#pragma omp task
			{
				child_work(acc);
#pragma omp task
				child_work(acc);
			}
		}
	}
	for (int i = 0; i < 3; i++) {
#pragma omp task
		child_work(acc);
	}
#pragma omp taskwait
#pragma omp task if (0)
	child_work(acc);
#pragma omp task final(1)
	{
		child_work(acc);
#pragma omp task
		child_work(acc);
	}
#pragma omp taskwait
}

NOINLINE static void run_taskloop(long *acc)
{
#pragma omp taskloop grainsize(4)
	for (int i = 0; i < 20; i++)
		child_work(acc);
#pragma omp taskloop num_tasks(3) nogroup
	for (int i = 0; i < 9; i++)
		child_work(acc);
#pragma omp taskwait
}

NOINLINE static void spawn_deps(long *acc)
{
	long a = 0, b = 0, c = 0;
	static _Atomic int created;
#pragma omp task depend(out : a) shared(a)
	{
		/* Its successors are created while it runs (a sleep was not
		 * enough on a loaded machine): it waits for them, 1 s at most. */
		for (int i = 0; i < 1000 && !atomic_load(&created); i++)
			usleep(1000);
		a = 1;
	}
#pragma omp task depend(in : a) depend(out : b) shared(a, b)
	b = a + 1;
#pragma omp task depend(inout : b) shared(b)
	b *= 10;
#pragma omp task depend(mutexinoutset : c) shared(c)
	c += 1;
#pragma omp task depend(mutexinoutset : c) shared(c)
	c += 2;
	atomic_store(&created, 1);
#pragma omp taskwait depend(in : b)
#pragma omp task if (0) depend(in : c) shared(a, c)
	c += a;
#pragma omp taskwait
	acc[0] = a * 100 + b * 10 + c;
}

NOINLINE static void spawn_detach(long *acc)
{
	omp_event_handle_t ev_late = (omp_event_handle_t)0, ev_early = (omp_event_handle_t)0;
	int body_done = 0;
#pragma omp task detach(ev_late) shared(body_done)
	{
		child_work(acc);
		__atomic_store_n(&body_done, 1, __ATOMIC_RELEASE);
	}
#pragma omp task detach(ev_early)
	{
		omp_fulfill_event(ev_early);
		child_work(acc);
	}
#pragma omp task shared(body_done)
	{
		/* Late: after the detached task's body (give up after 1 s). */
		for (int i = 0; i < 1000 && !__atomic_load_n(&body_done, __ATOMIC_ACQUIRE); i++)
			usleep(1000);
		usleep(2000);
		omp_fulfill_event(ev_late);
	}
#pragma omp taskwait
}

/* The first task cancels the taskgroup; the other 49 are made only once
 * it has begun to, so some are discarded whatever the scheduling (made at
 * once, under load the generating thread ran all 50 itself, newest first,
 * before the other thread took the first: none discarded). */
NOINLINE static void spawn_cancel(long *acc)
{
	static atomic_int cancelling;
	atomic_store(&cancelling, 0);
#pragma omp taskgroup
	{
#pragma omp task
		{
			atomic_store(&cancelling, 1);
#pragma omp cancel taskgroup
			usleep(100);
			child_work(acc);
		}
		while (!atomic_load(&cancelling)) {
#pragma omp taskyield
		}
		for (int i = 1; i < 50; i++) {
#pragma omp task
			{
				usleep(100);
				child_work(acc);
			}
		}
	}
}

NOINLINE static void cancel_loop(long *acc)
{
#pragma omp for
	for (int i = 0; i < 1000; i++) {
		if (i == 10) {
#pragma omp cancel for
		}
#pragma omp cancellation point for
		child_work(acc);
	}
}

static long moved;

NOINLINE static void spawn_untied(int n, int iters)
{
	for (int t = 0; t < n; t++) {
#pragma omp task untied
		{
			int first = omp_get_thread_num(), changed = 0;
			for (int i = 0; i < iters; i++) {
#pragma omp taskyield
				if (omp_get_thread_num() != first)
					changed = 1;
			}
			if (changed) {
#pragma omp atomic
				moved++;
			}
		}
	}
}

NOINLINE static void spawn_tied(int n, int iters)
{
	for (int t = 0; t < n; t++) {
#pragma omp task
		{
			int first = omp_get_thread_num(), changed = 0;
			long acc = 0;
			/* A tied task may only switch to its descendants. */
			for (int c = 0; c < 2; c++) {
#pragma omp task shared(acc)
				child_work(&acc);
			}
			for (int i = 0; i < iters; i++) {
#pragma omp taskyield
				if (omp_get_thread_num() != first)
					changed = 1;
			}
			if (changed) {
#pragma omp atomic
				moved++;
			}
		}
	}
}

static omp_lock_t locks[256];

NOINLINE static void spawn_untied_lock(int n)
{
	for (int t = 0; t < n; t++) {
#pragma omp task untied
		{
			int first = omp_get_thread_num(), changed = 0;
			omp_lock_t *lock = &locks[t % 256];
			for (int i = 0; i < 20; i++) {
				omp_set_lock(lock);
#pragma omp taskyield
				if (omp_get_thread_num() != first)
					changed = 1;
				omp_unset_lock(lock);
#pragma omp taskyield
			}
			if (changed) {
#pragma omp atomic
				moved++;
			}
		}
	}
}

static pthread_mutex_t team_mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile long in_mutex;
static atomic_int waiting;

/* Thread 0 holds the mutex across a barrier and lets it go only once every
 * other thread is about to take it (and 100 us more): they block whatever
 * the scheduling, then each meets the next barrier just after its wait. */
NOINLINE static long mutex_barrier(int n)
{
	long sum = 0;
#pragma omp parallel reduction(+ : sum)
	for (int i = 0; i < n; i++) {
		int me = omp_get_thread_num(), others = omp_get_num_threads() - 1;
		if (me == 0)
			pthread_mutex_lock(&team_mutex);
#pragma omp barrier
		if (me == 0) {
			while (atomic_load(&waiting) < others)
				;
			usleep(100);
			atomic_store(&waiting, 0);
			pthread_mutex_unlock(&team_mutex);
		} else {
			atomic_fetch_add(&waiting, 1);
			pthread_mutex_lock(&team_mutex);
			for (int k = 0; k < 200; k++)
				in_mutex++;
			pthread_mutex_unlock(&team_mutex);
		}
#pragma omp barrier
		sum++;
	}
	return sum;
}

/* fn(acc) run by one thread of a new team (the others run its tasks). */
__attribute__((noinline)) static void in_team(void (*fn)(long *), long *acc)
{
#pragma omp parallel
#pragma omp single
	fn(acc);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fib";
	long acc = 0;
	if (!strcmp(mode, "fib")) {
		int n = argc > 2 ? atoi(argv[2]) : 20;
		cutoff = argc > 3 ? atoi(argv[3]) : 10;
		long r = 0;
#pragma omp parallel
#pragma omp single
		r = fib(n, 0);
		printf("fib %d = %ld\n", n, r);
	} else if (!strcmp(mode, "tiny")) {
		long n = argc > 2 ? atol(argv[2]) : 1000000;
#pragma omp parallel
#pragma omp single
		spawn_tiny(n);
		printf("tiny %ld = %ld\n", n, (long)sink);
	} else if (!strcmp(mode, "group")) {
		in_team(spawn_group, &acc);
		printf("group = %ld\n", acc);
	} else if (!strcmp(mode, "taskloop")) {
		in_team(run_taskloop, &acc);
		printf("taskloop = %ld\n", acc);
	} else if (!strcmp(mode, "deps")) {
		in_team(spawn_deps, &acc);
		printf("deps = %ld\n", acc);
	} else if (!strcmp(mode, "detach")) {
		in_team(spawn_detach, &acc);
		printf("detach = %ld\n", acc);
	} else if (!strcmp(mode, "cancel")) {
		long loop = 0;
#pragma omp parallel
		{
#pragma omp single
			spawn_cancel(&acc);
			cancel_loop(&loop);
		}
		printf("cancel = %s\n", acc < 50 && loop < 1000 ? "yes" : "no");
	} else if (!strcmp(mode, "untied")) {
		int n = argc > 2 ? atoi(argv[2]) : 200;
		int iters = argc > 3 ? atoi(argv[3]) : 20;
#pragma omp parallel
#pragma omp single
		spawn_untied(n, iters);
		printf("untied %d done\n", n);
		fprintf(stderr, "moved %ld\n", moved);
	} else if (!strcmp(mode, "tied")) {
		int n = argc > 2 ? atoi(argv[2]) : 200;
		int iters = argc > 3 ? atoi(argv[3]) : 20;
#pragma omp parallel
#pragma omp single
		spawn_tied(n, iters);
		printf("tied %d done\n", n);
		fprintf(stderr, "moved %ld\n", moved);
	} else if (!strcmp(mode, "untiedlock")) {
		int n = argc > 2 ? atoi(argv[2]) : 50;
		if (n > 256)
			n = 256;
		for (int i = 0; i < 256; i++)
			omp_init_lock(&locks[i]);
#pragma omp parallel
#pragma omp single
		spawn_untied_lock(n);
		printf("untiedlock %d done\n", n);
		fprintf(stderr, "moved %ld\n", moved);
	} else if (!strcmp(mode, "mutexbar")) {
		int n = argc > 2 ? atoi(argv[2]) : 1000;
		long sum = mutex_barrier(n);
		printf("mutexbar %ld\n", sum / omp_get_max_threads());
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	(void)count_tasks;
	return 0;
}
