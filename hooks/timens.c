/* timens.c: time namespaces.
 * Interposes: unshare, setns (and syscall()'s SYS_unshare, SYS_setns and
 * SYS_clone3, in seccomp.c's syscall(), through hook_timens_after and
 * hook_timens_before_clone3).
 *
 * A time namespace (CLONE_NEWTIME: `unshare --time --monotonic N`, nsenter
 * into a container's) moves CLOCK_MONOTONIC by an offset of its own, and
 * the trace's clock is CLOCK_MONOTONIC: a process in one had its streams
 * hours from the others' (the clock gate) and a stream whose process
 * exec'd into one went backwards.  The agent takes every reading back to
 * the host's clock (writer/clock.h): unshare(CLONE_NEWTIME) puts the
 * process's next children and the image it execs in the namespace, which
 * read their offset (fork children at once, the rest at their start, told
 * by OVNI_TIMENS, which the agent's children keep); setns into a
 * time namespace (nstype 0 may be one) moves the caller itself: it reads
 * its offset again after it.  Only processes of a run where one was made
 * read /proc/self/timens_offsets: the others pay nothing. */
#include <dlfcn.h>
#include <sched.h>

#include "../preload/childenv.h"
#include "../writer/clock.h"
#include "hooks.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* Looked up at the first call, not at start as HOOK_REALS does: not in
 * .data with the start's (they moved its .bss onto one more page). */
static int (*real_unshare)(int);
static int (*real_setns)(int, int);

static void children_in_new(void)
{
	oa_clock_timens_children();
	oa_childenv_add((char *)"OVNI_TIMENS=1"); /* only read */
}

void hook_timens_after(long nr, long a, long b, long r)
{
	if (r < 0)
		return;
	HOOK_ERRNO_SAVE();
	if (nr == SYS_unshare && (a & CLONE_NEWTIME))
		children_in_new();
	else if (nr == SYS_setns && (b == 0 || b == CLONE_NEWTIME)) {
		oa_clock_timens();
		children_in_new();
	}
	HOOK_ERRNO_RESTORE();
}

void hook_timens_before_clone3(long a, long b)
{
	/* A clone3 child in a new time namespace reads its offset (its
	 * agent's fork path). */
	if (a && (unsigned long)b >= 8 && (*(const uint64_t *)a & CLONE_NEWTIME))
		children_in_new();
}

OA_EXPORT int unshare(int flags)
{
	if (!real_unshare)
		*(void **)&real_unshare = hook_real_lookup("unshare");
	int r = real_unshare ? real_unshare(flags) : (int)syscall(SYS_unshare, flags);
	if (r == 0 && (flags & CLONE_NEWTIME) && !oa_off)
		hook_timens_after(SYS_unshare, flags, 0, 0);
	return r;
}

OA_EXPORT int setns(int fd, int nstype)
{
	if (!real_setns)
		*(void **)&real_setns = hook_real_lookup("setns");
	int r = real_setns ? real_setns(fd, nstype) : (int)syscall(SYS_setns, fd, nstype);
	if (r == 0 && (nstype == 0 || nstype == CLONE_NEWTIME) && !oa_off)
		hook_timens_after(SYS_setns, fd, nstype, 0);
	return r;
}
