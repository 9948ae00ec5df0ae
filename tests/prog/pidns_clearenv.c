/* A process that clears its environment, then starts a child in a new PID
 * namespace (clone(CLONE_NEWPID), as firejail's sandbox init is made): the
 * child, pid 1 there, starts a thread and a process of its own and ends.
 * Prints "child 1 ok" and "status 0".  Root only (CLONE_NEWPID). */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *work(void *a)
{
	return a;
}

static int child(void *arg)
{
	(void)arg;
	pthread_t t;
	if (pthread_create(&t, NULL, work, NULL))
		return 5;
	pthread_join(t, NULL);
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	int st;
	waitpid(p, &st, 0);
	printf("child %d ok\n", (int)getpid());
	fflush(stdout);
	return 0;
}

int main(void)
{
	clearenv();
	static char stack[256 * 1024];
	pid_t p = clone(child, stack + sizeof(stack), CLONE_NEWPID | SIGCHLD, NULL);
	if (p < 0) {
		perror("clone");
		return 77;
	}
	int st;
	waitpid(p, &st, 0);
	printf("status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}
