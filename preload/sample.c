/* sample.c: periodic samples of the running function (see sample.h).
 * Each thread has a timer on its own CPU-time clock (CLOCK_THREAD_CPUTIME_ID)
 * that sends it a real-time signal (SIGRTMIN+4 unless OVNI_SAMPLE_SIGNAL
 * says otherwise): it only fires while the thread runs, so it never
 * interrupts a sleep or a wait (no EINTR the program would not get without
 * the agent). The handler is async-signal-safe: it reads the interrupted
 * program counter from the signal context, puts it into a lock-free set and
 * emits one OM= on the thread's stream (unless it interrupted an emit). The
 * addresses are named later, outside any handler (oa_sample_label). Values
 * carry the pid in their high bits so that labels never conflict between
 * processes. If the program already handles the signal, sampling stays off.
 *
 * The signal belongs to the program the moment the program touches it
 * (sigaction or signal() with a disposition, a signalfd on it): sampling
 * stops in that process (every thread's timer is deleted, one line on
 * stderr, the "sampling stopped" mark on the calling thread), and from then
 * on signal.c delivers the signal to the program's disposition through our
 * handler, which drops a sample still pending (a timer's signal carries our
 * cookie).  A sample never reaches a disposition the agent did not
 * install. */
#include "sample.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "../writer/ev_ovni.h"
#include "../common/log.h"
#include "../writer/ovni_fmt.h"
#include "../writer/registry.h"
#include "agent.h"
#include "procevents.h"
#include "real.h"
#include "symbols.h"
#include "../common/env.h"

#define SET_SIZE 8192 /* distinct sampled addresses kept per process */

static long period_ns;
static int signo;
static _Atomic uintptr_t seen[SET_SIZE] OA_LARGE_BSS;
static _Atomic uintptr_t labelled[SET_SIZE] OA_LARGE_BSS;
static _Atomic int stopped; /* the program took the signal */
#define COOKIE 0x6f766e69   /* "ovni": the sigev_value of our timers */

/* Each address's value: drawn from the loom's counter when the process
 * first samples it (unique in the trace, in its low 32 bits too, which is
 * all the emulator keeps).  It was the pid's hash above bit 40 and the
 * address below: two processes of one program sampling one function gave
 * two values the emulator takes for one (check failed under -S, 3 runs of
 * 3).  A fork child keeps its parent's: the same code at the same
 * addresses, the same labels. */
static _Atomic int64_t vals[SET_SIZE] OA_LARGE_BSS;
/* Past the table (SET_SIZE distinct addresses): one value for the rest. */
#define OTHER_VALUE 1
static _Atomic int other_used;

static int64_t value_at(size_t i)
{
	int64_t v = atomic_load_explicit(&vals[i], memory_order_acquire);
	if (!v) {
		int64_t n = oa_procev_value_mapped();
		v = atomic_compare_exchange_strong(&vals[i], &v, n) ? n : v;
	}
	return v;
}

/* The value of a sampled address, remembered for its label. */
static int64_t value_of(uintptr_t pc)
{
	size_t h = (size_t)((pc * 0x9E3779B97F4A7C15ull) >> 51) & (SET_SIZE - 1);
	for (size_t k = 0; k < 64; k++) {
		uintptr_t expect = 0;
		size_t i = (h + k) & (SET_SIZE - 1);
		_Atomic uintptr_t *slot = &seen[i];
		if (atomic_load_explicit(slot, memory_order_relaxed) == pc)
			return value_at(i);
		if (atomic_compare_exchange_strong(slot, &expect, pc) || expect == pc)
			return value_at(i);
	}
	atomic_store_explicit(&other_used, 1, memory_order_relaxed);
	return OTHER_VALUE;
}

static void (*deliver)(int, siginfo_t *, void *);

OA_START_TEXT void oa_sample_set_deliver(void (*fn)(int, siginfo_t *, void *))
{
	deliver = fn;
}

/* No disposition keeper yet (the hooks' constructors have not run): the
 * program's disposition is the default one it had at start. */
static void deliver_default(int sig)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	oa_real.sigaction(sig, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), gettid(), sig);
}

int oa_sample_is_ours(const siginfo_t *si)
{
	return si && si->si_code == SI_TIMER && si->si_value.sival_int == COOKIE;
}

