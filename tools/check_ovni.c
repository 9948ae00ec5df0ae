/* check_ovni.c: the ovni model rules: the thread state machine (OHx OHe OHp
 * OHr OHc OHw), CPUs (indices of the loom, one running thread per physical
 * CPU), affinity (OAs OAr), flushes, marks, and thread-creation causality. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char *const state_name[] = { "Unknown", "Running", "Paused", "Cooling", "Warming", "Dead" };

static int active(int st)
{
	return st == TH_RUNNING || st == TH_COOLING || st == TH_WARMING;
}

static int loom_index(struct ck *c, struct ck_loom *l)
{
	for (int i = 0; i < c->nlooms; i++)
		if (c->looms[i] == l)
			return i;
	return -1;
}

/* The thread stops or starts occupying its physical CPU as a running thread. */
static void leave_cpu(struct ck_thread *th)
{
	struct ck_loom *l = th->proc->loom;
	if (th->state == TH_RUNNING && th->cpu >= 0 && th->cpu < l->ncpus)
		l->running[th->cpu]--;
}

static void take_cpu(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	struct ck_loom *l = th->proc->loom;
	if (th->state != TH_RUNNING || th->cpu < 0 || th->cpu >= l->ncpus)
		return;
	if (l->running[th->cpu]++ > 0)
		ck_problem(c, th, ev, "cpu-two", "physical cpu CPU %d.%lld has 2 threads running at the same time",
			   loom_index(c, l), l->phyid[th->cpu]);
}

static int valid_cpu(struct ck *c, struct ck_thread *th, const struct rd_event *ev, int cpu)
{
	if (cpu == -1 || (cpu >= 0 && cpu < th->proc->loom->ncpus))
		return 1;
	ck_problem(c, th, ev, "cpu-index", "cannot find CPU with index %d in loom %s", cpu, th->proc->loom->name);
	return 0;
}

static struct ck_thread *find_thread(struct ck *c, struct ck_thread *self, int tid)
{
	uint64_t idx;
	if (ck_map_get(&self->proc->tids, (uint64_t)tid, &idx))
		return &c->th[idx - 1];
	for (int i = 0; i < c->nprocs; i++)
		if (c->procs[i]->loom == self->proc->loom && ck_map_get(&c->procs[i]->tids, (uint64_t)tid, &idx))
			return &c->th[idx - 1];
	return NULL;
}

static void mark_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	if (ev->size != 12) {
		ck_problem(c, th, ev, "mark-size", "mark event payload must be 12 bytes, not %u", ev->size);
		return;
	}
	int64_t value = rd_i64(ev->payload);
	int32_t type = rd_i32(ev->payload + 8);
	if (type < 0 || type >= 100 || !c->marks[type].declared) {
		ck_problem(c, th, ev, "mark-type", "cannot find mark with type %d", type);
		return;
	}
	if (value == 0) {
		ck_problem(c, th, ev, "mark-zero", "mark value 0 is not allowed (type %d)", type);
		return;
	}
	struct ck_marktype *mt = &c->marks[type];
	char op = ev->mcv[2];
	if (op == '=') {
		if (mt->stack)
			ck_problem(c, th, ev, "mark-kind", "cannot set on stack channel (mark type %d)", type);
		return;
	}
	if (!mt->stack) {
		ck_problem(c, th, ev, "mark-kind", "cannot push or pop on non-stack channel (mark type %d)", type);
		return;
	}
	if (op == '[') {
		if (th->mdepth[type] >= 512) {
			ck_problem(c, th, ev, "mark-depth", "mark stack of type %d is full (512)", type);
			return;
		}
		if (th->mdepth[type] == th->mcap[type]) {
			th->mcap[type] = th->mcap[type] ? th->mcap[type] * 2 : 8;
			th->mstack[type] = realloc(th->mstack[type], sizeof(int64_t) * (size_t)th->mcap[type]);
		}
		th->mstack[type][th->mdepth[type]++] = value;
	} else {
		if (!th->mdepth[type] || th->mstack[type][th->mdepth[type] - 1] != value) {
			ck_problem(c, th, ev, "mark-pop", "mark pop of value %lld (type %d) does not match the top %lld",
				   (long long)value, type,
				   th->mdepth[type] ? (long long)th->mstack[type][th->mdepth[type] - 1] : 0LL);
			return;
		}
		th->mdepth[type]--;
	}
}

