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
 * processes. If the program already handles the signal, sampling stays off. */
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
#include "../writer/log.h"
#include "../writer/ovni_fmt.h"
#include "agent.h"
#include "symbols.h"

#define SET_SIZE 8192 /* distinct sampled addresses kept per process */

static long period_ns;
static int signo;
static _Atomic uintptr_t seen[SET_SIZE];
static _Atomic uintptr_t labelled[SET_SIZE];
static OA_TLS timer_t timer;
static OA_TLS int has_timer;

static int64_t value_of(uintptr_t pc)
{
	/* pid in bits 40..62, the address's low 40 bits below. */
	return ((int64_t)(oa_meta.pid & 0x7fffff) << 40) | (int64_t)(pc & 0xffffffffffull);
}

static void remember(uintptr_t pc)
{
	size_t h = (size_t)((pc * 0x9E3779B97F4A7C15ull) >> 51) & (SET_SIZE - 1);
	for (size_t i = 0; i < 64; i++) {
		uintptr_t expect = 0;
		_Atomic uintptr_t *slot = &seen[(h + i) & (SET_SIZE - 1)];
		if (atomic_load_explicit(slot, memory_order_relaxed) == pc)
			return;
		if (atomic_compare_exchange_strong(slot, &expect, pc) || expect == pc)
			return;
	}
}

static void on_sample(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
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
		remember(pc);
		ev_ovni_mark_set(&t->s, OA_MARK_SAMPLE, value_of(pc));
	}
	errno = saved;
}

int oa_sample_signal(void)
{
	return period_ns ? signo : 0;
}

void oa_sample_init(void)
{
	const char *v = getenv("OVNI_SAMPLE_US");
	long us = v ? atol(v) : 0;
	if (us <= 0)
		return;
	const char *s = getenv("OVNI_SAMPLE_SIGNAL");
	signo = s && *s ? atoi(s) : SIGRTMIN + 4;
	struct sigaction old;
	if (sigaction(signo, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) {
		oa_log("signal %d is in use by the program: sampling is off (set OVNI_SAMPLE_SIGNAL)", signo);
		return;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(signo, &sa, NULL) != 0)
		return;
	period_ns = us * 1000;
	oa_meta_mark_type(&oa_meta, OA_MARK_SAMPLE, 0, "Sampled function (ovni-auto)");
}

void oa_sample_thread_start(struct oa_thread *t)
{
	if (!period_ns || has_timer)
		return;
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = signo;
	ev._sigev_un._tid = t->tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer) != 0)
		return;
	struct itimerspec it = { { period_ns / 1000000000, period_ns % 1000000000 },
				 { period_ns / 1000000000, period_ns % 1000000000 } };
	timer_settime(timer, 0, &it, NULL);
	has_timer = 1;
}

void oa_sample_thread_stop(void)
{
	if (!has_timer)
		return;
	timer_delete(timer);
	has_timer = 0;
}

void oa_sample_label(struct oa_label_list *owner)
{
	if (!period_ns)
		return;
	for (size_t i = 0; i < SET_SIZE; i++) {
		uintptr_t pc = atomic_load(&seen[i]);
		if (!pc || atomic_load(&labelled[i]) == pc)
			continue;
		oa_meta_mark_label(&oa_meta, owner, OA_MARK_SAMPLE, value_of(pc), oa_sym_name(pc));
		atomic_store(&labelled[i], pc);
	}
}
