/* sync_lock.c: the cost of an uncontended pthread_mutex_lock/unlock pair,
 * and of a contended one (T threads, 2 by default, on one mutex, each
 * lock/inc/unlock N/10 times).  usage: sync_lock [N [T]]
 * With N = 0 only the contended part runs (T threads x 200000 pairs). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n, per;
static volatile long counter;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void *contend(void *arg)
{
	for (long i = 0; i < per; i++) {
		pthread_mutex_lock(&m);
		counter++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 20000000;
	int nt = argc > 2 ? atoi(argv[2]) : 2;
	if (nt < 1 || nt > 1024)
		nt = 2;
	per = n ? n / 10 : 200000;
	double best = 1e30;
	for (int r = 0; n && r < 5; r++) {
		double t0 = now();
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		double ns = (now() - t0) / (double)n;
		if (ns < best)
			best = ns;
	}
	pthread_t th[1024];
	double t0 = now();
	for (int i = 0; i < nt; i++)
		pthread_create(&th[i], NULL, contend, NULL);
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	double pair = (now() - t0) / (double)(nt * per);
	if (n)
		printf("uncontended lock+unlock: %.2f ns (best of 5); ", best);
	printf("contended (%d threads): %.1f ns per pair\n", nt, pair);
	return counter == (long)nt * per ? 0 : 1;
}
