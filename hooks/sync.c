/* sync.c: blocking pthread mutex, rwlock, barrier, join and once calls.
 * Interposes: pthread_mutex_lock, pthread_mutex_timedlock,
 * pthread_mutex_clocklock, pthread_rwlock_rdlock, pthread_rwlock_wrlock,
 * pthread_rwlock_timedrdlock, pthread_rwlock_timedwrlock,
 * pthread_rwlock_clockrdlock, pthread_rwlock_clockwrlock,
 * pthread_barrier_wait, pthread_join, pthread_timedjoin_np,
 * pthread_clockjoin_np, pthread_once.
 * A call is recorded only when it would block: the lock is tried first (the
 * uncontended path costs one extra try, no event); when it blocks, the
 * thread shows the wait as a state of mark channel 81 ("Blocked in") and as
 * Paused (OHp ... OHr), so CPU views do not count it as running.  A lock
 * wait's end (OHr, OM]) is stamped when the lock is taken and written
 * before the thread's next event (oa_stream_defer), not inside the
 * program's critical section.  Return values and errno are those of the
 * real call. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include "../writer/ev_ovni.h"
#include "../writer/ovni_fmt.h"
#include "../preload/callsite.h"
#include "sync.h"

#define REALS(X)                                                                                                    \
	X(int, mutex_lock, "pthread_mutex_lock", (pthread_mutex_t *))                                               \
	X(int, mutex_trylock, "pthread_mutex_trylock", (pthread_mutex_t *))                                         \
	X(int, mutex_timedlock, "pthread_mutex_timedlock", (pthread_mutex_t *, const struct timespec *))            \
	X(int, rd, "pthread_rwlock_rdlock", (pthread_rwlock_t *))                                                   \
	X(int, tryrd, "pthread_rwlock_tryrdlock", (pthread_rwlock_t *))                                             \
	X(int, wr, "pthread_rwlock_wrlock", (pthread_rwlock_t *))                                                   \
	X(int, trywr, "pthread_rwlock_trywrlock", (pthread_rwlock_t *))                                             \
	X(int, timedrd, "pthread_rwlock_timedrdlock", (pthread_rwlock_t *, const struct timespec *))                \
	X(int, timedwr, "pthread_rwlock_timedwrlock", (pthread_rwlock_t *, const struct timespec *))                \
	X(int, barrier_wait, "pthread_barrier_wait", (pthread_barrier_t *))                                         \
	X(int, join, "pthread_join", (pthread_t, void **))                                                          \
	X(int, tryjoin, "pthread_tryjoin_np", (pthread_t, void **))                                                 \
	X(int, once, "pthread_once", (pthread_once_t *, void (*)(void)))                                            \
	X(int, mutex_clocklock, "pthread_mutex_clocklock", (pthread_mutex_t *, clockid_t, const struct timespec *)) \
	X(int, clockrd, "pthread_rwlock_clockrdlock", (pthread_rwlock_t *, clockid_t, const struct timespec *))     \
	X(int, clockwr, "pthread_rwlock_clockwrlock", (pthread_rwlock_t *, clockid_t, const struct timespec *))     \
	X(int, timedjoin, "pthread_timedjoin_np", (pthread_t, void **, const struct timespec *))                    \
	X(int, clockjoin, "pthread_clockjoin_np", (pthread_t, void **, clockid_t, const struct timespec *))
HOOK_REALS(REALS)

static const char *const labels[SYNC_NKINDS] = {
	[SYNC_MUTEX] = "mutex lock",      [SYNC_COND] = "condition wait",
	[SYNC_RWLOCK_RD] = "rwlock read", [SYNC_RWLOCK_WR] = "rwlock write",
	[SYNC_BARRIER] = "barrier",       [SYNC_JOIN] = "join",
	[SYNC_SEM] = "semaphore wait",    [SYNC_ONCE] = "once",
	[SYNC_SLEEP] = "sleep",           [SYNC_YIELD] = "yield",
};

/* The "Blocked in" channel and its fixed labels (the kinds of wait). */
__attribute__((constructor(102))) static void sync_declare(void)
{
	if (!agent_active())
		return;
	oa_meta_mark_type(&oa_meta, OA_MARK_SYNC, 1, "Blocked in (ovni-auto)");
	oa_meta_fixed_labels(&oa_meta, OA_MARK_SYNC, 1, labels + 1, SYNC_NKINDS - 1);
}

