/* omp_gcc_detach.c: a gcc-built OpenMP program with a detached task
 * (omp_fulfill_event), which LLVM libomp 14 cannot run for GCC code: ovnirun
 * must keep it on libgomp.  Prints one line. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int done = 0;
	omp_event_handle_t ev;
#pragma omp parallel num_threads(2)
#pragma omp single
	{
#pragma omp task detach(ev) shared(done)
		done += 1;
#pragma omp task shared(done)
		{
			omp_fulfill_event(ev);
		}
#pragma omp taskwait
	}
	printf("detach done=%d\n", done);
	return 0;
}
