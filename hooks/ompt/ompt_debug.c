/* ompt_debug.c: OVNI_OMP_DEBUG, the OMPT tool's account of callback orders
 * it did not expect.  With OVNI_OMP_DEBUG set, every thread keeps a ring of
 * its last ONOTES callbacks (name, the tasks they named, an argument), and
 * the first anomalies of the process (a callback naming a task that is not
 * the one the thread runs, a region ended that was never begun, a task
 * completed while it runs elsewhere...) are reported on stderr with the
 * tasks involved and the callbacks that led there, oldest first.  Without
 * it, anomalies are only counted. */
#include <stdio.h>
#include <string.h>

#include "../../common/log.h"
#include "ompt.h"

#define MAX_REPORTS 10 /* with the callback history; then one line each */
#define MAX_LINES 100

static _Atomic unsigned reports;

void oa_omp_note_slow(struct othr *th, const char *cb, const void *a, long arg, const void *b)
{
	struct onote *n = &th->notes[th->nnotes++ % ONOTES];
	n->cb = cb;
	n->a = a;
	n->b = b;
	n->arg = arg;
	n->clock = oa_omp_now();
}

static const char *const kind_names[] = { "explicit", "implicit", "hidden", "taskwait-deps" };
static const char *const state_names[] = { "free", "created", "running", "paused", "detached" };
static const char rk_names[RK_NKINDS][4] = {
	[RK_FORK_CALL] = "Cf",   [RK_BAR_PLAIN] = "Bb", [RK_BAR_JOIN] = "Bj",      [RK_BAR_FORK] = "Bf",
	[RK_TASKWAIT] = "Tt",    [RK_TASKGROUP] = "Tg", [RK_TW_DEPS] = "Tw",       [RK_TASKLOOP] = "Td",
	[RK_ACQUIRING] = "Ia",   [RK_HOLDING] = "I[",   [RK_WS_STATIC] = "Ws",     [RK_WS_DYNAMIC] = "Wc",
	[RK_WS_SECTIONS] = "We", [RK_WS_SINGLE] = "Wi", [RK_WS_DISTRIBUTE] = "Wd", [RK_MARK] = "M",
};

/* "explicit task 17 (running, last on tid 42, regions Bf Td)" */
static void describe(char *buf, size_t len, const struct otask *t)
{
	if (!t) {
		snprintf(buf, len, "none");
		return;
	}
	int n = snprintf(buf, len, "%s task %u@%p (%s, last on tid %d, regions",
			 t->kind < 4 ? kind_names[t->kind] : "?", t->id, (const void *)t,
			 t->state < 5 ? state_names[t->state] : "?", t->last ? t->last->tid : 0);
	for (int i = 0; i < t->nreg && i < 12 && n > 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, " %s%s",
			      t->regs[i].kind < RK_NKINDS ? rk_names[t->regs[i].kind] : "?",
			      (t->regs[i].flags & RF_LAZY) ? "(lazy)" : "");
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s)", t->nreg ? "" : " none");
}

/* "e17@42": explicit task 17 whose last segment was on tid 42. */
static void brief(char *buf, size_t len, const void *p)
{
	const struct otask *t = p;
	if (!t)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%c%u@%d", "eihw"[t->kind & 3], t -> id, t -> last ? t -> last -> tid : 0);
}

void oa_omp_anomaly_slow(struct othr *th, const char *what, const struct otask *a, const struct otask *b)
{
	unsigned r = atomic_fetch_add(&reports, 1);
	if (r >= MAX_LINES)
		return;
	char da[192], db[192], dc[192];
	describe(da, sizeof(da), a);
	describe(db, sizeof(db), b);
	describe(dc, sizeof(dc), th->cur);
	oa_log("ompt: tid %d: unexpected callback order #%u: %s", th->tid, r + 1, what);
	oa_log("ompt: tid %d:   task:        %s", th->tid, da);
	if (b)
		oa_log("ompt: tid %d:   other task:  %s", th->tid, db);
	oa_log("ompt: tid %d:   thread runs: %s%s", th->tid, dc, th->cur_pending ? " (resume pending)" : "");
	if (r >= MAX_REPORTS)
		return;
	unsigned first = th->nnotes > ONOTES ? th->nnotes - ONOTES : 0;
	uint64_t now = oa_omp_now();
	oa_log("ompt: tid %d: its last %u callbacks (oldest first; tasks as kind+id@thread of their last segment):",
	       th->tid, th->nnotes - first);
	for (unsigned i = first; i < th->nnotes; i++) {
		const struct onote *n = &th->notes[i % ONOTES];
		char line[160], sa[48], sb[48];
		brief(sa, sizeof(sa), n->a);
		brief(sb, sizeof(sb), n->b);
		snprintf(line, sizeof(line), "%9.3f us ago  %-20s %-16s arg %-4ld %s", (double)(now - n->clock) / 1e3,
			 n->cb, sa, n->arg, sb);
		oa_log("ompt: tid %d:   %s", th->tid, line);
	}
}
