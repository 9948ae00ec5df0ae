/* sigblock.h: a window of agent work that asynchronous signals cannot enter
 * (header only).  Finishing a stream, writing metadata and holding a
 * descriptor happen inside one: a SIGTERM or SIGINT that arrives meanwhile is
 * delivered when the window closes, so the work is never left half done.
 * Synchronous faults stay deliverable (blocking them would only turn a crash
 * into a silent kill). */
#ifndef OA_SIGBLOCK_H
#define OA_SIGBLOCK_H

#include <signal.h>

static inline void oa_sigblock(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGTRAP);
	sigdelset(&all, SIGSYS);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

static inline void oa_sigrestore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

#endif
