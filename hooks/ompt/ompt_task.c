/* ompt_task.c: the task callbacks of the OMPT tool: task_create,
 * task_schedule (every status), implicit_task, parallel_begin/end,
 * task_dependence and cancel, and the task switch itself (ompt.md section
 * 3): close the outgoing task on this thread (its states top to bottom, then
 * its segment), open the incoming one (segment, then its states bottom to
 * top).  Two refinements keep the trace small without breaking that:
 * - an implicit task never leaves its thread, so when the thread runs an
 *   explicit task for it (from a barrier, or a task it ran at once) its
 *   states stay open below the explicit task's segment (th->base);
 * - a task resumed into a runtime wait (taskwait, taskwait deps) that the
 *   runtime leaves again for another task within oa_omp_merge_ns is not written
 *   in between: that stretch is scheduler time, not the task's. */
#include "../../common/log.h"
#include "ompt.h"

static inline int ends(int status)
{
	return status == ompt_task_complete || status == ompt_task_cancel;
}

/* Untied tasks and libomp (ompt.md section 3): each part of an untied task
 * counts itself in while it runs.  A part that queues the task again
 * reports its end (a switch) before queueing it, but the counter drops only
 * when the part returns.  If another thread takes the task and runs its
 * last part in between, that last part returns while the counter is still
 * above zero: it ends with no report at all, and the thread that ran the
 * previous part reports the completion when its own part returns.
 * So the thread of the last part learns of its end only at its next
 * callback, which names another task (oa_omp_orphan_close), and the
 * completion arrives on a thread that does not run the task.  The task is
 * freed by the second of the two (fin). */
struct otask *oa_omp_orphan_close(struct othr *th, struct otask *c, struct otask *p)
{
	if (th->cur_pending) {
		th->cur_pending = PEND_NONE; /* nothing of the part was written */
	} else {
		uint64_t clock = oa_omp_now(); /* before the deferred write: it may switch windows */
		if (th->lazy)
			oa_omp_lazy_write(th);
		if (clock <= c->clock)
			clock = c->clock + 1;
		struct ev_batch b;
		if (!oa_omp_begin(&b, clock))
			b.clock = clock;
		oa_omp_seg_close(&b, c);
		oa_omp_end(&b);
	}
	th->lazy = 0;
	th->cur = NULL;
	/* c is not touched after this unless the completion came first. */
	if (atomic_fetch_or(&c->fin, FIN_ORPHAN) & FIN_DONE)
		oa_omp_task_free(th, c);
	/* The thread went back to p when c's part returned: resume it as that
	 * switch would have (its implicit task, a task c ran nested in). */
	if (p)
		oa_omp_switch(th, NULL, ompt_task_switch, p);
	return th->cur;
}

/* The completion of untied task p, which this thread does not run: 1 if
 * that is all (p freed here, or by the thread whose unreported last part
 * runs it), 0 if no thread runs it (its last part was never reported
 * either: the caller shows the completion as a segment of no length). */
static int untied_done(struct othr *th, struct otask *p)
{
	if (atomic_fetch_or(&p->fin, FIN_DONE) & FIN_ORPHAN) {
		oa_omp_task_free(th, p);
		return 1;
	}
	/* Set before the last part began, which was before the counter
	 * dropped on this thread: its runner frees it. */
	return p->state == TS_RUNNING;
}

/* P completed while it was not running on this thread. */
static void forget(struct othr *th, struct otask *p)
{
	if (p->state == TS_RUNNING && p->last != th) {
		/* its segment is open on another thread */
		oa_omp_anomaly(th, "task completed while it runs on another thread", p, NULL);
		return;
	}
	oa_omp_task_free(th, p);
}

static int pause_mark(int status, int detach)
{
	if (detach)
		return TM_DETACHED;
	return status == ompt_task_yield ? TM_YIELDED : TM_SUSPENDED;
}

