/* siglongjmp out of SIGALRM handler that interrupted sleep(5), then compute 0.5 s. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static sigjmp_buf env;
static void h(int s) { (void)s; siglongjmp(env, 1); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(void) {
	signal(SIGALRM, h);
	if (sigsetjmp(env, 1) == 0) {
		alarm(1);
		sleep(5);
		printf("sleep returned\n");
	} else {
		printf("jumped\n");
	}
	volatile double x = 0;
	for (double t0 = now(); now() - t0 < 0.5;) x += 1;
	printf("done\n");
	return 0;
}
