/* 8 threads with PTHREAD_STACK_MIN (16384) stacks. */
#include <pthread.h>
#include <stdio.h>
static void *work(void *a) {
	long n = (long)a, s = 0;
	for (long i = 0; i < 100000; i++) s += i % (n + 3);
	printf("thread %ld sum %ld\n", n, s);
	return NULL;
}
int main(void) {
	pthread_attr_t at;
	pthread_attr_init(&at);
	int e = pthread_attr_setstacksize(&at, 16384);
	if (e) { printf("setstacksize %d\n", e); return 1; }
	pthread_t t[8];
	for (long i = 0; i < 8; i++)
		if ((e = pthread_create(&t[i], &at, work, (void *)i))) { printf("create %d\n", e); return 1; }
	for (int i = 0; i < 8; i++) pthread_join(t[i], NULL);
	return 0;
}