/* Close c, the running task, on this thread (step 4). */
static struct otask *close_task(struct ev_batch *b, struct othr *th, struct otask *c, struct otask *p, int status)
{
	oa_omp_drop_stale_acquire(b, c);
	if (c == p && ends(status)) {
		if (status == ompt_task_cancel && c->id)
			ev_omp_mark(b, "OM=", OA_MARK_OMP_TASK, TM_CANCELLED);
		if (c->nreg)
			oa_omp_anomaly(th, "task completes with regions open", c, NULL);
		oa_omp_seg_close(b, c);
		return c; /* freed by the caller once the batch is written */
	}
	int detach = c == p && status == ompt_task_detach;
	if (c->id)
		ev_omp_mark(b, "OM=", OA_MARK_OMP_TASK, pause_mark(status, detach));
	oa_omp_seg_close(b, c);
	c->state = detach ? TS_DETACHED : TS_PAUSED;
	c->clock = b->clock;
	c->last = th;
	return NULL;
}

/* Open n on this thread (step 5), marking a migration. */
static void open_task(struct ev_batch *b, struct othr *th, struct otask *n)
{
	int migrated = n->state == TS_PAUSED && n->last && n->last != th;
	oa_omp_seg_open(b, th, n);
	if (migrated && n->id)
		ev_omp_mark(b, "OM=", OA_MARK_OMP_TASK, TM_MIGRATED);
}

void oa_omp_switch(struct othr *th, struct otask *p, int status, struct otask *n)
{
	struct otask *c = th->cur;
	if (unlikely(n != c && oa_omp_is_orphan(c, p)))
		c = oa_omp_orphan_close(th, c, p);
	if (p && p != c && ends(status) && p->kind == TK_EXPLICIT && p->untied && untied_done(th, p))
		p = NULL;
	/* The completion of a task no thread runs: its last part ran without
	 * any report (see above); the trace shows the completion here, as a
	 * segment of no length. */
	int unseen_end = p && p != c && ends(status) && p->kind == TK_EXPLICIT &&
			 (p->state == TS_PAUSED || p->state == TS_CREATED);
	if (c == n && n && !unseen_end) {
		/* Nothing switches: U -> U self-switches, discarded tasks. */
		if (p && p != c && ends(status))
			forget(th, p);
		return;
	}
	uint64_t now = oa_omp_now();
	int close_c = c != NULL;
	/* The current part of untied task c ends without completing it: the
	 * thread goes back to the task it ran before c. */
	int part_end = c && c == p && c->untied && status == ompt_task_switch && n && n == c->from;
	if (c && th->cur_pending) {
		/* A part that ends as soon as it began ran no user code (it is
		 * structural: no time limit, a preempted one is no different). */
		int quick = now - th->resume_clock < oa_omp_merge_ns;
		if (th->cur_pending == PEND_PART ? part_end : (c != p || !ends(status)) && quick) {
			/* nothing of c was written since it resumed */
			if (th->cur_pending == PEND_PART)
				c->nested = 0; /* back in the queue */
			th->cur_pending = PEND_NONE;
			close_c = 0;
			/* Paused, also a task whose first part was not written:
			 * its next part is user code. */
			c->state = TS_PAUSED;
		} else {
			oa_omp_materialize(th);
		}
	}
	if (close_c && c->untied && c == p && !ends(status))
		c->nested = !part_end;
	if (th->lazy) {
		/* c's wait was not written: if the switch comes at once, it
		 * never will be (seg_close skips it). */
		if (!close_c || now - th->lazy_clock >= oa_omp_merge_ns)
			oa_omp_lazy_write(th);
		th->lazy = 0;
	}
	uint64_t clock = now;
	if (n && n->clock >= clock)
		clock = n->clock + 1;
	if (unseen_end && p->clock >= clock)
		clock = p->clock + 1;
	struct ev_batch b;
	if (!oa_omp_begin(&b, clock))
		b.clock = clock;
	struct otask *done = NULL;
	if (close_c) {
		if (c->kind != TK_EXPLICIT && !(c == p && ends(status)) && n && n->kind == TK_EXPLICIT && !th->base) {
			/* An implicit task never leaves its thread: its states stay
			 * open below the explicit tasks the thread runs for it. */
			th->base = c;
			c->state = TS_PAUSED;
		} else {
			done = close_task(&b, th, c, p, status);
		}
	}
	if (unseen_end) {
		oa_omp_anomaly(th, "completion of a task this thread does not run (untied task's last part)", p, c);
		open_task(&b, th, p);
		done = close_task(&b, th, p, p, status);
	} else if (p && p != c && ends(status) && p != n) {
		forget(th, p);
	}
	if (n && n == th->base) {
		th->base = NULL; /* back to the implicit task: its states are open */
		n->state = TS_RUNNING;
	} else if (n) {
		if (n->kind != TK_EXPLICIT && th->base) {
			/* Another implicit task (anomaly): close the one below. */
			struct otask *base = th->base;
			th->base = NULL;
			oa_omp_seg_close(&b, base);
			base->clock = b.clock;
		}
		int resumed_inside = n->untied && n->nested && n->state == TS_PAUSED && n->last == th;
		if (n->untied && !resumed_inside)
			n->from = c;
		if (n->state == TS_PAUSED && n->last == th && n->nreg && (n->regs[n->nreg - 1].flags & RF_WAIT) &&
		    oa_omp_merge_ns) {
			th->cur_pending = PEND_WAIT;
			th->resume_clock = b.clock;
			n->state = TS_RUNNING;
		} else if (n->kind == TK_EXPLICIT && n->untied && oa_omp_merge_ns &&
			   (n->state == TS_CREATED || resumed_inside)) {
			/* Clang splits an untied task in parts: the first one only
			 * queues the task again, and after each of its scheduling
			 * points (taskyield, taskwait, task creation) the part
			 * queues it again at once.  Such a part runs no user code:
			 * written only if it does not end at once (PEND_PART). */
			th->cur_pending = PEND_PART;
			th->resume_clock = b.clock;
			n->state = TS_RUNNING;
		} else {
			if (n->state == TS_RUNNING && n->last != th)
				oa_omp_anomaly(th, "switch to a task running on another thread", n, c);
			open_task(&b, th, n);
		}
	}
	th->cur = n;
	oa_omp_end(&b);
	if (done)
		oa_omp_task_free(th, done);
}

