/* static_exit.c: prints "static N" and exits with status N (argv[1],
 * default 0).  Built static (build/prog/static_exit: LD_PRELOAD means
 * nothing to it) and dynamic (build/prog/exit_with). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	printf("static %d\n", n);
	return n;
}
