/* A child made with glibc's clone(fn, stack, SIGCHLD, arg): no fork handler
 * runs in it.  It starts a thread, joins it, sleeps 50 ms (recorded waits),
 * and returns 7; the parent waits for it and prints its status.
 * usage: clonechild [fork|clone|clone3]: the child made with a raw
 * syscall(SYS_fork), syscall(SYS_clone, SIGCHLD, 0...) or syscall(SYS_clone3)
 * instead (sandboxes such as bubblewrap do), the parent working meanwhile
 * too (2000 yields, a thread).  clonechild vmexit: a child made with
 * clone(CLONE_VM | SIGCHLD) (our memory, not a thread) that ends by exit(7),
 * which runs the process's exit handlers and the loader's destructors on
 * the parent's lists; the parent then starts 3 threads and a fork child
 * (which sleeps, then _exit(3)) and prints both statuses.  clonechild
 * vmwork: a clone(CLONE_VM | SIGCHLD) child that starts a thread, joins it,
 * forks a child (_exit(5)) and returns 6; it prints its pid and its fork
 * child's, the parent both statuses. */
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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

static void work(void)
{
	for (int i = 0; i < 2000; i++)
		sched_yield();
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
}

static int raw(const char *how)
{
	long pid;
	if (!strcmp(how, "fork")) {
		pid = syscall(SYS_fork);
	} else if (!strcmp(how, "clone")) {
		pid = syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
	} else {
		struct clone_args ca;
		memset(&ca, 0, sizeof(ca));
		ca.exit_signal = SIGCHLD;
		pid = syscall(SYS_clone3, &ca, sizeof(ca));
	}
	if (pid < 0) {
		perror(how);
		return 1;
	}
	if (pid == 0) {
		work();
		_exit(child(NULL));
	}
	work();
	int st;
	waitpid((pid_t)pid, &st, 0);
	printf("child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}

static int vm_child(void *arg)
{
	(void)arg;
	exit(7);
}

/* fn run by a clone(CLONE_VM | SIGCHLD) child, waited for, its status
 * printed: 0, or 1 when it could not be made. */
static int vm_clone(int (*fn)(void *))
{
	size_t size = 1 << 20;
	char *stack = malloc(size);
	int st, pid = clone(fn, stack + size, CLONE_VM | SIGCHLD, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	printf("vm child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}

static int vmexit(void)
{
	int st;
	if (vm_clone(vm_child))
		return 1;
	for (int i = 0; i < 3; i++) {
		pthread_t t;
		pthread_create(&t, NULL, worker, NULL);
		pthread_join(t, NULL);
	}
	pid_t f = fork();
	if (f == 0) {
		usleep(1000);
		_exit(3);
	}
	waitpid(f, &st, 0);
	printf("fork child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}

static int vm_work(void *arg)
{
	(void)arg;
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	int st;
	pid_t f = fork();
	if (f == 0)
		_exit(5);
	waitpid(f, &st, 0);
	printf("vm child %d: its fork child %d status %d\n", (int)getpid(), (int)f, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	fflush(stdout);
	return 6;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "vmexit"))
		return vmexit();
	if (argc > 1 && !strcmp(argv[1], "vmwork"))
		return vm_clone(vm_work);
	if (argc > 1)
		return raw(argv[1]);
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
