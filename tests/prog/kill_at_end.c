/* kill_at_end STEPS: the process returns from main while a child it forked
 * spins STEPS x 100 ns and then sends it SIGKILL, so that the kill lands
 * somewhere in the agent's end of the process (a few tens of microseconds)
 * or after it.  Prints nothing. */
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 0;
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
