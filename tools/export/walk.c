/* walk.c: the model behind `ovni-auto export` and `ovni-auto view`. Walks
 * the trace once in time order; per thread it keeps a stack of open slices
 * for each track (thread state, OpenMP states, tasks and worksharing
 * labels, each mark channel, MPI calls), so that a time window opens and
 * closes them at its edges, and hands everything to a back-end (JSON or
 * Perfetto protobuf, export_*.c; the HTML viewer, view/). Memory grows with
 * threads and open slices, not with events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/log.h"
#include "../../writer/ovni_fmt.h"
#include "../trace/map.h"
#include "../trace/labels.h"
#include "../trace/reader.h"
#include "export.h"

#define MAXDEPTH 512
#define NTRACK EX_NTRACKS /* 0 state, 1 openmp, 2 tasks, 3+T mark type T, then MPI */
#define TRK_MPI EX_TRACK_MPI

struct slice_stack {
	const char **name; /* grows as needed, up to MAXDEPTH */
	int n, cap;
	int declared;
};

struct xthread {
	struct ex_track track[NTRACK];
	struct slice_stack st[NTRACK];
	int proc;
	int state;
	int selected;
	int64_t about_ts; /* OA_MARK_OMP_TASKID: the task the next task event is about */
	int64_t about;
};

struct xproc {
	const char *loom;
	long long pid;
	char name[300];
	struct ck_map types;     /* type id -> label index + 1 */
	struct ck_map started;   /* task id + 1 -> 1 once executed */
	struct ck_map slicename; /* (task? 1<<32) | type -> interned name index + 1 */
	int running;
	int counter_declared;
};

static const struct ex_ops *ops;
static FILE *out;
static struct ck_map flows_started; /* flow ids whose start was written */

/* A flow end is written only when its start was (a thread filter or a time
 * window may have left the start out). */
static void flow(struct ex_track *tr, int64_t ts, uint64_t id, int start, const char *cat)
{
	uint64_t dummy;
	if (start)
		ck_map_put(&flows_started, id, 1);
	else if (!ck_map_get(&flows_started, id, &dummy))
		return;
	ops->flow(out, tr, ts, id, start, cat);
}
static int window_open;
static int64_t from_ns, to_ns = INT64_MAX;
static struct xthread *th;
static struct xproc *procs;
static int nprocs;
static char **interned;
static size_t ninterned, capinterned;

static const char *intern(const char *s, size_t n)
{
	if (ninterned == capinterned) {
		capinterned = capinterned ? capinterned * 2 : 64;
		interned = realloc(interned, sizeof(*interned) * capinterned);
	}
	return interned[ninterned++] = strndup(s, n);
}

static void declare(struct xthread *x, int k)
{
	if (x->st[k].declared)
		return;
	x->st[k].declared = 1;
	ops->track(out, &x->track[k]);
}

static void open_slice(struct xthread *x, int k, int64_t ts, const char *name, const char *args)
{
	struct slice_stack *s = &x->st[k];
	if (s->n >= MAXDEPTH)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4;
		s->name = realloc(s->name, sizeof(*s->name) * (size_t)s->cap);
	}
	s->name[s->n++] = name;
	if (window_open && x->selected) {
		declare(x, k);
		ops->slice_begin(out, &x->track[k], ts, name, args);
	}
}

static void close_slice(struct xthread *x, int k, int64_t ts)
{
	struct slice_stack *s = &x->st[k];
	if (!s->n)
		return;
	s->n--;
	if (window_open && x->selected)
		ops->slice_end(out, &x->track[k], ts);
}

/* The window starts: everything already open begins at its edge. */
static void open_window(struct rd_trace *t, int64_t ts)
{
	window_open = 1;
	for (int i = 0; i < t->n; i++)
		for (int k = 0; k < NTRACK; k++)
			for (int d = 0; d < th[i].st[k].n && th[i].selected; d++) {
				declare(&th[i], k);
				ops->slice_begin(out, &th[i].track[k], ts, th[i].st[k].name[d], NULL);
			}
}

static void close_all(struct rd_trace *t, int64_t ts)
{
	for (int i = 0; i < t->n; i++)
		for (int k = 0; k < NTRACK; k++)
			while (th[i].st[k].n)
				close_slice(&th[i], k, ts);
}

