/* check_ovni.c: the ovni model: the thread state machine (OHx OHe OHp OHr
 * OHc OHw), CPUs (indices of the loom, one running thread per physical
 * CPU), affinity (OAs OAr), flushes (OF[ OF]), the kernel model's
 * out-of-CPU guard, and the equal-clock check of thread creation (OHC/OHx
 * with one tag on two threads). */
#include <string.h>

#include "check.h"

const char *const ck_state_name[] = { "Unknown", "Running", "Paused", "Cooling", "Warming", "Dead" };

/* Only Running threads count on a physical CPU. */
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
		ck_problem(c, th, ev, "cpu-two", "physical cpu  CPU %d.%lld has %d threads running at the same time",
			   l->rowidx, l->phyid[th->cpu], l->running[th->cpu]);
}

static int valid_cpu(struct ck_thread *th, int cpu)
{
	return cpu == -1 || (cpu >= 0 && cpu < th->proc->loom->ncpus);
}

static struct ck_thread *find_thread(struct ck *c, struct ck_thread *self, int tid)
{
	uint64_t idx;
	if (tid <= 0)
		return NULL;
	if (ck_map_get(&self->proc->tids, (uint64_t)tid, &idx))
		return &c->th[idx - 1];
	for (int i = 0; i < c->nprocs; i++)
		if (c->procs[i]->loom == self->proc->loom && ck_map_get(&c->procs[i]->tids, (uint64_t)tid, &idx))
			return &c->th[idx - 1];
	return NULL;
}

/* A state change needs one of the states in `ok` (a bit mask). */
static int need(struct ck *c, struct ck_thread *th, const struct rd_event *ev, unsigned ok, const char *expected)
{
	if (ok & (1u << th->state))
		return 1;
	ck_problem(c, th, ev, "state", "thread %lld is %s (expected %s)", th->s->tid, ck_state_name[th->state],
		   expected);
	return 0;
}

#define S(x) (1u << (x))

/* OHC tag -> OHx tag, on two threads with one clock: the emulator may take
 * either first. Checked from both sides, as either may come first here. */
static void tag_tie(struct ck *c, struct ck_thread *th, const struct rd_event *ev, uint64_t tag, int is_ohx)
{
	struct ck_proc *p = th->proc;
	struct ck_map *time_other = is_ohx ? &p->ohc_time : &p->ohx_time;
	struct ck_map *by_other = is_ohx ? &p->ohc_by : &p->ohx_by;
	uint64_t when, who;
	if (tag && ck_map_get(time_other, tag, &when) && ck_map_get(by_other, tag, &who) && (int64_t)when == ev->time &&
	    (int)who != th->s->index + 1)
		ck_problem(c, th, ev, "tie",
			   "%s with tag %llu has the same clock as the %s in %s: the emulator may order them either "
			   "way (thread creation needs a strictly later clock)",
			   ev->mcv, (unsigned long long)tag, is_ohx ? "OHC" : "OHx", c->t->streams[who - 1].relpath);
	if (tag) {
		ck_map_put(is_ohx ? &p->ohx_time : &p->ohc_time, tag, (uint64_t)ev->time);
		ck_map_put(is_ohx ? &p->ohx_by : &p->ohc_by, tag, (uint64_t)th->s->index + 1);
	}
}

static void execute(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	if (ev->size < 4 || ev->jumbo) {
		ck_problem(c, th, ev, "size", "OHx payload too short (%u bytes; at least the i32 cpu)", ev->size);
		return;
	}
	if (th->state == TH_RUNNING) {
		ck_problem(c, th, ev, "state",
			   "cannot execute thread %lld, is already running (it is already Running on CPU %d)",
			   th->s->tid, th->cpu);
		return;
	}
	if (th->state != TH_UNKNOWN && th->state != TH_DEAD) {
		ck_problem(c, th, ev, "state", "thread %lld already has a CPU (it is %s)", th->s->tid,
			   ck_state_name[th->state]);
		return;
	}
	int cpu = rd_i32(ev->payload);
	if (!valid_cpu(th, cpu)) {
		ck_problem(c, th, ev, "cpu-index", "cannot find CPU with index %d in loom %s", cpu,
			   th->proc->loom->name);
		cpu = -1; /* go on as if on the virtual CPU, not to report all that follows */
	}
	th->cpu = cpu;
	th->state = TH_RUNNING;
	take_cpu(c, th, ev);
	if (ev->size >= 16)
		tag_tie(c, th, ev, rd_u64(ev->payload + 8), 1);
}

