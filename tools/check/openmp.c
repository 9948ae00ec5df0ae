/* check_openmp.c: the openmp model 1.2.1: task and worksharing types (POc,
 * per process), tasks (PPc PPx PPe: per process, LIFO per thread, ended on
 * the thread that runs them, resurrect allowed, never running twice at
 * once), the label channel shared by tasks and worksharings (PQx PQe), the
 * one subsystem stack per thread shared by every paired state (empty at the
 * end in lint mode), and the equal-clock check of PPc/PPx on two threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/log.h"
#include "../../writer/ovni_fmt.h"
#include "check.h"

#define MAX_LABEL 512

static const char *label_of(const struct ck_proc *p, uint32_t type)
{
	uint64_t idx;
	return ck_map_get(&p->types, type, &idx) ? p->typelabel[idx - 1] : NULL;
}

static struct ck_task *task_of(struct ck_proc *p, uint32_t id)
{
	uint64_t idx;
	return ck_map_get(&p->tasks, (uint64_t)id + 1, &idx) ? &p->task[idx - 1] : NULL;
}

static void subsystem(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	char cat = ev->mcv[1], val = ev->mcv[2];
	if (cat == 'B' && (val == 's' || val == 'S'))
		return; /* spin wait: accepted and ignored */
	int known_cat = 0;
	for (size_t i = 0; i < OVNI_OMP_NPAIRS; i++) {
		if (ovni_omp_pairs[i][0] != cat)
			continue;
		known_cat = 1;
		uint32_t id = (uint32_t)(unsigned char)cat << 8 | (unsigned char)ovni_omp_pairs[i][1];
		if (val == ovni_omp_pairs[i][1]) {
			if (th->sub.n >= CK_MAX_DEPTH)
				ck_problem(c, th, ev, "omp-depth", "openmp subsystem stack is full (%d)", CK_MAX_DEPTH);
			else
				ck_push(&th->sub, id);
			return;
		}
		if (val == ovni_omp_pairs[i][2]) {
			if (!th->sub.n || ck_top(&th->sub) != id) {
				char top[16] = "nothing";
				if (th->sub.n)
					snprintf(top, sizeof(top), "P%c%c", (char)(ck_top(&th->sub) >> 8),
						 (char)(ck_top(&th->sub) & 0xff));
				ck_problem(c, th, ev, "omp-pop",
					   "chan_pop: openmp subsystem: %s does not close the top of the stack (%s is "
					   "open): expected value different from top of stack",
					   ev->mcv, top);
				return;
			}
			th->sub.n--;
			return;
		}
	}
	if (known_cat)
		ck_problem(c, th, ev, "omp-unknown", "unknown openmp function event %s", ev->mcv);
	else
		ck_problem(c, th, ev, "omp-unknown", "unknown event category %s (openmp)", ev->mcv);
}

static void declare_type(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	struct ck_proc *p = th->proc;
	if (!ev->jumbo) {
		ck_problem(c, th, ev, "omp-type", "expecting a jumbo event (POc carries its label)");
		return;
	}
	if (ev->size < 5 || !memchr(ev->payload + 4, '\0', ev->size - 4)) {
		ck_problem(c, th, ev, "omp-type", "needs a u32 type id and a NUL-terminated label (%u bytes)",
			   ev->size);
		return;
	}
	uint32_t type = rd_u32(ev->payload);
	const char *label = (const char *)ev->payload + 4;
	uint64_t dummy;
	if (strlen(label) > MAX_LABEL) {
		ck_problem(c, th, ev, "omp-type", "label of type %u is longer than %d bytes", type, MAX_LABEL);
		return;
	}
	if (!type) {
		ck_problem(c, th, ev, "omp-type", "type id must not be 0");
		return;
	}
	if (ck_map_get(&p->types, type, &dummy)) {
		ck_problem(c, th, ev, "omp-type", "a task type with id %u already exists", type);
		return;
	}
	char unlabeled[64];
	if (!*label) {
		snprintf(unlabeled, sizeof(unlabeled), "(unlabeled task type %u)", type);
		label = unlabeled;
	}
	if (p->ntypes == p->captypes) {
		p->captypes = p->captypes ? p->captypes * 2 : 16;
		p->typelabel = realloc(p->typelabel, sizeof(char *) * p->captypes);
		if (!p->typelabel)
			die("out of memory");
	}
	p->typelabel[p->ntypes++] = strdup(label);
	ck_map_put(&p->types, type, p->ntypes);
}

