/* workers.c: the bundled example traced by `./run-example.sh`.
 * A main thread starts a pool of workers that sum parts of an array, one
 * helper thread that outlives them, and joins the workers. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NWORKERS 4
#define N (1 << 22)

static double *data;

struct part {
	int first, last;
	double sum;
};

static void *sum_part(void *arg)
{
	struct part *p = arg;
	for (int i = p->first; i < p->last; i++)
		p->sum += data[i] * data[i];
	return NULL;
}

static void *ticker(void *arg)
{
	(void)arg;
	for (;;)
		usleep(1000); /* still running when the program exits */
	return NULL;
}

int main(void)
{
	data = malloc(sizeof(double) * N);
	for (int i = 0; i < N; i++)
		data[i] = (double)(i % 1000) / 1000.0;
	pthread_t tick, th[NWORKERS];
	struct part parts[NWORKERS];
	pthread_create(&tick, NULL, ticker, NULL);
	for (int round = 0; round < 3; round++) {
		for (int w = 0; w < NWORKERS; w++) {
			parts[w] = (struct part){ w * (N / NWORKERS), (w + 1) * (N / NWORKERS), 0.0 };
			pthread_create(&th[w], NULL, sum_part, &parts[w]);
		}
		double total = 0;
		for (int w = 0; w < NWORKERS; w++) {
			pthread_join(th[w], NULL);
			total += parts[w].sum;
		}
		printf("round %d: sum of squares = %.3f\n", round, total);
	}
	return 0;
}