/* The two switches of almost every task, without the general case's checks
 * (what is written is what oa_omp_switch writes for them): a thread in its
 * implicit task starts a new tied explicit task, and that task completes
 * back into the implicit task.  Returns 0 for anything else. */
static int switch_fast(struct othr *th, struct otask *p, int status, struct otask *n)
{
	struct otask *c = th->cur;
	if (!c || p != c || !n || th->cur_pending || th->lazy)
		return 0;
	int start = status == ompt_task_switch;
	if (start ? n->state != TS_CREATED || n->kind != TK_EXPLICIT || n->untied || c->kind == TK_EXPLICIT || th->base
		  : status != ompt_task_complete || n != th->base || c->kind != TK_EXPLICIT || c->untied || c->nreg)
		return 0;
	uint64_t clock = oa_omp_now();
	if (n->clock >= clock)
		clock = n->clock + 1;
	struct ev_batch b;
	if (!oa_omp_begin(&b, clock))
		b.clock = clock;
	if (start) {
		th->base = c; /* its states stay open below n's */
		c->state = TS_PAUSED;
		oa_omp_seg_open(&b, th, n);
	} else {
		oa_omp_seg_close(&b, c);
		th->base = NULL; /* back to the implicit task: its states are open */
		n->state = TS_RUNNING;
	}
	th->cur = n;
	oa_omp_end(&b);
	if (!start)
		oa_omp_task_free(th, c);
	return 1;
}

