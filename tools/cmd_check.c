/* cmd_check.c: `ovni-auto check [-q] PATH`: validates a trace against the
 * rules the upstream emulator enforces in lint mode (see check.h), walking
 * the events in merged clock order as the emulator does. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../writer/log.h"
#include "check.h"

static const char usage_text[] =
	"usage: ovni-auto check [-q] PATH\n"
	"\n"
	"Validate the trace in directory PATH against the ovni trace format v3 and\n"
	"the rules of the upstream emulator in lint mode: stream.json keys and how\n"
	"streams merge (app id, ranks, loom CPUs, model versions, marks), stream\n"
	"headers and event encoding, clocks (never backwards in a stream, the 1 h\n"
	"gate), the thread state machine, CPUs (one running thread per physical CPU),\n"
	"affinity, flushes, mark channels, and the openmp model (types, tasks,\n"
	"worksharing labels, balanced subsystem stacks). It also reports causally\n"
	"ordered events of two threads with equal clocks (OHC/OHx, PPc/PPx), which\n"
	"the emulator may order either way.\n"
	"\n"
	"Each problem is one line: STREAM offset N MCV: what is wrong.\n"
	"  -q, --quiet   print only the problems and the summary\n"
	"\n"
	"Exit status: 0 when the trace is valid, 1 when a problem was found.\n";

struct kind_count {
	const char *kind;
	long n;
};
static struct kind_count kinds[64];

void ck_problem(struct ck *c, struct ck_thread *th, const struct rd_event *ev, const char *kind, const char *fmt,
		...)
{
	c->problems++;
	if (th && !c->stream_bad[th->s->index]) {
		c->stream_bad[th->s->index] = 1;
		c->streams_with_problems++;
	}
	size_t k = 0;
	while (k < 63 && kinds[k].kind && kinds[k].kind != kind)
		k++;
	kinds[k].kind = kind;
	if (++kinds[k].n > 100)
		return;
	if (th)
		printf("%s", th->s->relpath);
	else
		printf("trace");
	if (ev)
		printf(" offset %zu %s", ev->offset, ev->mcv);
	printf(": ");
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* ck_map: open addressing on u64 keys (0 is "empty"). */
static size_t slot(const struct ck_map *m, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

int ck_map_get(const struct ck_map *m, uint64_t key, uint64_t *val)
{
	if (!m->cap || !key)
		return 0;
	size_t i = slot(m, key);
	if (!m->keys[i])
		return 0;
	*val = m->vals[i];
	return 1;
}

void ck_map_put(struct ck_map *m, uint64_t key, uint64_t val)
{
	if (!key)
		return;
	if ((m->n + 1) * 2 > m->cap) {
		struct ck_map old = *m;
		m->cap = m->cap ? m->cap * 2 : 64;
		m->keys = calloc(m->cap, sizeof(uint64_t));
		m->vals = calloc(m->cap, sizeof(uint64_t));
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i])
				ck_map_put(m, old.keys[i], old.vals[i]);
		free(old.keys);
		free(old.vals);
	}
	size_t i = slot(m, key);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
}

