/* ompt_sync.c: the synchronisation and worksharing callbacks of the OMPT
 * tool: sync_region and sync_region_wait (barriers, taskwait, taskgroup,
 * reduction), work (loops, sections, single, distribute, taskloop), masked,
 * mutex_acquire/acquired/released and nest_lock (critical, locks, nest
 * locks, ordered), reduction.  Each opens or closes a region of the task
 * that the callback names (ompt.h). */
#include "ompt.h"

/* ---- barriers, taskwait, taskgroup, reduction ---- */

static int is_barrier(int kind)
{
	switch (kind) {
	case ompt_sync_region_barrier:
	case ompt_sync_region_barrier_implicit:
	case ompt_sync_region_barrier_explicit:
	case ompt_sync_region_barrier_implementation:
	case ompt_sync_region_barrier_implicit_workshare:
	case ompt_sync_region_barrier_implicit_parallel:
	case ompt_sync_region_barrier_teams: return 1;
	default: return 0;
	}
}

/* The barrier at the end of a parallel region (libomp 14 reports it with the
 * generic implicit kind): the primary thread passes the parallel region's
 * code address, the workers none. The primary thread waits for the team
 * (join); a worker arrives and then waits there for the next fork. */
static int barrier_kind(const struct otask *t, int kind, const void *codeptr)
{
	if (t->kind != TK_IMPLICIT)
		return RK_BAR_PLAIN;
	int end_of_parallel = kind == ompt_sync_region_barrier_implicit_parallel ||
			      ((kind == ompt_sync_region_barrier_implicit || kind == ompt_sync_region_barrier) &&
			       (!codeptr || (uintptr_t)codeptr == t->par_ra));
	if (!end_of_parallel)
		return RK_BAR_PLAIN;
	return t->master ? RK_BAR_JOIN : RK_BAR_FORK;
}

/* gcc code under libomp reports a single executor's begin and never its end:
 * a barrier or a new worksharing cannot be inside it, so it is over. */
static void drop_open_single(struct othr *th, struct otask *t)
{
	if (t->nreg && t->regs[t->nreg - 1].kind == RK_WS_SINGLE && (t->regs[t->nreg - 1].flags & RF_EXECUTOR))
		oa_omp_region_end(th, t, RK_BIT(RK_WS_SINGLE), 0);
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
			   ompt_data_t *task_data, const void *codeptr)
{
	(void)parallel_data;
	struct othr *th = oa_omp_thread();
	if (!th)
		return;
	int begin = endpoint == ompt_scope_begin;
	oa_omp_note(th, begin ? "sync_region begin" : "sync_region end", task_data ? task_data->ptr : NULL, (long)kind,
		    NULL);
	if (kind == ompt_sync_region_taskwait && !begin) {
		oa_omp_wait_end(th, task_data, NULL, RK_BIT(RK_TASKWAIT), 0);
		return;
	}
	struct otask *t = oa_omp_owner(th, task_data);
	if (!t)
		return;
	if (is_barrier(kind)) {
		if (begin) {
			drop_open_single(th, t);
			oa_omp_region_begin(th, t, 0, barrier_kind(t, kind, codeptr), 0, 0, RF_WAIT, 0);
		} else {
			oa_omp_region_end(th, t, RK_BARRIERS, 0);
		}
		return;
	}
	switch ((int)kind) {
	case ompt_sync_region_taskwait: oa_omp_region_begin(th, t, 0, RK_TASKWAIT, 0, 0, RF_WAIT, 0); break;
	case ompt_sync_region_reduction:
		if (begin)
			oa_omp_region_begin(th, t, 0, RK_MARK, 0, CM_REDUCTION, 0, CM_REDUCTION);
		else
			oa_omp_region_end(th, t, RK_BIT(RK_MARK), CM_REDUCTION);
		break;
	default:
		/* taskgroup: only its wait is a state (sync_region_wait). */
		break;
	}
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
				ompt_data_t *task_data, const void *codeptr)
{
	(void)parallel_data;
	(void)codeptr;
	if (kind != ompt_sync_region_taskgroup)
		return; /* barriers and taskwait: the whole region is the wait */
	struct othr *th = oa_omp_thread();
	if (!th)
		return;
	oa_omp_note(th, endpoint == ompt_scope_begin ? "taskgroup wait begin" : "taskgroup wait end",
		    task_data ? task_data->ptr : NULL, 0, NULL);
	if (endpoint != ompt_scope_begin) {
		oa_omp_wait_end(th, task_data, NULL, RK_BIT(RK_TASKGROUP), 0);
		return;
	}
	struct otask *t = oa_omp_owner(th, task_data);
	if (t)
		oa_omp_region_begin(th, t, 0, RK_TASKGROUP, 0, 0, RF_WAIT, 0);
}

