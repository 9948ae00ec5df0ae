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
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/fdroom.h"
#include "../common/sys.h"
#include "hooks.h"

#define REALS(X)                                                      \
	X(int, close_range, "close_range", (unsigned, unsigned, int)) \
	X(void, closefrom, "closefrom", (int))                        \
	X(int, dup3, "dup3", (int, int, int))
HOOK_REALS(REALS)

/* close and dup2, which every shell calls: found by a traced process
 * before its first fork (a fork handler), so that a fork child that closes
 * before its exec looks nothing up (4 page faults of the lookup's text
 * per command of xargs); otherwise (a disabled agent, a process that
 * never forks) at the first call, from the early text (the table's
 * resolver is a window of text of its own). */
static int (*real_close)(int) OA_EARLY_DATA;
static int (*real_dup2)(int, int) OA_EARLY_DATA;
static char close_name[] OA_EARLY_DATA = "close", dup2_name[] OA_EARLY_DATA = "dup2";

OA_EARLY_TEXT static __attribute__((noinline)) void *fd_lookup(char *name)
{
	return oa_real_lookup(name, NULL);
}

OA_EARLY_TEXT static inline int call_close(int fd)
{
	if (!real_close)
		*(void **)&real_close = fd_lookup(close_name);
	return real_close(fd);
}

OA_EARLY_TEXT static inline int call_dup2(int old, int fd)
{
	if (!real_dup2)
		*(void **)&real_dup2 = fd_lookup(dup2_name);
	return real_dup2(old, fd);
}

OA_THREAD_TEXT static void fd_fork_prepare(void)
{
	if (!real_close)
		*(void **)&real_close = fd_lookup(close_name);
	if (!real_dup2)
		*(void **)&real_dup2 = fd_lookup(dup2_name);
}

__attribute__((constructor(102))) OA_EARLY_TEXT static void fd_init(void)
{
	if (!oa_off)
		agent_at_fork(fd_fork_prepare, NULL, NULL);
}

/* Whether this call must wait for the agent's windows: not in a disabled
 * agent, not the agent's own call, not in a process of one thread (a
 * shell's fork child before its exec: nothing of this is touched but the
 * flag). */
static inline int guarded(void)
{
	return !oa_off && atomic_load_explicit(&oa_fdlock_threads, memory_order_relaxed) && !oa_fdlock_in_agent();
}

/* The waiting path, apart from the early text. */
static __attribute__((noinline)) OA_THREAD_TEXT int guarded_call(int which, int a, int b, int c)
{
	oa_fdlock_prog_enter();
	int r;
	switch (which) {
	case 0: r = call_close(a); break;
	case 1: r = call_dup2(a, b); break;
	default: r = REAL(dup3)(a, b, c); break;
	}
	HOOK_KEEP_ERRNO(oa_fdlock_prog_leave());
	return r;
}

OA_EXPORT OA_EARLY_TEXT int close(int fd)
{
	if (!guarded())
		return call_close(fd);
	return guarded_call(0, fd, 0, 0);
}

OA_EXPORT OA_EARLY_TEXT int dup2(int old, int fd)
{
	if (!guarded())
		return call_dup2(old, fd);
	return guarded_call(1, old, fd, 0);
}

OA_EXPORT OA_THREAD_TEXT int dup3(int old, int fd, int flags)
{
	if (!guarded())
		return REAL(dup3)(old, fd, flags);
	return guarded_call(2, old, fd, flags);
}

/* Older libcs have neither: the system call itself. */
static int sys_close_range(unsigned lo, unsigned hi, int flags)
{
	if (REAL(close_range))
		return REAL(close_range)(lo, hi, flags);
	return (int)oa_nc_ret(oa_sys3(SYS_close_range, lo, hi, flags));
}

OA_EXPORT OA_THREAD_TEXT int close_range(unsigned lo, unsigned hi, int flags)
{
	if (!guarded())
		return sys_close_range(lo, hi, flags);
	oa_fdlock_prog_enter();
	int r = sys_close_range(lo, hi, flags);
	HOOK_KEEP_ERRNO(oa_fdlock_prog_leave());
	return r;
}

OA_EXPORT OA_THREAD_TEXT void closefrom(int lo)
{
	int g = guarded();
	if (g)
		oa_fdlock_prog_enter();
	if (REAL(closefrom))
		REAL(closefrom)(lo);
	else if (lo >= 0)
		sys_close_range((unsigned)lo, ~0u, 0);
	/* errno as the real call left it (only the leave is the agent's). */
	if (g)
		HOOK_KEEP_ERRNO(oa_fdlock_prog_leave());
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
