/* exit(0) from three threads at once. */
#include <pthread.h>
#include <stdlib.h>
static pthread_barrier_t b;
static void *f(void *a) { pthread_barrier_wait(&b); exit(0); return a; }
int main(void) {
	pthread_t t[3];
	pthread_barrier_init(&b, NULL, 3);
	for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, f, NULL);
	for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
	return 1;
}
