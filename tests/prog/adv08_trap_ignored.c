/* Print inherited dispositions (ignored by the shell), then raise SIGHUP. */
#include <signal.h>
#include <stdio.h>
int main(void) {
	int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1 };
	const char *n[] = { "HUP", "INT", "QUIT", "TERM", "USR1" };
	for (int i = 0; i < 5; i++) {
		struct sigaction o;
		sigaction(sigs[i], NULL, &o);
		printf("%s %s\n", n[i], o.sa_handler == SIG_IGN ? "IGN" : o.sa_handler == SIG_DFL ? "DFL" : "handler");
	}
	fflush(stdout);
	raise(SIGHUP);
	printf("survived\n");
	return 0;
}
