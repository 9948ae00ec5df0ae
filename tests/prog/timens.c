/* timens.c: a process that makes a time namespace with its monotonic clock
 * moved (argv[1] seconds, default 5000) and forks into it without an exec
 * (unshare(CLONE_NEWTIME), its offsets written, fork); the child starts two
 * threads, the parent one, each reading CLOCK_MONOTONIC.  Prints whether
 * the child's clock was moved ("moved 1") and "done".  Exit 3 when the
 * kernel has no time namespaces or forbids them (the test skips). */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	volatile double s = 0;
	for (int i = 0; i < 1000; i++)
		s += mono();
	usleep(1000);
	return arg;
}

int main(int argc, char **argv)
{
	long secs = argc > 1 ? atol(argv[1]) : 5000;
	if (unshare(CLONE_NEWTIME) != 0)
		return 3;
	int fd = open("/proc/self/timens_offsets", O_WRONLY);
	char line[64];
	int n = snprintf(line, sizeof(line), "monotonic %ld 0\n", secs);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		return 3;
	close(fd);
	double before = mono();
	int p[2];
	if (pipe(p) != 0)
		return 1;
	pid_t c = fork();
	if (c == 0) {
		double d = mono() - before;
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, work, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		char ok = d > secs / 2.0 || d < -secs / 2.0 ? '1' : '0';
		if (write(p[1], &ok, 1) != 1)
			_exit(1);
		_exit(0);
	}
	pthread_t t;
	pthread_create(&t, NULL, work, NULL);
	pthread_join(t, NULL);
	char ok = '?';
	int st;
	if (read(p[0], &ok, 1) != 1 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("moved %c\ndone\n", ok);
	return 0;
}
