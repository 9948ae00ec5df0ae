/* vfork child _exit(7) or execl /bin/true; parent prints status. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
	int ex = argc > 1 && !strcmp(argv[1], "exec");
	pid_t p = vfork();
	if (p == 0) {
		if (ex) execl("/bin/true", "true", (char *)0);
		_exit(7);
	}
	int st;
	waitpid(p, &st, 0);
	printf("child exited=%d status=%d\n", WIFEXITED(st), WEXITSTATUS(st));
	return 0;
}