static void affinity(struct ck *c, struct ck_thread *th, const struct rd_event *ev, int remote)
{
	unsigned want = remote ? 8u : 4u;
	if (ev->size != want || ev->jumbo) {
		ck_problem(c, th, ev, "size", "%s payload must be %u bytes, not %u", ev->mcv, want, ev->size);
		return;
	}
	struct ck_thread *target = th;
	int cpu = rd_i32(ev->payload);
	if (remote) {
		int tid = rd_i32(ev->payload + 4);
		target = find_thread(c, th, tid);
		if (!target) {
			ck_problem(c, th, ev, "state", "cannot find thread %d in the process or the loom", tid);
			return;
		}
		if (target->state == TH_UNKNOWN || target->state == TH_DEAD) {
			ck_problem(c, th, ev, "state", "thread %d is %s: it has no CPU to move", tid,
				   ck_state_name[target->state]);
			return;
		}
	} else if (!need(c, th, ev, S(TH_RUNNING) | S(TH_COOLING) | S(TH_WARMING), "Running, Cooling or Warming")) {
		return;
	}
	if (!valid_cpu(th, cpu)) {
		ck_problem(c, th, ev, "cpu-index", "pre_affinity_%s: cannot find cpu with index %d in loom %s",
			   remote ? "remote" : "set", cpu, th->proc->loom->name);
		return;
	}
	if (target->cpu == cpu) {
		/* The emulator lets a thread set its own affinity to where it
		 * is, not move another thread there. */
		if (remote)
			ck_problem(
				c, th, ev, "cpu-same",
				"pre_affinity_remote: thread %d is already on CPU %d (the emulator refuses the move)",
				(int)target->s->tid, cpu);
		return;
	}
	leave_cpu(target);
	target->cpu = cpu;
	take_cpu(c, target, ev);
}

static void thread_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	switch (ev->mcv[2]) {
	case 'x': execute(c, th, ev); return;
	case 'e':
		if (need(c, th, ev, S(TH_RUNNING) | S(TH_COOLING), "Running or Cooling"))
			leave_cpu(th);
		th->state = TH_DEAD;
		return;
	case 'p':
		if (!need(c, th, ev, S(TH_RUNNING) | S(TH_COOLING), "Running or Cooling"))
			return;
		leave_cpu(th);
		th->state = TH_PAUSED;
		return;
	case 'r':
		if (!need(c, th, ev, S(TH_PAUSED) | S(TH_WARMING), "Paused or Warming"))
			return;
		th->state = TH_RUNNING;
		take_cpu(c, th, ev);
		return;
	case 'c':
		if (!need(c, th, ev, S(TH_RUNNING), "Running"))
			return;
		leave_cpu(th);
		th->state = TH_COOLING;
		return;
	case 'w':
		if (!need(c, th, ev, S(TH_PAUSED), "Paused"))
			return;
		th->state = TH_WARMING;
		return;
	case 'C':
		if (ev->size >= 12 && !ev->jumbo)
			tag_tie(c, th, ev, rd_u64(ev->payload + 4), 0);
		return;
	}
	ck_problem(c, th, ev, "unknown", "unknown ovni event %s", ev->mcv);
}

void ck_ovni_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev)
{
	char cat = ev->mcv[1], val = ev->mcv[2];
	if (th->out_of_cpu) {
		ck_problem(c, th, ev, "kernel-out", "current thread %lld out of CPU (between KCO and KCI)", th->s->tid);
		return;
	}
	switch (cat) {
	case 'H': thread_event(c, th, ev); return;
	case 'A':
		if (val == 's' || val == 'r') {
			affinity(c, th, ev, val == 'r');
			return;
		}
		break;
	case 'F':
		if (val == '[' || val == ']') {
			if ((val == '[') == th->flushing)
				ck_problem(c, th, ev, "flush",
					   "%s while %sflushing (duplicated value on the flushing channel)", ev->mcv,
					   th->flushing ? "" : "not ");
			th->flushing = val == '[';
			return;
		}
		break;
	case 'M':
		if (val == '[' || val == ']' || val == '=') {
			ck_mark_event(c, th, ev);
			return;
		}
		break;
	case 'B':
		if (val == '.')
			return;
		break;
	case 'U':
		if (val == '[' || val == ']')
			return;
		break;
	case 'C':
		if (val == 'n') {
			if (!c->warned_ocn++)
				ck_note(c, "ignoring old event OCn (%s)", th->s->relpath);
			return;
		}
		break;
	}
	ck_problem(c, th, ev, "unknown", "unknown ovni event %s", ev->mcv);
}

void ck_ovni_end(struct ck *c, struct ck_thread *th)
{
	if (th->state != TH_DEAD)
		ck_problem(c, th, NULL, "dead", "model_ovni_finish: thread %lld is not dead (%s%s)", th->s->tid,
			   ck_state_name[th->state], th->nevents ? "" : "; the stream has zero events");
}
