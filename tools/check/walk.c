/* walk.c: the driver of `ovni-auto check`: opens the trace, checks the
 * metadata, walks the events in merged clock order as the emulator does
 * (per-stream clocks, the 1-hour clock gate, dispatch by model), runs the
 * end checks and prints the summary (see check.h for the rules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "../../common/log.h"
#include "check.h"

/* A damaged stream: its reader error names the byte offset. */
static void stream_damage(struct ck *c, struct ck_thread *th)
{
	struct rd_stream *s = th->s;
	const char *what = strstr(s->error, ": ");
	int listed;
	ck_count_problem(c, th, "stream", &listed);
	if (!listed)
		return;
	fprintf(c->out, "%s offset %zu", s->relpath, s->bad_offset);
	const uint8_t *p = NULL;
	if (s->data && s->bad_offset >= s->header && s->bad_offset + 4 <= s->size)
		p = s->data + s->bad_offset;
	if (p && p[1] > 32 && p[1] < 127 && p[2] > 32 && p[2] < 127 && p[3] > 32 && p[3] < 127)
		fprintf(c->out, " %c%c%c", p[1], p[2], p[3]); /* the MCV, when it is readable */
	fprintf(c->out, ": %s\n", what ? what + 2 : s->error);
}

/* The gate: the first event of the first thread stream, in path order. */
static int first_time(struct ck *c, int64_t *gate)
{
	for (int i = 0; i < c->t->n; i++) {
		struct rd_stream *s = &c->t->streams[i];
		struct rd_event first;
		if (c->th[i].ignored)
			continue;
		rd_rewind(s);
		int r = rd_next(s, &first);
		rd_rewind(s);
		if (r == 1) {
			*gate = first.time;
			return 1;
		}
	}
	return 0;
}

static void event(struct ck *c, struct ck_thread *th, const struct rd_event *ev, int64_t gate)
{
	if (th->nevents++ == 0 && !c->t->offsets_loaded) {
		int64_t d = rd_sub(ev->time, gate);
		if (d > CK_HOUR_NS || d < -CK_HOUR_NS)
			ck_problem(c, th, ev, "gate",
				   "stream has starting clock too far: delta=%.2f h (detected large clock gate, run "
				   "'ovnisync' to set the offsets)",
				   (double)d / (double)CK_HOUR_NS);
	}
	if (ev->time < th->last_time)
		ck_problem(c, th, ev, "clock", "clock goes backwards %lld -> %lld", (long long)th->last_time,
			   (long long)ev->time);
	th->last_time = ev->time;
	char letter = ev->mcv[0];
	if (letter == 'O') { /* the ovni model is always on */
		ck_ovni_event(c, th, ev);
		return;
	}
	const struct ck_model *m = ck_model_by_letter(letter);
	if (!m) {
		ck_problem(c, th, ev, "model", "event %s of an unknown model", ev->mcv);
		return;
	}
	if (!(c->models & m->bit)) {
		ck_problem(c, th, ev, "model",
			   "model %s not enabled for event %s (missing call to ovni_thread_require(\"%s\", \"%s\")?)",
			   m->name, ev->mcv, m->name, m->version ? m->version : "x.y.z");
		return;
	}
	if (letter == 'P') {
		ck_openmp_event(c, th, ev);
	} else if (letter == 'K') {
		ck_kernel_event(c, th, ev);
	} else if (letter == 'M') {
		ck_mpi_event(c, th, ev);
	} else if (letter == 'V' && th->out_of_cpu) {
		ck_problem(c, th, ev, "kernel-out", "current thread %lld out of CPU (between KCO and KCI)", th->s->tid);
	}
}

static void walk(struct ck *c)
{
	int64_t gate = 0;
	first_time(c, &gate);
	struct rd_merge *m = rd_merge_new(c->t);
	struct rd_stream *s;
	struct rd_event ev;
	while (rd_merge_next(m, &s, &ev)) {
		struct ck_thread *th = &c->th[s->index];
		c->events++;
		if (__builtin_expect(th->ignored, 0)) {
			if (s->part && strcmp(s->part, "thread") && th->nevents++ == 0)
				ck_problem(c, th, &ev, "part",
					   "set_current: event from unknown stream: %s (ovni.part \"%s\")", s->relpath,
					   s->part);
			continue;
		}
		event(c, th, &ev, gate);
	}
	rd_merge_free(m);
}

static void end_checks(struct ck *c)
{
	for (int i = 0; i < c->t->n; i++) {
		struct ck_thread *th = &c->th[i];
		if (th->s->bad) { /* what follows the damage is unknown: no end checks */
			stream_damage(c, th);
			continue;
		}
		if (th->ignored)
			continue;
		ck_ovni_end(c, th);
		ck_openmp_end(c, th);
		ck_mpi_end(c, th);
	}
}

