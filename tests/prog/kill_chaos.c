/* kill_chaos US SEED: threads come and go (created and joined in small
 * batches by two creator threads, some detached, all taking one mutex), a
 * child process does the same and exits by itself, and a second child
 * sends SIGKILL to the process after US microseconds: wherever the kill
 * lands (a thread starting, ending, outgrowing its spool slot, in a wait),
 * the trace must be valid once ovnirun returns.  Prints nothing. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile long sink;

static void *work(void *p)
{
	long n = (long)p;
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		sink += i;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void *creator(void *p)
{
	unsigned seed = (unsigned)(long)p;
	for (;;) {
		pthread_t t[4];
		int k = 1 + rand_r(&seed) % 4;
		for (int i = 0; i < k; i++)
			pthread_create(&t[i], NULL, work, (void *)(long)(rand_r(&seed) % 2000));
		for (int i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		if (rand_r(&seed) % 8 == 0) {
			pthread_t d;
			if (pthread_create(&d, NULL, work, (void *)10L) == 0)
				pthread_detach(d);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long us = argc > 1 ? atol(argv[1]) : 10000;
	unsigned seed = argc > 2 ? (unsigned)atoi(argv[2]) : 1;
	pid_t me = getpid();
	if (fork() == 0) {
		struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
		nanosleep(&ts, NULL);
		kill(me, SIGKILL);
		_exit(0);
	}
	if (fork() == 0) {
		pthread_t t;
		pthread_create(&t, NULL, creator, (void *)(long)(seed + 7));
		usleep(20000 + rand_r(&seed) % 40000);
		exit(0);
	}
	pthread_t a, b;
	pthread_create(&a, NULL, creator, (void *)(long)seed);
	pthread_create(&b, NULL, creator, (void *)(long)(seed * 3 + 1));
	for (;;)
		pause();
}
