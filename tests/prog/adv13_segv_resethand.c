/* SA_RESETHAND SIGSEGV handler prints and returns; refault kills. */
#include <signal.h>
#include <unistd.h>
static void h(int s) { (void)s; write(1, "caught\n", 7); }
int main(void) {
	struct sigaction sa = {0};
	sa.sa_handler = h;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	*(volatile int *)0 = 1;
	write(1, "not reached\n", 12);
	return 0;
}