struct oa_thread *sync_self_late(void)
{
	if (!atomic_load_explicit(&oa_pending_flag, memory_order_relaxed) || oa_guard || !agent_active())
		return NULL;
	return oa_self;
}

static OA_TLS int blocked;          /* depth of waits on this thread */
static OA_TLS int64_t site[8];      /* call site pushed by each nested wait, or 0 */
static OA_TLS unsigned push_gen[8]; /* stream incarnation each wait's marks went to */
static OA_TLS uintptr_t frame[8];   /* a stack address inside each wait's frames */
static OA_TLS int kinds[8];         /* the kind of each wait */

/* Is this thread running on its alternate signal stack? (Addresses there
 * cannot be compared with those of its stack.) */
static int on_altstack(void)
{
	stack_t ss;
	return sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK);
}

OA_START_TEXT void sync_unwind(uintptr_t sp)
{
	struct oa_thread *t = oa_self;
	while (blocked > 0 && blocked <= 8 && frame[blocked - 1] < sp) {
		int kind = kinds[blocked - 1];
		if (t && !oa_emitting(&t->s)) {
			sync_unblock(t, kind);
		} else {
			blocked--;
		}
	}
}

/* A wait's marks are popped in the stream incarnation they were pushed to;
 * the pause is undone when the stream says the thread is paused. Both matter
 * when an exec ends the streams during the wait and fails (the streams then
 * restart Running, possibly from this very bracket). */
OA_THREAD_TEXT void sync_block(struct oa_thread *t, enum sync_kind kind)
{
	HOOK_ERRNO_SAVE();
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	/* A wait left by a non-local jump (siglongjmp out of a handler that
	 * interrupted it) that the jump wrappers could not see: its frames are
	 * below us now. */
	if (blocked > 0 && !on_altstack())
		sync_unwind(here);
	int depth = blocked++;
	int64_t where = oa_callsites && depth < 8 ? oa_callsite() : 0;
	int32_t type[2] = { OA_MARK_SYNC, OA_MARK_CALLSITE };
	int64_t value[2] = { kind, where };
	oa_emit_wait_begin(&t->s, where ? 2 : 1, type, value, depth == 0 && !t->s.held);
	if (depth < 8) {
		frame[depth] = here;
		kinds[depth] = kind;
		site[depth] = where;
		push_gen[depth] = t->s.open_gen; /* read after the push: it may have reopened */
	}
	HOOK_ERRNO_RESTORE();
}

OA_THREAD_TEXT void sync_unblock(struct oa_thread *t, enum sync_kind kind)
{
	HOOK_ERRNO_SAVE();
	int depth = --blocked;
	if (atomic_load_explicit(&t->s.closed, memory_order_relaxed)) {
		HOOK_ERRNO_RESTORE(); /* ended meanwhile: it restarts Running, marks closed */
		return;
	}
	if (depth == 0 && (kind == SYNC_MUTEX || kind == SYNC_RWLOCK_RD || kind == SYNC_RWLOCK_WR)) {
		/* The thread holds the lock now: only a stamp is taken here
		 * (one TSC read), the events follow before its next one
		 * (writing them, or reading the clock, inside the critical
		 * section slowed 16 contending threads by half). */
		int32_t type[2];
		int64_t value[2];
		unsigned n = 0;
		if (push_gen[0] == t->s.open_gen) {
			if (site[0]) {
				type[n] = OA_MARK_CALLSITE;
				value[n++] = site[0];
			}
			type[n] = OA_MARK_SYNC;
			value[n++] = kind;
		}
		oa_stream_defer_at(&t->s, oa_clock_stamp(), t->s.paused && !t->s.held, n, type, value);
		HOOK_ERRNO_RESTORE();
		return;
	}
	if (depth == 0 && t->s.paused)
		ev_ovni_thread_resume(&t->s);
	if (depth < 8 && push_gen[depth] == t->s.open_gen) {
		if (site[depth])
			ev_ovni_mark_pop(&t->s, OA_MARK_CALLSITE, site[depth]);
		ev_ovni_mark_pop(&t->s, OA_MARK_SYNC, kind);
	}
	HOOK_ERRNO_RESTORE();
}

