/* Install A then B with sigset/bsd_signal/sysv_signal/signal(c11); B chains to previous. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
typedef void (*hfn)(int);
#ifdef _GNU_SOURCE
extern hfn bsd_signal(int, hfn);
#endif
static volatile hfn prev;
static char ran[64];
static void A(int s) { (void)s; strcat(ran, "A"); }
static void B(int s) {
	strcat(ran, "B");
	hfn p = prev;
	if (p != SIG_DFL && p != SIG_IGN && p != SIG_ERR) p(s);
}
int main(int argc, char **argv) {
	const char *m = argc > 1 ? argv[1] : "signal";
	hfn (*inst)(int, hfn) = signal;
#ifdef _GNU_SOURCE
	if (!strcmp(m, "sigset")) inst = sigset;
	else if (!strcmp(m, "bsd_signal")) inst = bsd_signal;
	else if (!strcmp(m, "sysv_signal")) inst = sysv_signal;
#endif
	hfn r1 = inst(SIGUSR1, A);
	prev = inst(SIGUSR1, B);
	raise(SIGUSR1);
	printf("%s: first-prev=%s(%p) second-prev=%s ran=%s\n", m,
	       r1 == SIG_DFL ? "DFL" : r1 == SIG_ERR ? "ERR" : "other", (void *)r1,
	       prev == A ? "A" : prev == SIG_DFL ? "DFL" : prev == SIG_ERR ? "ERR" : "other", ran);
	return 0;
}
