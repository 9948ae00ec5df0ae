/* ompt_state.c: the OMPT tool's per-thread and per-task state: allocation
 * (per-thread free lists, task ids in per-thread blocks), the region stack of
 * each task, and task segments (what a thread writes when it starts or stops
 * running a task).  See ompt.h for the model. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ompt.h"
#include "../../common/slab.h"

/* The tool's settings (OVNI_OMP_MERGE_NS, OVNI_OMP_DEBUG), set by ompt.c at
 * start and read by every layer: here, at the bottom. */
uint64_t oa_omp_merge_ns = 5000;
int oa_omp_debug;

OA_TLS struct othr *oa_omp_tls_thr;

/* Task ids: u32, unique in the process, never 0, handed out in blocks. */
static _Atomic uint64_t next_id_block = 1;
#define ID_BLOCK 1024u

/* Free task states beyond what one thread keeps go to a shared pool, as
 * whole chains (linked by `next`, NULL-terminated), so that handing them
 * over or taking them never walks a list another thread wrote: a thread
 * that mostly creates tasks takes a chain a thread that mostly completes
 * them gave up, in O(1) under the lock.  A chain's head carries the link
 * to the next chain and the chain's length. */
#define FREE_KEEP 4096u
#define FREE_BATCH 1024u
static atomic_flag pool_lock = ATOMIC_FLAG_INIT;
static struct otask *pool;

static void pool_acquire(void)
{
	while (atomic_flag_test_and_set_explicit(&pool_lock, memory_order_acquire))
		;
}

static void pool_release(void)
{
	atomic_flag_clear_explicit(&pool_lock, memory_order_release);
}

/* Per thread and per slab of tasks: from anonymous memory of our own,
 * never freed (common/slab.h), not malloc, which set up a malloc arena in
 * each worker thread that never allocates (64 MiB of address space each:
 * under `ulimit -v` the program's threads failed to start). */
static struct oa_slab thr_slab, task_slab;

struct othr *oa_omp_thread_new(void)
{
	struct othr *th = oa_slab_take(&thr_slab, sizeof(struct othr), 64, 16);
	if (th)
		th->tid = oa_self ? oa_self->tid : (int)gettid();
	oa_omp_tls_thr = th;
	return th;
}

struct othr *oa_omp_thread_peek(void)
{
	return oa_omp_tls_thr;
}

void oa_omp_task_ids_set_generation(int gen)
{
	/* Task ids belong to the process, which an exec keeps: each image takes
	 * its own range (2^27 tasks; the ids are 32 bits). */
	atomic_store(&next_id_block, 1 + ((uint64_t)(unsigned)gen << 27));
}

uint32_t oa_omp_task_id(struct othr *th)
{
	for (;;) {
		if (unlikely(th->id_next == th->id_end)) {
			uint64_t base = atomic_fetch_add(&next_id_block, ID_BLOCK);
			th->id_next = (uint32_t)base;
			th->id_end = (uint32_t)(base + ID_BLOCK);
		}
		uint32_t id = th->id_next++;
		if (likely(id != 0))
			return id;
	}
}

static void pool_put(struct otask *head, unsigned n)
{
	if (!head)
		return;
	head->pool_len = n;
	pool_acquire();
	head->pool_next = pool;
	pool = head;
	pool_release();
}

/* th->free is empty: the chain this thread set aside, one of the pool, or
 * a new slab. */
static void refill(struct othr *th)
{
	if (th->spill) {
		th->free = th->spill;
		th->nfree = th->nspill;
		th->spill = NULL;
		th->nspill = 0;
		return;
	}
	pool_acquire();
	struct otask *c = pool;
	if (c)
		pool = c->pool_next;
	pool_release();
	if (c) {
		th->free = c;
		th->nfree = c->pool_len;
		return;
	}
	enum { SLAB = 64 };
	struct otask *slab = oa_slab_take(&task_slab, SLAB * sizeof(*slab), 64, 4);
	if (!slab)
		return;
	for (int i = 0; i < SLAB; i++) {
		slab[i].next = th->free;
		th->free = &slab[i];
	}
	th->nfree = SLAB;
}