static void on_task_schedule(ompt_data_t *prior_data, ompt_task_status_t status, ompt_data_t *next_data)
{
	struct othr *th = oa_omp_thread();
	if (unlikely(!th))
		return;
	struct otask *p = prior_data ? prior_data->ptr : NULL;
	struct otask *n = next_data ? next_data->ptr : NULL;
	oa_omp_note(th, "task_schedule", p, (long)status, n);
	if (unlikely(oa_omp_debug > 1))
		oa_log("ompt: tid %d: task_schedule cur %u(%d) prior %u(%d) status %d next %u(%d)",
		       oa_self ? oa_self->tid : -1, th->cur ? th->cur->id : 0, th->cur ? th->cur->state : -1,
		       p ? p->id : 0, p ? p->state : -1, (int)status, n ? n->id : 0, n ? n->state : -1);
	switch ((int)status) {
	case ompt_task_early_fulfill:
		if (!p)
			return;
		p->early = 1;
		if (p == th->cur && th->cur_pending)
			oa_omp_materialize(th);
		oa_omp_task_mark(th, TM_EARLY_FULFILL, p == th->cur ? 0 : p->id);
		return;
	case ompt_task_late_fulfill:
		if (!p)
			return;
		if (th->cur_pending)
			oa_omp_materialize(th);
		oa_omp_task_mark(th, TM_LATE_FULFILL, p->id);
		if (p->state == TS_DETACHED) {
			oa_omp_task_free(th, p);
			prior_data->ptr = NULL;
		}
		return;
	case ompt_taskwait_complete:
		if (!p || p->kind != TK_TWDEPS)
			return;
		if (p->owner && p->owner == th->cur) {
			oa_omp_wait_end(th, NULL, p->owner, RK_BIT(RK_TW_DEPS), (uintptr_t)p);
		} else if (p->owner) {
			/* Not open on this thread's stream: just forget it. */
			struct otask *o = p->owner;
			int i = oa_omp_reg_find(o, RK_BIT(RK_TW_DEPS), (uintptr_t)p);
			if (i >= 0) {
				for (int j = i; j + 1 < o->nreg; j++)
					o->regs[j] = o->regs[j + 1];
				o->nreg--;
			}
			oa_omp_anomaly(th, "taskwait depend completes on another thread than its wait", p, o);
		}
		oa_omp_task_free(th, p);
		prior_data->ptr = NULL;
		return;
	default: break;
	}
	if (switch_fast(th, p, (int)status, n)) {
		if (status == ompt_task_complete)
			prior_data->ptr = NULL; /* freed */
		return;
	}
	if (status == ompt_task_cancel && p && p->state == TS_CREATED) {
		/* Discarded before it ever ran. */
		oa_omp_task_mark(th, TM_DISCARDED, p->id);
		oa_omp_task_free(th, p);
		prior_data->ptr = NULL;
		p = NULL;
	}
	if (!n && next_data) {
		/* A task created before the tool saw it: run it without an id. */
		n = oa_omp_task_new(th, TK_EXPLICIT);
		next_data->ptr = n;
	}
	oa_omp_switch(th, p, status, n);
	if (p && (ends(status) || p->state == TS_FREE))
		prior_data->ptr = NULL; /* p may be freed by another thread */
}

