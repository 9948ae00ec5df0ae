/* signal.c: signal dispositions and fatal signals.
 * Interposes: sigaction, __sigaction, signal, bsd_signal, ssignal,
 * sysv_signal, __sysv_signal, sigset, siginterrupt.
 *
 * For every signal whose default action kills the process, while the
 * program leaves it at SIG_DFL, the agent's handler is installed instead: it
 * ends and finishes every stream of the process once, async-signal-safely
 * and on a stack of its own (the program's alternate stack may be tiny),
 * then restores SIG_DFL and lets the signal take its normal course (a fault
 * re-executes the faulting instruction; a sent signal is raised again), so
 * the exit status and core dump are those of the program alone.
 *
 * The program sees exactly what it would see without us: every glibc entry
 * that sets a disposition goes through one function (prog_sigaction) that
 * keeps the program's view (SIG_DFL with the flags and mask it gave) where
 * ours stands in, and checks that view against the kernel on every call (a
 * disposition changed behind our back, e.g. by sigignore, wins).  signal()
 * follows siginterrupt() like glibc's.  A handler installed with
 * SA_RESETHAND for a fatal signal is installed behind a trampoline that
 * does the reset itself, to our handler, so that the default action that
 * follows still finishes the trace. */
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/env.h"
#include "../common/sys.h"
#include "../preload/sample.h"
#include "../writer/ev_ovni.h"
#include "../writer/ovni_fmt.h"
#include "hooks.h"

/* Every signal whose default action ends the process (signal(7)), the
 * real-time ones included (is_fatal); not the sampling signal, which
 * sample.c owns. */
#define SIGBIT(s) (1ull << (s))
static const unsigned long long fatal_mask =
	SIGBIT(SIGHUP) | SIGBIT(SIGINT) | SIGBIT(SIGQUIT) | SIGBIT(SIGILL) | SIGBIT(SIGTRAP) | SIGBIT(SIGABRT) |
	SIGBIT(SIGBUS) | SIGBIT(SIGFPE) | SIGBIT(SIGUSR1) | SIGBIT(SIGSEGV) | SIGBIT(SIGUSR2) | SIGBIT(SIGPIPE) |
	SIGBIT(SIGALRM) | SIGBIT(SIGTERM) | SIGBIT(SIGSTKFLT) | SIGBIT(SIGXCPU) | SIGBIT(SIGXFSZ) | SIGBIT(SIGVTALRM) |
	SIGBIT(SIGPROF) | SIGBIT(SIGIO) | SIGBIT(SIGPWR) | SIGBIT(SIGSYS);

/* In .data: every traced process writes them at its start (signal_init),
 * on the page the loader has written already (in .bss, a page of its
 * own). */
/* Bytes, not ints: a shell's fork child writes them for every command, and
 * they are kept small enough to share a page of .data with what that
 * child writes anyway (the fork handlers' lock): each page it writes is a
 * copy-on-write fault. */
static _Atomic unsigned char ours[NSIG] OA_FORK_DATA;  /* our handler stands for the program's SIG_DFL */
static _Atomic unsigned char reset[NSIG] OA_FORK_DATA; /* the program's SA_RESETHAND handler is behind on_reset */
static struct sigaction view[NSIG] OA_LARGE_BSS;       /* what the program set, where ours[] or reset[] */
static _Atomic int interrupt[NSIG];                    /* siginterrupt(sig, 1): signal() without SA_RESTART */
static _Atomic int dying;                              /* a fatal signal is ending the streams */
static _Atomic int ended;                              /* ... and has finished */

/* Stores that leave memory as it was are skipped: after a fork every page
 * the program writes is a copy-on-write fault (~2.5 us), and a shell sets
 * the same dispositions around every command it forks. */
static inline void set_flag(_Atomic unsigned char *f, unsigned char v)
{
	if (atomic_load(f) != v)
		atomic_store(f, v);
}

