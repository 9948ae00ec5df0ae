/* sync.h: what the synchronisation interposers share: the wait kinds (mark
 * values of channel OA_MARK_SYNC) and the bracket that shows a blocked
 * thread: OM[ kind, OHp ... OHr, OM] kind. */
#ifndef OA_SYNC_H
#define OA_SYNC_H

#include <pthread.h>
#include <stdint.h>
#include "hooks.h"

enum sync_kind {
	SYNC_MUTEX = 1,
	SYNC_COND,
	SYNC_RWLOCK_RD,
	SYNC_RWLOCK_WR,
	SYNC_BARRIER,
	SYNC_JOIN,
	SYNC_SEM,
	SYNC_ONCE,
	SYNC_SLEEP,
	SYNC_YIELD,
	SYNC_NKINDS
};

/* The calling thread's stream if this call is to be recorded, else NULL
 * (sync_self_late: a fork child that has not started yet starts here).
 * Not while the agent runs on this thread, nor from a signal handler that
 * interrupted this thread inside an emit (the stream is mid-write), nor
 * inside an MPI call (its progress loop is not the program's waiting). */
struct oa_thread *sync_self_late(void);
static inline struct oa_thread *sync_self(void)
{
	struct oa_thread *t = oa_self ? oa_self : sync_self_late();
	if (!t || oa_guard || oa_mpi_depth || oa_emitting(&t->s) || oa_sealed)
		return NULL;
	return t;
}

/* Code in [lo, hi) whose sched_yield calls are not recorded: the OpenMP
 * runtime's idle loops yield hundreds of thousands of times (the OMPT tool
 * names its runtime's object). */
void sync_quiet_range(uintptr_t lo, uintptr_t hi);

/* Enter / leave a blocking state. errno is preserved. Nested waits (a signal
 * handler waiting while its thread is blocked) push marks but pause once. */
void sync_block(struct oa_thread *t, enum sync_kind kind);
void sync_unblock(struct oa_thread *t, enum sync_kind kind);

/* One wait: sync_block, `r = call`, sync_unblock, where the unblock also
 * runs when the wait is left by thread cancellation: glibc's C cleanup
 * handlers (pthread_cleanup_push: a setjmp buffer registered with libc, no
 * unwinder library needed) run innermost first, so the thread leaves the
 * wait before the program's own cleanup handlers run.  Without it a
 * cancelled thread showed as blocked until it ended. */
struct sync_bracket {
	struct oa_thread *t;
	enum sync_kind kind;
};
void sync_bracket_cancel(void *bracket);
#define SYNC_WAIT(r, thread, kind_, call)                       \
	do {                                                    \
		struct sync_bracket b_ = { thread, kind_ };     \
		sync_block(b_.t, b_.kind);                      \
		pthread_cleanup_push(sync_bracket_cancel, &b_); \
		r = call;                                       \
		pthread_cleanup_pop(0);                         \
		sync_unblock(b_.t, b_.kind);                    \
	} while (0)

/* A non-local jump to stack pointer sp: the waits whose frames lie below it
 * were left without returning; they end now. */
void sync_unwind(uintptr_t sp);

#endif
