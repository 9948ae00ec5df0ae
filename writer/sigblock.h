/* sigblock.h: a window of agent work that asynchronous signals cannot enter
 * (header only).  Finishing a stream, writing metadata and holding a
 * descriptor happen inside one: a SIGTERM or SIGINT that arrives meanwhile is
 * delivered when the window closes, so the work is never left half done.
 * Synchronous faults stay deliverable (blocking them would only turn a crash
 * into a silent kill).  Windows nest (the thread's start opens one around
 * the stream's creation, which opens its own): only the outermost changes
 * the mask, the inner ones count (two system calls each saved); a non-local
 * jump out of a window (hooks/jump.c) sets the count back to zero.
 * A window is also closed to thread cancellation: the agent's file work
 * calls libc functions that are cancellation points (open, write, close,
 * nanosleep), and a cancel the program left pending on a thread that never
 * reaches one of its own must not go off there (the thread lived on
 * untraced); an asynchronous cancel waits for the window's end too, where
 * it acts at once, never with a stream half closed.  The type is made
 * deferred meanwhile and set back last: glibc 2.36 acts on a pending
 * asynchronous cancel when the state is enabled again, but leaves the
 * thread's result NULL (pthread_join saw no PTHREAD_CANCELED), while
 * pthread_setcanceltype sets it.  SIGCANCEL itself cannot be blocked
 * through pthread_sigmask. */
#ifndef OA_SIGBLOCK_H
#define OA_SIGBLOCK_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/compiler.h"
#include "../common/fdroom.h"

/* How many windows are open on this thread (writer/stream.c). */
extern OA_TLS int oa_sigblock_depth;
/* When the outermost window opened, cancellation was enabled (bit 0) and
 * asynchronous (bit 1): set back so when it closes. */
extern OA_TLS int oa_sigblock_cancel;

/* Thread cancellation off (deferred, disabled) for a moment of agent work
 * that calls cancellation points or holds an agent lock: what to pass to
 * oa_cancel_back (bit 0: it was enabled, bit 1: asynchronous). */
static inline int oa_cancel_off(void)
{
	int cs = PTHREAD_CANCEL_DISABLE, ct = PTHREAD_CANCEL_DEFERRED;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
	if (cs == PTHREAD_CANCEL_ENABLE)
		pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &ct);
	return (cs == PTHREAD_CANCEL_ENABLE) | (ct == PTHREAD_CANCEL_ASYNCHRONOUS) << 1;
}

/* Cancellation back as oa_cancel_off found it: a cancel that came
 * meanwhile acts now if it is asynchronous (the type is set last: see
 * above), at the program's next cancellation point if it is deferred. */
static inline void oa_cancel_back(int c)
{
	if (c & 1)
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	if (c & 2)
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
}

static inline void oa_sigblock(sigset_t *old)
{
	if (oa_sigblock_depth > 0) {
		oa_sigblock_depth++;
		return;
	}
	int c = oa_cancel_off();
	sigset_t all;
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGTRAP);
	sigdelset(&all, SIGSYS);
	pthread_sigmask(SIG_BLOCK, &all, old);
	oa_sigblock_depth = 1; /* after the mask: a handler never sees 1 unblocked */
	oa_sigblock_cancel = c;
	/* The program's closes and dup2s wait meanwhile (common/fdroom.h). */
	oa_fdlock_agent_enter();
}

/* Cancellation as it was before the outermost window. */
static inline void oa_sigblock_cancel_back(void)
{
	int c = oa_sigblock_cancel;
	oa_sigblock_cancel = 0;
	oa_cancel_back(c);
}

static inline void oa_sigrestore(const sigset_t *old)
{
	if (oa_sigblock_depth > 1) {
		oa_sigblock_depth--;
		return;
	}
	oa_sigblock_depth = 0;
	oa_fdlock_agent_leave();
	pthread_sigmask(SIG_SETMASK, old, NULL);
	if (oa_sigblock_cancel)
		oa_sigblock_cancel_back();
}

/* A file the agent grows past RLIMIT_FSIZE (`ulimit -f`) fails with EFBIG
 * and the kernel raises SIGXFSZ at the thread, which would kill the program
 * once the window closes.  Note whether one was pending already (the
 * program's own) before the file work, and take back the agent's after a
 * failure.  Async-signal-safe. */
/* The soft RLIMIT_FSIZE the thread's last oa_xfsz_pending read (valid
 * when oa_fsize_known): a file write that would grow a file past it is not
 * made, rather than made in part (stream.c: a stream.json cut at the limit
 * is no JSON at all). */
extern OA_TLS rlim_t oa_fsize_limit;
extern OA_TLS int oa_fsize_known;

static inline int oa_xfsz_pending(void)
{
	/* No limit (the usual case): no SIGXFSZ can come, nothing to note.
	 * One system call instead of a sigpending before and after. */
	struct rlimit lim;
	oa_fsize_known = getrlimit(RLIMIT_FSIZE, &lim) == 0;
	oa_fsize_limit = lim.rlim_cur;
	if (oa_fsize_known && lim.rlim_cur == RLIM_INFINITY)
		return -1;
	sigset_t p;
	return sigpending(&p) == 0 && sigismember(&p, SIGXFSZ) == 1;
}

/* Would a file written up to byte `end` pass the limit oa_xfsz_pending
 * read?  The kernel writes a write that crosses it in part (from any
 * offset, even inside the file's size): the agent's files are then not
 * written at all, rather than cut. */
static inline int oa_fsize_exceeds(uint64_t end)
{
	return oa_fsize_known && oa_fsize_limit != RLIM_INFINITY && end > (uint64_t)oa_fsize_limit;
}

static inline void oa_xfsz_forget(int was_pending)
{
	if (was_pending || !oa_xfsz_pending())
		return; /* -1: no limit when the work began */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGXFSZ);
	struct timespec zero = { 0, 0 };
	/* The raw call: the agent interposes sigtimedwait. */
	syscall(SYS_rt_sigtimedwait, &set, NULL, &zero, _NSIG / 8);
}

#endif
