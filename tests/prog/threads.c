/* threads.c: thread lifecycles for the integration tests.
 * usage: threads MODE N
 *   join N      create N threads and join them
 *   detach N    N detached threads; main waits until all have run
 *   exit N      N threads end with pthread_exit
 *   cancel N    N threads blocked in a cancellation point, cancelled
 *   alive N     N threads still running (spinning/sleeping) when main exits
 *   nested N    a binary tree of threads of depth N (2^(N+1)-2 threads)
 *   burst N     on one CPU, 4 threads (real-time where allowed) each create
 *               N threads, then join them: creations in flight together
 *   chdir N     chdir("/") first, then like join
 *   mainexit N  main calls pthread_exit while N threads still work
 *   pin N       threads pin themselves / are pinned to CPUs
 *   exitcode N  like join, then exit with status N
 *   sleeps N    N usleep(1) calls on the main thread (N recorded waits)
 *   names N     the main thread given N names, each a new one
 *   createfail N  N creations that fail (a stack no mmap can give): prints
 *               what each returned and the errno glibc left
 *   pending N   a thread with a cancel pending that reaches no cancellation
 *               point of its own: one yields in a loop (a timed join gives up
 *               after 0.3 s: "pending: Connection timed out"), one then starts
 *               N detached threads and returns 7 ("created N, returned 7")
 *   async N     N rounds of 3 threads that spin in sched_yield with
 *               asynchronous cancellation, cancelled, joined, then one
 *               plain thread: prints "cancelled K" (K = 3N untraced)
 *   nap N       N threads that sleep 0.8 s, joined
 *   race N      2 threads add 1 to a plain int N times each, unlocked (a data
 *               race for helgrind and DRD to report)
 *   recycle N   N threads one after another, each odd one given the tid of
 *               the one before (ns_last_pid: root, in a PID namespace of
 *               its own) and yielding 400 times (more events than a spool
 *               slot holds); prints "recycled K tids D" on stderr (K odd
 *               ones got it, D distinct tids)
 *   seq N       N threads one after another, each returning at once
 *   recycle4 N  4 threads, each starting N threads one after another, each
 *               given the tid of the one it started before (ns_last_pid,
 *               as recycle; the 4 race for it), every 8th yielding 400
 *               times; prints "recycled K tids D" on stderr (K threads got
 *               the tid of their creator's one before)
 * Prints "done MODE N" on stdout (main thread). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Atomic int ran;
static _Atomic int go;
static volatile unsigned long sink;
static int ncpus; /* CPUs the process may use at start */

static void work(int us)
{
	usleep((useconds_t)us);
}

static void *plain(void *arg)
{
	work(1000);
	atomic_fetch_add(&ran, 1);
	return arg;
}

static void *exiting(void *arg)
{
	atomic_fetch_add(&ran, 1);
	work(500);
	pthread_exit(arg);
}

static void *blocked(void *arg)
{
	atomic_fetch_add(&ran, 1);
	for (;;)
		pause(); /* a cancellation point */
	return arg;
}

static void *forever(void *arg)
{
	atomic_fetch_add(&ran, 1);
	long i = (long)arg;
	for (;;) {
		if (i % 2)
			sink++; /* busy */
		else
			usleep(100);
	}
	return NULL;
}

static void *tree(void *arg)
{
	long depth = (long)arg;
	atomic_fetch_add(&ran, 1);
	if (depth <= 1)
		return NULL;
	pthread_t a, b;
	pthread_create(&a, NULL, tree, (void *)(depth - 1));
	pthread_create(&b, NULL, tree, (void *)(depth - 1));
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return NULL;
}

static void *counted(void *arg)
{
	atomic_fetch_add(&ran, 1);
	return arg;
}

/* Attributes of a thread that runs at `policy` and `prio`, not its creator's. */
static void sched_attr(pthread_attr_t *a, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_init(a);
	pthread_attr_setinheritsched(a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(a, policy);
	pthread_attr_setschedparam(a, &sp);
}

static void *burst(void *arg)
{
	long n = (long)arg;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	if (!t)
		exit(7);
	/* The new threads run at the normal policy: under a real-time
	 * creator (where allowed) none starts before its creator waits. */
	pthread_attr_t a;
	sched_attr(&a, SCHED_OTHER, 0);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], &a, counted, NULL) != 0)
			exit(7);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return NULL;
}

static void *late(void *arg)
{
	while (!atomic_load(&go))
		usleep(100);
	work(20000);
	atomic_fetch_add(&ran, 1);
	return arg;
}

