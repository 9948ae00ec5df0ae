/* Ways a process ends without libc's exit (issue 30, items 9-11), each with
 * a second thread alive:
 *   exit_group   the raw system call (as the Go runtime ends)
 *   quick_exit   quick_exit(4)
 *   daemon       daemon(): the parent leaves through glibc's internal _exit
 *   abort_ret    a SIGABRT handler that returns, then abort()
 *   overflow     unbounded recursion (no alternate stack): SIGSEGV
 *   rtsig        killed by SIGRTMIN+2 (fatal by default)
 *   prof         killed by SIGPROF
 *   kill9        SIGKILL to itself
 *   mainkill [N] the main thread leaves (pthread_exit); another thread
 *                sleeps N times 1 us (recorded waits: with N 1000, more
 *                events than a spool slot holds, so that its stream has
 *                files of its own), then 100 ms, then sends SIGKILL to
 *                the process
 *   daemon2 FILE a daemon that forks twice: the program returns at once;
 *                its child forks the daemon 300 ms later and leaves; the
 *                daemon runs 150 ms without a recorded event (a fork child
 *                that has written nothing), then writes FILE and ends
 *   timerexit    exit(5) on glibc's timer thread (SIGEV_THREAD, 50 ms in)
 *                while the main thread forks children that _exit(4), one
 *                after another, for ever
 * Prints one line first, flushed. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static void *idle(void *p)
{
	(void)p;
	for (;;)
		pause();
	return NULL;
}

static void on_abrt(int s) { (void)s; }

static void *killer(void *p)
{
	long n = (long)p;
	for (long i = 0; i < n; i++)
		usleep(1);
	struct timespec d = { 0, 100 * 1000 * 1000 };
	nanosleep(&d, NULL);
	kill(getpid(), SIGKILL);
	return NULL;
}

static int (*volatile again)(volatile char *, int);

__attribute__((noinline)) static int deep(volatile char *up, int n)
{
	volatile char buf[4096];
	buf[0] = (char)n;
	buf[4095] = up ? up[0] : 0;
	return again(buf, n + 1) + buf[1];
}

static void exit_5(union sigval v)
{
	(void)v;
	exit(5);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit_group";
	pthread_t t;
	pthread_create(&t, NULL, idle, NULL);
	printf("ending by %s\n", how);
	fflush(stdout);
	if (!strcmp(how, "exit_group"))
		syscall(SYS_exit_group, 3);
	else if (!strcmp(how, "quick_exit"))
		quick_exit(4);
	else if (!strcmp(how, "daemon2")) {
		if (fork() != 0)
			return 0;
		struct timespec d = { 0, 300 * 1000 * 1000 };
		nanosleep(&d, NULL);
		setsid();
		if (fork() != 0)
			_exit(0);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do /* busy: no call the agent records */
			clock_gettime(CLOCK_MONOTONIC, &t1);
		while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 150000000L);
		FILE *f = argc > 2 ? fopen(argv[2], "w") : NULL;
		if (f)
			fclose(f);
		_exit(0);
	} else if (!strcmp(how, "daemon")) {
		if (daemon(1, 1) == 0)
			_exit(0); /* the daemon (a child) ends at once */
	} else if (!strcmp(how, "abort_ret")) {
		signal(SIGABRT, on_abrt);
		abort();
	} else if (!strcmp(how, "overflow"))
		return deep(NULL, 0);
	else if (!strcmp(how, "rtsig"))
		raise(SIGRTMIN + 2);
	else if (!strcmp(how, "prof"))
		raise(SIGPROF);
	else if (!strcmp(how, "kill9"))
		raise(SIGKILL);
	else if (!strcmp(how, "timerexit")) {
		timer_t tm;
		struct sigevent ev;
		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_THREAD;
		ev.sigev_notify_function = exit_5;
		struct itimerspec at = { { 0, 0 }, { 0, 50 * 1000 * 1000 } };
		if (timer_create(CLOCK_MONOTONIC, &ev, &tm) != 0 || timer_settime(tm, 0, &at, NULL) != 0)
			return 8;
		for (;;) {
			pid_t c = fork();
			if (c == 0)
				_exit(4);
			if (c > 0)
				waitpid(c, NULL, 0);
		}
	} else if (!strcmp(how, "mainkill")) {
		pthread_t k;
		pthread_create(&k, NULL, killer, (void *)(argc > 2 ? atol(argv[2]) : 0L));
		pthread_exit(NULL);
	}
	return 9;
}
