/* check_openmp.c: the openmp model 1.2.1 rules: task and worksharing types
 * (POc), tasks (PPc PPx PPe: per process, LIFO per thread, resurrect
 * allowed), worksharing labels (PQx PQe), and the one subsystem stack per
 * thread shared by every paired state; in lint mode it must be empty when the
 * thread ends. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Subsystem pairs: category, opening value, closing value. */
static const char pairs[][3] = {
	{ 'B', 'b', 'B' }, { 'B', 'j', 'J' }, { 'B', 'f', 'F' }, { 'B', 't', 'T' },
	{ 'I', 'a', 'A' }, { 'I', 'r', 'R' }, { 'I', '[', ']' },
	{ 'W', 'd', 'D' }, { 'W', 'y', 'Y' }, { 'W', 'c', 'C' }, { 'W', 's', 'S' }, { 'W', 'e', 'E' }, { 'W', 'i', 'I' },
	{ 'T', 'a', 'A' }, { 'T', 'c', 'C' }, { 'T', 'd', 'D' }, { 'T', 'r', 'R' }, { 'T', '[', ']' }, { 'T', 'i', 'I' },
	{ 'T', 's', 'S' }, { 'T', 'g', 'G' }, { 'T', 't', 'T' }, { 'T', 'w', 'W' }, { 'T', 'y', 'Y' },
	{ 'A', '[', ']' }, { 'C', 'f', 'F' }, { 'C', 'i', 'I' }, { 'M', 'i', 'I' }, { 'M', 'u', 'U' }, { 'H', '[', ']' },
};

static void push_label(struct ck_thread *th, uint32_t v)
{
	if (th->nlabels == th->caplabels) {
		th->caplabels = th->caplabels ? th->caplabels * 2 : 16;
		th->labels = realloc(th->labels, sizeof(uint32_t) * (size_t)th->caplabels);
	}
	th->labels[th->nlabels++] = v;
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
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		if (pairs[i][0] != cat)
			continue;
		uint16_t id = (uint16_t)((unsigned char)cat << 8 | (unsigned char)pairs[i][1]);
		if (val == pairs[i][1]) {
			if (th->nsub >= 512) {
				ck_problem(c, th, ev, "omp-depth", "openmp subsystem stack is full (512)");
				return;
			}
			if (th->nsub == th->capsub) {
				th->capsub = th->capsub ? th->capsub * 2 : 16;
				th->sub = realloc(th->sub, sizeof(uint16_t) * (size_t)th->capsub);
			}
			th->sub[th->nsub++] = id;
			return;
		}
		if (val == pairs[i][2]) {
			if (!th->nsub || th->sub[th->nsub - 1] != id) {
				ck_problem(c, th, ev, "omp-pop",
					   "chan_pop: openmp subsystem: %s does not close the top of the stack (%c%c)",
					   ev->mcv, th->nsub ? (char)(th->sub[th->nsub - 1] >> 8) : '-',
					   th->nsub ? (char)(th->sub[th->nsub - 1] & 0xff) : '-');
				return;
			}
			th->nsub--;
			return;
		}
	}
	ck_problem(c, th, ev, "omp-unknown", "unknown openmp function event %s", ev->mcv);
}

