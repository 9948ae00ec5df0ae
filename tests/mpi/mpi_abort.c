/* mpi_abort.c: rank 0 calls MPI_Abort(3) while the others wait in
 * MPI_Recv; the launcher then kills them (Open MPI: SIGTERM, MPICH's
 * Hydra: SIGKILL) and the job exits with status 3. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, x;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		usleep(200000);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
