/* A child made with glibc's clone(fn, stack, SIGCHLD, arg): no fork handler
 * runs in it.  It starts a thread, joins it, sleeps 50 ms (recorded waits),
 * and returns 7; the parent waits for it and prints its status. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *worker(void *p) { usleep(20000); return p; }

static int child(void *arg)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, arg);
	pthread_join(t, NULL);
	usleep(50000);
	return 7;
}

int main(void)
{
	size_t size = 1 << 20;
	char *stack = malloc(size);
	int pid = clone(child, stack + size, SIGCHLD, NULL);
	if (pid < 0) {
		perror("clone");
		return 1;
	}
	int st;
	waitpid(pid, &st, 0);
	printf("child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