void ck_openmp_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	struct ck_proc *p = th->proc;
	const uint8_t *d = ev->payload;
	char cat = ev->mcv[1], val = ev->mcv[2];
	if (!(c->models & CK_MODEL_OPENMP)) {
		ck_problem(c, th, ev, "model", "model openmp not enabled for event %s", ev->mcv);
		return;
	}
	if (th->state != TH_RUNNING) {
		ck_problem(c, th, ev, "state", "process_ev: current thread %lld not running", th->s->tid);
		return;
	}
	if (cat == 'O' && val == 'c') {
		if (!ev->jumbo) {
			ck_problem(c, th, ev, "omp-type", "POc: expecting a jumbo event");
			return;
		}
		if (ev->size < 5 || !memchr(d + 4, '\0', ev->size - 4) || ev->size - 4 > 513) {
			ck_problem(c, th, ev, "omp-type", "POc: the label must be NUL-terminated and at most 512 bytes");
			return;
		}
		uint32_t type = rd_u32(d);
		uint64_t dummy;
		if (!type)
			ck_problem(c, th, ev, "omp-type", "POc: type id must not be 0");
		else if (ck_map_get(&p->types, type, &dummy))
			ck_problem(c, th, ev, "omp-type", "a task type with id %u already exists", type);
		else
			ck_map_put(&p->types, type, 1);
		return;
	}
	if (cat == 'P') {
		if (val == 'c') {
			if (ev->size != 8) {
				ck_problem(c, th, ev, "size", "PPc payload must be 8 bytes");
				return;
			}
			uint32_t id = rd_u32(d), type = rd_u32(d + 4);
			uint64_t dummy;
			if (!id || !type) {
				ck_problem(c, th, ev, "omp-task", "PPc: task and type ids must not be 0");
				return;
			}
			if (!ck_map_get(&p->types, type, &dummy)) {
				ck_problem(c, th, ev, "omp-task", "unknown type id %u", type);
				return;
			}
			if (task_of(p, id)) {
				ck_problem(c, th, ev, "omp-task", "task_id %u already exists", id);
				return;
			}
			if (p->ntask == p->captask) {
				p->captask = p->captask ? p->captask * 2 : 64;
				p->task = realloc(p->task, sizeof(*p->task) * p->captask);
			}
			p->task[p->ntask++] = (struct ck_task){ type, 1, ev->time, th->s->index, -1 };
			ck_map_put(&p->tasks, (uint64_t)id + 1, p->ntask);
			return;
		}
		if (val == 'x' || val == 'e') {
			if (ev->size < 4) {
				ck_problem(c, th, ev, "size", "%s needs a task id", ev->mcv);
				return;
			}
			uint32_t id = rd_u32(d);
			struct ck_task *t = task_of(p, id);
			if (!t) {
				ck_problem(c, th, ev, "omp-task", "cannot find task with id %u", id);
				return;
			}
			if (val == 'x') {
				if (t->state == 2) {
					ck_problem(c, th, ev, "omp-task", "body_execute: task %u must be Created but is Running", id);
					return;
				}
				if (t->state == 1 && t->created == ev->time && t->created_by != th->s->index)
					ck_problem(c, th, ev, "tie",
						   "PPx of task %u has the same clock as its PPc in another thread: "
						   "the emulator may order them either way", id);
				t->state = 2;
				t->running_on = th->s->index;
				if (th->ntasks == th->captasks) {
					th->captasks = th->captasks ? th->captasks * 2 : 16;
					th->tasks = realloc(th->tasks, sizeof(uint32_t) * (size_t)th->captasks);
				}
				th->tasks[th->ntasks++] = id;
				push_label(th, 0x80000000u | t->type);
				return;
			}
			if (t->state != 2 || t->running_on != th->s->index) {
				ck_problem(c, th, ev, "omp-task", "body_end: task %u has another stack or is not running", id);
				return;
			}
			if (!th->ntasks || th->tasks[th->ntasks - 1] != id) {
				ck_problem(c, th, ev, "omp-task", "body_end: task %u is not on top of the stack", id);
				return;
			}
			if (!th->nlabels || th->labels[th->nlabels - 1] != (0x80000000u | t->type))
				ck_problem(c, th, ev, "omp-label", "PPe of task %u while a worksharing label is open", id);
			else
				th->nlabels--;
			th->ntasks--;
			t->state = 3;
			t->running_on = -1;
			return;
		}
	}
	if (cat == 'Q' && (val == 'x' || val == 'e')) {
		if (ev->size < 4) {
			ck_problem(c, th, ev, "size", "%s needs a type id", ev->mcv);
			return;
		}
		uint32_t type = rd_u32(d);
		uint64_t dummy;
		if (!ck_map_get(&p->types, type, &dummy)) {
			ck_problem(c, th, ev, "omp-ws", "cannot find ws with type %u", type);
			return;
		}
		if (val == 'x') {
			push_label(th, type);
		} else if (!th->nlabels || th->labels[th->nlabels - 1] != type) {
			ck_problem(c, th, ev, "omp-label", "PQe of type %u does not match the top of the label stack", type);
		} else {
			th->nlabels--;
		}
		return;
	}
	subsystem(c, th, ev);
}

void ck_openmp_end(struct ck *c, struct ck_thread *th)
{
	if (th->nsub)
		ck_problem(c, th, NULL, "omp-end", "end_lint: thread %lld ended with %d stacked openmp functions",
			   th->s->tid, th->nsub);
}
