/* threads.c: the cost of starting threads (issue 12).
 * usage: threads live N    create N threads that stay alive, blocked on one
 *                          condition, and time each start (pthread_create
 *                          until the new thread runs its function): prints
 *                          the median us per create in the first and the
 *                          last quarter, and their ratio
 *        threads short N   create + join N threads that return at once:
 *                          prints us per create+join
 * Built twice: plain (untraced, or under the agent with LD_PRELOAD), and
 * with -DWITH_LIBOVNI against an upstream libovni (make OVNI_PREFIX=...),
 * where every thread instruments itself by hand as a libovni user would:
 * ovni_thread_init, OHx, ... OHe, ovni_flush, ovni_thread_free. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef WITH_LIBOVNI
#include <ovni.h>

static void ev(const char *mcv, const void *payload, int size)
{
	struct ovni_ev e = { 0 };
	ovni_ev_set_mcv(&e, mcv);
	ovni_ev_set_clock(&e, ovni_clock_now());
	if (size)
		ovni_payload_add(&e, payload, size);
	ovni_ev_emit(&e);
}

static void thread_begin(void)
{
	ovni_thread_init((pid_t)syscall(SYS_gettid));
	int32_t p[4] = { -1, -1, 0, 0 }; /* cpu, creator, tag */
	ev("OHx", p, 16);
}

static void thread_end(void)
{
	ev("OHe", NULL, 0);
	ovni_flush();
	ovni_thread_free();
}
#else
static void thread_begin(void)
{
}

static void thread_end(void)
{
}
#endif

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int go;

static sem_t started;

static void *waiter(void *a)
{
	thread_begin();
	sem_post(&started);
	pthread_mutex_lock(&m);
	while (!go)
		pthread_cond_wait(&c, &m);
	pthread_mutex_unlock(&m);
	thread_end();
	return a;
}

static void *nothing(void *a)
{
	thread_begin();
	thread_end();
	return a;
}

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "short";
	int n = argc > 2 ? atoi(argv[2]) : 1000;
#ifdef WITH_LIBOVNI
	ovni_version_check();
	char loom[64] = "bench";
	ovni_proc_init(1, loom, getpid());
	thread_begin();
	for (long i = 0; i < sysconf(_SC_NPROCESSORS_ONLN); i++)
		ovni_add_cpu((int)i, (int)i);
#endif
	if (!strcmp(mode, "live")) {
		sem_init(&started, 0, 0);
		pthread_t *th = calloc((size_t)n, sizeof(*th));
		double *us = calloc((size_t)n, sizeof(*us));
		for (int i = 0; i < n; i++) {
			double a = now_us();
			if (pthread_create(&th[i], NULL, waiter, NULL) != 0) {
				fprintf(stderr, "pthread_create failed at %d\n", i);
				return 1;
			}
			while (sem_wait(&started) != 0)
				;
			us[i] = now_us() - a;
		}
		pthread_mutex_lock(&m);
		go = 1;
		pthread_cond_broadcast(&c);
		pthread_mutex_unlock(&m);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		int q = n / 4;
		double first = median(us, q), last = median(us + n - q, q);
		printf("%.1f us per start at 0-%d live threads, %.1f us at %d-%d, ratio %.2f\n", first, q, last, n - q,
		       n, last / first);
	} else {
		double a = now_us();
		for (int i = 0; i < n; i++) {
			pthread_t t;
			pthread_create(&t, NULL, nothing, NULL);
			pthread_join(t, NULL);
		}
		printf("%.1f us per create+join (%d threads)\n", (now_us() - a) / n, n);
	}
#ifdef WITH_LIBOVNI
	thread_end();
	ovni_proc_fini();
#endif
	return 0;
}