static void on_task_create(ompt_data_t *enc, const ompt_frame_t *frame, ompt_data_t *new_data, int flags, int has_deps,
			   const void *codeptr)
{
	(void)frame;
	(void)has_deps;
	struct othr *th = oa_omp_thread();
	new_data->ptr = NULL;
	if (unlikely(!th) || (flags & (ompt_task_initial | ompt_task_implicit)))
		return;
	oa_omp_note(th, "task_create", enc ? enc->ptr : NULL, flags, NULL);
	if (flags & ompt_task_taskwait) {
		/* taskwait depend / if(0) with dependences: a wait of the
		 * encountering task until taskwait_complete. */
		struct otask *o = oa_omp_owner(th, enc);
		struct otask *t = o ? oa_omp_task_new(th, TK_TWDEPS) : NULL;
		if (!t)
			return;
		t->owner = o;
		new_data->ptr = t;
		oa_omp_region_begin(th, o, 0, RK_TW_DEPS, 0, 0, RF_WAIT, (uintptr_t)t);
		return;
	}
	struct otask *t = oa_omp_task_new(th, TK_EXPLICIT);
	if (unlikely(!t))
		return;
	t->if0 = (flags & ompt_task_undeferred) != 0;
	t->untied = (flags & ompt_task_untied) != 0;
	new_data->ptr = t;
	struct otask *e = enc ? enc->ptr : NULL, *c = th->cur;
	struct otype ty;
	uintptr_t region = oa_omp_region_ra(th, e ? e : c);
	oa_omp_type_of((uintptr_t)codeptr, region, &ty);
	int split = 0;
	if (unlikely(ty.flags & OT_RUNTIME)) {
		/* Created inside the runtime (taskloop): the user code's type. */
		if (e != c && c && c->kind == TK_EXPLICIT && c->type) {
			/* libomp splits a large taskloop: a task of it (c) creates
			 * part of the loop's tasks wherever it runs, naming the
			 * taskloop's encountering task, which runs on another
			 * thread, as their parent.  They are c's creations here,
			 * of c's type; switching to their named parent would open
			 * that task on two threads at once. */
			split = 1;
			ty.id = c->type;
			ty.clock = c->clock;
		} else if (th->taskloop_type) {
			ty.id = th->taskloop_type;
			ty.clock = th->taskloop_clock;
		} else {
			oa_omp_type_of_caller(region, &ty);
		}
	}
	if (!ty.id)
		return; /* no type: the task stays out of the trace */
	t->type = ty.id;
	if (split) {
		if (th->cur_pending)
			oa_omp_materialize(th);
	} else {
		oa_omp_owner(th, enc);
	}
	uint64_t now = oa_omp_now();
	if (now <= ty.clock)
		now = ty.clock + 1;
	struct ev_batch b;
	if (!oa_omp_begin(&b, now)) {
		oa_omp_end(&b);
		return;
	}
	uint32_t id = oa_omp_task_id(th);
	ev_omp_task_create(&b, id, ty.id);
	int written = b.p != NULL;
	t->clock = oa_omp_end(&b);
	if (written)
		t->id = id;
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
			     unsigned int actual_parallelism, unsigned int index, int flags)
{
	(void)actual_parallelism;
	struct othr *th = oa_omp_thread();
	if (unlikely(!th))
		return;
	oa_omp_note(th, endpoint == ompt_scope_begin ? "implicit_task begin" : "implicit_task end",
		    task_data ? task_data->ptr : NULL, (long)index, NULL);
	if (endpoint == ompt_scope_begin) {
		int initial = (flags & ompt_task_initial) != 0;
		struct otask *t = oa_omp_task_new(th, initial ? TK_HIDDEN : TK_IMPLICIT);
		if (!t)
			return;
		task_data->ptr = t;
		if (initial)
			th->initial = 1;
		t->master = !initial && index == 0;
		t->par_ra = parallel_data ? (uintptr_t)parallel_data->ptr : 0;
		struct otask *c = th->cur;
		if (c) {
			if (th->nret < OTHR_MAX_RET)
				th->ret[th->nret++] = c;
			else
				oa_omp_anomaly(th, "implicit tasks nested too deep", t, c);
		}
		oa_omp_switch(th, c, ompt_task_switch, t);
		return;
	}
	struct otask *t = task_data ? task_data->ptr : NULL;
	if (!t)
		return;
	if (t == th->cur) {
		struct otask *r = th->nret ? th->ret[--th->nret] : NULL;
		oa_omp_switch(th, t, ompt_task_complete, r);
	} else {
		oa_omp_anomaly(th, "end of an implicit task this thread does not run", t, th->cur);
		forget(th, t);
	}
	task_data->ptr = NULL;
}

static _Atomic int active_parallel;

int oa_omp_parallel_active(void)
{
	return atomic_load(&active_parallel);
}

static void on_parallel_begin(ompt_data_t *enc, const ompt_frame_t *frame, ompt_data_t *parallel_data,
			      unsigned int requested, int flags, const void *codeptr)
{
	(void)frame;
	(void)requested;
	(void)flags;
	if (parallel_data)
		parallel_data->ptr = (void *)codeptr;
	atomic_fetch_add(&active_parallel, 1);
	struct othr *th = oa_omp_thread();
	if (th)
		oa_omp_note(th, "parallel_begin", enc ? enc->ptr : NULL, (long)requested, NULL);
	struct otask *o = th ? oa_omp_owner(th, enc) : NULL;
	if (o)
		oa_omp_region_begin(th, o, 0, RK_FORK_CALL, 0, 0, 0, 0);
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *enc, int flags, const void *codeptr)
{
	(void)parallel_data;
	(void)flags;
	(void)codeptr;
	atomic_fetch_sub(&active_parallel, 1);
	struct othr *th = oa_omp_thread();
	if (th)
		oa_omp_note(th, "parallel_end", enc ? enc->ptr : NULL, 0, NULL);
	struct otask *o = th ? oa_omp_owner(th, enc) : NULL;
	if (o)
		oa_omp_region_end(th, o, RK_BIT(RK_FORK_CALL), 0);
}