static void set_running(struct xthread *x, int64_t ts, int delta)
{
	struct xproc *p = &procs[x->proc];
	p->running += delta;
	if (!window_open)
		return;
	uint64_t uuid = ((uint64_t)x->proc + 1) << 40 | 0xffffff;
	if (!p->counter_declared) {
		p->counter_declared = 1;
		ops->counter_track(out, uuid, x->proc + 1, p->name, "running threads");
	}
	ops->counter(out, uuid, x->proc + 1, ts, "running threads", p->running);
}

/* Flow ids stay below 2^53 (JSON numbers): process index in bits 33..52,
 * bit 32 set for tasks, the tag or task id below. */
static uint64_t flow_id(int proc, int task, uint64_t id)
{
	return ((uint64_t)(proc + 1) << 33) | ((uint64_t) !!task << 32) | (id & 0xffffffffu);
}

static const char *const state_name[] = { "Unknown", "Running", "Paused", "Cooling", "Warming", "Dead" };

static void thread_state(struct xthread *x, int64_t ts, int state)
{
	int was_running = x->state == 1, is_running = state == 1;
	while (x->st[0].n)
		close_slice(x, 0, ts);
	x->state = state;
	if (state != 5 && state != 0)
		open_slice(x, 0, ts, state_name[state], NULL);
	if (was_running != is_running)
		set_running(x, ts, is_running ? 1 : -1);
}

