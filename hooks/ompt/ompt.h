/* ompt.h: internal header of the OMPT tool (hooks/ompt*.c).
 *
 * The tool keeps one region stack per task (ompt.md section 3): the states a
 * task has open (barrier, taskwait, critical, worksharing...) belong to the
 * task, not to the thread.  A thread's stream only ever holds, above its own
 * PA[, the segment and open states of the explicit task it runs (PPx+PT[,
 * then its states), and below them those of the implicit task it runs that
 * explicit task for (PMu, then its states): implicit tasks never migrate.
 * Switching tasks closes the outgoing task's states (top to bottom) and its
 * segment, then opens the incoming task's segment and reopens its states
 * (bottom to top), on the thread that really runs it, so every thread's
 * subsystem stack is balanced and a task that migrates is an end on one
 * thread and a new execution on the other.
 *
 * Layers (t020 checks them): ompt_state.c (task and region stacks, the
 * segment events, the tool's settings) <- ompt_task.c (creation, switches,
 * the owner of a callback, the end of a wait) <- ompt_sync.c (waits, locks,
 * worksharing) <- ompt.c (the tool: start, registration, thread begin and
 * end); ompt_types.c and ompt_debug.c are helpers below them all.
 *
 * Ownership: a task's state is touched only by the thread that runs (or
 * creates, or completes) it; libomp's own hand-offs order those accesses. A
 * thread's state is touched only by its thread. */
#ifndef OA_OMPT_H
#define OA_OMPT_H

#include <omp-tools.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../../writer/ev_omp.h"
#include "../../writer/ovni_fmt.h"
#include "../hooks.h"

/* Mark channels of the tool: OA_MARK_OMP_* in ovni_fmt.h. */

/* Values of OA_MARK_OMP_TASK (single channel). */
enum oa_omp_task_mark {
	TM_SUSPENDED = 1,     /* segment ends, the task is not complete (task switch) */
	TM_YIELDED,           /* segment ends at a taskyield */
	TM_MIGRATED,          /* resumed on another thread than the one it stopped on */
	TM_DETACHED,          /* body ended, completion waits for its event */
	TM_EARLY_FULFILL,     /* its event was fulfilled while it ran */
	TM_LATE_FULFILL,      /* its event was fulfilled after its body: completed now */
	TM_CANCELLED,         /* ended by cancellation */
	TM_DISCARDED,         /* discarded by cancellation before it ever ran */
	TM_CANCEL_BASE = 100, /* + ompt_cancel_flag_t bits: cancel callback */
};

/* Values of OA_MARK_OMP_CONSTRUCT (stack channel). */
enum oa_omp_construct_mark {
	CM_MASKED = 1,
	CM_REDUCTION,
	CM_LOCK,
	CM_NEST_LOCK,
	CM_ORDERED,
	CM_ATOMIC,
	CM_OTHER_MUTEX,
};

/* Kinds of region a task can have open. */
enum oa_omp_rk {
	RK_FORK_CALL = 1, /* PCf: between parallel_begin and parallel_end on the encountering task */
	RK_BAR_PLAIN,     /* PBb */
	RK_BAR_JOIN,      /* PBj: end-of-parallel barrier, primary thread */
	RK_BAR_FORK,      /* PBf: end-of-parallel barrier, workers (wait for the next fork) */
	RK_TASKWAIT,      /* PTt */
	RK_TASKGROUP,     /* PTg: the wait at the end of a taskgroup */
	RK_TW_DEPS,       /* PTw: taskwait depend / if(0) task dependences */
	RK_TASKLOOP,      /* PTd + label: task creation of a taskloop */
	RK_ACQUIRING,     /* PIa: mutex acquire..acquired */
	RK_HOLDING,       /* PI[: mutex acquired..released */
	RK_WS_STATIC,     /* PWs + label */
	RK_WS_DYNAMIC,    /* PWc + label */
	RK_WS_SECTIONS,   /* PWe + label */
	RK_WS_SINGLE,     /* PWi + label */
	RK_WS_DISTRIBUTE, /* PWd + label */
	RK_MARK,          /* only the construct mark */
	RK_NKINDS,
};

#define RK_BIT(k) (1u << (k))
#define RK_BARRIERS (RK_BIT(RK_BAR_PLAIN) | RK_BIT(RK_BAR_JOIN) | RK_BIT(RK_BAR_FORK))

