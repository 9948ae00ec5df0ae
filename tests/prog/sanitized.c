/* sanitized.c: built by t413 with a sanitizer (gcc's AddressSanitizer,
 * clang's MemorySanitizer): four threads that allocate, a child that runs
 * `sh -c 'echo child'`, its status; with an argument, a heap overflow
 * (AddressSanitizer reports it and exits 1). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *work(void *arg)
{
	char *p = malloc(32);
	memset(p, 'a', 32);
	long n = p[31];
	free(p);
	return (void *)(n + (long)arg);
}

int main(int argc, char **argv)
{
	(void)argv;
	pthread_t t[4];
	long sum = 0;
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("threads %ld\n", sum);
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		execlp("sh", "sh", "-c", "echo child", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(c, &st, 0);
	printf("child status %d\n", WEXITSTATUS(st));
	if (argc > 1) {
		volatile char *q = malloc(8);
		q[8] = 1; /* one past the end */
		printf("overflow %d\n", q[8]);
	}
	return 0;
}
