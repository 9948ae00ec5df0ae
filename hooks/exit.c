/* exit.c: process exits that skip the destructors.
 * Interposes: _exit, _Exit.  Every stream is ended before the real call.
 * (exit() and a return from main reach the destructor in preload/main.c.)
 * _exit() is async-signal-safe and programs call it from signal handlers:
 * everything done here is too (no allocation, no lock, no symbol lookup). */
#include "hooks.h"

static void end_all(int status)
{
	if (!oa_guard) {
		agent_exit_event(status);
		agent_process_end(1);
	}
}

OA_EXPORT void _exit(int status)
{
	void (*real)(int) = HOOK_REAL(_exit);
	end_all(status);
	real(status);
	__builtin_unreachable();
}

OA_EXPORT void _Exit(int status)
{
	void (*real)(int) = HOOK_REAL(_Exit);
	end_all(status);
	real(status);
	__builtin_unreachable();
}
