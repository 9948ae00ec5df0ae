/* sync.c: blocking pthread calls for the integration tests. Each mode prints
 * what the calls returned (values and errno names), so the test can compare
 * the output with and without the agent.
 * usage: sync MODE   (mutex cond barrier rwlock sem join sleep once errors
 *                    clock (the clock/timed variants) all) */
#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t bar;
static sem_t sem;
static int ready;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;

static const char *ename(int e)
{
	return e == EBUSY ? "EBUSY" : e == ETIMEDOUT ? "ETIMEDOUT" : e == EINTR ? "EINTR" : e == EAGAIN ? "EAGAIN"
		: e == 0 ? "0" : "other";
}

static void *holder(void *arg)
{
	pthread_mutex_lock(&m);
	usleep(30000);
	pthread_mutex_unlock(&m);
	return arg;
}

/* Take the lock, say so, hold it 30 ms: the caller then surely blocks. */
static _Atomic int held;

static void *holder_then_say(void *arg)
{
	pthread_mutex_lock(&m);
	held = 1;
	usleep(30000);
	pthread_mutex_unlock(&m);
	return arg;
}

static void *writer_then_say(void *arg)
{
	pthread_rwlock_wrlock(&rw);
	held = 1;
	usleep(30000);
	pthread_rwlock_unlock(&rw);
	return arg;
}

static void wait_held(void)
{
	while (!held)
		usleep(1000);
	held = 0;
}

static void *producer(void *arg)
{
	usleep(20000);
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	return arg;
}