/* libc's sigaction adds a flag and its restorer to every action it gives
 * the kernel (on x86_64), which a query then returns: a view the program
 * set carries SA_RESTORER as a mark, replaced at a query by what the
 * kernel holds for our stand-in, set by the same libc (view_out). */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* view[sig] = *act, where it differs in what the kernel keeps (the
 * handler, flags and the kernel's 8 bytes of sa_mask; libc leaves the rest
 * of a returned sa_mask as it was).  act's sa_restorer is not read: a
 * program leaves it unset (valgrind's memcheck counted each read as an
 * error of the program's). */
OA_EARLY_TEXT static void set_view(int sig, const struct sigaction *act)
{
	struct sigaction *v = &view[sig];
	int flags = act->sa_flags | SA_RESTORER;
	if (v->sa_handler == act->sa_handler && v->sa_flags == flags && !memcmp(&v->sa_mask, &act->sa_mask, 8))
		return;
	v->sa_handler = act->sa_handler;
	v->sa_flags = flags;
	memcpy(&v->sa_mask, &act->sa_mask, sizeof(v->sa_mask));
	v->sa_restorer = NULL;
}

/* What a query returns for view v, the kernel holding cur: libc's flag and
 * restorer as cur has them, where the program set v. */
OA_EARLY_TEXT static void view_out(struct sigaction *out, const struct sigaction *v, const struct sigaction *cur)
{
	*out = *v;
	if (v->sa_flags & SA_RESTORER) {
		out->sa_flags = (v->sa_flags & ~SA_RESTORER) | (cur->sa_flags & SA_RESTORER);
		out->sa_restorer = cur->sa_restorer;
	}
}

OA_EARLY_TEXT static int is_sample(int sig)
{
	return sig > 0 && sig == oa_sample_signal();
}

OA_EARLY_TEXT static int is_fatal(int sig)
{
	if (is_sample(sig))
		return 0;
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		return 1;
	/* A mask in the code, not a table: a fork child asks this for every
	 * disposition its shell resets, and the table was a page of .rodata
	 * it faulted in for it. */
	return sig > 0 && sig < 64 && ((fatal_mask >> sig) & 1);
}

static int sync_fault(int sig, const siginfo_t *si)
{
	return si && si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
}

/* ---- the fatal path, on a stack of its own ---- */

/* Only the thread that wins `dying` runs here: one stack is enough. */
static char fatal_stack[64 * 1024] __attribute__((aligned(64))) OA_LARGE_BSS;

static void fatal_work(void *arg)
{
	int sig = *(int *)arg;
	agent_signal_event(sig);
	agent_process_finish(1, sig);
}

/* Is the process a valgrind client (its LD_PRELOAD has valgrind's own
 * objects)?  Memcheck does not follow the switch below: every access of
 * the end's code on fatal_stack was an invalid read or write to it (130
 * errors in a program that aborts).  Memory reads only: called in the
 * handler. */
static int under_valgrind(void)
{
	for (char **e = environ; e && *e; e++)
		if (oa_env_prefix(*e, "LD_PRELOAD=", 11) && oa_str_has(*e + 11, "vgpreload_"))
			return 1;
	return 0;
}

/* Call fn(arg) with the stack pointer on top of fatal_stack (under
 * valgrind, on the signal stack the handler runs on: ours, 64 KiB). */
static void run_on_own_stack(void (*fn)(void *), void *arg)
{
	if (under_valgrind()) {
		fn(arg);
		return;
	}
#if defined(__x86_64__)
	void *top = fatal_stack + sizeof(fatal_stack);
	__asm__ volatile(
		"mov %%rsp, %%rbx\n\t"
		"mov %[top], %%rsp\n\t"
		"mov %[arg], %%rdi\n\t"
		"call *%[fn]\n\t"
		"mov %%rbx, %%rsp\n\t"
		:
		: [top] "r"(top), [fn] "r"(fn), [arg] "r"(arg)
		: "rbx", "rdi", "rsi", "rdx", "rcx", "rax", "r8", "r9", "r10", "r11", "memory", "cc", "xmm0", "xmm1",
		  "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
		  "xmm14", "xmm15");
#else
	fn(arg); /* the end path needs ~2 KiB of stack */
#endif
}

static void on_fatal(int sig, siginfo_t *si, void *uc);

OA_EARLY_TEXT static void our_action(struct sigaction *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sa_sigaction = on_fatal;
	sa->sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	/* Finishing the trace is not interrupted by any other signal. */
	sigfillset(&sa->sa_mask);
}

OA_EARLY_TEXT static int install_ours(int sig)
{
	struct sigaction sa;
	our_action(&sa);
	int r = HOOK_REAL(sigaction)(sig, &sa, NULL);
	if (r == 0) {
		set_flag(&reset[sig], 0);
		set_flag(&ours[sig], 1);
	}
	return r;
}

/* The kernel's sigaction, for a handler that cannot call libc's. */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

/* A signal handled on a thread whose thread pointer is not libc's (one
 * made by another runtime's raw clone: the Go runtime of a program built
 * without cgo but dynamically linked, as `-buildmode=pie` makes it,
 * forwards the signals it does not want to the handler it found at its
 * start, ours).  Nothing of the agent's, nor errno, nor a libc call that
 * might touch them, can be used there (the end ran on Go's thread pointer
 * and crashed: SIGSEGV for SIGTERM, 139 for 143).  The signal takes its
 * default course as untraced; whoever sees the process end (its parent,
 * ovnirun) finishes its streams.  Raw system calls and shared memory
 * only. */
static void foreign_default(int sig, const siginfo_t *si)
{
	struct ksigaction k = { SIG_DFL, 0, NULL, 0 };
	oa_sys4(SYS_rt_sigaction, sig, (long)&k, 0, 8);
	set_flag(&ours[sig], 0);
	if (!sync_fault(sig, si))
		oa_sys3(SYS_tgkill, oa_sys3(SYS_getpid, 0, 0, 0), oa_sys3(SYS_gettid, 0, 0, 0), sig);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!oa_libc_tls()) {
		foreign_default(sig, si);
		return;
	}
	HOOK_ERRNO_SAVE();
	if (!atomic_exchange(&dying, 1)) {
		run_on_own_stack(fatal_work, &sig);
		atomic_store(&ended, 1);
	} else {
		/* Another thread is ending the streams: let it finish (bounded). */
		for (int i = 0; i < 2000 && !atomic_load(&ended); i++) {
			struct timespec ts = { 0, 1000000 };
			syscall(SYS_nanosleep, &ts, NULL); /* not the interposed one */
		}
	}
	/* The program's own SIG_DFL, with the flags and mask it gave. */
	struct sigaction dfl = view[sig];
	dfl.sa_handler = SIG_DFL;
	dfl.sa_flags &= ~SA_SIGINFO;
	HOOK_REAL(sigaction)(sig, &dfl, NULL);
	set_flag(&ours[sig], 0);
	/* A real fault happens again when we return; anything else is sent
	 * again to this thread and delivered (it is blocked until we return). */
	if (!sync_fault(sig, si))
		syscall(SYS_tgkill, getpid(), gettid(), sig);
	HOOK_ERRNO_RESTORE();
}

