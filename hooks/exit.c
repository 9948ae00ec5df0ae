/* exit.c: process exits that skip the destructors.
 * Interposes: _exit, _Exit.  Every stream is ended before the real call.
 * (exit() and a return from main reach the destructor in preload/main.c.) */
#include "hooks.h"

OA_EXPORT void _exit(int status)
{
	void (*real)(int) = HOOK_REAL(_exit);
	agent_process_end(0);
	real(status);
	__builtin_unreachable();
}

OA_EXPORT void _Exit(int status)
{
	void (*real)(int) = HOOK_REAL(_Exit);
	agent_process_end(0);
	real(status);
	__builtin_unreachable();
}
