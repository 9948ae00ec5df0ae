/* model.c: the timeline of `ovni-auto view`, built by the export model
 * (export/walk.c) through a back-end of its own: each thread's tracks are
 * folded into one composite state at every moment, the most specific one
 * that is open:
 *
 *   agent flush > MPI call > Blocked in (a recorded wait) > task body >
 *   OpenMP runtime state > Running / Paused / Cooling / Warming
 *
 * and every change of it (or of the call site of a wait) ends an interval.
 * Process events (fork, exec, signals, exit) are kept as marks; the thread
 * name channel names the row. */
#include <stdlib.h>
#include <string.h>

#include "../../common/log.h"
#include "../../writer/ovni_fmt.h"
#include "../export/export.h"
#include "view.h"

struct vw_stack {
	const char *top[EX_NTRACKS]; /* the innermost open slice of each track */
	struct {
		const char **v;
		int n, cap;
	} below[EX_NTRACKS];
	int depth[EX_NTRACKS];
};

struct vw_strmap {
	uint32_t *slot; /* string index + 1, 0 empty */
	size_t cap;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

uint32_t vw_str(struct vw_model *m, const char *s)
{
	if (!s || !*s)
		return 0;
	struct vw_strmap *sm = m->strmap;
	if (sm->cap == 0 || m->nstrs * 2 >= sm->cap) {
		size_t cap = sm->cap ? sm->cap * 2 : 1024;
		uint32_t *slot = calloc(cap, sizeof(*slot));
		if (!slot)
			die("out of memory");
		for (size_t i = 1; i < m->nstrs; i++) {
			size_t j = oa_loom_hash(m->strs[i]) & (cap - 1);
			while (slot[j])
				j = (j + 1) & (cap - 1);
			slot[j] = (uint32_t)i + 1;
		}
		free(sm->slot);
		sm->slot = slot;
		sm->cap = cap;
	}
	size_t j = oa_loom_hash(s) & (sm->cap - 1);
	while (sm->slot[j]) {
		if (!strcmp(m->strs[sm->slot[j] - 1], s))
			return sm->slot[j] - 1;
		j = (j + 1) & (sm->cap - 1);
	}
	if (m->nstrs == m->capstrs) {
		m->capstrs = m->capstrs ? m->capstrs * 2 : 256;
		m->strs = xrealloc(m->strs, m->capstrs * sizeof(*m->strs));
	}
	m->strs[m->nstrs] = strdup(s);
	if (!m->strs[m->nstrs])
		die("out of memory");
	sm->slot[j] = (uint32_t)m->nstrs + 1;
	return (uint32_t)m->nstrs++;
}

static uint32_t state_of(struct vw_model *m, const char *name, int kind)
{
	uint32_t s = vw_str(m, name);
	for (int i = m->nstates - 1; i >= 0; i--) /* few states, the latest most likely */
		if (m->states[i].name == s)
			return (uint32_t)i;
	if (m->nstates == m->capstates) {
		m->capstates = m->capstates ? m->capstates * 2 : 32;
		m->states = xrealloc(m->states, (size_t)m->capstates * sizeof(*m->states));
	}
	m->states[m->nstates] = (struct vw_state){ s, kind, 0, 0 };
	return (uint32_t)m->nstates++;
}

static struct vw_model *model; /* the one being built (the back-end has no argument) */

static struct vw_row *row_of(const struct ex_track *t)
{
	int i = EX_TRACK_STREAM(t->uuid);
	if (i < 0)
		return NULL;
	if (i >= model->nrows) { /* rows appear with their streams' first tracks */
		int n = i + 1 > model->nrows * 2 ? i + 1 : model->nrows * 2;
		model->rows = xrealloc(model->rows, (size_t)n * sizeof(*model->rows));
		memset(model->rows + model->nrows, 0, (size_t)(n - model->nrows) * sizeof(*model->rows));
		model->nrows = n;
	}
	struct vw_row *r = &model->rows[i];
	if (!r->seen) {
		r->seen = 1;
		r->tid = t->real_tid;
		r->first = -1;
		int p;
		uint32_t pname = vw_str(model, t->process_name);
		for (p = 0; p < model->nprocs; p++)
			if (model->procs[p].name == pname)
				break;
		if (p == model->nprocs) {
			model->procs = xrealloc(model->procs, (size_t)(p + 1) * sizeof(*model->procs));
			model->procs[p] = (struct vw_proc){ t->real_pid, t->rank, pname, -1, 0, NULL, 0 };
			model->nprocs++;
		}
		r->proc = p;
		model->procs[p].nrows++;
		r->open = calloc(1, sizeof(*r->open));
		if (!r->open)
			die("out of memory");
	}
	return r;
}

/* Sums over many intervals wrap instead of overflowing (garbage clocks). */
static int64_t wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static struct vw_mpi *mpi_of(struct vw_proc *p, uint32_t state)
{
	for (int i = 0; i < p->nmpi; i++)
		if (p->mpi[i].state == state)
			return &p->mpi[i];
	p->mpi = xrealloc(p->mpi, (size_t)(p->nmpi + 1) * sizeof(*p->mpi));
	p->mpi[p->nmpi] = (struct vw_mpi){ state, 0, 0 };
	return &p->mpi[p->nmpi++];
}

static void add_iv(struct vw_row *r, int64_t start, int64_t end, uint32_t state, uint32_t detail)
{
	struct vw_ivs *iv = &r->iv;
	if (end <= start)
		return;
	if (iv->n && iv->v[iv->n - 1].end == start && iv->v[iv->n - 1].state == state &&
	    iv->v[iv->n - 1].detail == detail) {
		iv->v[iv->n - 1].end = end;
	} else {
		if (iv->n == iv->cap) {
			iv->cap = iv->cap ? iv->cap * 2 : 16;
			iv->v = xrealloc(iv->v, iv->cap * sizeof(*iv->v));
		}
		iv->v[iv->n++] = (struct vw_iv){ start, end, state, detail };
		model->states[state].count++;
	}
	model->states[state].ns = wadd(model->states[state].ns, end - start);
	if (model->states[state].kind == VW_MPI) {
		struct vw_mpi *c = mpi_of(&model->procs[r->proc], state);
		c->ns = wadd(c->ns, end - start);
	}
	r->kind_ns[model->states[state].kind] = wadd(r->kind_ns[model->states[state].kind], end - start);
}

/* The composite state now: state + 1, or 0 (not started, ended). */
static uint32_t compose(struct vw_row *r, uint32_t *detail)
{
	const char *const *top = r->open->top;
	const char *st = top[EX_TRACK_STATE];
	char name[600];
	int kind;
	*detail = 0;
	if (!st)
		return 0;
	if (!strcmp(st, "flush")) {
		snprintf(name, sizeof(name), "agent: flush");
		kind = VW_FLUSH;
	} else if (top[EX_TRACK_MPI]) {
		snprintf(name, sizeof(name), "%s", top[EX_TRACK_MPI]);
		kind = VW_MPI;
	} else if (top[EX_TRACK_MARK(OA_MARK_SYNC)]) {
		snprintf(name, sizeof(name), "blocked: %s", top[EX_TRACK_MARK(OA_MARK_SYNC)]);
		kind = VW_BLOCKED;
		if (top[EX_TRACK_MARK(OA_MARK_CALLSITE)])
			*detail = vw_str(model, top[EX_TRACK_MARK(OA_MARK_CALLSITE)]);
	} else if (top[EX_TRACK_TASKS]) {
		snprintf(name, sizeof(name), "%s", top[EX_TRACK_TASKS]);
		kind = VW_TASK;
	} else if (top[EX_TRACK_OPENMP]) {
		snprintf(name, sizeof(name), "OpenMP %s", top[EX_TRACK_OPENMP]);
		kind = VW_OPENMP;
	} else {
		snprintf(name, sizeof(name), "%s", st);
		kind = strcmp(st, "Running") ? VW_THREAD : VW_RUNNING;
	}
	return state_of(model, name, kind) + 1;
}

static void changed(struct vw_row *r, int64_t ts)
{
	uint32_t detail, s = compose(r, &detail);
	if (s == r->cur && detail == r->cur_detail)
		return;
	if (r->cur && ts > r->since)
		add_iv(r, r->since, ts, r->cur - 1, r->cur_detail);
	r->cur = s;
	r->cur_detail = detail;
	r->since = ts;
}

/* Times from the walk are ns from the first event; a damaged or hand-made
 * trace may have any clock: kept within [0, 2^59] (18 years), so that the
 * arithmetic of intervals and buckets cannot overflow. */
#define VW_TMAX ((int64_t)1 << 59)
static int64_t clamp(int64_t ts)
{
	return ts < 0 ? 0 : ts > VW_TMAX ? VW_TMAX : ts;
}

static void touch(struct vw_row *r, int64_t ts)
{
	if (r->first < 0)
		r->first = ts;
	r->last = ts;
	if (ts > model->duration)
		model->duration = ts;
}

static void v_begin(FILE *f)
{
	(void)f;
}

static void v_track(FILE *f, const struct ex_track *t)
{
	(void)f;
	row_of(t);
}

static void v_counter_track(FILE *f, uint64_t uuid, int pid, const char *process_name, const char *name)
{
	(void)f, (void)uuid, (void)pid, (void)process_name, (void)name;
}

static void v_slice_begin(FILE *f, const struct ex_track *t, int64_t ts, const char *name, const char *args)
{
	(void)f, (void)args;
	struct vw_row *r = row_of(t);
	if (!r)
		return;
	ts = clamp(ts);
	touch(r, ts);
	model->events++;
	int k = EX_TRACK_KIND(t->uuid);
	if (k == EX_TRACK_MARK(OA_MARK_PROC)) {
		if (r->nmarks == r->capmarks) {
			r->capmarks = r->capmarks ? r->capmarks * 2 : 8;
			r->marks = xrealloc(r->marks, r->capmarks * sizeof(*r->marks));
		}
		r->marks[r->nmarks++] = (struct vw_mark){ ts, vw_str(model, name) };
		return;
	}
	if (k == EX_TRACK_MARK(OA_MARK_THREAD_NAME)) {
		r->name = vw_str(model, name);
		return;
	}
	struct vw_stack *o = r->open;
	if (o->top[k]) {
		if (o->below[k].n == o->below[k].cap) {
			o->below[k].cap = o->below[k].cap ? o->below[k].cap * 2 : 4;
			o->below[k].v = xrealloc(o->below[k].v, (size_t)o->below[k].cap * sizeof(*o->below[k].v));
		}
		o->below[k].v[o->below[k].n++] = o->top[k];
	}
	/* The walk's names live until it ends: keep our own copy. */
	o->top[k] = model->strs[vw_str(model, name ? name : "?")];
	if (k == EX_TRACK_MPI && !o->depth[k]) /* an outermost call */
		mpi_of(&model->procs[r->proc], state_of(model, o->top[k], VW_MPI))->calls++;
	o->depth[k]++;
	changed(r, ts);
}

static void v_slice_end(FILE *f, const struct ex_track *t, int64_t ts)
{
	(void)f;
	struct vw_row *r = row_of(t);
	if (!r)
		return;
	ts = clamp(ts);
	int k = EX_TRACK_KIND(t->uuid);
	if (k == EX_TRACK_MARK(OA_MARK_PROC) || k == EX_TRACK_MARK(OA_MARK_THREAD_NAME))
		return;
	touch(r, ts);
	struct vw_stack *o = r->open;
	if (!o->depth[k])
		return;
	o->depth[k]--;
	o->top[k] = o->below[k].n ? o->below[k].v[--o->below[k].n] : NULL;
	changed(r, ts);
}

static void v_flow(FILE *f, const struct ex_track *t, int64_t ts, uint64_t id, int start, const char *cat)
{
	(void)f, (void)t, (void)ts, (void)id, (void)start, (void)cat;
}

static void v_instant(FILE *f, const struct ex_track *t, int64_t ts, const char *name)
{
	(void)f, (void)name;
	struct vw_row *r = row_of(t);
	if (r)
		touch(r, clamp(ts));
}

static void v_counter(FILE *f, uint64_t uuid, int pid, int64_t ts, const char *name, int64_t value)
{
	(void)f, (void)uuid, (void)pid, (void)ts, (void)name, (void)value;
}

static void v_end(FILE *f)
{
	(void)f;
}

static const struct ex_ops view_ops = { v_begin, v_track,   v_counter_track, v_slice_begin, v_slice_end,
					v_flow,  v_instant, v_counter,       v_end };

void vw_build(const char *path, struct vw_model *m)
{
	memset(m, 0, sizeof(*m));
	m->strmap = calloc(1, sizeof(*m->strmap));
	if (!m->strmap)
		die("out of memory");
	m->strs = xrealloc(NULL, 256 * sizeof(*m->strs));
	m->capstrs = 256;
	m->strs[0] = strdup("");
	m->nstrs = 1;
	model = m;
	m->bad = ex_walk(path, &view_ops, NULL, 0, INT64_MAX, NULL);
	/* Rows that never had a slice (empty streams) stay unseen. */
	for (int i = 0; i < m->nrows; i++) {
		struct vw_row *r = &m->rows[i];
		if (!r->seen)
			continue;
		if (r->cur && m->duration > r->since) /* the walk closes all at the last event */
			add_iv(r, r->since, m->duration, r->cur - 1, r->cur_detail);
		r->cur = 0;
		struct vw_proc *p = &m->procs[r->proc];
		if (r->first >= 0 && (p->first < 0 || r->first < p->first))
			p->first = r->first;
		for (int k = 0; k < EX_NTRACKS; k++)
			free(r->open->below[k].v);
		free(r->open);
		r->open = NULL;
	}
	model = NULL;
}

void vw_free(struct vw_model *m)
{
	for (int i = 0; i < m->nrows; i++) {
		free(m->rows[i].iv.v);
		free(m->rows[i].marks);
	}
	free(m->rows);
	for (int i = 0; i < m->nprocs; i++)
		free(m->procs[i].mpi);
	free(m->procs);
	free(m->states);
	for (size_t i = 0; i < m->nstrs; i++)
		free(m->strs[i]);
	free(m->strs);
	if (m->strmap)
		free(m->strmap->slot);
	free(m->strmap);
	memset(m, 0, sizeof(*m));
}