struct otask *oa_omp_task_new(struct othr *th, int kind)
{
	if (unlikely(!th->free)) {
		refill(th);
		if (!th->free)
			return NULL;
	}
	struct otask *t = th->free;
	th->free = t->next;
	th->nfree--;
	t->id = 0;
	t->state = TS_CREATED;
	t->kind = (uint8_t)kind;
	t->if0 = 0;
	t->master = 0;
	t->early = 0;
	t->untied = 0;
	t->nested = 0;
	t->from = NULL;
	atomic_store_explicit(&t->fin, 0, memory_order_relaxed);
	t->type = 0;
	t->nreg = 0;
	t->capreg = OTASK_INLINE_REGS;
	t->regs = t->inl;
	t->clock = 0;
	t->last = NULL;
	t->par_ra = 0;
	t->owner = NULL;
	return t;
}

void oa_omp_task_free(struct othr *th, struct otask *t)
{
	if (t->regs != t->inl)
		free(t->regs);
	t->regs = t->inl;
	t->state = TS_FREE;
	if (likely(th->nfree < FREE_KEEP)) {
		t->next = th->free;
		th->free = t;
		th->nfree++;
		return;
	}
	/* Beyond what a thread keeps, gather a chain for the pool: a thread
	 * that mostly completes tasks must not hoard what a producing thread
	 * keeps allocating. */
	t->next = th->spill;
	th->spill = t;
	if (++th->nspill < FREE_BATCH)
		return;
	pool_put(th->spill, th->nspill);
	th->spill = NULL;
	th->nspill = 0;
}

void oa_omp_thread_release(struct othr *th)
{
	/* The thread ends: its free task states go to the pool. */
	pool_put(th->free, th->nfree);
	pool_put(th->spill, th->nspill);
	th->free = th->spill = NULL;
	th->nfree = th->nspill = 0;
}

/* ---- regions ---- */

static const char sub_open[RK_NKINDS][4] = {
	[RK_FORK_CALL] = "PCf",   [RK_BAR_PLAIN] = "PBb", [RK_BAR_JOIN] = "PBj",      [RK_BAR_FORK] = "PBf",
	[RK_TASKWAIT] = "PTt",    [RK_TASKGROUP] = "PTg", [RK_TW_DEPS] = "PTw",       [RK_TASKLOOP] = "PTd",
	[RK_ACQUIRING] = "PIa",   [RK_HOLDING] = "PI[",   [RK_WS_STATIC] = "PWs",     [RK_WS_DYNAMIC] = "PWc",
	[RK_WS_SECTIONS] = "PWe", [RK_WS_SINGLE] = "PWi", [RK_WS_DISTRIBUTE] = "PWd",
};
static const char sub_close[RK_NKINDS][4] = {
	[RK_FORK_CALL] = "PCF",   [RK_BAR_PLAIN] = "PBB", [RK_BAR_JOIN] = "PBJ",      [RK_BAR_FORK] = "PBF",
	[RK_TASKWAIT] = "PTT",    [RK_TASKGROUP] = "PTG", [RK_TW_DEPS] = "PTW",       [RK_TASKLOOP] = "PTD",
	[RK_ACQUIRING] = "PIA",   [RK_HOLDING] = "PI]",   [RK_WS_STATIC] = "PWS",     [RK_WS_DYNAMIC] = "PWC",
	[RK_WS_SECTIONS] = "PWE", [RK_WS_SINGLE] = "PWI", [RK_WS_DISTRIBUTE] = "PWD",
};

#define MAX_REGS 480 /* the emulator's stacks hold 512 */

struct oreg *oa_omp_reg_push(struct otask *t)
{
	if (unlikely(t->nreg == t->capreg)) {
		if (t->capreg >= MAX_REGS)
			return NULL;
		unsigned cap = t->capreg * 2u;
		struct oreg *r = malloc(cap * sizeof(*r));
		if (!r)
			return NULL;
		memcpy(r, t->regs, t->nreg * sizeof(*r));
		if (t->regs != t->inl)
			free(t->regs);
		t->regs = r;
		t->capreg = (uint16_t)cap;
	}
	return &t->regs[t->nreg++];
}