static void event(struct lb_marks *names, struct xthread *x, struct rd_stream *s, const struct rd_event *ev, int64_t ts)
{
	const char *m = ev->mcv;
	struct xproc *p = &procs[x->proc];
	int flows = window_open && x->selected;
	if (m[0] == 'O') {
		if (m[1] == 'H') {
			switch (m[2]) {
			case 'x':
				thread_state(x, ts, 1);
				if (ev->size >= 16 && rd_u64(ev->payload + 8) && flows)
					flow(&x->track[0], ts, flow_id(x->proc, 0, rd_u64(ev->payload + 8)), 0,
					     "thread");
				break;
			case 'e': thread_state(x, ts, 5); break;
			case 'p': thread_state(x, ts, 2); break;
			case 'r': thread_state(x, ts, 1); break;
			case 'c': thread_state(x, ts, 3); break;
			case 'w': thread_state(x, ts, 4); break;
			case 'C':
				if (ev->size >= 12 && flows)
					flow(&x->track[0], ts, flow_id(x->proc, 0, rd_u64(ev->payload + 4)), 1,
					     "thread");
				break;
			}
		} else if (m[1] == 'F') {
			if (m[2] == '[')
				open_slice(x, 0, ts, "flush", NULL);
			else if (x->st[0].n > 1)
				close_slice(x, 0, ts);
		} else if (m[1] == 'M' && ev->size == 12) {
			int32_t type = rd_i32(ev->payload + 8);
			if (type < 0 || type >= 100)
				return;
			int k = 3 + type;
			if (!x->track[k].name) {
				char name[160];
				snprintf(name, sizeof(name), "TH %d: %s", (int)s->tid, lb_mark_title(names, type));
				x->track[k].name = intern(name, strlen(name));
			}
			const char *label = lb_mark_label(names, type, rd_i64(ev->payload));
			if (type == OA_MARK_OMP_TASKID) {
				x->about = rd_i64(ev->payload);
				x->about_ts = ts;
				return;
			}
			if (m[2] == '=' &&
			    (type == OA_MARK_OMP_TASK || type == OA_MARK_OMP_DEPS || type == OA_MARK_OMP_DEPKIND)) {
				/* Events, not states: instants. */
				char name[200];
				if (type == OA_MARK_OMP_DEPS)
					snprintf(name, sizeof(name), "depends on task %lld",
						 (long long)rd_i64(ev->payload));
				else if (x->about && x->about_ts == ts)
					snprintf(name, sizeof(name), "%s (task %lld)", label, (long long)x->about);
				else
					snprintf(name, sizeof(name), "%s", label);
				x->about = 0;
				if (window_open && x->selected) {
					declare(x, k);
					ops->instant(out, &x->track[k], ts, name); /* written now */
				}
				return;
			}
			if (m[2] == '[') {
				open_slice(x, k, ts, label, NULL);
			} else if (m[2] == ']') {
				close_slice(x, k, ts);
			} else {
				close_slice(x, k, ts);
				open_slice(x, k, ts, label, NULL);
			}
		}
		return;
	}
	if (m[0] == 'M') {
		char v = m[2];
		if (ovni_pair_enters(v)) {
			const char *name = lb_mpi_function(m[1], v);
			open_slice(x, TRK_MPI, ts, name ? name : "MPI ?", NULL);
		} else if (x->st[TRK_MPI].n) {
			close_slice(x, TRK_MPI, ts);
		}
		return;
	}
	if (m[0] != 'P')
		return;
	if (m[1] == 'O' && m[2] == 'c' && ev->jumbo && ev->size > 4) {
		const char *label =
			intern((const char *)ev->payload + 4, strnlen((const char *)ev->payload + 4, ev->size - 4));
		(void)label;
		ck_map_put(&p->types, rd_u32(ev->payload), ninterned); /* label index + 1 */
		return;
	}
	if ((m[1] == 'P' || m[1] == 'Q') && ev->size >= 4) {
		uint32_t id = rd_u32(ev->payload);
		if (m[1] == 'P' && m[2] == 'c') {
			if (flows)
				flow(&x->track[0], ts, flow_id(x->proc, 1, id), 1, "task");
			return;
		}
		if (m[2] == 'e') {
			close_slice(x, 2, ts);
			return;
		}
		if (m[2] != 'x')
			return;
		uint64_t type = id, idx, dummy;
		char name[700], args[64];
		if (m[1] == 'P')
			snprintf(args, sizeof(args), "{\"task\":%u}", id);
		else
			snprintf(args, sizeof(args), "{\"type\":%u}", id);
		(void)type;
		const char *label = NULL;
		/* A task's type is known from its PPc: keep it in the started map. */
		if (m[1] == 'Q' && ck_map_get(&p->types, id, &idx))
			label = interned[idx - 1];
		if (m[1] == 'P' && ck_map_get(&p->started, (uint64_t)id + 1, &idx) && idx > 1)
			label = interned[idx - 2];
		/* One name per type, made once. */
		uint64_t tkey = (uint64_t)(m[1] == 'P') << 32 | (label ? (uint64_t)(idx & 0xffffffffu) : 0), nidx;
		if (!ck_map_get(&p->slicename, tkey + 1, &nidx)) {
			snprintf(name, sizeof(name), "%s%s", m[1] == 'P' ? "task " : "", label ? label : "?");
			intern(name, strlen(name));
			nidx = ninterned;
			ck_map_put(&p->slicename, tkey + 1, nidx);
		}
		open_slice(x, 2, ts, interned[nidx - 1], args);
		if (m[1] == 'P' && !ck_map_get(&p->started, (uint64_t)id + 1 + (1ull << 62), &dummy)) {
			ck_map_put(&p->started, (uint64_t)id + 1 + (1ull << 62), 1);
			if (flows)
				flow(&x->track[2], ts, flow_id(x->proc, 1, id), 0, "task");
		}
		return;
	}
	const char *state = lb_omp_state(m[1], m[2]);
	if (state)
		open_slice(x, 1, ts, state, NULL);
	else if (ovni_pair_leaves(m[2]))
		close_slice(x, 1, ts);
}

/* PPc records the type of a task for its later PPx (label index + 2). */
static void note_task_type(struct xproc *p, const struct rd_event *ev)
{
	uint64_t idx;
	if (ev->mcv[0] == 'P' && ev->mcv[1] == 'P' && ev->mcv[2] == 'c' && ev->size == 8 &&
	    ck_map_get(&p->types, rd_u32(ev->payload + 4), &idx))
		ck_map_put(&p->started, (uint64_t)rd_u32(ev->payload) + 1, idx + 1);
}

static int selected(const char *list, long long tid)
{
	if (!list)
		return 1;
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", list);
	char *save;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (atoll(tok) == tid)
			return 1;
	return 0;
}