static void create_task(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	struct ck_proc *p = th->proc;
	if (ev->size != 8 || ev->jumbo) {
		ck_problem(c, th, ev, "size", "PPc payload must be 8 bytes (u32 task, u32 type), not %u", ev->size);
		return;
	}
	uint32_t id = rd_u32(ev->payload), type = rd_u32(ev->payload + 4);
	if (!id || !type) {
		ck_problem(c, th, ev, "omp-task", "task id and type id must not be 0 (task %u, type %u)", id, type);
		return;
	}
	if (!label_of(p, type)) {
		ck_problem(c, th, ev, "omp-task", "unknown type id %u", type);
		return;
	}
	if (task_of(p, id)) {
		ck_problem(c, th, ev, "omp-task", "task_id %u already exists", id);
		return;
	}
	uint64_t when, who;
	if (ck_map_get(&p->missing, (uint64_t)id + 1, &when) && (int64_t)when == ev->time &&
	    ck_map_get(&p->missing_by, (uint64_t)id + 1, &who) && (int)who != th->s->index + 1)
		ck_problem(c, th, ev, "tie",
			   "PPc of task %u has the same clock as a PPx of it in %s: the emulator may order them either "
			   "way (the first PPx needs a strictly later clock)",
			   id, c->t->streams[who - 1].relpath);
	if (p->ntask == p->captask) {
		p->captask = p->captask ? p->captask * 2 : 64;
		p->task = realloc(p->task, sizeof(*p->task) * p->captask);
		if (!p->task)
			die("out of memory");
	}
	p->task[p->ntask++] = (struct ck_task){ type, TASK_CREATED, ev->time, th->s->index, -1 };
	ck_map_put(&p->tasks, (uint64_t)id + 1, p->ntask);
}

static const char *const task_state[] = { "?", "Created", "Running", "Ended" };

static void execute_task(struct ck *c, struct ck_thread *th, const struct rd_event *ev, uint32_t id, struct ck_task *t)
{
	if (t->state == TASK_RUNNING) {
		ck_problem(c, th, ev, "omp-task",
			   "body_execute: body(id=1,taskid=%u) state must be Created but is Running (on %s)", id,
			   c->t->streams[t->running_on].relpath);
		return;
	}
	if (th->tasks.n >= CK_MAX_DEPTH || th->labels.n >= CK_MAX_DEPTH) {
		ck_problem(c, th, ev, "omp-depth", "openmp task or label stack is full (%d)", CK_MAX_DEPTH);
		return;
	}
	if (t->state == TASK_CREATED && t->created == ev->time && t->created_by != th->s->index)
		ck_problem(c, th, ev, "tie",
			   "PPx of task %u has the same clock as its PPc in %s: the emulator may order them either way",
			   id, c->t->streams[t->created_by].relpath);
	t->state = TASK_RUNNING;
	t->running_on = th->s->index;
	ck_push(&th->tasks, id);
	ck_push(&th->labels, t->type);
}

static void end_task(struct ck *c, struct ck_thread *th, const struct rd_event *ev, uint32_t id, struct ck_task *t)
{
	struct ck_proc *p = th->proc;
	if (t->state != TASK_RUNNING) {
		ck_problem(c, th, ev, "omp-task", "body_end: body(id=1,taskid=%u) state must be Running but is %s", id,
			   task_state[t->state]);
		return;
	}
	if (t->running_on != th->s->index) {
		ck_problem(c, th, ev, "omp-task", "body_end: body(id=1,taskid=%u) has another stack (it runs on %s)",
			   id, c->t->streams[t->running_on].relpath);
		return;
	}
	if (ck_top(&th->tasks) != id) {
		ck_problem(c, th, ev, "omp-task",
			   "body_end: body(id=1,taskid=%u) is not on top of the stack (task %u is)", id,
			   ck_top(&th->tasks));
		return;
	}
	th->tasks.n--;
	t->state = TASK_ENDED;
	t->running_on = -1;
	const char *want = label_of(p, t->type), *top = th->labels.n ? label_of(p, ck_top(&th->labels)) : NULL;
	if (!top || strcmp(top, want))
		ck_problem(c, th, ev, "omp-label",
			   "chan_pop: openmp label: PPe of task %u (\"%s\") but the top of the label stack is %s%s%s: "
			   "PQx/PQe and PPx/PPe must nest",
			   id, want, top ? "\"" : "", top ? top : "empty", top ? "\"" : "");
	else
		th->labels.n--;
}

