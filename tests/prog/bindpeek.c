/* bindpeek.c: a program that defines functions the agent calls (getsid,
 * getpgid), as a program may define any libc name, and exports them (-rdynamic):
 * the loader binds the agent's calls to the program's definitions, and the
 * agent binding its imports itself must too, whether it looks them up or
 * takes what its traced parent bound (OVNI_BIND, preload/real.c).  Each
 * definition counts its calls and does the real work; main prints the
 * counts (the agent's calls made before main, at its start).
 * usage: bindpeek [exec CMD...]: print, then exec CMD if given. */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static int sid_calls, pgid_calls;

pid_t getsid(pid_t pid)
{
	sid_calls++;
	return (pid_t)syscall(SYS_getsid, pid);
}

pid_t getpgid(pid_t pid)
{
	pgid_calls++;
	return (pid_t)syscall(SYS_getpgid, pid);
}

int main(int argc, char **argv)
{
	printf("getsid %d getpgid %d\n", sid_calls, pgid_calls);
	fflush(stdout);
	if (argc > 2) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	return 0;
}
