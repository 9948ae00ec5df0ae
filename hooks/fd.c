/* fd.c: the program's calls that close or replace descriptors.
 * Interposes: close, close_range, closefrom, dup2, dup3 (and the same made
 * through syscall(), seccomp.c).
 * The agent opens a descriptor for a moment inside its windows of file
 * work; another thread of the program that closed a range or dup2'ed over
 * a number at that moment closed the agent's descriptor, opened its own
 * file under the number, and the agent wrote its trace into the program's
 * file.  Each of these calls waits for the windows of the other threads
 * to end, and no window begins while it runs (common/fdroom.h): the
 * program's descriptors and the agent's never meet.  The calls themselves
 * are unchanged (result, errno); the agent's own closes inside its windows
 * pass straight through. */
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/fdroom.h"
#include "../common/sys.h"
#include "hooks.h"

#define REALS(X)                                                      \
	X(int, close, "close", (int))                                 \
	X(int, close_range, "close_range", (unsigned, unsigned, int)) \
	X(void, closefrom, "closefrom", (int))                        \
	X(int, dup2, "dup2", (int, int))                              \
	X(int, dup3, "dup3", (int, int, int))
HOOK_REALS(REALS)

/* Whether this call must wait for the agent's windows: not in a disabled
 * agent, not the agent's own call. */
static inline int guarded(void)
{
	return !oa_off && !oa_fdlock_in_agent();
}

#define GUARD(call)                                      \
	do {                                             \
		if (!guarded())                          \
			return (call);                   \
		oa_fdlock_prog_enter();                  \
		__typeof__(call) r_ = (call);            \
		HOOK_KEEP_ERRNO(oa_fdlock_prog_leave()); \
		return r_;                               \
	} while (0)

OA_EXPORT OA_THREAD_TEXT int close(int fd)
{
	GUARD(REAL(close)(fd));
}

/* Older libcs have neither: the system call itself. */
static int sys_close_range(unsigned lo, unsigned hi, int flags)
{
	if (REAL(close_range))
		return REAL(close_range)(lo, hi, flags);
	return (int)oa_nc_ret(oa_sys3(SYS_close_range, lo, hi, flags));
}

OA_EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
	GUARD(sys_close_range(lo, hi, flags));
}

OA_EXPORT void closefrom(int lo)
{
	int g = guarded();
	if (g)
		oa_fdlock_prog_enter();
	HOOK_ERRNO_SAVE();
	if (REAL(closefrom))
		REAL(closefrom)(lo);
	else if (lo >= 0)
		sys_close_range((unsigned)lo, ~0u, 0);
	if (g)
		oa_fdlock_prog_leave();
	HOOK_ERRNO_RESTORE();
}

OA_EXPORT OA_THREAD_TEXT int dup2(int old, int fd)
{
	GUARD(REAL(dup2)(old, fd));
}

OA_EXPORT OA_THREAD_TEXT int dup3(int old, int fd, int flags)
{
	GUARD(REAL(dup3)(old, fd, flags));
}

/* syscall(SYS_close, ...) and the like (seccomp.c), made with the same
 * wait. */
long hook_fd_syscall(long (*sys)(long, ...), long nr, long a, long b, long c)
{
	if (!guarded())
		return sys(nr, a, b, c);
	oa_fdlock_prog_enter();
	long r = sys(nr, a, b, c);
	HOOK_KEEP_ERRNO(oa_fdlock_prog_leave());
	return r;
}
