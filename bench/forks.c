/* forks.c: what a fork costs the parent and its child: N times fork, then
 * in the child _exit(0) (MODE 0) or execl("/bin/true") (MODE 1), and
 * waitpid.  Prints "NAME: X us per fork" (or "per fork+exec").  Run it
 * untraced and under ovnirun, same run, and compare (bench/README.md, the
 * ninth session's table); `perf record -e page-faults` over it shows
 * which pages the parent, the fork child and the exec'd image copy.
 * Usage: forks N MODE NAME */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: forks N MODE(0: _exit, 1: exec /bin/true) NAME\n");
		return 2;
	}
	int n = atoi(argv[1]), mode = atoi(argv[2]);
	double t0 = now();
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0) {
			perror("forks: fork");
			return 1;
		}
		if (p == 0) {
			if (mode == 1)
				execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		int st;
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "forks: child %d failed\n", (int)p);
			return 1;
		}
	}
	printf("%s: %.1f us per fork%s\n", argv[3], (now() - t0) / 1e3 / n, mode ? "+exec" : "");
	return 0;
}
