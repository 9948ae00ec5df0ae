/* sigwait.c: a sample never reaches the program.
 * Interposes: sigwait, sigwaitinfo, sigtimedwait, signalfd.
 * With sampling on (ovnirun -S), each thread's CPU-time timer sends it a
 * real-time signal.  A program that blocks every signal and consumes them
 * with sigwait() would receive a pending one of ours: the waits drop our
 * samples (the timer's cookie) and go on, while the program's own signals,
 * the sampling signal sent by kill or sigqueue included, reach it.  A
 * signalfd cannot be filtered: one on the sampling signal stops sampling in
 * the process (sample.c). */
#include <dlfcn.h>
#include <signal.h>
#include <sys/signalfd.h>

#include "../preload/sample.h"
#include "hooks.h"

#define REALS(X)                                                                                       \
	X(int, sigwait, "sigwait", (const sigset_t *, int *))                                          \
	X(int, sigwaitinfo, "sigwaitinfo", (const sigset_t *, siginfo_t *))                            \
	X(int, sigtimedwait, "sigtimedwait", (const sigset_t *, siginfo_t *, const struct timespec *)) \
	X(int, signalfd, "signalfd", (int, const sigset_t *, int))
HOOK_REALS(REALS)

/* A sample of ours that was pending: consumed here, dropped, and the
 * wait goes on.  The program's own signals (even the sampling signal,
 * sent by kill or sigqueue) are returned as they come. */
static int ours(int r, const siginfo_t *si)
{
	return r > 0 && r == oa_sample_signal() && oa_sample_is_ours(si);
}

/* set holds the sampling signal (out of line: the arguments are declared
 * nonnull, yet a program may pass NULL and get the libc's EFAULT). */
__attribute__((noinline)) static int has_sample(const sigset_t *set)
{
	int sig = oa_sample_signal();
	return sig && set && sigismember(set, sig) == 1;
}

OA_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	siginfo_t si;
	int r;
	do
		r = REAL(sigwaitinfo)(set, &si);
	while (ours(r, &si));
	if (r > 0 && info)
		*info = si;
	return r;
}

OA_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	siginfo_t si;
	int r;
	do
		r = REAL(sigtimedwait)(set, &si, timeout);
	while (ours(r, &si));
	if (r > 0 && info)
		*info = si;
	return r;
}

OA_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	if (!has_sample(set))
		return REAL(sigwait)(set, sig);
	/* As glibc's: sigtimedwait, again after EINTR. */
	HOOK_ERRNO_SAVE();
	int r;
	do
		r = sigwaitinfo(set, NULL);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		r = errno;
		HOOK_ERRNO_RESTORE();
		return r;
	}
	*sig = r;
	HOOK_ERRNO_RESTORE();
	return 0;
}

/* A signalfd cannot be filtered: the program reads it.  One on the
 * sampling signal makes the signal the program's (sampling stops). */
OA_EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	if (has_sample(mask))
		oa_sample_stop("signalfd");
	return REAL(signalfd)(fd, mask, flags);
}
