/* clang_omp_crash.c: an OpenMP program that ends in the middle of its tasks,
 * with states open on every thread (parallel, single, taskwait, tasks,
 * barrier).  Usage: clang_omp_crash segv|abort|exit|execfail|hang|reexec.
 * reexec: a task execs this program again in mode "plain", which runs the
 * same tasks to the end (the same process: its task and type ids go on).
 * execfail: a task execs a program that does not exist, then everything
 * goes on (prints "execfail done").  hang: sleeps in a task (for kill -9). */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *mode, *self;

__attribute__((noinline)) static void body(int i, long *acc)
{
	if (i != 50) {
#pragma omp atomic
		acc[0] += i;
		return;
	}
	if (!strcmp(mode, "segv"))
		raise(SIGSEGV);
	else if (!strcmp(mode, "abort"))
		abort();
	else if (!strcmp(mode, "exit"))
		exit(3);
	else if (!strcmp(mode, "execfail"))
		execl("/nonexistent/program", "program", (char *)NULL);
	else if (!strcmp(mode, "reexec"))
		execl(self, self, "plain", (char *)NULL);
	else if (!strcmp(mode, "hang"))
		for (;;)
			pause();
#pragma omp atomic
	acc[0] += i;
}

int main(int argc, char **argv)
{
	mode = argc > 1 ? argv[1] : "segv";
	self = argv[0];
	long acc = 0;
	setvbuf(stdout, NULL, _IONBF, 0);
#pragma omp parallel num_threads(2) shared(acc)
	{
		/* Both threads are in the team (and traced) before any task. */
#pragma omp barrier
#pragma omp single
		{
			for (int i = 0; i < 100; i++) {
#pragma omp task shared(acc)
				body(i, &acc);
			}
#pragma omp taskwait
		}
	}
	printf("%s done %ld\n", mode, acc);
	return 0;
}