/* The program's SA_RESETHAND handler: reset (to ours, the program seeing
 * SIG_DFL) as the kernel would have, then run it. */
static void on_reset(int sig, siginfo_t *si, void *uc)
{
	struct sigaction p = view[sig];
	view[sig].sa_handler = SIG_DFL;
	view[sig].sa_flags &= ~SA_SIGINFO;
	if (!oa_libc_tls()) {
		/* As the kernel would have: SIG_DFL (foreign_default). */
		struct ksigaction k = { SIG_DFL, 0, NULL, 0 };
		oa_sys4(SYS_rt_sigaction, sig, (long)&k, 0, 8);
		set_flag(&reset[sig], 0);
	} else if (!atomic_load(&dying) && agent_engaged())
		install_ours(sig);
	else
		HOOK_REAL(sigaction)(sig, &view[sig], NULL);
	if (p.sa_flags & SA_SIGINFO)
		p.sa_sigaction(sig, si, uc);
	else if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN)
		p.sa_handler(sig);
}

/* ---- the sampling signal, once the program has a say in it ----
 * sample.c's handler stands in for whatever the program set (sview): a
 * sample is recorded or dropped there, any other signal comes here. */
static struct sigaction sview; /* the program's view; zero: SIG_DFL */

/* Ignored by default: the rest end the process. */
static int default_ignored(int sig)
{
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT;
}

static void sample_deliver(int sig, siginfo_t *si, void *uc)
{
	struct sigaction p = sview;
	if (!(p.sa_flags & SA_SIGINFO) && p.sa_handler == SIG_IGN)
		return;
	if (!(p.sa_flags & SA_SIGINFO) && p.sa_handler == SIG_DFL) {
		if (default_ignored(sig))
			return;
		view[sig] = p;
		set_flag(&ours[sig], 1);
		on_fatal(sig, si, uc); /* the trace ends, the signal kills */
		return;
	}
	if (p.sa_flags & SA_RESETHAND) {
		/* The kernel would have reset it: SIG_DFL from now on (our
		 * handler stays, a pending sample is still dropped). */
		memset(&sview, 0, sizeof(sview));
		sview.sa_handler = SIG_DFL;
	}
	if (p.sa_flags & SA_SIGINFO)
		p.sa_sigaction(sig, si, uc);
	else
		p.sa_handler(sig);
}