static void summary(struct ck *c)
{
	for (size_t k = 0; k < 64 && c->kinds[k].kind; k++)
		if (c->kinds[k].n > CK_LIST_MAX)
			fprintf(c->out, "... and %ld more problems of the same kind (%s)\n",
				c->kinds[k].n - CK_LIST_MAX, c->kinds[k].kind);
	if (c->problems && c->streams_with_problems)
		fprintf(c->out, "%ld problem%s in %d stream%s (%d streams, %ld events)\n", c->problems,
			c->problems == 1 ? "" : "s", c->streams_with_problems, c->streams_with_problems == 1 ? "" : "s",
			c->t->n, c->events);
	else if (c->problems)
		fprintf(c->out, "%ld problem%s in the trace (%d streams, %ld events)\n", c->problems,
			c->problems == 1 ? "" : "s", c->t->n, c->events);
	else
		fprintf(c->out, "ok: %d streams, %ld events\n", c->t->n, c->events);
	/* A trace file system that filled up: what did not fit is missing,
	 * and the hints below are not why. */
	struct statvfs fs;
	if (c->problems && statvfs(c->t->dir, &fs) == 0 && fs.f_frsize &&
	    (unsigned long long)fs.f_bavail * fs.f_frsize < (1ull << 20))
		fprintf(c->out,
			"hint: the trace's file system is full (%llu KiB free): what did not fit is missing (the "
			"traced processes said so on stderr); `ovni-auto repair %s` once there is room\n",
			(unsigned long long)fs.f_bavail * fs.f_frsize / 1024, c->t->dir);
	/* Streams nobody finished: a process killed together with whoever
	 * would have finished it (SIGKILL of ovnirun and its process group,
	 * a batch system's hard kill of a job). */
	for (size_t k = 0; k < 64 && c->kinds[k].kind; k++)
		if (!strcmp(c->kinds[k].kind, "meta-finished"))
			fprintf(c->out,
				"hint: %ld stream%s not finished: %s process still runs, or was killed together "
				"with what would have finished %s (ovnirun too?); once %s ended, `ovni-auto repair %s` "
				"finishes %s\n",
				c->kinds[k].n, c->kinds[k].n == 1 ? " is" : "s are",
				c->kinds[k].n == 1 ? "its" : "their", c->kinds[k].n == 1 ? "it" : "them",
				c->kinds[k].n == 1 ? "it has" : "they have", c->t->dir,
				c->kinds[k].n == 1 ? "it" : "them");
}

long ck_check_path(const char *path, int quiet, FILE *out, char *err, size_t errlen)
{
	struct rd_trace t;
	if (rd_open(&t, path, err, errlen) != 0)
		return -1;
	struct ck c = { .t = &t, .out = out, .quiet = quiet };
	c.th = calloc((size_t)t.n, sizeof(*c.th));
	c.stream_bad = calloc((size_t)t.n, 1);
	if (!c.th || !c.stream_bad)
		die("out of memory");
	for (int i = 0; i < t.n; i++) {
		c.th[i].s = &t.streams[i];
		c.th[i].cpu = -1;
	}
	if (t.offsets_error[0])
		ck_problem(&c, NULL, NULL, "offsets", "clock offsets: %s", t.offsets_error);
	if (t.nspools)
		ck_problem(&c, NULL, NULL, "spool",
			   "%d spool file(s) (%s...): streams not written out yet, because their process still "
			   "runs or ended without its agent (ovnirun killed?); `ovni-auto repair` writes them",
			   t.nspools, t.spool);
	ck_meta(&c);
	walk(&c);
	end_checks(&c);
	summary(&c);
	long problems = c.problems;
	ck_free(&c);
	rd_close(&t);
	return problems;
}

void ck_free(struct ck *c)
{
	for (int i = 0; i < c->t->n; i++) {
		struct ck_thread *th = &c->th[i];
		for (int k = 0; k < CK_MARK_TYPES; k++)
			free(th->marks[k].v);
		free(th->tasks.v);
		free(th->labels.v);
		free(th->sub.v);
		free(th->mpi.v);
	}
	for (int i = 0; i < c->nprocs; i++) {
		struct ck_proc *p = c->procs[i];
		struct ck_map *maps[] = { &p->tids,     &p->types,  &p->tasks,    &p->missing, &p->missing_by,
					  &p->ohc_time, &p->ohc_by, &p->ohx_time, &p->ohx_by };
		for (size_t k = 0; k < sizeof(maps) / sizeof(maps[0]); k++)
			ck_map_free(maps[k]);
		for (size_t k = 0; k < p->ntypes; k++)
			free(p->typelabel[k]);
		free(p->typelabel);
		free(p->task);
		free(p);
	}
	for (int i = 0; i < c->nlooms; i++) {
		struct ck_loom *l = c->looms[i];
		ck_map_free(&l->byphy);
		free(l->ent_phy);
		free(l->ent_idx);
		free(l->phyid);
		free(l->running);
		free(l);
	}
	for (int k = 0; k < CK_MARK_TYPES; k++) {
		ck_map_free(&c->marks[k].labels);
		ck_map_free(&c->marks[k].low32);
	}
	free(c->procs);
	free(c->looms);
	free(c->labelstr);
	free(c->th);
	free(c->stream_bad);
}
