/* kill_at_end STEPS [NAMES]: the process returns from main while a child it
 * forked spins STEPS x 100 ns and then sends it SIGKILL, so that the kill
 * lands somewhere in the agent's end of the process (a few tens of
 * microseconds) or after it.  With NAMES, it first gives its thread that
 * many names (a label each in its stream.json: enough of them and the
 * text no longer fits the run's spool, so the end writes the stream to
 * files of its own).  Prints nothing. */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 0;
	long names = argc > 2 ? atol(argv[2]) : 0;
	for (long i = 0; i < names; i++) {
		char name[32];
		snprintf(name, sizeof(name), "kill-%ld", i % 100000);
		name[15] = 0;
		prctl(PR_SET_NAME, name, 0, 0, 0);
	}
	pid_t me = getpid();
	int p[2];
	if (pipe(p) != 0)
		return 1;
	if (fork() == 0) {
		char c;
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		do
			clock_gettime(CLOCK_MONOTONIC, &b);
		while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < steps * 100L);
		kill(me, SIGKILL);
		_exit(0);
	}
	struct timespec ts = { 0, 2000000 };
	nanosleep(&ts, NULL);
	if (write(p[1], "x", 1) != 1)
		return 1;
	return 0;
}