int ex_walk(const char *path, const struct ex_ops *the_ops, FILE *the_out, int64_t from, int64_t to,
	    const char *threads)
{
	ops = the_ops;
	out = the_out;
	/* A fresh start when called again in one process (fuzzing). */
	procs = NULL;
	nprocs = 0;
	window_open = 0;
	from_ns = from;
	to_ns = to;
	memset(&flows_started, 0, sizeof(flows_started));
	struct rd_trace t;
	rd_open_or_die(&t, path);
	struct lb_marks *names = lb_marks_load(&t);
	th = calloc((size_t)t.n, sizeof(*th));
	uint64_t total = 0;
	/* At most one process per stream, allocated once: tracks keep pointers
	 * to their process's name. */
	procs = calloc((size_t)t.n + 1, sizeof(*procs));
	if (!procs)
		die("out of memory");
	for (int i = 0; i < t.n; i++) {
		struct rd_stream *s = &t.streams[i];
		total += s->size;
		int p;
		for (p = 0; p < nprocs; p++)
			if (procs[p].pid == s->pid && s->loom && !strcmp(procs[p].loom, s->loom))
				break;
		if (p == nprocs) {
			nprocs++;
			procs[p].loom = s->loom ? s->loom : "?";
			procs[p].pid = s->pid;
			snprintf(procs[p].name, sizeof(procs[p].name), "loom %s / proc %lld", procs[p].loom, s->pid);
		}
		th[i].proc = p;
		th[i].selected = selected(threads, s->tid);
		static const char *const kind[3] = { "state", "OpenMP", "tasks" };
		for (int k = 0; k < NTRACK; k++) {
			struct ex_track *tr = &th[i].track[k];
			tr->pid = p + 1;
			tr->real_pid = (int)s->pid;
			tr->real_tid = (int)s->tid;
			tr->rank = (int)s->rank;
			tr->tid = (int)(s->tid * 128 + k);
			tr->uuid = (uint64_t)(i + 1) << 8 | (uint64_t)k;
			tr->process_name = procs[p].name;
			tr->sort = (int)(i * 128 + k);
			if (k < 3 || k == TRK_MPI) {
				char name[64];
				snprintf(name, sizeof(name), "TH %lld: %s", s->tid, k < 3 ? kind[k] : "MPI");
				tr->name = intern(name, strlen(name));
			}
		}
	}
	if (threads) {
		int any = 0;
		for (int i = 0; i < t.n && !any; i++)
			any = th[i].selected;
		if (!any)
			die("%s: no thread %s in the trace", path, threads);
	}
	ops->begin(out);
	int tty = isatty(2);
	struct rd_merge *m = rd_merge_new(&t);
	struct rd_stream *s;
	struct rd_event ev;
	int64_t t0 = 0, last = 0;
	long n = 0;
	int have_t0 = 0;
	if (from_ns <= 0)
		window_open = 1;
	while (rd_merge_next(m, &s, &ev)) {
		if (!have_t0) {
			t0 = ev.time;
			have_t0 = 1;
		}
		int64_t ts = rd_sub(ev.time, t0);
		if (ts > to_ns)
			break;
		if (!window_open && ts >= from_ns)
			open_window(&t, from_ns);
		last = ts;
		note_task_type(&procs[th[s->index].proc], &ev);
		event(names, &th[s->index], s, &ev, ts);
		if (tty && (++n & 0xfffff) == 0) {
			uint64_t done = 0;
			for (int i = 0; i < t.n; i++)
				done += t.streams[i].off;
			fprintf(stderr, "\rexport: %3.0f%% (%ld events)",
				100.0 * (double)done / (double)(total ? total : 1), n);
		}
	}
	if (tty && n >= 0x100000)
		fputs("\r\033[K", stderr);
	if (window_open)
		close_all(&t, last < to_ns ? last : to_ns);
	else if (have_t0)
		/* Nothing after --from: an empty timeline, said (it looked like
		 * a trace with nothing in it). */
		fprintf(stderr, "ovni-auto export: the trace ends %.3f ms after its start, before --from\n",
			(double)last / 1e6);
	ops->end(out);
	rd_merge_free(m);
	int bad = rd_report_damage(&t);
	for (int i = 0; i < t.n; i++)
		for (int k = 0; k < NTRACK; k++)
			free(th[i].st[k].name);
	free(th);
	for (int p = 0; p < nprocs; p++) {
		ck_map_free(&procs[p].types);
		ck_map_free(&procs[p].started);
		ck_map_free(&procs[p].slicename);
	}
	free(procs);
	for (size_t i = 0; i < ninterned; i++)
		free(interned[i]);
	ninterned = 0;
	ck_map_free(&flows_started);
	lb_marks_free(names);
	rd_close(&t);
	return bad;
}
