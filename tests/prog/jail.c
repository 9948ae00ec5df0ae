/* chroot into an empty directory (argv[1]), then start and join a thread
 * and exit: the trace must stay outside, the jail empty.  Root only. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *work(void *p) { usleep(10000); return p; }

int main(int argc, char **argv)
{
	if (argc < 2 || chroot(argv[1]) != 0 || chdir("/") != 0) {
		perror("chroot");
		return 1;
	}
	pthread_t t;
	pthread_create(&t, NULL, work, NULL);
	pthread_join(t, NULL);
	printf("jailed\n");
	return 0;
}