static void task_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	char val = ev->mcv[2];
	if (val == 'c') {
		create_task(c, th, ev);
		return;
	}
	if (val != 'x' && val != 'e') {
		ck_problem(c, th, ev, "omp-unknown", "unexpected task event value %s", ev->mcv);
		return;
	}
	if (ev->size < 4 || ev->jumbo) {
		ck_problem(c, th, ev, "size", "%s needs a u32 task id (%u bytes)", ev->mcv, ev->size);
		return;
	}
	uint32_t id = rd_u32(ev->payload);
	struct ck_task *t = task_of(th->proc, id);
	if (!t) {
		ck_problem(c, th, ev, "omp-task", "cannot find task with id %u", id);
		if (val == 'x') { /* its PPc may come later at the same clock */
			ck_map_put(&th->proc->missing, (uint64_t)id + 1, (uint64_t)ev->time);
			ck_map_put(&th->proc->missing_by, (uint64_t)id + 1, (uint64_t)th->s->index + 1);
		}
		return;
	}
	if (val == 'x')
		execute_task(c, th, ev, id, t);
	else
		end_task(c, th, ev, id, t);
}

static void worksharing(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	if (ev->mcv[2] != 'x' && ev->mcv[2] != 'e') {
		ck_problem(c, th, ev, "omp-unknown", "unknown openmp worksharing event %s", ev->mcv);
		return;
	}
	if (ev->size < 4 || ev->jumbo) {
		ck_problem(c, th, ev, "size", "%s needs a u32 type id (%u bytes)", ev->mcv, ev->size);
		return;
	}
	uint32_t type = rd_u32(ev->payload);
	const char *label = label_of(th->proc, type);
	if (!label) {
		ck_problem(c, th, ev, "omp-ws", "cannot find ws with type %u", type);
		return;
	}
	if (ev->mcv[2] == 'x') {
		if (th->labels.n >= CK_MAX_DEPTH)
			ck_problem(c, th, ev, "omp-depth", "openmp label stack is full (%d)", CK_MAX_DEPTH);
		else
			ck_push(&th->labels, type);
		return;
	}
	const char *top = th->labels.n ? label_of(th->proc, ck_top(&th->labels)) : NULL;
	if (!top || strcmp(top, label))
		ck_problem(c, th, ev, "omp-label",
			   "chan_pop: openmp label: PQe of type %u (\"%s\") does not match the top of the label stack "
			   "(%s%s%s)",
			   type, label, top ? "\"" : "", top ? top : "empty", top ? "\"" : "");
	else
		th->labels.n--;
}

void ck_openmp_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	if (th->state != TH_RUNNING) {
		ck_problem(c, th, ev, "state", "process_ev: current thread %lld not running (%s)", th->s->tid,
			   ck_state_name[th->state]);
		return;
	}
	switch (ev->mcv[1]) {
	case 'O':
		if (ev->mcv[2] == 'c')
			declare_type(c, th, ev);
		else
			ck_problem(c, th, ev, "omp-unknown", "unknown openmp type event %s", ev->mcv);
		return;
	case 'P': task_event(c, th, ev); return;
	case 'Q': worksharing(c, th, ev); return;
	}
	subsystem(c, th, ev);
}

void ck_openmp_end(struct ck *c, struct ck_thread *th)
{
	if (th->sub.n)
		ck_problem(c, th, NULL, "omp-end", "end_lint: thread %lld ended with %d stacked openmp functions",
			   th->s->tid, th->sub.n);
}