void oa_omp_reg_open(struct ev_batch *b, const struct oreg *r)
{
	if (r->mark)
		ev_omp_mark(b, "OM[", OA_MARK_OMP_CONSTRUCT, r->mark);
	if (r->type)
		ev_omp_ws_enter(b, r->type);
	if (sub_open[r->kind][0])
		ev_omp_state(b, sub_open[r->kind]);
}

void oa_omp_reg_close(struct ev_batch *b, const struct oreg *r)
{
	if (sub_close[r->kind][0])
		ev_omp_state(b, sub_close[r->kind]);
	if (r->type)
		ev_omp_ws_exit(b, r->type);
	if (r->mark)
		ev_omp_mark(b, "OM]", OA_MARK_OMP_CONSTRUCT, r->mark);
}

void oa_omp_reg_remove(struct ev_batch *b, struct otask *t, int i)
{
	for (int j = t->nreg - 1; j >= i; j--)
		oa_omp_reg_close(b, &t->regs[j]);
	memmove(&t->regs[i], &t->regs[i + 1], (size_t)(t->nreg - i - 1) * sizeof(struct oreg));
	t->nreg--;
	for (int j = i; j < t->nreg; j++)
		oa_omp_reg_open(b, &t->regs[j]);
}

int oa_omp_reg_find(const struct otask *t, unsigned kinds, uint64_t key)
{
	for (int i = t->nreg - 1; i >= 0; i--) {
		const struct oreg *r = &t->regs[i];
		if ((kinds >> r->kind & 1u) && (!key || r->key == key))
			return i;
	}
	return -1;
}

void oa_omp_drop_stale_acquire(struct ev_batch *b, struct otask *t)
{
	while (t->nreg && t->regs[t->nreg - 1].kind == RK_ACQUIRING) {
		oa_omp_reg_close(b, &t->regs[t->nreg - 1]);
		t->nreg--;
	}
}

/* ---- segments ---- */

void oa_omp_seg_open(struct ev_batch *b, struct othr *th, struct otask *t)
{
	switch (t->kind) {
	case TK_EXPLICIT:
		if (t->id)
			ev_omp_task_execute(b, t->id);
		if (t->if0) /* two calls: each MCV a constant, folded */
			ev_omp_state(b, "PTi");
		else
			ev_omp_state(b, "PT[");
		break;
	case TK_IMPLICIT: ev_omp_state(b, "PMu"); break;
	default: break;
	}
	for (int i = 0; i < t->nreg; i++)
		oa_omp_reg_open(b, &t->regs[i]);
	t->state = TS_RUNNING;
	t->last = th;
}

void oa_omp_seg_close(struct ev_batch *b, struct otask *t)
{
	for (int i = t->nreg - 1; i >= 0; i--) {
		if (t->regs[i].flags & RF_LAZY)
			t->regs[i].flags &= (uint8_t)~RF_LAZY; /* never written */
		else
			oa_omp_reg_close(b, &t->regs[i]);
	}
	switch (t->kind) {
	case TK_EXPLICIT:
		if (t->if0)
			ev_omp_state(b, "PTI");
		else
			ev_omp_state(b, "PT]");
		if (t->id)
			ev_omp_task_end(b, t->id);
		break;
	case TK_IMPLICIT: ev_omp_state(b, "PMU"); break;
	default: break;
	}
}

void oa_omp_materialize(struct othr *th)
{
	struct otask *t = th->cur;
	th->cur_pending = 0;
	if (!t)
		return;
	struct ev_batch b;
	uint64_t clock = th->resume_clock;
	if (clock <= t->clock)
		clock = t->clock + 1;
	/* An untied task's part runs user code: if its last written
	 * segment was on another thread, it migrated. */
	int migrated = t->kind == TK_EXPLICIT && t->last && t->last != th && t->id;
	oa_omp_begin(&b, clock);
	oa_omp_seg_open(&b, th, t);
	if (migrated)
		ev_omp_mark(&b, "OM=", OA_MARK_OMP_TASK, TM_MIGRATED);
	oa_omp_end(&b);
}

void oa_omp_lazy_write(struct othr *th)
{
	struct otask *t = th->cur;
	th->lazy = 0;
	if (!t || !t->nreg || !(t->regs[t->nreg - 1].flags & RF_LAZY))
		return;
	struct oreg *r = &t->regs[t->nreg - 1];
	r->flags &= (uint8_t)~RF_LAZY;
	struct ev_batch b;
	oa_omp_begin(&b, th->lazy_clock);
	oa_omp_reg_open(&b, r);
	oa_omp_end(&b);
}

