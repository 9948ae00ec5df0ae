/* spin.c: CPU-bound named functions for the sampling tests: two threads run
 * busy_alpha, the main thread busy_beta, for about 300 ms of CPU each, and
 * a sleep in between (which the CPU-time timers must not interrupt). */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void busy_alpha(double ms)
{
	double end = cpu_ms() + ms;
	while (cpu_ms() < end)
		for (int i = 0; i < 1000; i++)
			sink += i * 0.5;
}

__attribute__((noinline)) static void busy_beta(double ms)
{
	double end = cpu_ms() + ms;
	while (cpu_ms() < end)
		for (int i = 0; i < 1000; i++)
			sink -= i * 0.25;
}

static void *worker(void *arg)
{
	busy_alpha(300);
	return arg;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	busy_beta(300);
	struct timespec ts = { 0, 50000000 };
	int r = nanosleep(&ts, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("spin done, sleep %d\n", r);
	return 0;
}
