/* mpi_calls.c: the cost of an MPI call, 2 ranks: N round trips of an
 * 8-byte MPI_Send/MPI_Recv ping-pong, and N MPI_Test calls on
 * MPI_REQUEST_NULL (the cheapest call there is: what remains is the
 * interposition and its two events).  Prints ns per round trip and per
 * MPI_Test (rank 0). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, n = argc > 1 ? atoi(argv[1]) : 100000;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	long v = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int i = 0; i < n; i++) {
		if (rank == 0) {
			MPI_Send(&v, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(&v, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(&v, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&v, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
		}
	}
	double t1 = MPI_Wtime();
	MPI_Request req = MPI_REQUEST_NULL;
	int flag;
	for (int i = 0; i < 10 * n; i++)
		MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
	double t2 = MPI_Wtime();
	if (rank == 0)
		printf("round trip %.0f ns, MPI_Test %.1f ns\n", (t1 - t0) * 1e9 / n, (t2 - t1) * 1e9 / (10.0 * n));
	MPI_Finalize();
	return 0;
}
