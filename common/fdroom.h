/* fdroom.h: the agent's discipline with descriptors: it holds none between
 * calls, and opens one for a moment only when the program is not near its
 * limit. */
#ifndef OA_FDROOM_H
#define OA_FDROOM_H

/* Is there room in the descriptor table for the agent's transient
 * descriptors?  No when RLIMIT_NOFILE is tiny (8 or less) or one of the top 8
 * slots below the limit is taken (tables fill from the bottom: the program
 * is near its limit, and a descriptor of ours could take the slot it is
 * about to need; the slot limit - 8 is looked at, nothing is opened).
 * Two system calls; async-signal-safe. */
int oa_fd_room(void);

/* fd moved to a number far from those the program allocates (64 below the
 * descriptor limit, or 100 and up), close-on-exec; the old number is
 * closed.  The new number, or fd itself when it cannot move. */
int oa_fd_move_high(int fd);

/* ---- The agent's descriptors against the program's closes ----
 * The agent's descriptors live for a moment only, but other threads of the
 * program run meanwhile: one that closes a range (`close_range`,
 * `closefrom`, a loop of `close`) or `dup2`s over a number can close the
 * agent's descriptor and open its own file under the same number, which
 * the agent then wrote, truncated or mapped (a program's file overwritten
 * with trace data).  So the two exclude each other: the agent's windows of
 * file work (writer/sigblock.h) are "agent" holders, the program's calls
 * that close or replace a descriptor (hooks/fd.c) "program" holders; any
 * number of either at once, never both.  A holder of one kind waits (a
 * moment: neither holds it across anything that blocks for long, the
 * program's side across one system call) until no other thread holds the
 * other kind.  A thread never waits for itself: a handler that runs on a
 * thread inside the program's call (its close done) may finish the
 * trace, and the agent's own closes inside its windows are not the
 * program's.  After a fork only the forking thread's holds are left
 * (oa_fdlock_after_fork).  Waits are bounded (5 s: a close of a socket
 * that lingers), then the holder goes on: never a hang.
 * Async-signal-safe. */
#include <stdatomic.h>
#include <stdint.h>

#include "compiler.h"

/* The agent's holders, the program's holders and waiters (fdroom.c);
 * this thread's own: the agent's (nested, the outermost counts), the
 * program's it asked for (a handler that runs while it waits must not
 * wait for it) and those it holds. */
#define OA_FDLOCK_PROG ((uint64_t)1 << 20)
extern _Atomic uint64_t oa_fdlock;
extern OA_TLS unsigned oa_fdlock_agent, oa_fdlock_prog_want, oa_fdlock_prog_held;

/* The process may have more than one thread (set at the first thread's
 * creation, cleared in a fork child): with one, the program's calls need
 * not wait for anything, and a shell's fork child closing and dup2ing
 * before its exec touches no page more than untraced. */
extern _Atomic int oa_fdlock_threads;
static inline void oa_fdlock_threads_made(void)
{
	if (!atomic_load_explicit(&oa_fdlock_threads, memory_order_relaxed))
		atomic_store_explicit(&oa_fdlock_threads, 1, memory_order_relaxed);
}

void oa_fdlock_agent_enter(void);
void oa_fdlock_agent_leave(void);
void oa_fdlock_prog_enter(void);
void oa_fdlock_prog_leave(void);

/* Is this thread inside an agent window (its closes are the agent's)? */
static inline int oa_fdlock_in_agent(void)
{
	return oa_fdlock_agent != 0;
}

/* A non-local jump out of a handler that ran inside the agent's window or
 * the program's call on this thread (hooks/jump.c): both never end.
 * Read first: every longjmp of a shell comes here holding nothing (a fork
 * child writes no page it need not). */
void oa_fdlock_abandon_held(void);
static inline void oa_fdlock_abandon(void)
{
	if (oa_fdlock_agent || oa_fdlock_prog_want)
		oa_fdlock_abandon_held();
}

/* In a fork child, before anything else of the agent runs: only this
 * thread's holds are left. */
static inline void oa_fdlock_after_fork(void)
{
	if (atomic_load_explicit(&oa_fdlock_threads, memory_order_relaxed))
		atomic_store_explicit(&oa_fdlock_threads, 0, memory_order_relaxed);
	uint64_t mine = (uint64_t)oa_fdlock_prog_held * OA_FDLOCK_PROG +
			(uint64_t)(oa_fdlock_prog_want - oa_fdlock_prog_held) * ((uint64_t)1 << 40) +
			(oa_fdlock_agent ? 1 : 0);
	if (atomic_load_explicit(&oa_fdlock, memory_order_relaxed) != mine)
		atomic_store_explicit(&oa_fdlock, mine, memory_order_relaxed);
}

/* Up to cap bytes of fd from its current offset, read until the end or
 * cap (EINTR retried): the count.  Async-signal-safe. */
unsigned long oa_read_full(int fd, void *buf, unsigned long cap);

#endif
