/* Set SIG_DFL with flags+mask, read it back. */
#include <signal.h>
#include <stdio.h>
int main(void) {
	int sigs[] = { SIGUSR2, SIGTERM, SIGINT };
	const char *n[] = { "USR2", "TERM", "INT" };
	const int std = SA_RESTART | SA_NODEFER | SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NOCLDSTOP | SA_NOCLDWAIT;
	for (int i = 0; i < 3; i++) {
		struct sigaction sa = {0}, old;
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = SA_RESTART | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGINT);
		sigaction(sigs[i], &sa, NULL);
		sigaction(sigs[i], NULL, &old);
		printf("%s handler=%s flags=%#x mask_has_INT=%d\n", n[i],
		       old.sa_handler == SIG_DFL ? "DFL" : "other", old.sa_flags & std, sigismember(&old.sa_mask, SIGINT));
	}
	return 0;
}
