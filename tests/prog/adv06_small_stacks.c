/* 8 threads with PTHREAD_STACK_MIN (16384) stacks.  With "exit": 50 short
 * threads (in the agent's spool), then one with such a stack calls exit(7)
 * (the agent's end runs on it: its spool pass once took 18.9 KiB there,
 * SIGSEGV). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void *nop(void *a) { return a; }
static void *leave(void *a) { (void)a; fflush(stdout); exit(7); }
static void *work(void *a) {
	long n = (long)a, s = 0;
	for (long i = 0; i < 100000; i++) s += i % (n + 3);
	printf("thread %ld sum %ld\n", n, s);
	return NULL;
}
int main(int argc, char **argv) {
	pthread_attr_t at;
	pthread_attr_init(&at);
	int e = pthread_attr_setstacksize(&at, 16384);
	if (e) { printf("setstacksize %d\n", e); return 1; }
	if (argc > 1 && !strcmp(argv[1], "exit")) {
		for (int i = 0; i < 50; i++) {
			pthread_t t;
			if ((e = pthread_create(&t, NULL, nop, NULL))) { printf("create %d\n", e); return 1; }
			pthread_join(t, NULL);
		}
		printf("50 joined\n");
		pthread_t t;
		if ((e = pthread_create(&t, &at, leave, NULL))) { printf("create %d\n", e); return 1; }
		pthread_join(t, NULL);
		return 0;
	}
	pthread_t t[8];
	for (long i = 0; i < 8; i++)
		if ((e = pthread_create(&t[i], &at, work, (void *)i))) { printf("create %d\n", e); return 1; }
	for (int i = 0; i < 8; i++) pthread_join(t[i], NULL);
	return 0;
}
