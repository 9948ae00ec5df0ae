/* so_kmp_delay.c: a preload for tests (built as so_kmp_delay.so), loaded
 * after the agent.  It wraps libomp's __kmpc_omp_task and, when the task
 * handed over is the continuation of an untied task (clang stores its next
 * part number, non-zero, in kmp_task_t.part_id), sleeps KMP_DELAY_US
 * microseconds (default 200) after queueing it, before the part returns.
 * That opens the window in which another thread runs the task's next part
 * while this part is still finishing, which libomp reports in an unusual
 * order (hooks/ompt/ompt_task.c, oa_omp_orphan_close).  Creations are passed on by
 * a tail call, so the runtime still sees the program's return address. */
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*task_fn)(void *loc, int gtid, void *task);
static task_fn real_task;
static unsigned delay_us = 200;

__attribute__((constructor)) static void init(void)
{
	real_task = (task_fn)dlsym(RTLD_NEXT, "__kmpc_omp_task");
	const char *d = getenv("KMP_DELAY_US");
	if (d && *d)
		delay_us = (unsigned)atoi(d);
}

__attribute__((noinline)) static int queue_slowly(void *loc, int gtid, void *task)
{
	int r = real_task(loc, gtid, task);
	usleep(delay_us);
	return r;
}

int __kmpc_omp_task(void *loc, int gtid, void *task)
{
	/* kmp_task_t: shareds, routine, part_id (int32 at offset 16) */
	if (*(const int *)((const char *)task + 16) != 0)
		return queue_slowly(loc, gtid, task);
	return real_task(loc, gtid, task);
}
