/* runt.c: run a command, print its wall time and the CPU time (user +
 * system) of it and all its children, in seconds, and their page faults
 * (minor and major): "WALL CPU FAULTS".  cost.sh reports all three: on a
 * small or shared machine the wall time of a short run follows the
 * scheduler as much as the work, the CPU time much less, and the page
 * faults not at all (on a VM, where a new page costs 10-20 us, they are
 * much of what the agent costs).
 * Usage: runt CMD [ARGS...]   (its output goes where the caller sends it) */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: runt CMD [ARGS...]\n");
		return 2;
	}
	double start = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("runt: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("runt: exec");
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("runt: wait4");
		return 2;
	}
	double wall = now() - start;
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
		     (double)ru.ru_stime.tv_usec / 1e6;
	printf("%.4f %.4f %ld\n", wall, cpu, ru.ru_minflt + ru.ru_majflt);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