static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
			 ompt_data_t *task_data, const void *codeptr)
{
	on_sync_region(kind == ompt_sync_region_reduction ? kind : ompt_sync_region_reduction, endpoint, parallel_data,
		       task_data, codeptr);
}

/* ---- worksharing ---- */

#define WS_LOOPS (RK_BIT(RK_WS_STATIC) | RK_BIT(RK_WS_DYNAMIC))

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
		    ompt_data_t *task_data, uint64_t count, const void *codeptr)
{
	(void)parallel_data;
	(void)count;
	struct othr *th = oa_omp_thread();
	if (th)
		oa_omp_note(th, endpoint == ompt_scope_begin ? "work begin" : "work end",
			    task_data ? task_data->ptr : NULL, (long)wstype, NULL);
	struct otask *t = th ? oa_omp_owner(th, task_data) : NULL;
	if (!t)
		return;
	int rk, flags = 0;
	unsigned mask;
	switch ((int)wstype) {
	case ompt_work_loop:
	case ompt_work_workshare:
		rk = RK_WS_STATIC;
		mask = WS_LOOPS;
		break;
	case 10: /* ompt_work_loop_static (OpenMP 5.2, newer runtimes) */
		rk = RK_WS_STATIC;
		mask = WS_LOOPS;
		break;
	case 11: /* ompt_work_loop_dynamic */
	case 12: /* ompt_work_loop_guided */
	case 13: /* ompt_work_loop_other */
		rk = RK_WS_DYNAMIC;
		mask = WS_LOOPS;
		break;
	case ompt_work_sections:
		rk = RK_WS_SECTIONS;
		mask = RK_BIT(RK_WS_SECTIONS);
		break;
	case ompt_work_single_executor:
		rk = RK_WS_SINGLE;
		flags = RF_EXECUTOR;
		mask = RK_BIT(RK_WS_SINGLE);
		break;
	case ompt_work_single_other:
		rk = RK_WS_SINGLE;
		mask = RK_BIT(RK_WS_SINGLE);
		break;
	case ompt_work_distribute:
		rk = RK_WS_DISTRIBUTE;
		mask = RK_BIT(RK_WS_DISTRIBUTE);
		break;
	case ompt_work_taskloop:
		rk = RK_TASKLOOP;
		mask = RK_BIT(RK_TASKLOOP);
		break;
	default: return; /* scope and later kinds: no state */
	}
	if (endpoint != ompt_scope_begin) {
		if (rk == RK_TASKLOOP)
			th->taskloop_type = 0;
		oa_omp_region_end(th, t, mask, 0);
		return;
	}
	if (rk != RK_TASKLOOP)
		drop_open_single(th, t); /* a taskloop can be inside a single */
	struct otype ty;
	uintptr_t region = oa_omp_region_ra(th, t);
	oa_omp_type_of((uintptr_t)codeptr, region, &ty);
	if (rk == RK_TASKLOOP) {
		/* libomp 14 gives an address inside __kmpc_taskloop: name the
		 * user function that called it (unwinding, once per taskloop). */
		if (ty.flags & OT_RUNTIME)
			oa_omp_type_of_caller(region, &ty);
		th->taskloop_type = ty.id;
		th->taskloop_clock = ty.clock;
	} else if (rk == RK_WS_STATIC && (ty.flags & OT_SCHED_DYNAMIC) && wstype == ompt_work_loop) {
		rk = RK_WS_DYNAMIC;
	}
	uint64_t clock = 0;
	if (ty.id) {
		clock = oa_omp_now();
		if (clock <= ty.clock)
			clock = ty.clock + 1;
	}
	oa_omp_region_begin(th, t, clock, rk, ty.id, 0, (uint8_t)flags, 0);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
		      const void *codeptr)
{
	(void)parallel_data;
	(void)codeptr;
	struct othr *th = oa_omp_thread();
	if (th)
		oa_omp_note(th, endpoint == ompt_scope_begin ? "masked begin" : "masked end",
			    task_data ? task_data->ptr : NULL, 0, NULL);
	struct otask *t = th ? oa_omp_owner(th, task_data) : NULL;
	if (!t)
		return;
	if (endpoint == ompt_scope_begin)
		oa_omp_region_begin(th, t, 0, RK_MARK, 0, CM_MASKED, 0, CM_MASKED);
	else
		oa_omp_region_end(th, t, RK_BIT(RK_MARK), CM_MASKED);
}

