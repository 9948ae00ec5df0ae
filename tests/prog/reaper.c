/* A parent that reaps children which end without finishing their streams
 * (issue 30: the parent that reaps a traced child finishes them).
 *   reaper handler   4 children, reaped by waitpid(-1, WNOHANG) in a SIGCHLD
 *                    handler while the main thread waits in sigsuspend
 *   reaper waitid    the same, reaped in the main thread: waitid(WNOWAIT)
 *                    first, then wait4
 * Each child starts a second thread, waits until it runs, then: child 0
 * SIGKILLs itself, child 1
 * ends with a raw exit_group(5), child 2 exits normally with status 2,
 * child 3 is killed by SIGTERM (default action).  Prints each child's
 * number and how it ended, in child order. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 4
static pid_t kids[N];
static volatile sig_atomic_t reaped, statuses[N];

static sem_t started;

static void *idle(void *p)
{
	(void)p;
	sem_post(&started); /* running: its stream exists (OHx written) */
	for (;;)
		pause();
	return NULL;
}

static void child(int k)
{
	pthread_t th;
	sem_init(&started, 0, 0);
	pthread_create(&th, NULL, idle, NULL);
	while (sem_wait(&started) != 0)
		;
	usleep(20000);
	switch (k) {
	case 0: raise(SIGKILL); break;
	case 1: syscall(SYS_exit_group, 5); break;
	case 2: exit(2);
	case 3: raise(SIGTERM); break;
	}
	_exit(99);
}

static void record(pid_t pid, int st)
{
	for (int k = 0; k < N; k++)
		if (kids[k] == pid) {
			statuses[k] = st;
			reaped++;
		}
}

static void on_chld(int s)
{
	(void)s;
	int saved = errno, st;
	pid_t pid;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		record(pid, st);
	errno = saved;
}

int main(int argc, char **argv)
{
	int handler = argc < 2 || strcmp(argv[1], "waitid");
	sigset_t chld, old;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (handler) {
		struct sigaction sa = { .sa_handler = on_chld, .sa_flags = SA_RESTART };
		sigaction(SIGCHLD, &sa, NULL);
		sigprocmask(SIG_BLOCK, &chld, &old);
	}
	for (int k = 0; k < N; k++) {
		kids[k] = fork();
		if (kids[k] == 0)
			child(k);
	}
	if (handler) {
		while (reaped < N)
			sigsuspend(&old);
	} else {
		while (reaped < N) {
			siginfo_t si;
			memset(&si, 0, sizeof(si));
			if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) != 0)
				break;
			int st;
			struct rusage ru;
			pid_t pid = wait4(si.si_pid, &st, 0, &ru);
			if (pid > 0)
				record(pid, st);
		}
	}
	for (int k = 0; k < N; k++) {
		int st = statuses[k];
		if (WIFSIGNALED(st))
			printf("child %d: signal %d\n", k, WTERMSIG(st));
		else
			printf("child %d: exit %d\n", k, WEXITSTATUS(st));
	}
	return 0;
}