#define RF_WAIT 0x1u     /* the task waits in the runtime while this is on top */
#define RF_EXECUTOR 0x2u /* single executor (gcc code never reports its end) */
#define RF_LAZY 0x4u     /* opened but not written yet (othr.lazy_clock) */

struct oreg {
	uint64_t key;  /* wait_id of a mutex, mark value of RK_MARK, else 0 */
	uint32_t type; /* worksharing type id (PQx/PQe), 0: none */
	uint8_t kind;  /* enum oa_omp_rk */
	uint8_t mark;  /* OA_MARK_OMP_CONSTRUCT value pushed with it, 0: none */
	uint8_t flags; /* RF_* */
	uint8_t pad;
};

enum oa_omp_tstate { TS_FREE, TS_CREATED, TS_RUNNING, TS_PAUSED, TS_DETACHED };
/* TK_HIDDEN: a task that writes no segment events (the initial task, tasks
 * seen only after the tool started, tasks inherited across fork). */
enum oa_omp_tkind { TK_EXPLICIT, TK_IMPLICIT, TK_HIDDEN, TK_TWDEPS };

#define OTASK_INLINE_REGS 6

struct othr;

struct otask {
	uint32_t id;    /* ovni task id; 0: not in the trace (no PPc was written) */
	uint8_t state;  /* enum oa_omp_tstate */
	uint8_t kind;   /* enum oa_omp_tkind */
	uint8_t if0;    /* undeferred: PTi instead of PT[ */
	uint8_t master; /* implicit task of the primary thread of its team */
	uint16_t nreg, capreg;
	uint8_t early;     /* early_fulfill seen */
	uint8_t untied;    /* created untied: the compiler may split it in parts */
	uint8_t nested;    /* untied, paused inside one of its own scheduling points
			 * (it resumes on this thread, where it paused) */
	uint32_t type;     /* its type id (PPc), 0: none */
	uint64_t clock;    /* of its PPc or last PPe: a PPx must be later */
	struct othr *last; /* thread of its last written segment */
	/* Untied: the task its thread ran before it (where the current part
	 * returns when it ends without completing the task). */
	struct otask *from;
	/* Untied: who is done with it when its last part ends unreported
	 * (FIN_*, ompt_task.c); the second of the two frees it. */
	_Atomic uint8_t fin;
	uintptr_t par_ra;    /* implicit: code address of its parallel region */
	struct otask *owner; /* TK_TWDEPS: the task that waits */
	struct oreg *regs;
	struct oreg inl[OTASK_INLINE_REGS];
	struct otask *next; /* free list */
	/* The head of a chain of free states in the shared pool: the next
	 * chain and this one's length (ompt_state.c). */
	struct otask *pool_next;
	unsigned pool_len;
};

enum oa_omp_pending { PEND_NONE, PEND_WAIT, PEND_PART };

enum oa_omp_fin {
	FIN_ORPHAN = 1, /* its runner closed its last part, never reported */
	FIN_DONE = 2,   /* another thread reported its completion */
};

#define OTHR_MAX_RET 32
#define ONOTES 16

/* A callback as OVNI_OMP_DEBUG remembers it (ompt_debug.c). */
struct onote {
	const char *cb;
	const void *a, *b; /* the task data (ompt_data_t.ptr) it named, or NULL */
	long arg;
	uint64_t clock;
};

struct othr {
	struct otask *cur; /* the task this thread runs, or NULL */
	/* An implicit task whose states stay open on the stream below cur (an
	 * explicit task run for it), or NULL. */
	struct otask *base;
	/* cur's segment is not written yet (written at resume_clock if anything
	 * but another switch follows): PEND_WAIT, it was resumed into a runtime
	 * wait; PEND_PART, it is an untied task's part that may run no user code
	 * (ompt_task.c). */
	int cur_pending;
	uint64_t resume_clock;
	/* The top region of cur is a wait of an explicit task not written yet:
	 * if the runtime switches to another task within oa_omp_merge_ns, neither
	 * its opening nor its closing is written. */
	int lazy;
	uint64_t lazy_clock;
	struct otask *ret[OTHR_MAX_RET]; /* tasks to resume when an implicit task ends */
	int nret;
	int attached;             /* PA[ written */
	int initial;              /* the initial thread of the runtime */
	uint32_t id_next, id_end; /* block of task ids */
	struct otask *free;
	unsigned nfree;
	struct otask *spill; /* free states set aside for the pool, nspill of them */
	unsigned nspill;
	uint32_t taskloop_type; /* type of the taskloop being created, 0: none */
	uint64_t taskloop_clock;
	uint64_t anomalies;
	int tid;
	unsigned nnotes; /* OVNI_OMP_DEBUG: callbacks seen, the last ONOTES in notes */
	struct onote notes[ONOTES];
};