/* Whether thread tid is asleep (state S in /proc: blocked in a futex). */
static int asleep(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

/* Wait (5 s at most) until thread *tid is blocked, once it said it
 * arrives. */
static void until_blocked(_Atomic int *arrived, _Atomic int *tid)
{
	for (int i = 0; i < 500000 && !(*arrived && asleep(*tid)); i++)
		sched_yield();
}

/* A barrier of 3 in a known order, whatever the load: the main thread
 * blocks in it, then the first worker 10 ms later, then the second 10 ms
 * after that one blocked (the main thread waits 20 ms or more). */
static _Atomic int main_arrives, main_tid, first_arrives, first_tid;

static void *at_barrier(void *arg)
{
	if ((long)arg == 1)
		first_tid = gettid();
	until_blocked(&main_arrives, &main_tid);
	if ((long)arg == 2)
		until_blocked(&first_arrives, &first_tid);
	usleep(10000);
	if ((long)arg == 1)
		first_arrives = 1;
	pthread_barrier_wait(&bar);
	return NULL;
}

static void *writer(void *arg)
{
	pthread_rwlock_wrlock(&rw);
	usleep(30000);
	pthread_rwlock_unlock(&rw);
	return arg;
}

static void *poster(void *arg)
{
	usleep(20000);
	sem_post(&sem);
	return arg;
}

static void *napper(void *arg)
{
	pthread_setname_np(pthread_self(), "napper-42");
	prctl(PR_SET_NAME, "napper-prctl", 0, 0, 0);
	usleep(50000);
	return arg;
}

static void init_once(void)
{
	once_runs++;
	usleep(10000);
}

static void *call_once(void *arg)
{
	pthread_once(&once, init_once);
	return arg;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void *interrupter(void *arg)
{
	usleep(20000);
	pthread_kill(*(pthread_t *)arg, SIGUSR1);
	return NULL;
}

static void deadline(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_nsec += ms * 1000000;
	ts->tv_sec += ts->tv_nsec / 1000000000;
	ts->tv_nsec %= 1000000000;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";
	int all = !strcmp(mode, "all");
	pthread_t t, u, v;
	if (all || !strcmp(mode, "mutex")) {
		/* Once the holder says it holds the lock (a fixed sleep was
		 * not enough under load: the lock was sometimes free). */
		pthread_create(&t, NULL, holder_then_say, NULL);
		wait_held();
		int r = pthread_mutex_lock(&m); /* blocks ~25 ms */
		pthread_mutex_unlock(&m);
		pthread_join(t, NULL);
		printf("mutex %d\n", r);
	}
	if (all || !strcmp(mode, "cond")) {
		pthread_create(&t, NULL, producer, NULL);
		pthread_mutex_lock(&m);
		while (!ready)
			pthread_cond_wait(&c, &m);
		pthread_mutex_unlock(&m);
		pthread_join(t, NULL);
		printf("cond %d\n", ready);
	}
	if (all || !strcmp(mode, "barrier")) {
		pthread_barrier_init(&bar, NULL, 3);
		pthread_create(&t, NULL, at_barrier, (void *)1L);
		pthread_create(&u, NULL, at_barrier, (void *)2L);
		main_tid = gettid();
		main_arrives = 1;
		int r = pthread_barrier_wait(&bar);
		pthread_join(t, NULL);
		pthread_join(u, NULL);
		printf("barrier %s\n", r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD ? "ok" : "bad");
	}
	if (all || !strcmp(mode, "rwlock")) {
		pthread_create(&t, NULL, writer, NULL);
		usleep(5000);
		int r = pthread_rwlock_rdlock(&rw);
		pthread_rwlock_unlock(&rw);
		pthread_join(t, NULL);
		printf("rwlock %d\n", r);
	}
	if (all || !strcmp(mode, "sem")) {
		sem_init(&sem, 0, 0);
		pthread_create(&t, NULL, poster, NULL);
		int r = sem_wait(&sem);
		pthread_join(t, NULL);
		printf("sem %d\n", r);
	}
	if (all || !strcmp(mode, "join")) {
		pthread_create(&t, NULL, napper, NULL);
		struct timespec j0, j1;
		clock_gettime(CLOCK_MONOTONIC, &j0);
		int jr = pthread_join(t, NULL);
		clock_gettime(CLOCK_MONOTONIC, &j1);
		printf("join %d\n", jr);
		/* How long the join itself lasted, for t650 (its timeline must
		 * say about as much): on request, as runs must print the same. */
		if (getenv("SYNC_JOIN_NS"))
			fprintf(stderr, "join_ns %lld\n",
				(long long)(j1.tv_sec - j0.tv_sec) * 1000000000LL + (j1.tv_nsec - j0.tv_nsec));
	}
	if (all || !strcmp(mode, "sleep")) {
		struct timespec ts = { 0, 100000000 };
		printf("sleep %d\n", nanosleep(&ts, NULL));
	}
	if (all || !strcmp(mode, "clock")) {
		/* Each blocks once (the other thread holds the lock / runs), then a
		 * timed join that times out (ETIMEDOUT, recorded as a join). */
		struct timespec ts;
		pthread_create(&t, NULL, holder_then_say, NULL);
		wait_held();
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 5;
		int r1 = pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &ts);
		pthread_mutex_unlock(&m);
		pthread_join(t, NULL);
		pthread_create(&t, NULL, writer_then_say, NULL);
		wait_held();
		int r2 = pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &ts);
		pthread_rwlock_unlock(&rw);
		pthread_join(t, NULL);
		pthread_create(&t, NULL, writer_then_say, NULL);
		wait_held();
		int r3 = pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &ts);
		pthread_rwlock_unlock(&rw);
		pthread_join(t, NULL);
		pthread_create(&t, NULL, napper, NULL);
		struct timespec soon;
		deadline(&soon, 10);
		int r4 = pthread_timedjoin_np(t, NULL, &soon);
		int r5 = pthread_clockjoin_np(t, NULL, CLOCK_MONOTONIC, &ts);
		printf("clock %s %s %s %s %s\n", ename(r1), ename(r2), ename(r3), ename(r4), ename(r5));
	}
	if (all || !strcmp(mode, "yield")) {
		int r = 0;
		for (int i = 0; i < 3; i++)
			r |= sched_yield();
		printf("yield %d\n", r);
	}
	if (all || !strcmp(mode, "once")) {
		pthread_create(&t, NULL, call_once, NULL);
		pthread_create(&u, NULL, call_once, NULL);
		pthread_once(&once, init_once);
		pthread_join(t, NULL);
		pthread_join(u, NULL);
		printf("once ran %d time(s)\n", once_runs);
	}
	if (all || !strcmp(mode, "errors")) {
		struct timespec ts;
		pthread_create(&t, NULL, holder, NULL);
		usleep(5000);
		printf("trylock %s\n", ename(pthread_mutex_trylock(&m)));
		deadline(&ts, 5);
		printf("timedlock %s\n", ename(pthread_mutex_timedlock(&m, &ts)));
		pthread_join(t, NULL);
		pthread_mutex_lock(&m);
		deadline(&ts, 5);
		printf("cond_timedwait %s\n", ename(pthread_cond_timedwait(&c, &m, &ts)));
		pthread_mutex_unlock(&m);
		sem_init(&sem, 0, 0);
		deadline(&ts, 5);
		errno = 0;
		int r = sem_timedwait(&sem, &ts);
		printf("sem_timedwait %d %s\n", r, ename(errno));
		errno = 0;
		r = sem_trywait(&sem);
		printf("sem_trywait %d %s\n", r, ename(errno));
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1; /* no SA_RESTART: the sleep is interrupted */
		sigaction(SIGUSR1, &sa, NULL);
		pthread_t self = pthread_self();
		pthread_create(&v, NULL, interrupter, &self);
		struct timespec req = { 2, 0 }, rem = { 0, 0 };
		errno = 0;
		r = nanosleep(&req, &rem);
		printf("nanosleep %d %s rem>1s %d\n", r, ename(errno), rem.tv_sec >= 1);
		pthread_join(v, NULL);
		errno = 12345;
		usleep(1000);
		printf("errno kept %d\n", errno == 12345);
	}
	return 0;
}