/* ---- mutexes: critical, locks, nest locks, ordered ---- */

static uint8_t mutex_mark(int kind)
{
	switch (kind) {
	case ompt_mutex_critical: return 0; /* the Critical states say it all */
	case ompt_mutex_lock:
	case ompt_mutex_test_lock: return CM_LOCK;
	case ompt_mutex_nest_lock:
	case ompt_mutex_test_nest_lock: return CM_NEST_LOCK;
	case ompt_mutex_ordered: return CM_ORDERED;
	case ompt_mutex_atomic: return CM_ATOMIC;
	default: return CM_OTHER_MUTEX;
	}
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
			     const void *codeptr)
{
	(void)hint;
	(void)impl;
	(void)codeptr;
	struct othr *th = oa_omp_thread();
	if (th)
		oa_omp_note(th, "mutex acquire", NULL, (long)kind, NULL);
	struct otask *t = th ? oa_omp_owner(th, NULL) : NULL;
	if (!t)
		return;
	/* One clock for both batches: the first may switch windows (mapping
	 * a new one, tens of microseconds), and the wait began before. */
	struct ev_batch b;
	uint64_t now = oa_omp_begin(&b, 0);
	oa_omp_drop_stale_acquire(&b, t);
	oa_omp_end(&b);
	oa_omp_region_begin(th, t, now, RK_ACQUIRING, 0, mutex_mark(kind), 0, wait_id);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
	(void)codeptr;
	struct othr *th = oa_omp_thread();
	if (th)
		oa_omp_note(th, "mutex acquired", NULL, (long)kind, NULL);
	struct otask *t = th ? oa_omp_owner(th, NULL) : NULL;
	if (!t)
		return;
	struct oreg *top = t->nreg ? &t->regs[t->nreg - 1] : NULL;
	if (top && top->kind == RK_ACQUIRING && top->key == wait_id) {
		/* Acquiring -> holding in place: the kind's mark stays open. */
		struct ev_batch b;
		oa_omp_begin(&b, 0);
		ev_omp_state(&b, "PIA");
		ev_omp_state(&b, "PI[");
		oa_omp_end(&b);
		top->kind = RK_HOLDING;
		return;
	}
	oa_omp_region_begin(th, t, 0, RK_HOLDING, 0, mutex_mark(kind), 0, wait_id);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
	(void)kind;
	(void)codeptr;
	struct othr *th = oa_omp_thread();
	if (th)
		oa_omp_note(th, "mutex released", NULL, (long)kind, NULL);
	struct otask *t = th ? oa_omp_owner(th, NULL) : NULL;
	if (t)
		oa_omp_region_end(th, t, RK_BIT(RK_HOLDING), wait_id);
}

static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id, const void *codeptr)
{
	(void)codeptr;
	if (endpoint != ompt_scope_begin)
		return;
	/* A nested set of a nest lock the task owns: acquire, no acquired. */
	struct othr *th = oa_omp_thread();
	struct otask *t = th ? oa_omp_owner(th, NULL) : NULL;
	if (t)
		oa_omp_region_end(th, t, RK_BIT(RK_ACQUIRING), wait_id);
}

void oa_omp_register_sync_callbacks(ompt_set_callback_t set)
{
	set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
	set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait);
	set(ompt_callback_reduction, (ompt_callback_t)on_reduction);
	set(ompt_callback_work, (ompt_callback_t)on_work);
	set(ompt_callback_masked, (ompt_callback_t)on_masked);
	set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
	set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
	set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released);
	set(ompt_callback_nest_lock, (ompt_callback_t)on_nest_lock);
}
