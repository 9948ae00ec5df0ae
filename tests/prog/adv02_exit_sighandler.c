/* _exit(3) from a SIGALRM handler interrupting malloc/free. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/time.h>
static void h(int s) { (void)s; _exit(3); }
int main(void) {
	struct sigaction sa = {0};
	sa.sa_handler = h;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 1000}, {0, 1000}};
	setitimer(ITIMER_REAL, &it, NULL);
	void *p[64] = {0};
	for (unsigned long i = 0;; i++) {
		int k = rand() % 64;
		free(p[k]);
		p[k] = malloc(1 + rand() % 100000);
	}
}
