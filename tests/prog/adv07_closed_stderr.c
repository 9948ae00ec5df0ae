/* Run with fd 2 closed: the file opened first should get fd 2. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-result"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-variable"
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	printf("fd=%d\n", fd);
	fflush(stdout);
	write(fd, "hello\n", 6);
	int r = fprintf(stderr, "to-stderr\n");
	fflush(stderr);
	printf("fprintf=%d\n", r < 0 ? -1 : r);
	return 0;
}
