/* sigwait.c: the sampling signal never reaches the program.
 * Interposes: sigwait, sigwaitinfo, sigtimedwait, signalfd.
 * With sampling on (ovnirun -S), each thread's CPU-time timer sends it a
 * real-time signal.  A program that blocks every signal and consumes them
 * with sigwait() or a signalfd would receive ours: the sampling signal is
 * taken out of the set it waits for (a sample that arrives while the thread
 * blocks it stays pending, one per timer, until the thread unblocks it). */
#include <dlfcn.h>
#include <signal.h>
#include <sys/signalfd.h>

#include "../preload/sample.h"
#include "hooks.h"

static struct {
	int (*sigwait)(const sigset_t *, int *);
	int (*sigwaitinfo)(const sigset_t *, siginfo_t *);
	int (*sigtimedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
	int (*signalfd)(int, const sigset_t *, int);
} real;

__attribute__((constructor(102))) static void sigwait_init(void)
{
	*(void **)&real.sigwait = dlsym(RTLD_NEXT, "sigwait");
	*(void **)&real.sigwaitinfo = dlsym(RTLD_NEXT, "sigwaitinfo");
	*(void **)&real.sigtimedwait = dlsym(RTLD_NEXT, "sigtimedwait");
	*(void **)&real.signalfd = dlsym(RTLD_NEXT, "signalfd");
}

/* set without the sampling signal, in *copy; set itself when it lacks it. */
static const sigset_t *without_sample(const sigset_t *set, sigset_t *copy)
{
	int sig = oa_sample_signal();
	if (!sig || !set || !sigismember(set, sig))
		return set;
	*copy = *set;
	sigdelset(copy, sig);
	return copy;
}

#define RESOLVED(f) (real.f ? real.f : (sigwait_init(), real.f))

OA_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	sigset_t copy;
	return RESOLVED(sigwait)(without_sample(set, &copy), sig);
}

OA_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	sigset_t copy;
	return RESOLVED(sigwaitinfo)(without_sample(set, &copy), info);
}

OA_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	sigset_t copy;
	return RESOLVED(sigtimedwait)(without_sample(set, &copy), info, timeout);
}

OA_EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	sigset_t copy;
	return RESOLVED(signalfd)(fd, without_sample(mask, &copy), flags);
}
