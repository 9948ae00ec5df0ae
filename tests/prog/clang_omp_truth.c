/* clang_omp_truth.c: OpenMP programs that measure themselves, for the
 * ground-truth tier (tests/truth).  Built with clang (LLVM libomp, untied
 * tasks split in parts).  Prints "truth|..." lines (tests/prog/truthcheck.c)
 * from what the program itself saw: omp_get_thread_num/gettid where user
 * code ran, and clock_gettime around task bodies and waits.
 * usage: clang_omp_truth MODE
 *   untied    40 untied tasks, 10 taskyields each: segments of user code,
 *             thread changes between them, first thread of each task
 *             ("truth|first|K|TID": task K in creation order)
 *   tasks     20 tasks of 1 ms each (task time per type, tasks per thread)
 *   critical  every thread enters one critical section of 5 ms, thread 0
 *             first (the others wait for it and for each other)
 *   barrier   a barrier that thread 0 reaches 50 ms after the others
 *   waits     taskwait, taskgroup and taskwait-depend waits for tasks of
 *             10 ms (wait time minus the children run by the waiter) */
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "run_delay.h"
#include <time.h>

#define NOINLINE __attribute__((noinline))

static int64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void spin(int64_t ns)
{
	int64_t end = now() + ns;
	while (now() < end)
		;
}

/* Untied tasks: user code starts on a thread at the task's start and after
 * each taskyield; a part of user code is a segment, a change of thread
 * between two parts a migration. */
#define UT 40
#define UT_ITERS 10
static int first_tid[UT];
static atomic_long changes;

NOINLINE static void untied_tasks(void)
{
	for (int k = 0; k < UT; k++) {
#pragma omp task untied firstprivate(k)
		{
			int prev = gettid(), moved = 0;
			first_tid[k] = prev;
			spin(2000);
			for (int i = 0; i < UT_ITERS; i++) {
#pragma omp taskyield
				int t = gettid();
				moved += t != prev;
				prev = t;
				spin(2000);
			}
			atomic_fetch_add(&changes, moved);
		}
	}
}

/* Tasks of known length: the trace's task time is the bodies' time. */
#define NT 20
static atomic_long body_ns;
/* Time the team's threads waited for a CPU while in task bodies, and in
 * the whole phase: what lies outside the bodies may be inside the tasks'
 * segments (between the runtime's start of a task and its body), which the
 * bodies do not measure. */
static atomic_long body_delay, phase_delay;
static atomic_int delay_unknown;
static int64_t run_delay(void);
/* Per team member: its thread id and the tasks it ran. */
static int member_tid[64];
static atomic_int member_tasks[64];

NOINLINE static void timed_tasks(void)
{
	for (int k = 0; k < NT; k++) {
#pragma omp task
		{
			/* the reads inside the measured time: they are task time */
			int64_t t0 = now();
			int64_t d0 = run_delay();
			spin(1000000);
			int64_t d1 = run_delay();
			atomic_fetch_add(&body_ns, now() - t0);
			if (d0 < 0 || d1 < 0)
				atomic_store(&delay_unknown, 1);
			else
				atomic_fetch_add(&body_delay, d1 - d0);
			atomic_fetch_add(&member_tasks[omp_get_thread_num() & 63], 1);
		}
	}
}

/* Time this thread spent in the bodies of child_10ms. */
static _Thread_local int64_t in_children;

NOINLINE static void child_10ms(int *x)
{
	int64_t t0 = now();
	spin(10000000);
	if (x)
		*x += 1;
	in_children += now() - t0;
}

/* Involuntary context switches of the calling thread so far. */
/* What the thread went through that its clock reads cannot account for:
 * preemptions and page faults (on this project's VMs a fault costs
 * 10-100 us, more under load, and a tool's callback may take one on a new
 * page of its buffer).  Not its voluntary switches: a thread that waits
 * for the lock sleeps, and that is the wait the trace must show. */
static long disturbances(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return -1;
	return ru.ru_nivcsw + ru.ru_minflt + ru.ru_majflt;
}

/* A duration the program only knows to lie in [lo, hi]. */
static void truth_omp_range(const char *state, long count, int64_t lo, int64_t hi)
{
	printf("truth|omp|%d|%s|%ld|%lld..%lld\n", gettid(), state, count, (long long)lo, (long long)hi);
}

static void truth_omp(const char *state, long count, int64_t ns)
{
	if (count < 0)
		printf("truth|omp|%d|%s|-|%lld\n", gettid(), state, (long long)ns);
	else
		printf("truth|omp|%d|%s|%ld|%lld\n", gettid(), state, count, (long long)ns);
}

/* A wait of any count.  A thread preempted in the middle of it still
 * waits, but preempted before the runtime saw the wait begin or after it
 * ended, it measured time the trace rightly does not count: then the
 * wait is between what it measured less the time it waited for a CPU and
 * what it measured. */