void sync_bracket_cancel(void *bracket)
{
	struct sync_bracket *b = bracket;
	sync_unblock(b->t, b->kind);
}

/* Try first; only a call that would block is recorded. */
#define TRY_THEN_BLOCK(kind, trycall, call)         \
	do {                                        \
		struct oa_thread *t_ = sync_self(); \
		if (!t_)                            \
			return call;                \
		int r_ = trycall;                   \
		if (r_ != EBUSY)                    \
			return r_;                  \
		SYNC_WAIT(r_, t_, kind, call);      \
		return r_;                          \
	} while (0)

OA_EXPORT OA_START_TEXT int pthread_mutex_lock(pthread_mutex_t *m)
{
	/* The uncontended path: the lock word is free, take it with the real
	 * lock (cheaper than a trylock). A lock taken by another thread in
	 * between blocks unrecorded: a rare miss, never a wrong result.  (Not
	 * trying again before the real lock records more waits and was no
	 * faster with 16 threads on one mutex; it would also record a
	 * recursive mutex's relock by its owner.) */
	struct oa_thread *t = sync_self();
	if (!t || __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) == 0)
		return REAL(mutex_lock)(m);
	int r = REAL(mutex_trylock)(m);
	if (r != EBUSY)
		return r;
	SYNC_WAIT(r, t, SYNC_MUTEX, REAL(mutex_lock)(m));
	return r;
}

OA_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	TRY_THEN_BLOCK(SYNC_MUTEX, REAL(mutex_trylock)(m), REAL(mutex_timedlock)(m, abstime));
}

OA_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abstime)
{
	TRY_THEN_BLOCK(SYNC_MUTEX, REAL(mutex_trylock)(m), REAL(mutex_clocklock)(m, clk, abstime));
}

OA_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	TRY_THEN_BLOCK(SYNC_RWLOCK_RD, REAL(tryrd)(l), REAL(rd)(l));
}

OA_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	TRY_THEN_BLOCK(SYNC_RWLOCK_WR, REAL(trywr)(l), REAL(wr)(l));
}

OA_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	TRY_THEN_BLOCK(SYNC_RWLOCK_RD, REAL(tryrd)(l), REAL(timedrd)(l, abstime));
}

OA_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	TRY_THEN_BLOCK(SYNC_RWLOCK_WR, REAL(trywr)(l), REAL(timedwr)(l, abstime));
}

OA_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk, const struct timespec *abstime)
{
	TRY_THEN_BLOCK(SYNC_RWLOCK_RD, REAL(tryrd)(l), REAL(clockrd)(l, clk, abstime));
}

OA_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk, const struct timespec *abstime)
{
	TRY_THEN_BLOCK(SYNC_RWLOCK_WR, REAL(trywr)(l), REAL(clockwr)(l, clk, abstime));
}

OA_EXPORT int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abstime)
{
	TRY_THEN_BLOCK(SYNC_JOIN, REAL(tryjoin)(th, ret), REAL(timedjoin)(th, ret, abstime));
}

