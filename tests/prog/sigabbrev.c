/* sigabbrev.c: the label every stream gives each of signals 1-31, as
 * glibc names them ("signal SIG" + sigabbrev_np), one per line: t403
 * compares them with the agent's table. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	for (int sig = 1; sig < 32; sig++) {
		const char *name = sigabbrev_np(sig);
		if (name)
			printf("%d signal SIG%s\n", sig, name);
		else
			printf("%d signal %d\n", sig, sig);
	}
	return 0;
}
