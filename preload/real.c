/* real.c: resolution of the real functions (see real.h). */
#include "real.h"

#include <dlfcn.h>
#include <stdatomic.h>

#include "../common/log.h"

struct oa_real oa_real;
static _Atomic int resolved;

#define RESOLVE(name)                                                      \
	do {                                                               \
		if (!oa_real.name)                                         \
			*(void **)&oa_real.name = dlsym(RTLD_NEXT, #name); \
		if (!oa_real.name) {                                       \
			oa_log("cannot find the real %s", #name);          \
			missing++;                                         \
		}                                                          \
	} while (0)

int oa_real_init(void)
{
	if (atomic_load(&resolved))
		return 0;
	int missing = 0;
	RESOLVE(pthread_create);
	RESOLVE(pthread_setaffinity_np);
	RESOLVE(sched_setaffinity);
	RESOLVE(_exit);
	RESOLVE(_Exit);
	RESOLVE(exit);
	RESOLVE(abort);
	RESOLVE(quick_exit);
	RESOLVE(sigaction);
	RESOLVE(execve);
	RESOLVE(execvpe);
	RESOLVE(execv);
	RESOLVE(execvp);
	RESOLVE(fexecve);
	RESOLVE(execveat);
	atomic_store(&resolved, 1);
	return missing ? -1 : 0;
}
