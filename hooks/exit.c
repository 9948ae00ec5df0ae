/* exit.c: process exits.
 * Interposes: exit, _exit, _Exit, abort, quick_exit.
 * _exit() and _Exit() skip the destructors: every stream is ended before
 * the real call.  They are async-signal-safe and programs call them from
 * signal handlers: everything done here is too (no allocation, no lock, no
 * symbol lookup; agent_exit_event's label was prepared at start).
 * exit() (and a return from main, see start.c) reaches the destructor in
 * preload/main.c, which ends every stream.  When several threads call exit()
 * at once (undefined in C, but real programs do it), the first one runs the
 * exit handlers and the others wait (bounded) until it has finished the
 * trace: otherwise one of them would reach exit_group() and kill the
 * process while the first is still writing (its final stream.json is
 * written before stream.obs is cut: a kill between them left a finished
 * stream with zeros at its end, which no finisher looks at again).
 * abort() resets SIGABRT to the default inside glibc, out of our sight,
 * after the program's own SIGABRT handler returned: the sequence is done
 * here instead (unblock, raise, and then, before the default action, end
 * every stream), with the same effect on the program.
 * quick_exit() runs the program's at_quick_exit handlers and then glibc's
 * internal _exit, out of our sight: a handler of ours, registered at start
 * (so it runs after the program's), ends the streams with the status that
 * quick_exit() was given. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../writer/registry.h"
#include "hooks.h"

static _Atomic int exiting;

/* Nothing in a disabled agent (oa_off): its exit is the program's, with
 * no page of the agent's start text touched. */
OA_EARLY_TEXT static void end_all(int status)
{
	if (!oa_guard && !oa_off) {
		agent_exit_event(status);
		agent_process_finish(1, 0);
	}
}

OA_EXPORT OA_EARLY_TEXT void _exit(int status)
{
	void (*real)(int) = HOOK_REAL(_exit);
	end_all(status);
	real(status);
	__builtin_unreachable();
}

OA_EXPORT OA_EARLY_TEXT void _Exit(int status)
{
	void (*real)(int) = HOOK_REAL(_Exit);
	end_all(status);
	real(status);
	__builtin_unreachable();
}

OA_EXPORT OA_EARLY_TEXT void exit(int status)
{
	void (*real)(int) = HOOK_REAL(exit);
	/* Another thread exits first: wait while it ends the streams.  Also
	 * once it has stopped tracing (`ending`, not yet `ended`): a thread
	 * it ended (claimed) that calls exit() late must not reach
	 * exit_group() while the first is finishing the main stream. */
	/* (Not a child that shares our memory, clone(CLONE_VM): the flag
	 * is its parent's, which waited ~1 s at its own exit.) */
	if (!agent_foreign() && atomic_exchange(&exiting, 1) && (agent_traced() || oa_registry_ending()))
		oa_registry_wait_ended();
	/* A clone(CLONE_VM) child's exit() ran our destructor's entry in
	 * the loader's list (and the exit-status recorder): nothing after
	 * this would end the streams. */
	if (__builtin_expect(agent_exit_taken(), 0) && !agent_foreign())
		end_all(status);
	real(status);
	__builtin_unreachable();
}

static int quick_status;

static void on_quick_exit(void)
{
	end_all(quick_status);
}

extern int __cxa_at_quick_exit(void (*fn)(void *), void *dso);
extern void *__dso_handle;

static void on_quick_exit_dso(void *unused)
{
	(void)unused;
	on_quick_exit();
}

__attribute__((constructor(103))) static void exit_init(void)
{
	/* What libc_nonshared's at_quick_exit stub calls (the stub is at
	 * the end of our text: a page fault of its own). */
	if (agent_active())
		__cxa_at_quick_exit(on_quick_exit_dso, __dso_handle);
}

OA_EXPORT void quick_exit(int status)
{
	void (*real)(int) = HOOK_REAL(quick_exit);
	quick_status = status;
	real(status);
	__builtin_unreachable();
}

OA_EXPORT void abort(void)
{
	void (*real)(void) = HOOK_REAL(abort);
	if (!hook_tracing())
		real();
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, SIGABRT);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(SIGABRT); /* the program's handler, or ours (which ends the trace) */
	/* The program's handler returned: the default action follows. */
	agent_signal_event(SIGABRT);
	agent_process_finish(1, SIGABRT);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigfillset(&dfl.sa_mask);
	HOOK_REAL(sigaction)(SIGABRT, &dfl, NULL);
	raise(SIGABRT);
	real(); /* still here (SIGABRT blocked again by a handler?): glibc's way */
	__builtin_unreachable();
}
