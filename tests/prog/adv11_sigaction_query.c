/* Set SIG_DFL with flags+mask, read it back; then a handler with
 * SA_RESETHAND.  Every flag is printed (libc's SA_RESTORER too, which the
 * kernel holds after libc set it) and whether a restorer is there: what the
 * agent stands in for must read back as the kernel would have it.  First,
 * the dispositions as the program found them. */
#include <signal.h>
#include <stdio.h>
static void on_usr1(int sig)
{
	(void)sig;
}
int main(void) {
	int sigs[] = { SIGUSR2, SIGTERM, SIGINT };
	const char *n[] = { "USR2", "TERM", "INT" };
	for (int i = 0; i < 3; i++) {
		struct sigaction old = {0};
		sigaction(sigs[i], NULL, &old);
		printf("%s at start: handler=%s flags=%#x restorer=%d\n", n[i], old.sa_handler == SIG_DFL ? "DFL" : "other",
		       old.sa_flags, old.sa_restorer != 0);
	}
	for (int i = 0; i < 3; i++) {
		struct sigaction sa = {0}, old;
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = SA_RESTART | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGINT);
		sigaction(sigs[i], &sa, NULL);
		sigaction(sigs[i], NULL, &old);
		printf("%s handler=%s flags=%#x mask_has_INT=%d restorer=%d\n", n[i],
		       old.sa_handler == SIG_DFL ? "DFL" : "other", old.sa_flags, sigismember(&old.sa_mask, SIGINT),
		       old.sa_restorer != 0);
	}
	struct sigaction sa, old;
	sa.sa_handler = on_usr1; /* sa_restorer left unset, as programs do */
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR1, NULL, &old);
	printf("USR1 handler=%s flags=%#x restorer=%d\n", old.sa_handler == on_usr1 ? "ours" : "other", old.sa_flags,
	       old.sa_restorer != 0);
	raise(SIGUSR1);
	sigaction(SIGUSR1, NULL, &old);
	printf("USR1 after: handler=%s flags=%#x restorer=%d\n", old.sa_handler == SIG_DFL ? "DFL" : "other",
	       old.sa_flags, old.sa_restorer != 0);
	return 0;
}
