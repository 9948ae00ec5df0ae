/* mpi_threads.c: MPI + OpenMP with MPI_THREAD_MULTIPLE: every thread of a
 * 2-thread team exchanges ITER messages with the same thread of both
 * neighbour ranks (MPI_Sendrecv, tag = thread number), then the team's
 * master makes one MPI_Allreduce.  Rank 0 prints "threads ok N" (or
 * "threads single N" when the library gives less than THREAD_MULTIPLE and
 * only the master exchanged). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define ITER 8

int main(int argc, char **argv)
{
	int provided, rank, size, bad = 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int multiple = provided == MPI_THREAD_MULTIPLE;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
#pragma omp parallel num_threads(2) reduction(+ : bad)
	{
		int me = omp_get_thread_num();
		if (multiple || me == 0)
			for (int i = 0; i < ITER; i++) {
				int out = rank * 1000 + me * 100 + i, in = -1;
				MPI_Sendrecv(&out, 1, MPI_INT, next, me, &in, 1, MPI_INT, prev, me, MPI_COMM_WORLD,
					     MPI_STATUS_IGNORE);
				bad += in != prev * 1000 + me * 100 + i;
			}
	}
	int total = 0;
	MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Finalize();
	if (rank == 0)
		printf("threads %s %d\n", total ? "wrong" : multiple ? "ok" : "single", size);
	return total != 0;
}