void oa_sample_on_signal(int sig, siginfo_t *si, void *ctx)
{
	if (!oa_sample_is_ours(si)) {
		/* The program's own signal, to the program's disposition. */
		if (deliver)
			deliver(sig, si, ctx);
		else
			deliver_default(sig);
		return;
	}
	if (atomic_load_explicit(&stopped, memory_order_relaxed))
		return; /* sent before the timers were deleted */
	int saved = errno;
	struct oa_thread *t = oa_self;
	ucontext_t *uc = ctx;
	uintptr_t pc = 0;
#if defined(__x86_64__)
	pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	pc = (uintptr_t)uc->uc_mcontext.pc;
#endif
	if (t && pc && !oa_guard && !oa_emitting(&t->s)) {
		ev_ovni_mark_set(&t->s, OA_MARK_SAMPLE, value_of(pc));
	}
	errno = saved;
}

OA_EARLY_TEXT int oa_sample_signal(void)
{
	return period_ns ? signo : 0;
}

static void delete_timer(struct oa_thread *t)
{
	if (atomic_exchange(&t->has_timer, 0))
		timer_delete(t->sample_timer);
}

void oa_sample_stop(const char *why)
{
	if (!period_ns || atomic_exchange(&stopped, 1))
		return;
	for (struct oa_stream *s = oa_registry_first(); s; s = s->next) {
		int st = atomic_load(&s->state);
		if (st == OA_SLOT_OPEN || st == OA_SLOT_OPENING || st == OA_SLOT_CLOSING)
			delete_timer(oa_thread_of(s));
	}
	if (why)
		oa_log("the program uses signal %d (%s): sampling stops in process %d", signo, why, (int)getpid());
	struct oa_thread *t = oa_self;
	if (t && !oa_emitting(&t->s))
		ev_ovni_mark_set(&t->s, OA_MARK_PROC, OA_PROC_SAMPLING_STOPPED);
}

OA_START_TEXT void oa_sample_init(void)
{
	const char *v = oa_env(OA_ENV_SAMPLE_US);
	long us = v ? atol(v) : 0;
	if (us <= 0)
		return;
	const char *s = oa_env(OA_ENV_SAMPLE_SIGNAL);
	signo = s && *s ? atoi(s) : SIGRTMIN + 4;
	struct sigaction old, sa;
	if (signo <= 0 || signo >= NSIG || oa_real_init() != 0 || oa_real.sigaction(signo, NULL, &old) != 0 ||
	    (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) {
		oa_log("signal %d is in use by the program: sampling is off (set OVNI_SAMPLE_SIGNAL)", signo);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = oa_sample_on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (oa_real.sigaction(signo, &sa, NULL) != 0)
		return;
	atomic_store(&stopped, 0);
	oa_procev_prepare_values(); /* the handler makes no system call for a value */
	period_ns = us * 1000;
	oa_meta_mark_type(&oa_meta, OA_MARK_SAMPLE, 0, "Sampled function (ovni-auto)");
	oa_meta_mark_label(&oa_meta, NULL, OA_MARK_PROC, OA_PROC_SAMPLING_STOPPED,
			   "sampling stopped: the program took the sampling signal");
}

OA_START_TEXT void oa_sample_thread_start(struct oa_thread *t)
{
	if (!period_ns || atomic_load(&stopped) || atomic_load(&t->has_timer))
		return;
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = signo;
	ev.sigev_value.sival_int = COOKIE;
	ev._sigev_un._tid = t->tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t->sample_timer) != 0)
		return;
	atomic_store(&t->has_timer, 1);
	/* Stopped meanwhile: the stopper may not have seen our timer. */
	if (atomic_load(&stopped)) {
		delete_timer(t);
		return;
	}
	struct itimerspec it = { { period_ns / 1000000000, period_ns % 1000000000 },
				 { period_ns / 1000000000, period_ns % 1000000000 } };
	timer_settime(t->sample_timer, 0, &it, NULL);
}

OA_START_TEXT void oa_sample_thread_stop(struct oa_thread *t)
{
	if (t)
		delete_timer(t);
}

OA_START_TEXT void oa_sample_label(struct oa_label_list *owner)
{
	if (!period_ns)
		return;
	for (size_t i = 0; i < SET_SIZE; i++) {
		uintptr_t pc = atomic_load(&seen[i]);
		int64_t v = atomic_load(&vals[i]);
		if (!pc || !v || atomic_load(&labelled[i]) == pc)
			continue;
		oa_meta_mark_label(&oa_meta, owner, OA_MARK_SAMPLE, v, oa_sym_name(pc));
		atomic_store(&labelled[i], pc);
	}
	if (atomic_load(&other_used))
		oa_meta_mark_label(&oa_meta, owner, OA_MARK_SAMPLE, OTHER_VALUE,
				   "(other: more distinct addresses than the agent keeps)");
}
