/* exit.c: process exits that skip the destructors.
 * Interposes: _exit, _Exit.  Every stream is ended before the real call.
 * (exit() and a return from main reach the destructor in preload/main.c.) */
#include <stdio.h>

#include "hooks.h"

static void record(int status)
{
	if (!hook_tracing())
		return;
	char label[48];
	snprintf(label, sizeof(label), "exit status %d", status);
	agent_proc_event(label);
}

OA_EXPORT void _exit(int status)
{
	void (*real)(int) = HOOK_REAL(_exit);
	record(status);
	agent_process_end(0);
	real(status);
	__builtin_unreachable();
}

OA_EXPORT void _Exit(int status)
{
	void (*real)(int) = HOOK_REAL(_Exit);
	record(status);
	agent_process_end(0);
	real(status);
	__builtin_unreachable();
}