static int ncpu(void)
{
	cpu_set_t set;
	sched_getaffinity(0, sizeof(set), &set);
	return CPU_COUNT(&set);
}

static void *pin_self(void *arg)
{
	long cpu = (long)arg;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (cpu % 2 == 0)
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	else
		sched_setaffinity(0, sizeof(set), &set);
	work(2000);
	/* And back to every CPU. */
	CPU_ZERO(&set);
	for (int c = 0; c < ncpus; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
	atomic_fetch_add(&ran, 1);
	return NULL;
}

static _Atomic int started;

/* pending, async: threads cancelled where the program reaches no
 * cancellation point of its own. */
static _Atomic long pend_n, pend_created;
static pthread_barrier_t pend_b;
static void *yield_forever(void *arg)
{
	if (arg)
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	else
		pthread_barrier_wait(&pend_b);
	for (;;) {
		sched_yield();
		pend_n++;
	}
	return NULL;
}

static void *detached(void *arg)
{
	return arg;
}

static void *create_pending(void *arg)
{
	int n = (int)(long)arg;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_barrier_wait(&pend_b);
	pthread_barrier_wait(&pend_b); /* cancelled meanwhile */
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &at, detached, NULL) == 0)
			pend_created++;
	}
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	return (void *)7;
}

static void pending(int n)
{
	pthread_t t;
	pthread_barrier_init(&pend_b, NULL, 2);
	pthread_create(&t, NULL, yield_forever, NULL);
	pthread_barrier_wait(&pend_b);
	pthread_cancel(t);
	struct timespec at;
	clock_gettime(CLOCK_REALTIME, &at);
	at.tv_nsec += 300000000;
	if (at.tv_nsec >= 1000000000) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000;
	}
	void *rv = NULL;
	int r = pthread_timedjoin_np(t, &rv, &at);
	printf("pending: %s%s\n", strerror(r), r == 0 && rv == PTHREAD_CANCELED ? " (cancelled)" : "");
	pthread_create(&t, NULL, create_pending, (void *)(long)n);
	pthread_barrier_wait(&pend_b);
	pthread_cancel(t);
	pthread_barrier_wait(&pend_b);
	pthread_join(t, &rv);
	printf("created %ld, returned %s\n", (long)pend_created, rv == PTHREAD_CANCELED ? "cancelled" : rv == (void *)7 ? "7" : "?");
	usleep(100000); /* the detached ones end */
}

static void async_cancel(int n)
{
	int ok = 0;
	for (int k = 0; k < n; k++) {
		pthread_t t[3];
		for (int i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, yield_forever, (void *)1);
		usleep(200);
		for (int i = 0; i < 3; i++) {
			void *rv = NULL;
			pthread_cancel(t[i]);
			pthread_join(t[i], &rv);
			ok += rv == PTHREAD_CANCELED;
		}
		pthread_t x;
		pthread_create(&x, NULL, plain, NULL);
		pthread_join(x, NULL);
	}
	printf("cancelled %d\n", ok);
}

static void *nap(void *arg)
{
	usleep(800000);
	return arg;
}

/* race: a data race of the program's own. */
static int race_counter;
static void *racer(void *arg)
{
	for (long i = 0; i < (long)arg; i++)
		race_counter++;
	return NULL;
}

/* recycle: each thread notes its tid; the odd ones yield (events). */
struct recycle_arg {
	pid_t tid;
	int yields;
};

