/* omp_gcc_doacross.c: a gcc-built doacross loop (ordered(1) with depend
 * sink/source) in a team of one thread, on which libomp 14's
 * GOMP_doacross_wait faults: ovnirun keeps libgomp (t341).  Prints the
 * last element (667). */
#include <stdio.h>

int main(void)
{
	int a[100];
	a[0] = 1;
#pragma omp parallel for ordered(1) num_threads(1)
	for (int i = 1; i < 100; i++) {
#pragma omp ordered depend(sink : i - 1)
		a[i] = a[i - 1] * 3 % 1000;
#pragma omp ordered depend(source)
	}
	printf("doacross %d\n", a[99]);
	return 0;
}