void oa_omp_region_begin(struct othr *th, struct otask *t, uint64_t clock, int kind, uint32_t type, uint8_t mark,
			 uint8_t flags, uint64_t key)
{
	if (th->lazy) {
		/* The clock first: writing the deferred region may switch
		 * windows (tens of microseconds), and this region began before. */
		if (!clock)
			clock = oa_omp_now();
		oa_omp_lazy_write(th);
	}
	if ((flags & RF_WAIT) && t->kind == TK_EXPLICIT && t == th->cur && oa_omp_merge_ns &&
	    !(t->nreg && t->regs[t->nreg - 1].kind == RK_ACQUIRING)) {
		struct oreg *r = oa_omp_reg_push(t);
		if (r) {
			*r = (struct oreg){ .key = key,
					    .type = type,
					    .kind = (uint8_t)kind,
					    .mark = mark,
					    .flags = (uint8_t)(flags | RF_LAZY) };
			th->lazy = 1;
			th->lazy_clock = clock ? clock : oa_omp_now();
			return;
		}
	}
	struct ev_batch b;
	oa_omp_begin(&b, clock);
	if (kind != RK_ACQUIRING)
		oa_omp_drop_stale_acquire(&b, t);
	struct oreg *r = oa_omp_reg_push(t);
	if (r) {
		r->key = key;
		r->type = type;
		r->kind = (uint8_t)kind;
		r->mark = mark;
		r->flags = flags;
		r->pad = 0;
		oa_omp_reg_open(&b, r);
	} else {
		oa_omp_anomaly(th, "region stack full", t, NULL);
	}
	oa_omp_end(&b);
}

int oa_omp_region_end(struct othr *th, struct otask *t, unsigned kinds, uint64_t key)
{
	int i = oa_omp_reg_find(t, kinds, key);
	if (i < 0) {
		oa_omp_anomaly(th, "end of a region the task has not begun", t, NULL);
		return -1;
	}
	uint64_t clock = 0;
	if (th->lazy) {
		clock = oa_omp_now(); /* the end, before the deferred write (as above) */
		if (t == th->cur && i == t->nreg - 1 && (t->regs[i].flags & RF_LAZY) &&
		    clock - th->lazy_clock < oa_omp_merge_ns) {
			t->nreg--; /* a short wait that nothing interrupted */
			th->lazy = 0;
			return 0;
		}
		oa_omp_lazy_write(th);
	}
	struct ev_batch b;
	oa_omp_begin(&b, clock);
	if (!(kinds & RK_BIT(RK_ACQUIRING)) && t->regs[t->nreg - 1].kind == RK_ACQUIRING) {
		oa_omp_drop_stale_acquire(&b, t);
		i = oa_omp_reg_find(t, kinds, key);
	}
	if (i >= 0)
		oa_omp_reg_remove(&b, t, i);
	oa_omp_end(&b);
	return 0;
}

void oa_omp_task_mark(struct othr *th, int64_t value, uint32_t about)
{
	(void)th;
	struct ev_batch b;
	oa_omp_begin(&b, 0);
	if (about)
		ev_omp_mark(&b, "OM=", OA_MARK_OMP_TASKID, about);
	ev_omp_mark(&b, "OM=", OA_MARK_OMP_TASK, value);
	oa_omp_end(&b);
}

static void hide(struct otask *t)
{
	if (!t)
		return;
	t->kind = TK_HIDDEN;
	t->id = 0;
	t->nreg = 0;
}

void oa_omp_state_lock(void)
{
	pool_acquire();
}

void oa_omp_state_unlock(void)
{
	pool_release();
}

void oa_omp_state_after_fork(void)
{
	atomic_flag_clear(&pool_lock);
	struct othr *th = oa_omp_tls_thr;
	if (!th)
		return;
	/* Nothing the parent's streams hold is open in the child's. */
	hide(th->cur);
	hide(th->base);
	for (int i = 0; i < th->nret; i++)
		hide(th->ret[i]);
	th->cur_pending = 0;
	th->lazy = 0;
	th->attached = 0;
}