static void on_task_dependence(ompt_data_t *src, ompt_data_t *sink)
{
	(void)sink;
	struct otask *s = src ? src->ptr : NULL;
	uint32_t id = s && s->state != TS_FREE ? s->id : 0;
	struct othr *th = oa_omp_thread();
	if (!id || !th)
		return;
	if (th->cur_pending)
		oa_omp_materialize(th);
	struct ev_batch b;
	oa_omp_begin(&b, 0);
	ev_omp_mark(&b, "OM=", OA_MARK_OMP_DEPS, id);
	oa_omp_end(&b);
}

/* The dependences of a task just created (or of a taskwait depend): their
 * kinds, one event each, right after its PPc. */
static void on_dependences(ompt_data_t *task_data, const ompt_dependence_t *deps, int ndeps)
{
	(void)task_data;
	struct othr *th = oa_omp_thread();
	if (!th || !deps || ndeps <= 0)
		return;
	if (th->cur_pending)
		oa_omp_materialize(th);
	struct ev_batch b;
	oa_omp_begin(&b, 0);
	for (int i = 0; i < ndeps && i < 64; i++)
		ev_omp_mark(&b, "OM=", OA_MARK_OMP_DEPKIND, (int64_t)deps[i].dependence_type);
	oa_omp_end(&b);
}

static void on_cancel(ompt_data_t *task_data, int flags, const void *codeptr)
{
	(void)task_data;
	(void)codeptr;
	if (flags & ompt_cancel_discarded_task)
		return; /* its task_schedule(cancel) follows */
	struct othr *th = oa_omp_thread();
	if (!th)
		return;
	if (th->cur_pending)
		oa_omp_materialize(th);
	oa_omp_task_mark(th, TM_CANCEL_BASE + (flags & 0x3f), 0);
}

void oa_omp_register_task_callbacks(ompt_set_callback_t set)
{
	set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
	set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
	set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
	set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
	set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
	set(ompt_callback_task_dependence, (ompt_callback_t)on_task_dependence);
	set(ompt_callback_dependences, (ompt_callback_t)on_dependences);
	set(ompt_callback_cancel, (ompt_callback_t)on_cancel);
}

/* The task a callback is about, made current on this thread if it is not
 * (a task we never saw begin, an orphan, a switch the runtime did not
 * report): above the state layer, as it may switch tasks. */
struct otask *oa_omp_owner(struct othr *th, ompt_data_t *task_data)
{
	struct otask *t = task_data ? task_data->ptr : th->cur;
	if (unlikely(!t)) {
		/* A task we never saw begin (tool started late): it writes no
		 * segment events, only its regions. */
		t = oa_omp_task_new(th, TK_HIDDEN);
		if (!t)
			return NULL;
		if (task_data)
			task_data->ptr = t;
	}
	if (unlikely(t != th->cur) && oa_omp_is_orphan(th->cur, t))
		oa_omp_orphan_close(th, th->cur, t); /* its last part ended unreported */
	if (unlikely(t != th->cur)) {
		oa_omp_anomaly(th, "a callback names a task this thread does not run (switching to it)", t, th->cur);
		oa_omp_switch(th, th->cur, ompt_task_switch, t);
	} else if (unlikely(th->cur_pending)) {
		oa_omp_materialize(th);
	}
	return t;
}

/* The end of a wait: dropped when the task resumed into it a moment ago
 * (oa_omp_merge_ns), else the region ends on the task that owns it. */
int oa_omp_wait_end(struct othr *th, ompt_data_t *task_data, struct otask *t, unsigned kinds, uint64_t key)
{
	if (!t)
		t = task_data ? task_data->ptr : th->cur;
	if (t && t == th->cur && th->cur_pending == PEND_WAIT && t->nreg) {
		struct oreg *r = &t->regs[t->nreg - 1];
		if ((kinds >> r->kind & 1u) && (!key || r->key == key) &&
		    oa_omp_now() - th->resume_clock < oa_omp_merge_ns) {
			t->nreg--;
			if (t->untied && t->nested)
				th->cur_pending = PEND_PART; /* the part may end at once */
			else
				oa_omp_materialize(th);
			return 0;
		}
	}
	if (!t || t != th->cur || th->cur_pending)
		t = oa_omp_owner(th, task_data);
	return t ? oa_omp_region_end(th, t, kinds, key) : -1;
}
