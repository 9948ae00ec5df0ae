/* wait.c: children that end.
 * Interposes: wait, waitpid, wait3, wait4, waitid.
 * A child that left without ending its streams (killed by SIGKILL, a raw
 * exit_group as Go's runtime makes, a stack overflow) is finished by the
 * parent that reaps it, with an event saying how it ended
 * (agent_child_gone): the trace is whole as soon as the child is gone,
 * without waiting for ovnirun's end.  A child that ended its streams costs
 * one small read.  The calls themselves are unchanged (their result, status
 * and errno). */
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "hooks.h"

#define REALS(X)                                                       \
	X(pid_t, wait, "wait", (int *))                                \
	X(pid_t, waitpid, "waitpid", (pid_t, int *, int))              \
	X(pid_t, wait3, "wait3", (int *, int, struct rusage *))        \
	X(pid_t, wait4, "wait4", (pid_t, int *, int, struct rusage *)) \
	X(int, waitid, "waitid", (idtype_t, id_t, siginfo_t *, int))
HOOK_REALS_EARLY(REALS) /* every shell resolves it */

OA_START_TEXT static void reaped(pid_t pid, int status)
{
	if (pid <= 0 || !hook_tracing())
		return;
	HOOK_KEEP_ERRNO(oa_guard++; agent_child_gone(pid, status); oa_guard--);
}

OA_EXPORT OA_EARLY_TEXT pid_t wait(int *wstatus)
{
	int st = 0;
	pid_t r = REAL(wait)(&st);
	if (r > 0 && wstatus)
		*wstatus = st;
	reaped(r, st);
	return r;
}

OA_EXPORT OA_EARLY_TEXT pid_t waitpid(pid_t pid, int *wstatus, int options)
{
	int st = 0;
	pid_t r = REAL(waitpid)(pid, &st, options);
	if (r > 0 && wstatus)
		*wstatus = st;
	reaped(r, st);
	return r;
}

OA_EXPORT OA_EARLY_TEXT pid_t wait3(int *wstatus, int options, struct rusage *ru)
{
	int st = 0;
	pid_t r = REAL(wait3)(&st, options, ru);
	if (r > 0 && wstatus)
		*wstatus = st;
	reaped(r, st);
	return r;
}

OA_EXPORT OA_EARLY_TEXT pid_t wait4(pid_t pid, int *wstatus, int options, struct rusage *ru)
{
	int st = 0;
	pid_t r = REAL(wait4)(pid, &st, options, ru);
	if (r > 0 && wstatus)
		*wstatus = st;
	reaped(r, st);
	return r;
}

OA_EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	int r = REAL(waitid)(idtype, id, info, options);
	if (r != 0 || !info || !(options & WEXITED) || info->si_pid <= 0)
		return r;
	/* The same status word as wait's, from the siginfo. */
	if (info->si_code == CLD_EXITED)
		reaped(info->si_pid, (info->si_status & 0xff) << 8);
	else if (info->si_code == CLD_KILLED || info->si_code == CLD_DUMPED)
		reaped(info->si_pid, info->si_status & 0x7f);
	return r;
}
