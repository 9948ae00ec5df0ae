/* clang_omp_deep.c: 40 nested parallel regions of one thread each, deeper
 * than the OpenMP tool follows implicit tasks (32): a callback order it
 * reports as an anomaly, every run, for the OVNI_OMP_DEBUG test.  Prints
 * the deepest level reached. */
#include <omp.h>
#include <stdio.h>

static int deepest;

static void nest(int d)
{
#pragma omp parallel num_threads(1)
	{
		if (d < 40)
			nest(d + 1);
		else
			deepest = omp_get_level();
	}
}

int main(void)
{
	nest(1);
	printf("deep %d\n", deepest);
	return 0;
}