static int sample_sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	struct sigaction cur, prev;
	int r = HOOK_REAL(sigaction)(sig, NULL, &cur);
	if (r != 0)
		return r;
	prev = (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == oa_sample_on_signal ? sview : cur;
	if (act) {
		/* The signal is the program's from now on. */
		oa_sample_stop("its disposition was set");
		if (!(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_IGN) {
			r = HOOK_REAL(sigaction)(sig, act, NULL);
		} else {
			struct sigaction in = *act;
			in.sa_sigaction = oa_sample_on_signal;
			in.sa_flags = (act->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
			sview = *act;
			r = HOOK_REAL(sigaction)(sig, &in, NULL);
		}
		if (r != 0)
			return r;
	}
	if (oldact)
		*oldact = prev;
	return 0;
}

/* Our handler in place of every fatal signal the program leaves at its
 * default.  One call per signal, not a query and an install: ours goes in
 * and the old disposition comes back; where that was not the default (an
 * ignored signal inherited across exec, a handler of an earlier
 * constructor or of the program), it is put back.  Signals wait meanwhile, so
 * none meets our handler where the program ignores it (a signal pending
 * when its action becomes SIG_IGN again is discarded, as it would have
 * been). */
OA_START_TEXT static void take_fatal_signals(void)
{
	sigset_t all, mask;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &mask);
	struct sigaction sa;
	our_action(&sa);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction cur;
		if (!is_fatal(sig) || HOOK_REAL(sigaction)(sig, &sa, &cur) != 0)
			continue;
		if (cur.sa_handler == SIG_DFL && !(cur.sa_flags & SA_SIGINFO)) {
			/* view[] is zero, the usual default: only a different
			 * one is written (each page written costs a fault).
			 * Only the kernel's part of sa_mask is compared: libc
			 * leaves the rest as it was (garbage from the stack,
			 * which made every entry look different: 3 faults). */
			uint64_t kmask;
			memcpy(&kmask, &cur.sa_mask, sizeof(kmask));
			if (cur.sa_flags || kmask)
				view[sig] = cur;
			/* Stored, not compared first: in a new process the page
			 * is untouched, and a read before the write is a second
			 * fault. */
			atomic_store(&reset[sig], 0);
			atomic_store(&ours[sig], 1);
		} else {
			HOOK_REAL(sigaction)(sig, &cur, NULL);
		}
	}
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
}

__attribute__((constructor(102))) static void signal_init(void)
{
	if (oa_off || !agent_active() || !HOOK_REAL(sigaction))
		return;
	oa_sample_set_deliver(sample_deliver);
	take_fatal_signals();
}

int hook_signals_release(void)
{
	int n = 0;
	for (int sig = 1; sig < NSIG; sig++)
		n += atomic_load(&ours[sig]) || atomic_load(&reset[sig]);
	if (!n)
		return 0;
	sigset_t all, mask;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &mask);
	for (int sig = 1; sig < NSIG; sig++) {
		if (atomic_load(&ours[sig])) {
			struct sigaction dfl = view[sig];
			dfl.sa_handler = SIG_DFL;
			dfl.sa_flags &= ~SA_SIGINFO;
			if (HOOK_REAL(sigaction)(sig, &dfl, NULL) == 0)
				atomic_store(&ours[sig], 0);
		} else if (atomic_load(&reset[sig])) {
			if (HOOK_REAL(sigaction)(sig, &view[sig], NULL) == 0)
				atomic_store(&reset[sig], 0);
		}
	}
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	return n;
}

void hook_signals_take(void)
{
	if (HOOK_REAL(sigaction))
		take_fatal_signals();
}

/* The disposition as the program set it; our bookkeeping is checked
 * against the kernel (something may have changed it behind us). */
OA_EARLY_TEXT static int prog_query(int sig, struct sigaction *out)
{
	struct sigaction cur;
	int r = HOOK_REAL(sigaction)(sig, NULL, &cur);
	if (r != 0)
		return r;
	if (atomic_load(&ours[sig]) && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fatal) {
		view_out(out, &view[sig], &cur);
		out->sa_handler = SIG_DFL;
		out->sa_flags &= ~SA_SIGINFO;
		return 0;
	}
	if (atomic_load(&reset[sig]) && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_reset) {
		view_out(out, &view[sig], &cur);
		return 0;
	}
	set_flag(&ours[sig], 0);
	set_flag(&reset[sig], 0);
	*out = cur;
	return 0;
}