extern uint64_t oa_omp_merge_ns;
extern int oa_omp_debug; /* OVNI_OMP_DEBUG: 1 anomaly reports, 2 and every task switch */

/* ompt_debug.c: a callback the thread saw (kept only under OVNI_OMP_DEBUG),
 * and an anomaly: a callback order the tool did not expect, about task a
 * (and b), counted, and reported on stderr under OVNI_OMP_DEBUG with the
 * thread's last callbacks. */
void oa_omp_note_slow(struct othr *th, const char *cb, const void *a, long arg, const void *b);
void oa_omp_anomaly_slow(struct othr *th, const char *what, const struct otask *a, const struct otask *b);
static inline void oa_omp_note(struct othr *th, const char *cb, const void *a, long arg, const void *b)
{
	if (__builtin_expect(oa_omp_debug != 0, 0))
		oa_omp_note_slow(th, cb, a, arg, b);
}
static inline void oa_omp_anomaly(struct othr *th, const char *what, const struct otask *a, const struct otask *b)
{
	th->anomalies++;
	if (__builtin_expect(oa_omp_debug != 0, 0))
		oa_omp_anomaly_slow(th, what, a, b);
}

/* The tool's clock: the trace clock (writer/clock.h, through the TSC). */
static inline uint64_t oa_omp_now(void)
{
	return oa_clock_now();
}

/* ompt_state.c: threads, tasks, region stacks and segments. */
extern OA_TLS struct othr *oa_omp_tls_thr;
struct othr *oa_omp_thread_new(void);
static inline struct othr *oa_omp_thread(void)
{
	struct othr *th = oa_omp_tls_thr;
	return likely(th != NULL) ? th : oa_omp_thread_new();
}
/* The calling thread's state if it has one (no allocation). */
struct othr *oa_omp_thread_peek(void);
/* The thread ends: hand its free task states to the other threads. */
void oa_omp_thread_release(struct othr *th);
struct otask *oa_omp_task_new(struct othr *th, int kind);
void oa_omp_task_free(struct othr *th, struct otask *t);
uint32_t oa_omp_task_id(struct othr *th);

/* A batch on the calling thread's stream at `clock` (0: now); returns 0 if
 * the thread has no stream. */
static OA_INLINE uint64_t oa_omp_begin(struct ev_batch *b, uint64_t clock)
{
	struct oa_thread *self = oa_self;
	if (unlikely(!self)) {
		b->s = NULL;
		b->p = NULL;
		return 0;
	}
	return ev_batch_begin(b, &self->s, clock ? clock : oa_omp_now());
}

static OA_INLINE uint64_t oa_omp_end(struct ev_batch *b)
{
	return b->s ? ev_batch_end(b) : 0;
}

/* Region stack of a task. */
struct oreg *oa_omp_reg_push(struct otask *t);
void oa_omp_reg_open(struct ev_batch *b, const struct oreg *r);
void oa_omp_reg_close(struct ev_batch *b, const struct oreg *r);
/* Remove region i of the running task t: close those above it and it, then
 * reopen those above (the thread's stack stays LIFO). */
void oa_omp_reg_remove(struct ev_batch *b, struct otask *t, int i);
/* The topmost region of t whose kind is in the mask RK_BIT(kind)..., with
 * that key when key is nonzero, or -1. */
int oa_omp_reg_find(const struct otask *t, unsigned kinds, uint64_t key);
/* Close acquiring states left on top by a failed omp_test_lock. */
void oa_omp_drop_stale_acquire(struct ev_batch *b, struct otask *t);

/* Task segments on the calling thread (closing skips RF_LAZY regions). */
void oa_omp_seg_open(struct ev_batch *b, struct othr *th, struct otask *t);
void oa_omp_seg_close(struct ev_batch *b, struct otask *t);
/* Write the pending resume of th->cur, if any. */
void oa_omp_materialize(struct othr *th);
/* The task a callback names (task_data, or the thread's current task when
 * NULL), made the running task of th: the tool switches when its idea of
 * the current task differs (never seen in libomp 14), and writes a pending
 * resume. */
