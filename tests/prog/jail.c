/* chroot into an empty directory (argv[1]), then start and join a thread
 * and exit: the trace must stay outside, the jail empty.  Root only.
 * With a second argument "nobody", it then becomes user 65534 (the
 * privilege separation of vsftpd or named: chroot, then setuid) before
 * its thread, and forks a child that starts a thread too: the trace
 * stays writable for that user (its directories handed over through the
 * anchor, not by a path the jail hides). */
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *work(void *p) { usleep(10000); return p; }

static void one_thread(void)
{
	pthread_t t;
	pthread_create(&t, NULL, work, NULL);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 2 || chroot(argv[1]) != 0 || chdir("/") != 0) {
		perror("chroot");
		return 1;
	}
	int nobody = argc > 2 && !strcmp(argv[2], "nobody");
	if (nobody && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) {
		perror("setuid");
		return 1;
	}
	one_thread();
	if (nobody) {
		pid_t p = fork();
		if (p == 0) {
			one_thread();
			_exit(3);
		}
		int st = 0;
		waitpid(p, &st, 0);
		printf("uid %d, child %d\n", (int)getuid(), WEXITSTATUS(st));
	}
	printf("jailed\n");
	return 0;
}
