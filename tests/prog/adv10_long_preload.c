/* exec /usr/bin/env with an environment of its own whose LD_PRELOAD is
 * $LONG_PRELOAD (over 8 KiB, without the agent): the agent must put itself
 * back into it without dropping the program's entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void)
{
	const char *lp = getenv("LONG_PRELOAD");
	if (!lp)
		return 2;
	char *var = malloc(strlen(lp) + 12);
	sprintf(var, "LD_PRELOAD=%s", lp);
	char *envp[] = { var, "PATH=/usr/bin:/bin", NULL };
	char *argv[] = { "env", NULL };
	execve("/usr/bin/env", argv, envp);
	return 127;
}
