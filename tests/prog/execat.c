/* execat [MODE]: exec after printing, in one of these ways:
 *   (none)   execveat(dirfd, "bin/true") relative to an open /usr;
 *   raw      syscall(SYS_execve, "/bin/true"), the system call itself;
 *   rawat    syscall(SYS_execveat, dirfd of /usr, "bin/true");
 *   preload  execve of `sh -c 'echo "$LD_PRELOAD"'` with an environment
 *            that has two LD_PRELOAD entries (the loader takes the last:
 *            a second, empty one here). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int d = open("/usr", O_PATH | O_DIRECTORY);
	printf("before\n");
	fflush(stdout);
	char *args[] = { "true", NULL }, *envp[] = { NULL };
	if (!strcmp(mode, "raw")) {
		syscall(SYS_execve, "/bin/true", args, envp);
	} else if (!strcmp(mode, "rawat")) {
		syscall(SYS_execveat, d, "bin/true", args, envp, 0);
	} else if (!strcmp(mode, "preload")) {
		char *sh[] = { "sh", "-c", "echo \"preload=[$LD_PRELOAD]\"", NULL };
		char *env2[] = { "LD_PRELOAD=/nonexistent/first.so", "LD_PRELOAD=", NULL };
		execve("/bin/sh", sh, env2);
	} else {
		execveat(d, "bin/true", args, envp, 0);
	}
	perror("exec");
	return 1;
}
