/* cmd_stats.c: `ovni-auto stats [--json] PATH`: where the time went, per
 * process and thread: lifetime and time per thread state, flushes, time per
 * mark value (process events, waits...), time per OpenMP subsystem state,
 * tasks (segments, durations per type, migrations), MPI calls per rank
 * (calls and time per function, time in MPI, time waiting), events per MCV,
 * trace size.  One pass over each stream; memory grows with threads, task ids and
 * distinct values, never with the number of events. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/log.h"
#include "../writer/ovni_fmt.h"
#include "trace/map.h"
#include "trace/labels.h"
#include "trace/reader.h"

static const char usage_text[] =
	"usage: ovni-auto stats [--json] PATH\n"
	"\n"
	"Summarise a trace.\n"
	"\n"
	"  --json   one JSON object instead of tables (for scripts)\n"
	"\n"
	"The manual page has the details: man ovni-auto-stats\n";

#define NSTATES 6
static const char *const state_names[NSTATES] = { "unknown", "running", "paused", "cooling", "warming", "dead" };

struct valtime {     /* time per (channel, value) */
	int type;    /* mark type; 0 for openmp states */
	int64_t key; /* mark value; subsystem id for openmp */
	int64_t ns;
	long count;
};

struct vt_table {
	struct valtime *v;
	size_t n, cap;
};

static struct valtime *vt_get2(struct vt_table *t, int type, int64_t key)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].key == key && t->v[i].type == type)
			return &t->v[i];
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = realloc(t->v, sizeof(*t->v) * t->cap);
	}
	t->v[t->n] = (struct valtime){ type, key, 0, 0 };
	return &t->v[t->n++];
}

static struct valtime *vt_get(struct vt_table *t, int64_t key)
{
	return vt_get2(t, 0, key);
}

struct tstat {
	struct rd_stream *s;
	int64_t first, last;
	int64_t state_ns[NSTATES];
	long nflush;
	int64_t flush_ns;
	long nevents;
	struct vt_table marks; /* key: type << 40 | (value & 0xffffffffff) */
	struct vt_table omp;   /* key: subsystem id */
	long segments;
};

struct task {
	uint32_t type;
	int64_t total, seg_start;
	int last_thread, nseg, migrations;
	int multi; /* segments on more than one thread: migrations counted in time order */
};

struct pstat {
	const char *loom;
	long long pid, app_id, rank;
	struct ck_map typelabel; /* type -> index in labels + 1 */
	struct ck_map tasks;     /* id + 1 -> index + 1 */
	struct task *task;
	size_t ntask, captask;
	long threads;
	int64_t first, last;     /* the process's first and last event */
	struct vt_table mpi;     /* key: category << 8 | enter value */
	int64_t mpi_ns, wait_ns; /* outermost MPI calls; the blocking ones */
};

static const char **labels;
static size_t nlabels, caplabels;

static size_t add_label(const char *text)
{
	if (nlabels == caplabels) {
		caplabels = caplabels ? caplabels * 2 : 64;
		labels = realloc(labels, sizeof(*labels) * caplabels);
	}
	labels[nlabels++] = strdup(text);
	return nlabels;
}

static struct pstat *procs;
static int nprocs;

static struct pstat *proc_of(struct rd_stream *s)
{
	for (int i = 0; i < nprocs; i++)
		if (procs[i].pid == s->pid && procs[i].loom && s->loom && !strcmp(procs[i].loom, s->loom))
			return &procs[i];
	procs = realloc(procs, sizeof(*procs) * (size_t)(nprocs + 1));
	struct pstat *p = &procs[nprocs++];
	memset(p, 0, sizeof(*p));
	p->loom = s->loom ? s->loom : "?";
	p->pid = s->pid;
	p->app_id = s->app_id;
	p->rank = s->rank;
	p->first = INT64_MAX;
	p->last = INT64_MIN;
	return p;
}

