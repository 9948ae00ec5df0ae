/* sync_sleep.c: sleeping and yielding.
 * Interposes: sleep, usleep, nanosleep, clock_nanosleep, sched_yield.
 * A sleep is a blocking state ("sleep", Paused); a yield is a "yield" state
 * while the thread is still runnable. Return values, errno and the
 * remaining time of an interrupted sleep (EINTR) are those of the real call. */
#include <dlfcn.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "../writer/ev_ovni.h"
#include "../writer/ovni_fmt.h"
#include "sync.h"

#define REALS(X)                                                                                                 \
	X(unsigned, sleep, "sleep", (unsigned))                                                                  \
	X(int, usleep, "usleep", (useconds_t))                                                                   \
	X(int, nanosleep, "nanosleep", (const struct timespec *, struct timespec *))                             \
	X(int, clock_nanosleep, "clock_nanosleep", (clockid_t, int, const struct timespec *, struct timespec *)) \
	X(int, sched_yield, "sched_yield", (void))
HOOK_REALS(REALS)

OA_EXPORT unsigned sleep(unsigned s)
{
	struct oa_thread *t = sync_self();
	if (!t)
		return REAL(sleep)(s);
	unsigned r;
	SYNC_WAIT(r, t, SYNC_SLEEP, REAL(sleep)(s));
	return r;
}

OA_EXPORT int usleep(useconds_t us)
{
	struct oa_thread *t = sync_self();
	if (!t)
		return REAL(usleep)(us);
	int r;
	SYNC_WAIT(r, t, SYNC_SLEEP, REAL(usleep)(us));
	return r;
}

OA_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	struct oa_thread *t = sync_self();
	if (!t)
		return REAL(nanosleep)(req, rem);
	int r;
	SYNC_WAIT(r, t, SYNC_SLEEP, REAL(nanosleep)(req, rem));
	return r;
}

OA_EXPORT int clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem)
{
	struct oa_thread *t = sync_self();
	if (!t)
		return REAL(clock_nanosleep)(id, flags, req, rem);
	int r;
	SYNC_WAIT(r, t, SYNC_SLEEP, REAL(clock_nanosleep)(id, flags, req, rem));
	return r;
}

static uintptr_t sync_quiet_lo, sync_quiet_hi;

void sync_quiet_range(uintptr_t lo, uintptr_t hi)
{
	sync_quiet_lo = lo;
	sync_quiet_hi = hi;
}

OA_EXPORT int sched_yield(void)
{
	struct oa_thread *t = sync_self();
	uintptr_t from = (uintptr_t)__builtin_return_address(0);
	if (!t || (from >= sync_quiet_lo && from < sync_quiet_hi))
		return REAL(sched_yield)();
	HOOK_ERRNO_SAVE();
	ev_ovni_mark_push(&t->s, OA_MARK_SYNC, SYNC_YIELD);
	HOOK_ERRNO_RESTORE();
	int r = REAL(sched_yield)();
	HOOK_ERRNO_AGAIN();
	ev_ovni_mark_pop(&t->s, OA_MARK_SYNC, SYNC_YIELD);
	HOOK_ERRNO_RESTORE();
	return r;
}
