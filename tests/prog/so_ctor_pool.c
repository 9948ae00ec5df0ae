/* A plugin whose constructor starts a pool of threads and joins them, and
 * whose destructor does the same (as many plugin systems and runtimes do):
 * the loader lock is held by dlopen/dlclose all the while. */
#include <pthread.h>
#include <stdio.h>

static long sums[4];

static void *work_a(void *p) { long *s = p; for (long i = 1; i <= 1000; i++) *s += i; return NULL; }
static void *work_b(void *p) { long *s = p; for (long i = 1; i <= 100; i++) *s += i * i; return NULL; }

static void pool(void)
{
	pthread_t th[4];
	for (int i = 0; i < 4; i++) {
		sums[i] = 0;
		pthread_create(&th[i], NULL, i % 2 ? work_b : work_a, &sums[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
}

__attribute__((constructor)) static void plugin_init(void) { pool(); }
__attribute__((destructor)) static void plugin_fini(void) { pool(); }

long plugin_sum(void) { return sums[0] + sums[1] + sums[2] + sums[3]; }
