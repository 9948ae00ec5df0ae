/* Another thread's closes and dup2s against the agent's descriptors: two
 * threads create and join threads without a pause (each start and end is
 * agent file work), while the main thread closes a range and opens its own
 * file under the numbers just freed (argv[1] "range": close_range(3, 64),
 * then open, fstat, close), or dup2s a descriptor of its own over 3-8 and
 * closes them ("dup2"), or the same through syscall() ("syscall").  The
 * agent's descriptor closed under it, or the program's file written by
 * the agent, shows as an error of the program's calls or a changed file.
 * Prints "errors N intact 1|0"; the same untraced and traced. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int stop;

static void *nothing(void *p)
{
	return p;
}

static void *churn(void *p)
{
	while (!atomic_load(&stop)) {
		pthread_t t;
		if (pthread_create(&t, NULL, nothing, NULL) == 0)
			pthread_join(t, NULL);
	}
	return p;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "range";
	int rounds = argc > 2 ? atoi(argv[2]) : 20000;
	unsigned char want[1024];
	for (int i = 0; i < 1024; i++)
		want[i] = (unsigned char)i;
	int fd = open("data.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, want, sizeof(want)) != (ssize_t)sizeof(want) || close(fd) != 0) {
		perror("data.bin");
		return 2;
	}
	pthread_t c[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, churn, NULL);
	int errors = 0;
	int mine = -1;
	if (strcmp(how, "range")) {
		mine = open("data.bin", O_RDONLY);
		int high = fcntl(mine, F_DUPFD, 100);
		close(mine);
		mine = high;
	}
	for (int r = 0; r < rounds; r++) {
		if (!strcmp(how, "range")) {
			syscall(SYS_close_range, 3, 64, 0);
			int f = open("data.bin", O_RDWR);
			struct stat st;
			if (f < 0 || fstat(f, &st) != 0 || st.st_size != sizeof(want) || close(f) != 0)
				errors++;
		} else {
			for (int n = 3; n <= 8; n++) {
				int d = !strcmp(how, "dup2") ? dup2(mine, n) : (int)syscall(SYS_dup3, mine, n, 0);
				if (d != n)
					errors++;
			}
			for (int n = 3; n <= 8; n++)
				if ((!strcmp(how, "dup2") ? close(n) : (int)syscall(SYS_close, n)) != 0)
					errors++;
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(c[i], NULL);
	unsigned char got[2048];
	fd = open("data.bin", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, got, sizeof(got));
	printf("errors %d intact %d\n", errors, n == (ssize_t)sizeof(want) && !memcmp(got, want, sizeof(want)));
	return 0;
}
