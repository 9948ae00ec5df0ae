/* A server that drops root: a thread as root, then setgid/setuid(65534)
 * (nobody), then new threads, a fork whose child starts threads too, and a
 * normal exit.  Prints what it is; root only. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void *work(void *p) { usleep(10000); return p; }

static void threads(int n)
{
	pthread_t t[8];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

int main(void)
{
	threads(1);
	if (setgid(65534) != 0 || setuid(65534) != 0) {
		perror("drop");
		return 1;
	}
	printf("uid %d\n", (int)getuid());
	fflush(stdout);
	threads(2);
	pid_t c = fork();
	if (c == 0) {
		threads(2);
		printf("child uid %d\n", (int)getuid());
		return 0;
	}
	int st;
	waitpid(c, &st, 0);
	return WEXITSTATUS(st);
}
