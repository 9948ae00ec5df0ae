/* posix_spawn the 07 child with fd 2 closed via file actions. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-result"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-variable"
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
extern char **environ;
int main(int argc, char **argv) {
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclose(&fa, 2);
	char *args[] = { argv[1], argv[2], NULL };
	pid_t p;
	int e = posix_spawn(&p, argv[1], &fa, NULL, args, environ);
	if (e) { printf("spawn %d\n", e); return 1; }
	int st;
	waitpid(p, &st, 0);
	printf("child status %#x\n", st);
	return 0;
}