static void wait_truth(const char *state, int64_t ns, int64_t delayed)
{
	if (delayed > 0)
		printf("truth|omp|%d|%s|-|%lld..%lld\n", gettid(), state,
		       (long long)(ns > delayed ? ns - delayed : 0), (long long)ns);
	else
		truth_omp(state, -1, ns);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "untied")) {
#pragma omp parallel
#pragma omp single
		untied_tasks();
		printf("truth|type|untied_tasks|%d|%d|%ld|-\n", UT, UT * (UT_ITERS + 1), atomic_load(&changes));
		for (int k = 0; k < UT; k++)
			printf("truth|first|%d|%d\n", k, first_tid[k]);
	} else if (!strcmp(mode, "tasks")) {
		int n = 0;
#pragma omp parallel
		{
			member_tid[omp_get_thread_num() & 63] = gettid();
			int64_t p0 = run_delay();
#pragma omp single
			{
				n = omp_get_num_threads();
				timed_tasks();
			}
			int64_t p1 = run_delay();
			if (p0 < 0 || p1 < 0)
				atomic_store(&delay_unknown, 1);
			else
				atomic_fetch_add(&phase_delay, p1 - p0);
		}
		/* A thread that waited for a CPU outside the bodies may have done
		 * so inside a task's segment: the trace may show up to that much
		 * more (a range); unloaded runs give a point. */
		long outside = atomic_load(&phase_delay) - atomic_load(&body_delay);
		if (!atomic_load(&delay_unknown) && outside > 0)
			printf("truth|type|timed_tasks|%d|%d|0|%ld..%ld\n", NT, NT, atomic_load(&body_ns),
			       atomic_load(&body_ns) + outside);
		else
			printf("truth|type|timed_tasks|%d|%d|0|%ld\n", NT, NT, atomic_load(&body_ns));
		/* Where they ran: one segment each, on the thread that ran it. */
		for (int i = 0; i < n && i < 64; i++)
			printf("truth|segments|%d|%d\n", member_tid[i], atomic_load(&member_tasks[i]));
	} else if (!strcmp(mode, "critical")) {
		atomic_int first_in = 0;
#pragma omp parallel
		{
			int me = omp_get_thread_num();
			if (me != 0)
				while (!atomic_load(&first_in))
					;
			long p0 = disturbances(), p1, p2;
			int64_t t0 = now(), t1, t2;
#pragma omp critical
			{
				t1 = now();
				p1 = disturbances();
				atomic_store(&first_in, 1);
				spin(5000000);
				t2 = now();
				p2 = disturbances();
			}
			int64_t t3 = now();
			long p3 = disturbances();
			if (p1 == p0 && p3 == p2 && p0 >= 0) {
				/* Thread 0 comes first and finds the lock free,
				 * but libomp makes the critical's lock at its first
				 * use, before it tells a tool of the acquiring: tens
				 * of microseconds where a page fault costs 10-20 us
				 * (up to 94 us untraced), that no callback covers.
				 * The trace must show no longer a wait. */
				if (me == 0)
					truth_omp_range("critical: acquiring", 1, 0, t1 - t0);
				else
					truth_omp("critical: acquiring", 1, t1 - t0);
				truth_omp("critical: section", 1, t2 - t1);
			} else {
				/* Preempted or faulting between t0 and
				 * t1, maybe after it took the lock (a tool's
				 * callback there runs inside the section: the
				 * trace may rightly count part of t0..t1 as the
				 * section), or between t2 and t3, maybe before it
				 * let it go (part of t2..t3). */
				truth_omp_range("critical: acquiring", 1, 0, t1 - t0);
				truth_omp_range("critical: section", 1, t2 - t1,
						(p3 == p2 ? t2 : t3) - (p1 == p0 ? t1 : t0));
			}
		}
	} else if (!strcmp(mode, "barrier")) {
#pragma omp parallel
		{
			if (omp_get_thread_num() == 0)
				spin(50000000);
			int64_t d = run_delay();
			int64_t t0 = now();
#pragma omp barrier
			int64_t t1 = now();
			d = run_delay() - d;
			if (omp_get_thread_num() == 0)
				/* The last to arrive waits for nobody: its time
				 * in the barrier is libomp's and the agent's work
				 * before and after the callbacks (5-10 us here, 60
				 * once under two suites).  No longer a wait. */
				truth_omp_range("barrier: plain", 1, 0, t1 - t0);
			else if (d <= 0)
				truth_omp("barrier: plain", 1, t1 - t0);
			else /* preempted, maybe before it entered or after it left */
				truth_omp_range("barrier: plain", 1, t1 - t0 > d ? t1 - t0 - d : 0, t1 - t0);
		}
	} else if (!strcmp(mode, "waits")) {
		/* Nothing else runs: one thread waits, the others run the
		 * children (or the waiter does, between its waits). */
#pragma omp parallel
#pragma omp single nowait
		{
			int x = 0;
			int64_t c0 = in_children;
#pragma omp task
			child_10ms(NULL);
#pragma omp task
			child_10ms(NULL);
			int64_t dw = run_delay();
			int64_t w0 = now();
#pragma omp taskwait
			int64_t tw = now() - w0 - (in_children - c0);
			dw = run_delay() - dw;

			int64_t g0;
			int64_t dg;
#pragma omp taskgroup
			{
#pragma omp task
				child_10ms(NULL);
#pragma omp task
				child_10ms(NULL);
				/* the wait is at the end of the taskgroup */
				c0 = in_children;
				dg = run_delay();
				g0 = now();
			}
			int64_t tg = now() - g0 - (in_children - c0);
			dg = run_delay() - dg;

#pragma omp task depend(out : x) shared(x)
			child_10ms(&x);
			c0 = in_children;
			int64_t dd = run_delay();
			int64_t d0 = now();
#pragma omp taskwait depend(in : x)
			int64_t td = now() - d0 - (in_children - c0);
			dd = run_delay() - dd;
			wait_truth("task: taskwait", tw, dw);
			wait_truth("task: taskgroup", tg, dg);
			wait_truth("task: taskwait deps", td, dd);
			if (x != 1)
				printf("depend: x is %d\n", x);
		}
	} else {
		fprintf(stderr, "usage: clang_omp_truth untied|tasks|critical|barrier|waits\n");
		return 2;
	}
	printf("clang_omp_truth %s done\n", mode);
	return 0;
}