OA_EXPORT int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clk, const struct timespec *abstime)
{
	TRY_THEN_BLOCK(SYNC_JOIN, REAL(tryjoin)(th, ret), REAL(clockjoin)(th, ret, clk, abstime));
}

OA_EXPORT int pthread_join(pthread_t th, void **ret)
{
	/* A thread that already ended is joined at once, without a wait. */
	TRY_THEN_BLOCK(SYNC_JOIN, REAL(tryjoin)(th, ret), REAL(join)(th, ret));
}

/* A barrier cannot be tried, and the last thread to arrive does not wait:
 * it releases the others, and glibc gives it PTHREAD_BARRIER_SERIAL_THREAD.
 * So the wait is written after the call, from the clock of the arrival,
 * only for the threads that got 0.  Nothing else is written by a thread
 * blocked there (no CPU time, no samples); a wait inside another one (a
 * signal handler's) takes the ordinary path. */
static void mark_at(struct oa_stream *s, const char *mcv, int64_t value, uint64_t clock)
{
	uint8_t p[12];
	ev_mark_payload(p, value, OA_MARK_SYNC);
	oa_emit_at(s, mcv, clock, p, sizeof(p));
}

OA_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	struct oa_thread *t = sync_self();
	if (!t)
		return REAL(barrier_wait)(b);
	if (blocked) {
		int r;
		SYNC_WAIT(r, t, SYNC_BARRIER, REAL(barrier_wait)(b));
		return r;
	}
	uint64_t arrived = oa_clock_now();
	unsigned gen = t->s.open_gen;
	int r = REAL(barrier_wait)(b);
	if (r == PTHREAD_BARRIER_SERIAL_THREAD || r != 0)
		return r;
	HOOK_ERRNO_SAVE();
	if (t->s.open_gen == gen && !atomic_load_explicit(&t->s.closed, memory_order_relaxed) && !oa_emitting(&t->s)) {
		int64_t where = oa_callsites ? oa_callsite() : 0;
		mark_at(&t->s, "OM[", SYNC_BARRIER, arrived);
		if (where) {
			uint8_t p[12];
			ev_mark_payload(p, where, OA_MARK_CALLSITE);
			oa_emit_at(&t->s, "OM[", arrived, p, sizeof(p));
		}
		if (!t->s.held) {
			oa_emit_state_at(&t->s, "OHp", 1, arrived);
			ev_ovni_thread_resume(&t->s);
		}
		if (where)
			ev_ovni_mark_pop(&t->s, OA_MARK_CALLSITE, where);
		ev_ovni_mark_pop(&t->s, OA_MARK_SYNC, SYNC_BARRIER);
	}
	HOOK_ERRNO_RESTORE();
	return r;
}

static void once_end(void *arg)
{
	struct oa_thread *t = arg;
	HOOK_ERRNO_SAVE();
	if (!atomic_load_explicit(&t->s.closed, memory_order_relaxed) && !oa_emitting(&t->s))
		ev_ovni_mark_pop(&t->s, OA_MARK_SYNC, SYNC_ONCE);
	HOOK_ERRNO_RESTORE();
}

OA_EXPORT int pthread_once(pthread_once_t *once, void (*fn)(void))
{
	/* Done already (glibc sets bit 1): no event. Otherwise the call runs
	 * fn or waits for the thread that does: shown as "once", not paused. */
	struct oa_thread *t = sync_self();
	if (!t || (__atomic_load_n((int *)once, __ATOMIC_ACQUIRE) & 2))
		return REAL(once)(once, fn);
	HOOK_ERRNO_SAVE();
	ev_ovni_mark_push(&t->s, OA_MARK_SYNC, SYNC_ONCE);
	HOOK_ERRNO_RESTORE();
	int r;
	/* fn may be cancelled (pthread_once is a cancellation point). */
	pthread_cleanup_push(once_end, t);
	r = REAL(once)(once, fn);
	pthread_cleanup_pop(0);
	once_end(t);
	return r;
}
