/* signal.c: fatal signals.
 * Interposes: sigaction, signal.
 * For every signal whose default action kills the process, while the
 * program leaves it at SIG_DFL, the agent's handler is installed instead: it
 * ends and finishes every stream of the process once, async-signal-safely,
 * then restores SIG_DFL and lets the signal take its normal course (a fault
 * re-executes the faulting instruction; a sent signal is raised again), so
 * the exit status and core dump are those of the program alone.  When the
 * program installs its own handler, that handler is installed for real and
 * runs as usual; if it later sets SIG_DFL back (to re-raise and die), ours
 * returns.  sigaction() queries report the program's view (SIG_DFL). */
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../writer/ev_ovni.h"
#include "../writer/ovni_fmt.h"
#include "hooks.h"

static const int fatal[] = { SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1,
			     SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGSYS };

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static _Atomic int ours[NSIG];  /* our handler stands for the program's SIG_DFL */
static _Atomic int dying;       /* a fatal signal is ending the streams */
static _Atomic int ended;       /* ... and has finished */

static int is_fatal(int sig)
{
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (fatal[i] == sig)
			return 1;
	return 0;
}

static int sync_fault(int sig, const siginfo_t *si)
{
	return si && si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int saved = errno;
	if (!atomic_exchange(&dying, 1)) {
		agent_signal_event(sig);
		agent_process_end(1);
		atomic_store(&ended, 1);
	} else {
		/* Another thread is ending the streams: let it finish (bounded). */
		for (int i = 0; i < 2000 && !atomic_load(&ended); i++) {
			struct timespec ts = { 0, 1000000 };
			syscall(SYS_nanosleep, &ts, NULL); /* not the interposed one */
		}
	}
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(sig, &dfl, NULL);
	atomic_store(&ours[sig], 0);
	/* A real fault happens again when we return; anything else is sent
	 * again to this thread and delivered (it is blocked until we return). */
	if (!sync_fault(sig, si))
		syscall(SYS_tgkill, getpid(), gettid(), sig);
	errno = saved;
}

static int install_ours(int sig, const sigset_t *mask)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	if (mask)
		sa.sa_mask = *mask;
	else
		sigemptyset(&sa.sa_mask);
	int r = real_sigaction(sig, &sa, NULL);
	if (r == 0)
		atomic_store(&ours[sig], 1);
	return r;
}

__attribute__((constructor(102))) static void signal_init(void)
{
	if (!real_sigaction)
		*(void **)&real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	if (!real_sigaction || !agent_active())
		return;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		struct sigaction cur;
		if (real_sigaction(fatal[i], NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
		    cur.sa_handler == SIG_DFL)
			install_ours(fatal[i], NULL);
	}
}

OA_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	if (!real_sigaction)
		*(void **)&real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	if (sig <= 0 || sig >= NSIG || !is_fatal(sig) || (!atomic_load(&ours[sig]) && !agent_active()))
		return real_sigaction(sig, act, oldact);
	struct sigaction prev;
	int r = real_sigaction(sig, NULL, &prev);
	if (r != 0)
		return r;
	if (atomic_load(&ours[sig])) {
		/* The program sees the default it believes is there. */
		memset(&prev, 0, sizeof(prev));
		prev.sa_handler = SIG_DFL;
	}
	if (act) {
		int dfl = !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL;
		if (dfl && agent_active() && !atomic_load(&dying)) {
			r = install_ours(sig, &act->sa_mask);
		} else {
			r = real_sigaction(sig, act, NULL);
			if (r == 0)
				atomic_store(&ours[sig], 0);
		}
		if (r != 0)
			return r;
	}
	if (oldact)
		*oldact = prev;
	return 0;
}

OA_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	/* glibc's signal(): BSD semantics, restartable, the signal blocked in its handler. */
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sig > 0 && sig < NSIG)
		sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}
