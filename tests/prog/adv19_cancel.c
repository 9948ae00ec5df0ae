/* Threads cancelled while blocked in the waits the agent records (condition
 * wait, semaphore, join, nanosleep, sleep, pthread_once's routine) and in
 * read(); each runs a cleanup handler.  Prints how many were cancelled and
 * how many cleanups ran. */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int fds[2];
static pthread_t forever;
static atomic_int cleanups, started;

static void cleanup(void *arg)
{
	if (arg)
		pthread_mutex_unlock(arg);
	atomic_fetch_add(&cleanups, 1);
}

static void *never(void *p) { (void)p; for (;;) pause(); return NULL; }
static void slow_init(void) { sleep(100); }

static void *waiter(void *p)
{
	long kind = (long)p;
	if (kind == 0) {
		pthread_mutex_lock(&m);
		pthread_cleanup_push(cleanup, &m);
		atomic_fetch_add(&started, 1);
		for (;;)
			pthread_cond_wait(&c, &m);
		pthread_cleanup_pop(0);
	}
	pthread_cleanup_push(cleanup, NULL);
	atomic_fetch_add(&started, 1);
	char b;
	struct timespec ts = { 100, 0 };
	switch (kind) {
	case 1: sem_wait(&sem); break;
	case 2: pthread_join(forever, NULL); break;
	case 3: nanosleep(&ts, NULL); break;
	case 4: sleep(100); break;
	case 5: pthread_once(&once, slow_init); break;
	case 6: if (read(fds[0], &b, 1) < 0) perror("read"); break;
	}
	pthread_cleanup_pop(0);
	return NULL;
}

int main(void)
{
	sem_init(&sem, 0, 0);
	if (pipe(fds) != 0)
		return 1;
	pthread_create(&forever, NULL, never, NULL);
	enum { N = 7 };
	pthread_t th[N];
	for (long i = 0; i < N; i++)
		pthread_create(&th[i], NULL, waiter, (void *)i);
	while (atomic_load(&started) < N)
		usleep(1000);
	usleep(100000); /* all of them blocked */
	int cancelled = 0;
	for (int i = 0; i < N; i++) {
		void *r;
		pthread_cancel(th[i]);
		pthread_join(th[i], &r);
		cancelled += r == PTHREAD_CANCELED;
	}
	printf("cancelled %d, cleanups %d\n", cancelled, atomic_load(&cleanups));
	return 0;
}
