/* siginterrupt(SIGALRM,1) must make read() on an idle pipe fail with EINTR. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static void h(int s) { (void)s; }
int main(void) {
	int fd[2];
	char c;
	pipe(fd);
	signal(SIGALRM, h);
	siginterrupt(SIGALRM, 1);
	alarm(1);
	ssize_t r = read(fd[0], &c, 1);
	printf("read=%zd errno=%s\n", r, r < 0 ? strerror(errno) : "-");
	return 0;
}
