/* execveat(dirfd, "bin/true") relative to an open /usr, after printing. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	int d = open("/usr", O_PATH | O_DIRECTORY);
	printf("before\n");
	fflush(stdout);
	char *argv[] = { "true", NULL }, *envp[] = { NULL };
	execveat(d, "bin/true", argv, envp, 0);
	perror("execveat");
	return 1;
}