/* sigaction as the program would see it without the agent. */
OA_EARLY_TEXT static int prog_sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	if (is_sample(sig))
		return sample_sigaction(sig, act, oldact);
	if (sig <= 0 || sig >= NSIG || !is_fatal(sig) ||
	    (!atomic_load(&ours[sig]) && !atomic_load(&reset[sig]) && !agent_engaged()))
		return HOOK_REAL(sigaction)(sig, act, oldact);
	struct sigaction prev;
	int r = prog_query(sig, &prev);
	if (r != 0)
		return r;
	if (act) {
		int tracing = agent_engaged() && !atomic_load(&dying);
		if (act->sa_handler == SIG_DFL && tracing) {
			set_view(sig, act);
			r = install_ours(sig);
		} else if ((act->sa_flags & SA_RESETHAND) && act->sa_handler != SIG_IGN && act->sa_handler != SIG_DFL &&
			   tracing) {
			struct sigaction tr = *act;
			tr.sa_sigaction = on_reset;
			tr.sa_flags = (act->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
			set_view(sig, act);
			set_flag(&ours[sig], 0);
			r = HOOK_REAL(sigaction)(sig, &tr, NULL);
			if (r == 0)
				set_flag(&reset[sig], 1);
		} else {
			r = HOOK_REAL(sigaction)(sig, act, NULL);
			if (r == 0) {
				set_flag(&ours[sig], 0);
				set_flag(&reset[sig], 0);
			}
		}
		if (r != 0)
			return r;
	}
	if (oldact)
		*oldact = prev;
	return 0;
}

OA_EXPORT OA_EARLY_TEXT int sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	/* A disabled agent: straight through, from the early text (a fork
	 * child of a shell calls this for every command: prog_sigaction's
	 * text, the table of fatal signals and the flags are 3 pages it
	 * would fault in). */
	if (oa_off)
		return HOOK_REAL(sigaction)(sig, act, oldact);
	return prog_sigaction(sig, act, oldact);
}

OA_EXPORT int __sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	return prog_sigaction(sig, act, oldact);
}

/* Set a handler with the given flags and mask; the previous handler or SIG_ERR. */
OA_EARLY_TEXT static sighandler_t set_handler(int sig, sighandler_t handler, int flags, int mask_self)
{
	if (sig <= 0 || sig >= NSIG || handler == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (mask_self)
		sigaddset(&sa.sa_mask, sig);
	if (prog_sigaction(sig, &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* glibc's signal(): BSD semantics, the signal blocked in its handler,
 * restartable unless siginterrupt(sig, 1) said otherwise. */
OA_EARLY_TEXT static sighandler_t bsd(int sig, sighandler_t handler)
{
	int intr = sig > 0 && sig < NSIG && atomic_load(&interrupt[sig]);
	return set_handler(sig, handler, intr ? 0 : SA_RESTART, 1);
}

OA_EXPORT OA_EARLY_TEXT sighandler_t signal(int sig, sighandler_t handler)
{
	return bsd(sig, handler);
}

OA_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return bsd(sig, handler);
}

OA_EXPORT sighandler_t ssignal(int sig, sighandler_t handler)
{
	return bsd(sig, handler);
}

/* System V semantics (signal() under -std=c11 and friends): reset on
 * delivery, not blocked in its handler, not restartable. */
OA_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
	return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

OA_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

OA_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	if (sig <= 0 || sig >= NSIG || disp == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigset_t one, old;
	sigemptyset(&one);
	sigaddset(&one, sig);
	struct sigaction sa;
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &one, &old) != 0)
			return SIG_ERR;
		if (sigismember(&old, sig))
			return SIG_HOLD;
		return prog_sigaction(sig, NULL, &sa) != 0 ? SIG_ERR : sa.sa_handler;
	}
	struct sigaction act;
	memset(&act, 0, sizeof(act));
	act.sa_handler = disp;
	sigemptyset(&act.sa_mask);
	if (prog_sigaction(sig, &act, &sa) != 0 || sigprocmask(SIG_UNBLOCK, &one, &old) != 0)
		return SIG_ERR;
	return sigismember(&old, sig) ? SIG_HOLD : sa.sa_handler;
}

OA_EXPORT int siginterrupt(int sig, int flag)
{
	struct sigaction sa;
	if (sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return -1;
	}
	if (prog_sigaction(sig, NULL, &sa) != 0)
		return -1;
	atomic_store(&interrupt[sig], flag != 0);
	if (flag)
		sa.sa_flags &= ~SA_RESTART;
	else
		sa.sa_flags |= SA_RESTART;
	return prog_sigaction(sig, &sa, NULL);
}
