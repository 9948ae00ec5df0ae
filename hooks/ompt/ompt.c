/* ompt.c: the OMPT tool of libovni-auto.so: ompt_start_tool (found by libomp
 * through LD_PRELOAD or OMP_TOOL_LIBRARIES; initialises once when both name
 * this library), initialize/finalize, the mark channels the tool writes, the
 * thread callbacks, fork, and the end of the process.
 *
 * At exit the OpenMP runtime shuts down after our destructor, so its worker
 * threads would still be waiting for the next parallel region (with their
 * states open) when the agent ends every stream.  A destructor that runs
 * before the agent's asks the runtime to release its threads first
 * (omp_pause_resource_all(omp_pause_hard)), when that is safe: called from
 * the runtime's initial thread, outside any parallel region, the runtime not
 * finalised yet.  OVNI_OMP_SHUTDOWN=0 turns that off. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../preload/backtrace.h"
#include "../../common/log.h"
#include "../names.h"
#include "ompt.h"
#include "../../common/env.h"

/* In .data: every process's destructor reads them, and a read of an
 * untouched .bss page is a fault of its own. */
static _Atomic int started OA_EARLY_DATA;     /* ompt_start_tool answered once */
static _Atomic int initialized OA_EARLY_DATA; /* initialize returned 1 */
static _Atomic int finalized OA_EARLY_DATA;

/* ---- mark channels ---- */

static void declare_marks(void)
{
	static const char *const task_labels[] = {
		[TM_SUSPENDED] = "task suspended (task switch)",
		[TM_YIELDED] = "task suspended (taskyield)",
		[TM_MIGRATED] = "task resumed on another thread",
		[TM_DETACHED] = "task body ended, waits for its detach event",
		[TM_EARLY_FULFILL] = "detach event fulfilled while the task runs",
		[TM_LATE_FULFILL] = "detach event fulfilled: task completed",
		[TM_CANCELLED] = "task ended by cancellation",
		[TM_DISCARDED] = "task discarded by cancellation before it ran",
	};
	static const char *const construct_labels[] = {
		[CM_MASKED] = "masked / master",  [CM_REDUCTION] = "reduction", [CM_LOCK] = "lock",
		[CM_NEST_LOCK] = "nest lock",     [CM_ORDERED] = "ordered",     [CM_ATOMIC] = "atomic",
		[CM_OTHER_MUTEX] = "other mutex",
	};
	static const struct {
		int flag;
		const char *name;
	} cancel_kinds[] = { { ompt_cancel_parallel, "parallel" },
			     { ompt_cancel_sections, "sections" },
			     { ompt_cancel_loop, "loop" },
			     { ompt_cancel_taskgroup, "taskgroup" } };

	oa_meta_mark_type(&oa_meta, OA_MARK_OMP_TASK, 0, "OpenMP task events (ovni-auto)");
	oa_meta_mark_type(&oa_meta, OA_MARK_OMP_DEPS, 0, "OpenMP task depends on task (ovni-auto)");
	oa_meta_mark_type(&oa_meta, OA_MARK_OMP_CONSTRUCT, 1, "OpenMP construct (ovni-auto)");
	oa_meta_mark_type(&oa_meta, OA_MARK_OMP_TASKID, 0, "OpenMP task of the task event (ovni-auto)");
	oa_meta_mark_type(&oa_meta, OA_MARK_OMP_DEPKIND, 0, "OpenMP dependence of the created task (ovni-auto)");
	static const char *const dep_kinds[] = { [ompt_dependence_type_in] = "in",
						 [ompt_dependence_type_out] = "out",
						 [ompt_dependence_type_inout] = "inout",
						 [ompt_dependence_type_mutexinoutset] = "mutexinoutset",
						 [ompt_dependence_type_source] = "source",
						 [ompt_dependence_type_sink] = "sink",
						 [ompt_dependence_type_inoutset] = "inoutset" };
	for (unsigned v = 1; v < ARRAY_LEN(dep_kinds); v++)
		oa_meta_mark_label(&oa_meta, NULL, OA_MARK_OMP_DEPKIND, v, dep_kinds[v]);
	for (unsigned v = 1; v < ARRAY_LEN(task_labels); v++)
		oa_meta_mark_label(&oa_meta, NULL, OA_MARK_OMP_TASK, v, task_labels[v]);
	for (unsigned v = 1; v < ARRAY_LEN(construct_labels); v++)
		oa_meta_mark_label(&oa_meta, NULL, OA_MARK_OMP_CONSTRUCT, v, construct_labels[v]);
	for (unsigned i = 0; i < ARRAY_LEN(cancel_kinds); i++) {
		char label[64];
		snprintf(label, sizeof(label), "cancel %s activated", cancel_kinds[i].name);
		oa_meta_mark_label(&oa_meta, NULL, OA_MARK_OMP_TASK,
				   TM_CANCEL_BASE + (cancel_kinds[i].flag | ompt_cancel_activated), label);
		snprintf(label, sizeof(label), "cancel %s detected", cancel_kinds[i].name);
		oa_meta_mark_label(&oa_meta, NULL, OA_MARK_OMP_TASK,
				   TM_CANCEL_BASE + (cancel_kinds[i].flag | ompt_cancel_detected), label);
	}
}

