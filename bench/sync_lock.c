/* sync_lock.c: the cost of an uncontended pthread_mutex_lock/unlock pair,
 * and of a contended one (2 threads on one mutex). usage: sync_lock [N] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;
static volatile long counter;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void *contend(void *arg)
{
	for (long i = 0; i < n / 10; i++) {
		pthread_mutex_lock(&m);
		counter++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 20000000;
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		double t0 = now();
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		double ns = (now() - t0) / (double)n;
		if (ns < best)
			best = ns;
	}
	pthread_t a, b;
	double t0 = now();
	pthread_create(&a, NULL, contend, NULL);
	pthread_create(&b, NULL, contend, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("uncontended lock+unlock: %.2f ns (best of 5); contended (2 threads): %.1f ns per pair\n", best,
	       (now() - t0) / (double)(2 * (n / 10)));
	return 0;
}