static struct task *task_of(struct pstat *p, uint32_t id, int create)
{
	uint64_t idx;
	if (ck_map_get(&p->tasks, (uint64_t)id + 1, &idx))
		return &p->task[idx - 1];
	if (!create)
		return NULL;
	if (p->ntask == p->captask) {
		p->captask = p->captask ? p->captask * 2 : 64;
		p->task = realloc(p->task, sizeof(*p->task) * p->captask);
	}
	p->task[p->ntask] = (struct task){ 0, 0, 0, -1, 0, 0, 0 };
	ck_map_put(&p->tasks, (uint64_t)id + 1, ++p->ntask);
	return &p->task[p->ntask - 1];
}

/* Events per MCV: 3 printable bytes -> 24-bit key, linear table. */
static struct {
	uint32_t key;
	long n;
} mcvs[512];
static int nmcvs;

static void count_mcv(const char *m)
{
	uint32_t k = (uint32_t)(unsigned char)m[0] << 16 | (uint32_t)(unsigned char)m[1] << 8 | (unsigned char)m[2];
	for (int i = 0; i < nmcvs; i++)
		if (mcvs[i].key == k) {
			mcvs[i].n++;
			return;
		}
	if (nmcvs < 512)
		mcvs[nmcvs++] = (typeof(mcvs[0])){ k, 1 };
}

/* Migrations: executions (PPx) of a task on another thread than its previous
 * one, in time order. Only tasks that ran on several threads are collected
 * (a second pass over the streams, reading only their PPx). */
struct segstart {
	struct task *task;
	int64_t time;
	int thread;
};