/* ---- threads ---- */

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
	(void)type;
	/* Threads the pthread hook did not see (agent loaded only through
	 * OMP_TOOL_LIBRARIES) get their stream here. */
	if (!oa_self && agent_active())
		agent_thread_begin(-1, agent_next_tag(), 0);
	struct othr *th = oa_omp_thread();
	if (!th)
		return;
	thread_data->ptr = th;
	if (type == ompt_thread_initial)
		th->initial = 1;
	else if (type == ompt_thread_worker)
		names_set("OpenMP worker"); /* its start routine is a static function of the runtime */
	struct ev_batch b;
	if (oa_omp_begin(&b, 0)) {
		ev_omp_state(&b, "PA[");
		th->attached = 1;
	}
	oa_omp_end(&b);
}

static void on_thread_end(ompt_data_t *thread_data)
{
	(void)thread_data;
	struct othr *th = oa_omp_thread_peek();
	if (!th)
		return;
	th->cur_pending = 0;
	th->lazy = 0;
	struct ev_batch b;
	oa_omp_begin(&b, 0);
	if (th->cur && th->cur != th->base) {
		/* The runtime ends the thread inside a task: close it here. */
		oa_omp_anomaly(th, "thread ends inside a task", th->cur, NULL);
		oa_omp_seg_close(&b, th->cur);
		th->cur->state = TS_PAUSED;
	}
	if (th->base) {
		oa_omp_anomaly(th, "thread ends inside an implicit task", th->base, NULL);
		oa_omp_seg_close(&b, th->base);
		th->base->state = TS_PAUSED;
	}
	th->cur = th->base = NULL;
	if (th->attached)
		ev_omp_state(&b, "PA]");
	th->attached = 0;
	oa_omp_end(&b);
	oa_omp_thread_release(th);
	if (oa_omp_debug && th->anomalies)
		oa_log("ompt: thread %d: %llu anomalies", oa_self ? oa_self->tid : -1,
		       (unsigned long long)th->anomalies);
}

/* ---- lifecycle ---- */

static void before_fork(void)
{
	oa_omp_types_lock();
	oa_omp_state_lock();
}

static void after_fork_parent(void)
{
	oa_omp_state_unlock();
	oa_omp_types_unlock();
}

static void after_fork_child(void)
{
	oa_omp_types_reset();
	oa_omp_state_after_fork();
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data)
{
	(void)initial_device_num;
	(void)tool_data;
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	if (!set || !agent_active())
		return 0;
	oa_guard++;
	const char *dbg = oa_env(OA_ENV_OMP_DEBUG);
	oa_omp_debug = dbg ? atoi(dbg) : 0;
	const char *merge = oa_env(OA_ENV_OMP_MERGE_NS);
	if (merge && *merge)
		oa_omp_merge_ns = strtoull(merge, NULL, 10);
	oa_omp_types_set_runtime((uintptr_t)set);
	/* Taskloops unwind the stack: libunwind opened now, on the thread
	 * that starts the runtime, never later on a worker. */
	oa_backtrace_prepare();
	oa_omp_types_set_generation(oa_exec_generation);
	oa_omp_task_ids_set_generation(oa_exec_generation);
	agent_require(OA_REQUIRE_OPENMP);
	declare_marks();
	set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
	set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
	oa_omp_register_task_callbacks(set);
	oa_omp_register_sync_callbacks(set);
	agent_at_fork(before_fork, after_fork_parent, after_fork_child);
	atomic_store(&initialized, 1);
	oa_guard--;
	return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
	(void)tool_data;
	atomic_store(&finalized, 1);
}

OA_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
	(void)omp_version;
	(void)runtime_version;
	static ompt_start_tool_result_t result = { tool_initialize, tool_finalize, { 0 } };
	/* Once per process, and only when the process is traced (a tool that
	 * returns NULL costs the runtime nothing). */
	if (atomic_exchange(&started, 1) || !agent_active())
		return NULL;
	/* Called by the runtime while it initialises (it yields already). */
	oa_omp_types_set_runtime((uintptr_t)__builtin_return_address(0));
	return &result;
}

/* Before the agent's destructor (101): release the runtime's threads so
 * that they end their states and their streams themselves. */
__attribute__((destructor(102))) static void ompt_destructor(void)
{
	if (oa_off || !atomic_load(&initialized) || atomic_load(&finalized) || !agent_active())
		return;
	struct othr *th = oa_omp_thread_peek();
	const char *off = oa_env(OA_ENV_OMP_SHUTDOWN);
	if (!th || !th->initial || (off && *off == '0') || oa_omp_parallel_active())
		return;
	int (*level)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_level");
	int (*pause_all)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "omp_pause_resource_all");
	if (!level || !pause_all || level() != 0)
		return;
	oa_guard++; /* the runtime joining its threads is not the program's wait */
	pause_all(2 /* omp_pause_hard */);
	oa_guard--;
}