struct otask *oa_omp_owner(struct othr *th, ompt_data_t *task_data);
/* Push a region on the running task `t` and write its opening at `clock`
 * (0: now). */
void oa_omp_region_begin(struct othr *th, struct otask *t, uint64_t clock, int kind, uint32_t type, uint8_t mark,
			 uint8_t flags, uint64_t key);
/* Remove the topmost region of t of a kind in the mask (and key when
 * nonzero). Returns 0, or -1 when there was none. */
int oa_omp_region_end(struct othr *th, struct otask *t, unsigned kinds, uint64_t key);
/* The end of a wait of the task a callback names (taskwait, taskgroup,
 * taskwait deps): when the task was resumed into that wait less than
 * oa_omp_merge_ns ago and nothing was written since, the wait is dropped and
 * the resume written after it. */
int oa_omp_wait_end(struct othr *th, ompt_data_t *task_data, struct otask *t, unsigned kinds, uint64_t key);
/* Write the opening of cur's lazily opened wait (th->lazy). */
void oa_omp_lazy_write(struct othr *th);
/* The code address of the parallel region task t of thread th runs in:
 * its own for an implicit task, else the one of the implicit task below. */
static inline uintptr_t oa_omp_region_ra(const struct othr *th, const struct otask *t)
{
	if (t && t->kind == TK_IMPLICIT)
		return t->par_ra;
	return th->base ? th->base->par_ra : 0;
}
/* Marks on the calling thread (single channels): a task event, with the
 * task it is about when that is not the running one (about != 0). */
void oa_omp_task_mark(struct othr *th, int64_t value, uint32_t about);

/* ompt_task.c: the task switch (ompt.md section 3, step 3 to 5). */
void oa_omp_switch(struct othr *th, struct otask *prior, int status, struct otask *next);
/* The running untied task c ended without a report and the runtime names
 * another task, p: close c here; returns the thread's task after that. */
struct otask *oa_omp_orphan_close(struct othr *th, struct otask *c, struct otask *p);
static inline int oa_omp_is_orphan(const struct otask *c, const struct otask *p)
{
	return c && p != c && c->kind == TK_EXPLICIT && c->untied && c->state == TS_RUNNING;
}
/* Parallel regions begun and not ended, in the whole process. */
int oa_omp_parallel_active(void);

/* ompt_types.c: process-wide task/worksharing types. */
#define OT_SCHED_DYNAMIC 0x1u
#define OT_RUNTIME 0x2u /* the code address is inside the OpenMP runtime */
struct otype {
	uint32_t id; /* 0: could not be declared */
	uint32_t flags;
	uint64_t clock; /* of its POc */
};
/* `region` is the code address of the parallel region the code runs in
 * (oa_omp_region_ra), or 0: clang outlines a parallel region's body into a
 * function named .omp_outlined.*, which says nothing to a user, so such a
 * label is prefixed with the function holding the region
 * ("main/.omp_outlined."). */
void oa_omp_type_of(uintptr_t codeptr, uintptr_t region, struct otype *out);
/* The type of the user code calling into the runtime (unwinds: slow). */
void oa_omp_type_of_caller(uintptr_t region, struct otype *out);
void oa_omp_types_reset(void);
/* Fork: hold the type table (prepare) and give it back (parent). */
void oa_omp_types_lock(void);
void oa_omp_types_unlock(void);
/* After `gen` execs of this process: ids in a range of their own. */
void oa_omp_types_set_generation(int gen);
void oa_omp_task_ids_set_generation(int gen);
/* Where the runtime is loaded (any address inside it). */
void oa_omp_types_set_runtime(uintptr_t addr_in_runtime);

/* Callback registration, per concern. */
void oa_omp_register_task_callbacks(ompt_set_callback_t set);
void oa_omp_register_sync_callbacks(ompt_set_callback_t set);
/* Fork child: forget what the parent's streams hold. */
void oa_omp_state_after_fork(void);
/* Fork: hold the shared task-state pool (prepare) and give it back. */
void oa_omp_state_lock(void);
void oa_omp_state_unlock(void);

#endif
