/* 8 KiB sigaltstack with canaries; SIGABRT handler checks them, then abort kills. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static struct { unsigned char lo[256]; unsigned char stk[8192]; unsigned char hi[256]; } A;
static void h(int s) {
	(void)s;
	int ok = 1;
	char here;
	for (int i = 0; i < 256; i++) if (A.lo[i] != 0xA5 || A.hi[i] != 0x5A) ok = 0;
	const char *m = ok ? "stack ok\n" : "stack overflow\n";
	write(1, m, strlen(m));
	const char *on = (&here >= (char *)A.stk && &here < (char *)A.stk + sizeof A.stk) ? "on altstack\n" : "not on altstack\n";
	write(1, on, strlen(on));
	signal(SIGABRT, SIG_DFL);
}
int main(void) {
	memset(A.lo, 0xA5, sizeof A.lo);
	memset(A.hi, 0x5A, sizeof A.hi);
	stack_t ss = { .ss_sp = A.stk, .ss_size = sizeof A.stk, .ss_flags = 0 };
	if (sigaltstack(&ss, NULL)) { write(1, "sigaltstack failed\n", 19); return 1; }
	struct sigaction sa = {0};
	sa.sa_handler = h;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGABRT, &sa, NULL);
	abort();
}
