/* truth_pthread.c: pthread waits that measure themselves, for the
 * ground-truth tier (tests/truth).  Each scenario runs on threads of its own
 * and prints what really happened as "truth|mark|TID|LABEL|COUNT|NS" lines
 * (see tests/prog/truthcheck.c): the waits it provokes on purpose, timed
 * with clock_gettime around the blocking call.
 *   - a mutex held 10 ms, 20 times, while another thread waits for it;
 *   - a barrier of 3 threads where one arrives 50 ms late (the late one
 *     does not wait: no barrier wait on its thread);
 *   - a condition signalled 15 ms after its waiter starts waiting;
 *   - a join of a thread that lives 20 ms;
 *   - 4 sleeps of 5 ms. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run_delay.h"

static int64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void truth(const char *label, long count, int64_t ns)
{
	printf("truth|mark|%d|%s|%ld|%lld\n", gettid(), label, count, (long long)ns);
}

/* Sleeps a thread measured around its calls: preempted before a call
 * reached the agent, or after it left it, the thread measured time the
 * trace rightly does not count.  The sleep is then between what it
 * measured less the time it waited for a CPU and what it measured. */
static void sleep_truth(long count, int64_t ns, int64_t delayed)
{
	if (delayed > 0)
		printf("truth|mark|%d|sleep|%ld|%lld..%lld\n", gettid(), count, (long long)(ns > delayed ? ns - delayed : 0),
		       (long long)ns);
	else
		truth("sleep", count, ns);
}

/* Mutex: the holder takes it, says so, keeps it 10 ms; the waiter blocks. */
#define ROUNDS 20
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static atomic_int held, taken, waiter_tid;

/* Until the waiter sleeps (in the mutex: it only spins otherwise), 1 s at
 * most: under load it may reach pthread_mutex_lock only after the 10 ms,
 * when the lock is free and it would not wait at all.  Reads /proc, which
 * the agent does not record (no sleep, no yield). */
static void until_waiter_blocks(void)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", atomic_load(&waiter_tid));
	for (int64_t t0 = now(); now() - t0 < 1000000000;) {
		FILE *f = fopen(path, "r");
		if (!f)
			return;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		char *p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
	}
}

static void *holder(void *arg)
{
	(void)arg;
	int64_t slept = 0, delayed = 0;
	while (!atomic_load(&waiter_tid))
		;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&mtx);
		atomic_store(&held, i + 1);
		int64_t d0 = run_delay();
		int64_t t0 = now();
		nap(10);
		slept += now() - t0;
		int64_t d1 = run_delay();
		if (d0 >= 0 && d1 >= d0)
			delayed += d1 - d0;
		until_waiter_blocks();
		pthread_mutex_unlock(&mtx);
		while (atomic_load(&taken) != i + 1)
			;
	}
	/* It never waits for the mutex: the waiter has let it go. */
	truth("mutex lock", 0, 0);
	sleep_truth(ROUNDS, slept, delayed);
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	int64_t wait = 0;
	atomic_store(&waiter_tid, gettid());
	for (int i = 0; i < ROUNDS; i++) {
		while (atomic_load(&held) != i + 1)
			;
		int64_t t0 = now();
		pthread_mutex_lock(&mtx);
		wait += now() - t0;
		pthread_mutex_unlock(&mtx);
		atomic_store(&taken, i + 1);
	}
	truth("mutex lock", ROUNDS, wait);
	return NULL;
}

/* Barrier: thread 0 arrives 50 ms after the others. */
static pthread_barrier_t bar;

static void *at_barrier(void *arg)
{
	long late = (long)arg;
	if (late)
		nap(50);
	int64_t t0 = now();
	pthread_barrier_wait(&bar);
	int64_t w = now() - t0;
	/* The last one in does not wait: nothing to record. */
	truth("barrier", late ? 0 : 1, late ? 0 : w);
	return NULL;
}

/* Condition: signalled 15 ms after the waiter is known to wait. */
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&cm);
	int64_t t0 = now();
	while (!ready)
		pthread_cond_wait(&cv, &cm);
	int64_t w = now() - t0;
	pthread_mutex_unlock(&cm);
	truth("condition wait", 1, w);
	return NULL;
}

static void *cond_signaller(void *arg)
{
	(void)arg;
	nap(15);
	pthread_mutex_lock(&cm);
	ready = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&cm);
	return NULL;
}

/* Join: of a thread that lives 20 ms. */
static void *lives_20ms(void *arg)
{
	(void)arg;
	nap(20);
	return NULL;
}

static void *joiner(void *arg)
{
	(void)arg;
	pthread_t t;
	pthread_create(&t, NULL, lives_20ms, NULL);
	int64_t t0 = now();
	pthread_join(t, NULL);
	truth("join", 1, now() - t0);
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	int64_t total = 0, delayed = 0;
	for (int i = 0; i < 4; i++) {
		int64_t d0 = run_delay();
		int64_t t0 = now();
		nap(5);
		total += now() - t0;
		int64_t d1 = run_delay();
		if (d0 >= 0 && d1 >= d0)
			delayed += d1 - d0;
	}
	sleep_truth(4, total, delayed);
	return NULL;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_t t[8];
	pthread_create(&t[0], NULL, holder, NULL);
	pthread_create(&t[1], NULL, waiter, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);

	pthread_barrier_init(&bar, NULL, 3);
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, at_barrier, (void *)(long)(i == 0));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);

	pthread_create(&t[0], NULL, cond_waiter, NULL);
	pthread_create(&t[1], NULL, cond_signaller, NULL);
	pthread_create(&t[2], NULL, joiner, NULL);
	pthread_create(&t[3], NULL, sleeper, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("truth_pthread done\n");
	return 0;
}