static int segstart_cmp(const void *a, const void *b)
{
	const struct segstart *x = a, *y = b;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static void count_migrations(struct tstat *ts, int n)
{
	struct segstart *v = NULL;
	size_t nv = 0, cap = 0;
	for (int i = 0; i < n; i++) {
		struct rd_stream *s = ts[i].s;
		struct pstat *p = proc_of(s);
		struct rd_event ev;
		rd_rewind(s);
		while (rd_next(s, &ev) == 1) {
			if (ev.mcv[0] != 'P' || ev.mcv[1] != 'P' || ev.mcv[2] != 'x' || ev.size < 4)
				continue;
			struct task *t = task_of(p, rd_u32(ev.payload), 0);
			if (!t || !t->multi)
				continue;
			if (nv == cap) {
				cap = cap ? cap * 2 : 1024;
				v = realloc(v, cap * sizeof(*v));
				if (!v) {
					err("out of memory");
					exit(1);
				}
			}
			v[nv++] = (struct segstart){ t, ev.time, i };
		}
	}
	if (nv)
		qsort(v, nv, sizeof(*v), segstart_cmp);
	for (size_t k = 1; k < nv; k++)
		if (v[k].task == v[k - 1].task && v[k].thread != v[k - 1].thread)
			v[k].task->migrations++;
	free(v);
}

/* Blocking MPI calls: the rank waits in them (not the I* starts, the tests,
 * init and finalize). */
static int mpi_blocking(uint16_t id)
{
	char cat = (char)(id >> 8);
	return cat >= 'A' && cat <= 'Z' && cat != 'T' && cat != 'U';
}

/* An mpi model event: a lower-case value or '[' opens a call, the matching
 * upper-case one or ']' closes it; a call's time is counted for its
 * function, and for the process when it is the outermost. */
struct mpi_open {
	uint16_t id;
	int64_t since;
};

static void mpi_event(struct pstat *p, const char *m, int64_t now, struct mpi_open *st, int *n)
{
	char v = m[2];
	if (ovni_pair_enters(v)) {
		if (*n < 32)
			st[(*n)++] = (struct mpi_open){ (uint16_t)((unsigned char)m[1] << 8 | (unsigned char)v), now };
		return;
	}
	uint16_t id = (uint16_t)((unsigned char)m[1] << 8 | (unsigned char)ovni_pair_enter_of(v));
	if (!*n || st[*n - 1].id != id)
		return; /* unbalanced: check reports it */
	int64_t d = rd_sub(now, st[--(*n)].since);
	struct valtime *t = vt_get(&p->mpi, id);
	t->ns = rd_add(t->ns, d);
	t->count++;
	if (!*n) {
		p->mpi_ns = rd_add(p->mpi_ns, d);
		if (mpi_blocking(id))
			p->wait_ns = rd_add(p->wait_ns, d);
	}
}

static void stream_pass(struct tstat *ts, int thread_index)
{
	struct rd_stream *s = ts->s;
	struct pstat *p = proc_of(s);
	p->threads++;
	struct rd_event ev;
	int state = 0;
	int64_t since = -1, flush_start = 0;
	/* Open mark and subsystem states: the top of each stack holds the time. */
	int64_t mtop[100][2]; /* value, since */
	int64_t mstack[100][64];
	int mdepth[100] = { 0 };
	uint16_t sub[512];
	int nsub = 0;
	int64_t sub_since = 0;
	for (int k = 0; k < 100; k++)
		mtop[k][0] = 0;
	struct mpi_open mpi[32]; /* open MPI calls */
	int nmpi = 0;
	rd_rewind(s);
	while (rd_next(s, &ev) == 1) {
		int64_t now = ev.time;
		if (!ts->nevents)
			ts->first = now;
		ts->nevents++;
		ts->last = now;
		count_mcv(ev.mcv);
		if (since >= 0)
			ts->state_ns[state] = rd_add(ts->state_ns[state], rd_sub(now, since));
		since = now;
		const char *m = ev.mcv;
		if (m[0] == 'O' && m[1] == 'H') {
			switch (m[2]) {
			case 'x': state = 1; break;
			case 'e': state = 5; break;
			case 'p': state = 2; break;
			case 'r': state = 1; break;
			case 'c': state = 3; break;
			case 'w': state = 4; break;
			}
		} else if (m[0] == 'O' && m[1] == 'F') {
			if (m[2] == '[') {
				flush_start = now;
			} else {
				ts->nflush++;
				ts->flush_ns = rd_add(ts->flush_ns, rd_sub(now, flush_start));
			}
		} else if (m[0] == 'O' && m[1] == 'M' && ev.size == 12) {
			int64_t value = rd_i64(ev.payload);
			int32_t type = rd_i32(ev.payload + 8);
			if (type < 0 || type >= 100)
				continue;
			if (mtop[type][0]) {
				struct valtime *v = vt_get2(&ts->marks, type, mtop[type][0]);
				v->ns = rd_add(v->ns, rd_sub(now, mtop[type][1]));
			}
			if (m[2] == '=') {
				mtop[type][0] = value;
			} else if (m[2] == '[') {
				if (mdepth[type] < 64)
					mstack[type][mdepth[type]++] = mtop[type][0];
				mtop[type][0] = value;
				vt_get2(&ts->marks, type, value)->count++;
			} else {
				mtop[type][0] = mdepth[type] ? mstack[type][--mdepth[type]] : 0;
			}
			if (m[2] == '=')
				vt_get2(&ts->marks, type, value)->count++;
			mtop[type][1] = now;
		} else if (m[0] == 'M') {
			mpi_event(p, m, now, mpi, &nmpi);
		} else if (m[0] == 'P') {
			if (m[1] == 'O' && m[2] == 'c' && ev.jumbo && ev.size > 4) {
				char label[600];
				snprintf(label, sizeof(label), "%.*s", (int)(ev.size - 4),
					 (const char *)ev.payload + 4);
				ck_map_put(&p->typelabel, rd_u32(ev.payload), add_label(label));
			} else if (m[1] == 'P' && ev.size >= 4) {
				/* Any stream may be read first: a task is known from its first event
				 * (its PPc may be in a stream read later). */
				struct task *t = task_of(p, rd_u32(ev.payload), 1);
				if (!t)
					continue;
				if (m[2] == 'c' && ev.size >= 8) {
					t->type = rd_u32(ev.payload + 4);
				} else if (m[2] == 'x') {
					/* Streams are read one after the other: a task
					 * seen on two threads is ordered later. */
					if (t->last_thread >= 0 && t->last_thread != thread_index)
						t->multi = 1;
					t->last_thread = thread_index;
					t->seg_start = now;
					t->nseg++;
					ts->segments++;
				} else if (m[2] == 'e') {
					t->total = rd_add(t->total, rd_sub(now, t->seg_start));
				}
			} else if (m[1] != 'Q' && m[1] != 'O') {
				/* Subsystem: lower-case or [ opens, upper-case or ] closes. */
				if (nsub) {
					struct valtime *v = vt_get(&ts->omp, sub[nsub - 1]);
					v->ns = rd_add(v->ns, rd_sub(now, sub_since));
				}
				char v = m[2];
				int opens = ovni_pair_enters(v);
				if (opens && nsub < 512) {
					sub[nsub] = (uint16_t)((unsigned char)m[1] << 8 | (unsigned char)v);
					vt_get(&ts->omp, sub[nsub])->count++;
					nsub++;
				} else if (!opens && nsub) {
					nsub--;
				}
				sub_since = now;
			}
		}
	}
	/* What is still open counts up to the stream's last event. */
	for (int k = 0; k < 100; k++)
		if (mtop[k][0]) {
			struct valtime *v = vt_get2(&ts->marks, k, mtop[k][0]);
			v->ns = rd_add(v->ns, rd_sub(ts->last, mtop[k][1]));
		}
	if (nsub) {
		struct valtime *v = vt_get(&ts->omp, sub[nsub - 1]);
		v->ns = rd_add(v->ns, rd_sub(ts->last, sub_since));
	}
	if (ts->nevents && ts->first < p->first)
		p->first = ts->first;
	if (ts->nevents && ts->last > p->last)
		p->last = ts->last;
}

static struct lb_marks *names;

static const char *mark_label(struct rd_trace *t, int type, int64_t value)
{
	(void)t;
	return lb_mark_label(names, type, value);
}

static const char *mark_title(struct rd_trace *t, int type)
{
	(void)t;
	return lb_mark_title(names, type);
}

static const char *subsystem_name(uint16_t id)
{
	const char *n = lb_omp_state((char)(id >> 8), (char)(id & 0xff));
	return n ? n : "?";
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct pstat *x = *(struct pstat *const *)a, *y = *(struct pstat *const *)b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* MPI per rank (processes without MPI calls are left out), in rank order. */
static json_t *mpi_summary(int as_json)
{
	json_t *jr = json_array();
	struct pstat **v = calloc((size_t)nprocs + 1, sizeof(*v));
	int n = 0;
	for (int i = 0; i < nprocs; i++)
		if (procs[i].mpi.n)
			v[n++] = &procs[i];
	qsort(v, (size_t)n, sizeof(*v), cmp_rank);
	for (int i = 0; i < n; i++) {
		struct pstat *p = v[i];
		int64_t life = p->last > p->first ? p->last - p->first : 0;
		if (!as_json) {
			if (!i)
				printf("\n%-30s %-26s %8s %12s %12s\n", "MPI (per rank)", "function", "calls", "total",
				       "mean");
			char who[96];
			snprintf(who, sizeof(who), "rank %lld (%s/%lld)", p->rank, p->loom, p->pid);
			for (size_t k = 0; k < p->mpi.n; k++) {
				const struct valtime *f = &p->mpi.v[k];
				const char *name = lb_mpi_function((char)(f->key >> 8), (char)(f->key & 0xff));
				printf("%-30.30s %-26s %8ld %10.3fms %10.3fus\n", who, name ? name : "?", f->count,
				       ms(f->ns), f->count ? (double)f->ns / 1e3 / (double)f->count : 0.0);
			}
			printf("%-30.30s %-26s %8s %10.3fms (%.1f%% of %.3f ms), waiting %.3f ms\n", who, "in MPI", "",
			       ms(p->mpi_ns), life ? 100.0 * (double)p->mpi_ns / (double)life : 0.0, ms(life),
			       ms(p->wait_ns));
		}
		json_t *jf = json_object();
		for (size_t k = 0; k < p->mpi.n; k++) {
			const struct valtime *f = &p->mpi.v[k];
			const char *name = lb_mpi_function((char)(f->key >> 8), (char)(f->key & 0xff));
			json_object_set_new(
				jf, name ? name : "?",
				json_pack("{s:I, s:I}", "count", (json_int_t)f->count, "ns", (json_int_t)f->ns));
		}
		json_array_append_new(jr, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:o}", "loom", p->loom, "pid",
						    (json_int_t)p->pid, "rank", (json_int_t)p->rank, "lifetime_ns",
						    (json_int_t)life, "mpi_ns", (json_int_t)p->mpi_ns, "wait_ns",
						    (json_int_t)p->wait_ns, "functions", jf));
	}
	free(v);
	return jr;
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, 0, 'j' },
					      { "help", no_argument, 0, 'h' },
					      { 0, 0, 0, 0 } };
	int as_json = 0, c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': as_json = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	procs = NULL; /* a fresh start when called again in one process (fuzzing) */
	nprocs = 0;
	nmcvs = 0;
	nlabels = 0;
	struct rd_trace t;
	rd_open_or_die(&t, argv[optind]);
	names = lb_marks_load(&t);
	struct tstat *ts = calloc((size_t)t.n, sizeof(*ts));
	long total_events = 0;
	uint64_t bytes = 0, all_bytes = 0, done_bytes = 0;
	int tty = isatty(2);
	for (int i = 0; i < t.n; i++)
		all_bytes += t.streams[i].size;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	int damaged = 0;
	for (int i = 0; i < t.n; i++) {
		ts[i].s = &t.streams[i];
		stream_pass(&ts[i], i);
		done_bytes += t.streams[i].size;
		if (tty && all_bytes > (256u << 20))
			fprintf(stderr, "\rstats: %3.0f%%", 100.0 * (double)done_bytes / (double)all_bytes);
		total_events += ts[i].nevents;
		bytes += t.streams[i].size;
		if (ts[i].nevents && ts[i].first < t0)
			t0 = ts[i].first;
		if (ts[i].nevents && ts[i].last > t1)
			t1 = ts[i].last;

		if (t.streams[i].bad) {
			err("%s: %s (statistics stop there)", t.streams[i].relpath, t.streams[i].error);
			damaged = 1;
		}
	}
	int multi = 0;
	for (int i = 0; i < t.n && !multi; i++) {
		struct pstat *p = proc_of(&t.streams[i]);
		for (size_t k = 0; k < p->ntask && !multi; k++)
			multi = p->task[k].multi;
	}
	if (multi)
		count_migrations(ts, t.n);
	if (tty && all_bytes > (256u << 20))
		fputs("\r\033[K", stderr);
	if (t0 == INT64_MAX)
		t0 = t1 = 0;

	json_t *root = json_object();
	json_object_set_new(root, "streams", json_integer(t.n));
	json_object_set_new(root, "events", json_integer(total_events));
	json_object_set_new(root, "bytes", json_integer((json_int_t)bytes));
	json_object_set_new(root, "bytes_per_event",
			    json_real(total_events ? (double)bytes / (double)total_events : 0));
	json_object_set_new(root, "span_ns", json_integer(rd_sub(t1, t0)));
	if (!as_json) {
		printf("trace %s: %d streams in %d processes, %ld events, %llu bytes (%.1f bytes/event), %.3f ms\n",
		       argv[optind], t.n, nprocs, total_events, (unsigned long long)bytes,
		       total_events ? (double)bytes / (double)total_events : 0.0, ms(rd_sub(t1, t0)));
		printf("\n%-44s %10s %10s %10s %8s %9s %8s\n", "thread", "lifetime", "running", "paused", "flushes",
		       "flush ms", "events");
	}
	json_t *jthreads = json_array();
	for (int i = 0; i < t.n; i++) {
		struct tstat *x = &ts[i];
		int64_t life = rd_sub(x->last, x->first);
		if (!as_json)
			printf("%-44s %8.3fms %8.3fms %8.3fms %8ld %9.3f %8ld\n", x->s->relpath, ms(life),
			       ms(x->state_ns[1]), ms(x->state_ns[2]), x->nflush, ms(x->flush_ns), x->nevents);
		json_t *jt = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "stream", x->s->relpath, "tid",
				       (json_int_t)x->s->tid, "pid", (json_int_t)x->s->pid, "lifetime_ns",
				       (json_int_t)life, "flushes", (json_int_t)x->nflush, "flush_ns",
				       (json_int_t)x->flush_ns, "events", (json_int_t)x->nevents);
		json_t *jst = json_object();
		for (int k = 1; k < NSTATES - 1; k++)
			json_object_set_new(jst, state_names[k], json_integer(x->state_ns[k]));
		json_object_set_new(jt, "state_ns", jst);
		json_t *jm = json_array();
		for (size_t k = 0; k < x->marks.n; k++) {
			int type = x->marks.v[k].type;
			int64_t value = x->marks.v[k].key;
			json_array_append_new(jm, json_pack("{s:i, s:I, s:s, s:I, s:I}", "type", type, "value",
							    (json_int_t)value, "label", mark_label(&t, type, value),
							    "ns", (json_int_t)x->marks.v[k].ns, "count",
							    (json_int_t)x->marks.v[k].count));
		}
		json_object_set_new(jt, "marks", jm);
		json_t *jo = json_object();
		for (size_t k = 0; k < x->omp.n; k++)
			json_object_set_new(jo, subsystem_name((uint16_t)x->omp.v[k].key),
					    json_pack("{s:I, s:I}", "ns", (json_int_t)x->omp.v[k].ns, "count",
						      (json_int_t)x->omp.v[k].count));
		json_object_set_new(jt, "openmp_ns", jo);
		json_object_set_new(jt, "task_segments", json_integer(x->segments));
		json_array_append_new(jthreads, jt);
	}
	json_object_set_new(root, "threads", jthreads);

	/* Marks and OpenMP states, per thread, when there are any. */
	if (!as_json) {
		int header = 0;
		for (int i = 0; i < t.n; i++) {
			for (size_t k = 0; k < ts[i].marks.n; k++) {
				if (!header++)
					printf("\n%-44s %-56s %10s %7s\n", "marks (time in each value)", "value",
					       "time", "count");
				int type = ts[i].marks.v[k].type;
				int64_t value = ts[i].marks.v[k].key;
				char what[160];
				const char *title = mark_title(&t, type);
				const char *tag = strstr(title, " (ovni-auto)");
				int tlen = tag ? (int)(tag - title) : (int)strlen(title);
				snprintf(what, sizeof(what), "%.*s: %s", tlen, title, mark_label(&t, type, value));
				printf("%-44s %-56.56s %8.3fms %7ld\n", ts[i].s->relpath, what, ms(ts[i].marks.v[k].ns),
				       ts[i].marks.v[k].count);
			}
		}
		header = 0;
		for (int i = 0; i < t.n; i++) {
			for (size_t k = 0; k < ts[i].omp.n; k++) {
				if (!header++)
					printf("\n%-44s %-30s %10s %7s\n", "OpenMP states", "state", "time", "count");
				printf("%-44s %-30s %8.3fms %7ld\n", ts[i].s->relpath,
				       subsystem_name((uint16_t)ts[i].omp.v[k].key), ms(ts[i].omp.v[k].ns),
				       ts[i].omp.v[k].count);
			}
		}
	}

	/* Tasks per type, per process. */
	json_t *jtypes = json_array();
	int theader = 0;
	for (int i = 0; i < nprocs; i++) {
		struct pstat *p = &procs[i];
		for (size_t a = 0; a < p->ntask; a++) {
			uint32_t type = p->task[a].type;
			if (!type)
				continue;
			long n = 0, nseg = 0, migr = 0;
			int64_t total = 0, max = 0;
			for (size_t b = a; b < p->ntask; b++) {
				struct task *k = &p->task[b];
				if (k->type != type)
					continue;
				n++;
				nseg += k->nseg;
				migr += k->migrations;
				total += k->total;
				if (k->total > max)
					max = k->total;
				if (b != a)
					k->type = 0; /* counted */
			}
			uint64_t li;
			const char *label = ck_map_get(&p->typelabel, type, &li) ? labels[li - 1] : "?";
			if (!as_json) {
				if (!theader++)
					printf("\n%-22s %-32s %8s %8s %10s %10s %10s %6s\n", "process", "task type",
					       "tasks", "segments", "total", "mean", "max", "migr.");
				char pr[64];
				snprintf(pr, sizeof(pr), "%s/%lld", p->loom, p->pid);
				printf("%-22.22s %-32.32s %8ld %8ld %8.3fms %8.3fms %8.3fms %6ld\n", pr, label, n, nseg,
				       ms(total), ms(n ? total / n : 0), ms(max), migr);
			}
			json_array_append_new(jtypes,
					      json_pack("{s:s, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "loom",
							p->loom, "pid", (json_int_t)p->pid, "label", label, "tasks",
							(json_int_t)n, "segments", (json_int_t)nseg, "total_ns",
							(json_int_t)total, "mean_ns", (json_int_t)(n ? total / n : 0),
							"max_ns", (json_int_t)max, "migrations", (json_int_t)migr));
			p->task[a].type = 0;
		}
	}
	json_object_set_new(root, "task_types", jtypes);
	json_object_set_new(root, "mpi", mpi_summary(as_json));

	/* Events per MCV, most common first. */
	for (int a = 0; a < nmcvs; a++)
		for (int b = a + 1; b < nmcvs; b++)
			if (mcvs[b].n > mcvs[a].n) {
				typeof(mcvs[0]) tmp = mcvs[a];
				mcvs[a] = mcvs[b];
				mcvs[b] = tmp;
			}
	json_t *jm = json_object();
	if (!as_json)
		printf("\n%-5s %10s\n", "MCV", "events");
	for (int a = 0; a < nmcvs; a++) {
		char k[4] = { (char)(mcvs[a].key >> 16), (char)(mcvs[a].key >> 8), (char)mcvs[a].key, 0 };
		if (!as_json)
			printf("%-5s %10ld\n", k, mcvs[a].n);
		json_object_set_new(jm, k, json_integer(mcvs[a].n));
	}
	json_object_set_new(root, "events_per_mcv", jm);
	if (as_json) {
		char *text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		puts(text);
		free(text);
	}
	json_decref(root);
	for (int i = 0; i < t.n; i++) {
		free(ts[i].marks.v);
		free(ts[i].omp.v);
	}
	free(ts);
	for (int i = 0; i < nprocs; i++) {
		ck_map_free(&procs[i].typelabel);
		ck_map_free(&procs[i].tasks);
		free(procs[i].task);
		free(procs[i].mpi.v);
	}
	free(procs);
	for (size_t i = 0; i < nlabels; i++)
		free((void *)labels[i]);
	lb_marks_free(names);
	rd_close(&t);
	return damaged;
}
