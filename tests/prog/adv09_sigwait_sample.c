/* Block everything, alarm(1), sigwait/signalfd on a full set: expect 14. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	volatile double x = 0;
	for (double t0 = now(); now() - t0 < 0.05;) x += 1;
	alarm(1);
	int sig = -1;
	if (argc > 1 && !strcmp(argv[1], "signalfd")) {
		int fd = signalfd(-1, &all, 0);
		struct signalfd_siginfo si;
		if (read(fd, &si, sizeof si) == sizeof si) sig = si.ssi_signo;
	} else {
		sigwait(&all, &sig);
	}
	printf("signal %d\n", sig);
	return 0;
}
