/* An LD_PRELOAD library that makes a CPU claim slow: openat of a claim
 * file (TRACE/loom.L/.cpus/cpu.N, O_EXCL) waits CLAIM_DELAY_MS (300)
 * first, as a thread preempted on a busy machine between its start and its
 * claim would.  Loaded before the agent, it is the openat the agent's
 * claim calls. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int openat(int dir, const char *path, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	if (!real)
		real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	mode_t mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if ((flags & O_EXCL) && !strncmp(base, "cpu.", 4)) {
		const char *ms = getenv("CLAIM_DELAY_MS");
		long d = ms ? atol(ms) : 300;
		struct timespec ts = { d / 1000, d % 1000 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return real(dir, path, flags, mode);
}