static void *recycled(void *arg)
{
	struct recycle_arg *a = arg;
	a->tid = gettid();
	for (int i = 0; i < a->yields; i++)
		sched_yield();
	return NULL;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

static int recycle(int n)
{
	pid_t *tids = calloc((size_t)n + 1, sizeof(*tids));
	int again = 0;
	for (int i = 0; i < n; i++) {
		if (i % 2 && tids[i - 1] > 1) {
			/* The next pid the namespace hands out: the last thread's. */
			int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
			char num[16];
			int len = snprintf(num, sizeof(num), "%d", tids[i - 1] - 1);
			if (fd >= 0) {
				if (write(fd, num, (size_t)len) != len)
					perror("ns_last_pid");
				close(fd);
			}
		}
		struct recycle_arg a = { 0, i % 2 ? 400 : 0 };
		pthread_t t;
		if (pthread_create(&t, NULL, recycled, &a))
			return 4;
		pthread_join(t, NULL);
		tids[i] = a.tid;
		again += i % 2 && tids[i] == tids[i - 1];
	}
	qsort(tids, (size_t)n, sizeof(*tids), cmp_pid);
	int distinct = 0;
	for (int i = 0; i < n; i++)
		distinct += i == 0 || tids[i] != tids[i - 1];
	fprintf(stderr, "recycled %d tids %d\n", again, distinct);
	free(tids);
	return 0;
}

static void *nothing(void *arg)
{
	return arg;
}

/* recycle4: one of the 4 creators. */
static _Atomic int again4;
static int per4;
static pthread_mutex_t last_pid_lock = PTHREAD_MUTEX_INITIALIZER;

static void *recycler(void *arg)
{
	(void)arg;
	pid_t prev = 0;
	for (int i = 0; i < per4; i++) {
		if (prev > 1) {
			char num[16];
			int len = snprintf(num, sizeof(num), "%d", prev - 1);
			/* The write and the start together: another creator's
			 * write between them would take the tid. */
			pthread_mutex_lock(&last_pid_lock);
			int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
			if (fd >= 0) {
				if (write(fd, num, (size_t)len) != len)
					perror("ns_last_pid");
				close(fd);
			}
		} else {
			pthread_mutex_lock(&last_pid_lock);
		}
		struct recycle_arg a = { 0, i % 8 == 7 ? 400 : 0 };
		pthread_t t;
		int r = pthread_create(&t, NULL, recycled, &a);
		pthread_mutex_unlock(&last_pid_lock);
		if (r)
			exit(4);
		pthread_join(t, NULL);
		if (a.tid == prev)
			atomic_fetch_add(&again4, 1);
		prev = a.tid;
	}
	return NULL;
}

static void *wait_go(void *arg)
{
	atomic_store(&started, 1); /* traced by now: the agent starts a thread before its function */
	while (!atomic_load(&go))
		usleep(100);
	work(2000);
	atomic_fetch_add(&ran, 1);
	return arg;
}

/* n threads, 10 at a time, 20 ms between waves: threads end while the
 * program goes on (ovnirun writes their spool slots out meanwhile). */
static void waves(pthread_t *th, int n)
{
	for (int i = 0; i < n; i += 10) {
		int k = n - i < 10 ? n - i : 10;
		for (int j = 0; j < k; j++)
			pthread_create(&th[i + j], NULL, plain, NULL);
		for (int j = 0; j < k; j++)
			pthread_join(th[i + j], NULL);
		usleep(20000);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: threads MODE N\n");
		return 2;
	}
	const char *mode = argv[1];
	ncpus = ncpu();
	int n = atoi(argv[2]);
	pthread_t *th = calloc((size_t)(n > 4 ? n : 4), sizeof(*th));
	int status = 0;

	if (!strcmp(mode, "join") || !strcmp(mode, "chdir") || !strcmp(mode, "exitcode")) {
		if (!strcmp(mode, "chdir") && chdir("/") != 0)
			return 3;
		for (int i = 0; i < n; i++) {
			int r = pthread_create(&th[i], NULL, plain, NULL);
			if (r) {
				fprintf(stderr, "pthread_create %d: %s\n", i, strerror(r));
				return 4;
			}
		}
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		if (!strcmp(mode, "exitcode"))
			status = n;
	} else if (!strcmp(mode, "seq")) {
		for (int i = 0; i < n; i++) {
			pthread_t t;
			if (pthread_create(&t, NULL, nothing, NULL))
				return 4;
			pthread_join(t, NULL);
		}
	} else if (!strcmp(mode, "recycle4")) {
		per4 = n;
		for (int i = 0; i < 4; i++)
			if (pthread_create(&th[i], NULL, recycler, NULL))
				return 4;
		for (int i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
		fprintf(stderr, "recycled %d tids\n", atomic_load(&again4));
	} else if (!strcmp(mode, "waves")) {
		waves(th, n);
	} else if (!strcmp(mode, "wavesexec")) {
		/* Waves, then the same program in their process again (exec),
		 * with waves of its own: its spool ends with the first image
		 * and the second makes another. */
		waves(th, n);
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "waves", argv[2], (char *)NULL);
		return 6;
	} else if (!strcmp(mode, "detach")) {
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], &attr, plain, NULL);
		while (atomic_load(&ran) < n)
			usleep(1000);
		usleep(20000); /* let them finish exiting */
	} else if (!strcmp(mode, "exit")) {
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], NULL, exiting, NULL);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
	} else if (!strcmp(mode, "cancel")) {
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], NULL, blocked, NULL);
		while (atomic_load(&ran) < n)
			usleep(1000);
		for (int i = 0; i < n; i++) {
			void *ret;
			pthread_cancel(th[i]);
			pthread_join(th[i], &ret);
			if (ret != PTHREAD_CANCELED)
				return 5;
		}
	} else if (!strcmp(mode, "alive")) {
		for (long i = 0; i < n; i++)
			pthread_create(&th[i], NULL, forever, (void *)i);
		while (atomic_load(&ran) < n)
			usleep(1000);
		usleep(10000);
	} else if (!strcmp(mode, "createfail")) {
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, (size_t)1 << 46);
		for (int i = 0; i < n; i++) {
			pthread_t t;
			errno = 0;
			int r = pthread_create(&t, &at, plain, NULL);
			int e = errno;
			printf("create %d: %s, errno %s\n", i, strerror(r), strerror(e));
			if (r == 0)
				pthread_join(t, NULL);
		}
		pthread_attr_destroy(&at);
	} else if (!strcmp(mode, "pending")) {
		pending(n);
	} else if (!strcmp(mode, "async")) {
		async_cancel(n);
	} else if (!strcmp(mode, "nap")) {
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], NULL, nap, NULL);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
	} else if (!strcmp(mode, "race")) {
		pthread_t r[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&r[i], NULL, racer, (void *)(long)n);
		for (int i = 0; i < 2; i++)
			pthread_join(r[i], NULL);
	} else if (!strcmp(mode, "recycle")) {
		status = recycle(n);
	} else if (!strcmp(mode, "names")) {
		/* The main thread named n times, each name new. */
		for (long i = 0; i < n; i++) {
			char name[16];
			snprintf(name, sizeof(name), "m%ld", i);
			pthread_setname_np(pthread_self(), name);
		}
	} else if (!strcmp(mode, "sleeps")) {
		/* n short sleeps on the main thread: a known amount of events
		 * (each one a recorded wait). */
		for (long i = 0; i < n; i++)
			usleep(1);
	} else if (!strcmp(mode, "nested")) {
		pthread_t root;
		pthread_create(&root, NULL, tree, (void *)(long)n);
		pthread_join(root, NULL);
	} else if (!strcmp(mode, "burst")) {
		/* One CPU: a creator makes many threads before they first run. */
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
		sched_setaffinity(0, sizeof(one), &one);
		pthread_attr_t rt;
		sched_attr(&rt, SCHED_FIFO, 1);
		for (long i = 0; i < 4; i++)
			if (pthread_create(&th[i], &rt, burst, (void *)(long)n) != 0 &&
			    pthread_create(&th[i], NULL, burst, (void *)(long)n) != 0)
				return 7;
		for (int i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
		if (atomic_load(&ran) != 4 * n)
			return 8;
	} else if (!strcmp(mode, "mainexit")) {
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], NULL, late, NULL);
		printf("done %s %d\n", mode, n);
		fflush(stdout);
		atomic_store(&go, 1);
		pthread_exit(NULL);
	} else if (!strcmp(mode, "exitrace")) {
		/* Return from main while a thread runs and detached threads
		 * may still be starting (the process ends under them). */
		pthread_create(&th[0], NULL, forever, NULL);
		pthread_attr_t a;
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		for (int i = 1; i < n; i++) {
			pthread_t d;
			pthread_create(&d, &a, forever, (void *)(long)i);
		}
		printf("done %s %d\n", mode, n);
		return 0;
	} else if (!strcmp(mode, "pin")) {
		int c = ncpu();
		for (long i = 0; i < n; i++)
			pthread_create(&th[i], NULL, pin_self, (void *)(i % c));
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		/* Pin a thread from outside, before and after it starts. */
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(c - 1, &set);
		pthread_t t;
		pthread_create(&t, NULL, wait_go, NULL);
		pthread_setaffinity_np(t, sizeof(set), &set);
		/* Pinned again once it runs (a 5 ms sleep was not always
		 * enough under load: then no OAr). */
		while (!atomic_load(&started))
			usleep(100);
		CPU_ZERO(&set);
		CPU_SET(0, &set);
		pthread_setaffinity_np(t, sizeof(set), &set);
		atomic_store(&go, 1);
		pthread_join(t, NULL);
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	printf("done %s %d\n", mode, n);
	return status;
}