void ck_map_free(struct ck_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

#define HOUR_NS 3600000000000ll

static void walk(struct ck *c)
{
	struct rd_merge *m = rd_merge_new(c->t);
	struct rd_stream *s;
	struct rd_event ev;
	int64_t gate = 0;
	int have_gate = 0;
	/* The gate is the first event of the first stream in path order. */
	for (int i = 0; i < c->t->n && !have_gate; i++) {
		struct rd_stream *st = &c->t->streams[i];
		struct rd_event first;
		rd_rewind(st);
		if (rd_next(st, &first) == 1) {
			gate = first.time;
			have_gate = 1;
		}
	}
	rd_merge_free(m);
	m = rd_merge_new(c->t);
	while (rd_merge_next(m, &s, &ev)) {
		struct ck_thread *th = &c->th[s->index];
		c->events++;
		if (th->ignored) {
			if (th->s->part && strcmp(th->s->part, "thread"))
				ck_problem(c, th, &ev, "part", "set_current: event from unknown stream");
			continue;
		}
		if (ev.time < 0)
			ck_problem(c, th, &ev, "clock", "negative clock after the offset");
		if (th->nevents++ == 0) {
			if (!c->t->offsets_loaded && (rd_sub(ev.time, gate) > HOUR_NS || rd_sub(gate, ev.time) > HOUR_NS))
				ck_problem(c, th, &ev, "gate", "stream has starting clock too far: delta=%.2f h",
					   (double)rd_sub(ev.time, gate) / (double)HOUR_NS);
		} else if (ev.time < th->last_time) {
			ck_problem(c, th, &ev, "clock", "clock goes backwards %lld -> %lld", (long long)th->last_time,
				   (long long)ev.time);
		}
		th->last_time = ev.time;
		switch (ev.mcv[0]) {
		case 'O':
			ck_ovni_event(c, th, &ev);
			break;
		case 'P':
			ck_openmp_event(c, th, &ev);
			break;
		case 'K':
			if (!(c->models & CK_MODEL_KERNEL))
				ck_problem(c, th, &ev, "model", "model kernel not enabled for event %s", ev.mcv);
			break;
		case 'M':
			if (!(c->models & CK_MODEL_MPI))
				ck_problem(c, th, &ev, "model", "model mpi not enabled for event %s", ev.mcv);
			else if (th->state != TH_RUNNING)
				ck_problem(c, th, &ev, "state", "process_ev: current thread %lld not running", s->tid);
			break;
		case 'V':
		case '6':
		case 'T':
		case 'D':
			if (!(c->models & CK_MODEL_OTHER))
				ck_problem(c, th, &ev, "model", "no model enabled for event %s", ev.mcv);
			break;
		default:
			ck_problem(c, th, &ev, "model", "event %s of an unknown model", ev.mcv);
		}
	}
	rd_merge_free(m);
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = { { "quiet", no_argument, 0, 'q' }, { "help", no_argument, 0, 'h' },
					      { 0, 0, 0, 0 } };
	int quiet = 0, o;
	while ((o = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (o) {
		case 'q': quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	memset(kinds, 0, sizeof(kinds));
	struct rd_trace t;
	rd_open_or_die(&t, argv[optind]);
	struct ck c = { .t = &t, .quiet = quiet };
	c.th = calloc((size_t)t.n, sizeof(*c.th));
	c.stream_bad = calloc((size_t)t.n, sizeof(int));
	for (int i = 0; i < t.n; i++) {
		c.th[i].s = &t.streams[i];
		c.th[i].cpu = -1;
	}
	ck_meta(&c);
	for (int i = 0; i < t.n; i++) {
		struct ck_thread *th = &c.th[i];
		if (t.streams[i].bad) {
			ck_problem(&c, th, NULL, "stream", "%s", t.streams[i].error);
			th->ignored = 1;
		}
	}
	walk(&c);
	for (int i = 0; i < t.n; i++) {
		struct ck_thread *th = &c.th[i];
		if (t.streams[i].bad && !th->ignored)
			ck_problem(&c, th, NULL, "stream", "%s", t.streams[i].error);
		if (th->ignored && !(th->s->part && strcmp(th->s->part, "thread")))
			continue;
		if (th->ignored)
			continue;
		if (!th->nevents)
			ck_problem(&c, th, NULL, "empty", "stream has zero events");
		if (th->state != TH_DEAD)
			ck_problem(&c, th, NULL, "dead", "model_ovni_finish: thread %lld is not dead", th->s->tid);
		if (th->flushing)
			ck_problem(&c, th, NULL, "flush", "the stream ends while flushing (OF[ without OF])");
		ck_openmp_end(&c, th);
	}
	for (size_t k = 0; k < 64 && kinds[k].kind; k++)
		if (kinds[k].n > 100)
			printf("... and %ld more problems of the same kind (%s)\n", kinds[k].n - 100, kinds[k].kind);
	if (c.problems)
		printf("%ld problems in %d of %d streams (%ld events)\n", c.problems, c.streams_with_problems, t.n,
		       c.events);
	else if (!quiet || 1)
		printf("ok: %d streams, %ld events\n", t.n, c.events);
	for (int i = 0; i < t.n; i++) {
		struct ck_thread *th = &c.th[i];
		for (int k = 0; k < 100; k++)
			free(th->mstack[k]);
		free(th->tasks);
		free(th->labels);
		free(th->sub);
	}
	for (int i = 0; i < c.nprocs; i++) {
		struct ck_proc *p = c.procs[i];
		ck_map_free(&p->tids);
		ck_map_free(&p->types);
		ck_map_free(&p->tasks);
		ck_map_free(&p->tags);
		ck_map_free(&p->tagstream);
		free(p->task);
		free(p);
	}
	for (int i = 0; i < c.nlooms; i++) {
		free(c.looms[i]->phyid);
		free(c.looms[i]->running);
		free(c.looms[i]);
	}
	for (int k = 0; k < 100; k++)
		ck_map_free(&c.marks[k].labels);
	free(c.procs);
	free(c.looms);
	free(c.labelstr);
	free(c.th);
	free(c.stream_bad);
	rd_close(&t);
	return c.problems ? 1 : 0;
}
