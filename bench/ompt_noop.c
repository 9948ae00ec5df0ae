/* ompt_noop.c: an OMPT tool that registers every callback ovni-auto uses
 * (and the other host callbacks libomp 14 implements) and does nothing:
 * the floor any OMPT tracer pays. Load it with OMP_TOOL_LIBRARIES.
 * Built with -DREAD_CLOCK (ompt_clock.so), each callback reads the clock
 * the way ovni-auto's trace clock does (the TSC on x86-64, clock_gettime
 * elsewhere) and throws it away: the floor of any tracer that timestamps
 * what a callback reports. */
#include <omp-tools.h>
#include <stddef.h>
#if defined(READ_CLOCK) && !defined(__x86_64__)
#include <time.h>
#endif

static void noop(void)
{
#ifdef READ_CLOCK
#if defined(__x86_64__)
	unsigned long long t = __builtin_ia32_rdtsc();
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	long t = ts.tv_nsec;
#endif
	__asm__ volatile("" : : "r"(t)); /* kept, and nothing shared written */
#endif
}

static int init(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
	(void)device;
	(void)data;
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	static const ompt_callbacks_t ids[] = {
		ompt_callback_thread_begin,  ompt_callback_thread_end,     ompt_callback_parallel_begin,
		ompt_callback_parallel_end,  ompt_callback_task_create,    ompt_callback_task_schedule,
		ompt_callback_implicit_task, ompt_callback_sync_region_wait, ompt_callback_mutex_released,
		ompt_callback_dependences,   ompt_callback_task_dependence, ompt_callback_work,
		ompt_callback_masked,        ompt_callback_sync_region,    ompt_callback_lock_init,
		ompt_callback_lock_destroy,  ompt_callback_mutex_acquire,  ompt_callback_mutex_acquired,
		ompt_callback_nest_lock,     ompt_callback_flush,          ompt_callback_cancel,
		ompt_callback_reduction,
	};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		set(ids[i], (ompt_callback_t)noop);
	return 1;
}

static void fini(ompt_data_t *data)
{
	(void)data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
	(void)version;
	(void)runtime;
	static ompt_start_tool_result_t result = { init, fini, { 0 } };
	return &result;
}