static void need_running_state(struct ck *c, struct ck_thread *th, const struct rd_event *ev, int ok)
{
	if (!ok)
		ck_problem(c, th, ev, "state", "%s: thread %lld is %s", ev->mcv, th->s->tid, state_name[th->state]);
}

void ck_ovni_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	char cat = ev->mcv[1], val = ev->mcv[2];
	const uint8_t *p = ev->payload;
	if (cat == 'H') {
		switch (val) {
		case 'x': {
			if (ev->size < 4) {
				ck_problem(c, th, ev, "size", "OHx needs at least a 4-byte cpu");
				return;
			}
			if (th->state != TH_UNKNOWN && th->state != TH_DEAD) {
				ck_problem(c, th, ev, "state", "cannot execute thread %lld, is already %s", th->s->tid,
					   state_name[th->state]);
				return;
			}
			int cpu = rd_i32(p);
			if (!valid_cpu(c, th, ev, cpu))
				return;
			th->cpu = cpu;
			th->state = TH_RUNNING;
			take_cpu(c, th, ev);
			if (ev->size >= 16) {
				uint64_t tag = rd_u64(p + 8), when, who;
				if (tag && ck_map_get(&th->proc->tags, tag, &when) &&
				    ck_map_get(&th->proc->tagstream, tag, &who) && (int64_t)when == ev->time &&
				    (int)who != th->s->index + 1)
					ck_problem(c, th, ev, "tie",
						   "OHx has the same clock as the OHC with tag %llu in another thread: "
						   "the emulator may order them either way",
						   (unsigned long long)tag);
			}
			return;
		}
		case 'e':
			need_running_state(c, th, ev, th->state == TH_RUNNING || th->state == TH_COOLING);
			leave_cpu(th);
			th->state = TH_DEAD;
			return;
		case 'p':
			need_running_state(c, th, ev, th->state == TH_RUNNING || th->state == TH_COOLING);
			leave_cpu(th);
			th->state = TH_PAUSED;
			return;
		case 'r':
			need_running_state(c, th, ev, th->state == TH_PAUSED || th->state == TH_WARMING);
			th->state = TH_RUNNING;
			take_cpu(c, th, ev);
			return;
		case 'c':
			need_running_state(c, th, ev, th->state == TH_RUNNING);
			leave_cpu(th);
			th->state = TH_COOLING;
			return;
		case 'w':
			need_running_state(c, th, ev, th->state == TH_PAUSED);
			th->state = TH_WARMING;
			return;
		case 'C':
			if (ev->size < 12)
				ck_problem(c, th, ev, "size", "OHC needs a cpu and a tag (12 bytes)");
			else if (rd_u64(p + 4)) {
				ck_map_put(&th->proc->tags, rd_u64(p + 4), (uint64_t)ev->time);
				ck_map_put(&th->proc->tagstream, rd_u64(p + 4), (uint64_t)th->s->index + 1);
			}
			return;
		}
	} else if (cat == 'A' && (val == 's' || val == 'r')) {
		if (ev->size != (val == 's' ? 4u : 8u)) {
			ck_problem(c, th, ev, "size", "%s payload must be %u bytes", ev->mcv, val == 's' ? 4u : 8u);
			return;
		}
		need_running_state(c, th, ev, active(th->state));
		int cpu = rd_i32(p);
		if (!valid_cpu(c, th, ev, cpu))
			return;
		struct ck_thread *target = th;
		if (val == 'r') {
			target = find_thread(c, th, rd_i32(p + 4));
			if (!target || target->state == TH_UNKNOWN || target->state == TH_DEAD) {
				ck_problem(c, th, ev, "state", "OAr: thread %d is not alive", rd_i32(p + 4));
				return;
			}
		}
		if (target->cpu == cpu)
			return;
		leave_cpu(target);
		target->cpu = cpu;
		take_cpu(c, target, ev);
		return;
	} else if (cat == 'F' && (val == '[' || val == ']')) {
		if ((val == '[') == th->flushing)
			ck_problem(c, th, ev, "flush", "%s while %sflushing", ev->mcv, th->flushing ? "" : "not ");
		th->flushing = val == '[';
		return;
	} else if (cat == 'M' && (val == '[' || val == ']' || val == '=')) {
		mark_event(c, th, ev);
		return;
	} else if ((cat == 'B' && val == '.') || (cat == 'U' && (val == '[' || val == ']')) ||
		   (cat == 'C' && val == 'n')) {
		return;
	}
	ck_problem(c, th, ev, "unknown", "unknown ovni event %s", ev->mcv);
}
