/* create.c: pthread_create + pthread_join of a thread that returns at once.
 * usage: create [N]  (prints microseconds per create+join). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *nothing(void *a)
{
	return a;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		pthread_create(&t, NULL, nothing, NULL);
		pthread_join(t, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / n;
	printf("%.2f us per create+join (%d threads)\n", us, n);
	return 0;
}
