/* mpi_calls.c: one call or more of most functions of the mpi model, with
 * results every rank checks and rank 0 prints (the output must be the same
 * traced and untraced).  Each rank makes a known number of each call:
 *   ring:        ITER x (MPI_Send + MPI_Recv)   (rank 0 sends first)
 *   nonblocking: ITER x (MPI_Irecv + MPI_Isend + MPI_Waitall)
 *   sendrecv:    ITER x MPI_Sendrecv, 1 MPI_Sendrecv_replace
 *   collectives: MPI_Barrier 2, MPI_Bcast, MPI_Reduce, MPI_Allreduce 2
 *                (one on a split communicator), MPI_Allgather, MPI_Alltoall,
 *                MPI_Gather, MPI_Scatter, MPI_Scan, MPI_Exscan,
 *                MPI_Reduce_scatter_block 1 each
 *   nonblocking collectives: MPI_Iallreduce + MPI_Wait, MPI_Ibarrier +
 *                MPI_Test until done, MPI_Ibcast + MPI_Wait
 * Rank 0 reaches the last barrier 30 ms late; every rank prints the time
 * it spent in MPI_Barrier.  The last line of rank 0 is "mpi_calls ok N"
 * with N the number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ITER 10

static int rank, size;
static long long barrier_ns; /* time this rank spent in MPI_Barrier */

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void timed_barrier(void)
{
	long long t0 = now_ns();
	MPI_Barrier(MPI_COMM_WORLD);
	barrier_ns += now_ns() - t0;
}

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "rank %d: wrong result of %s\n", rank, what);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;

	/* Ring: a token goes round ITER times, each rank adds its rank. */
	long token = 0;
	for (int i = 0; i < ITER; i++) {
		if (rank == 0) {
			MPI_Send(&token, 1, MPI_LONG, next, 1, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&token, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			token += rank;
			MPI_Send(&token, 1, MPI_LONG, next, 1, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		check(token == (long)ITER * size * (size - 1) / 2, "ring");

	/* Nonblocking exchange with both neighbours. */
	for (int i = 0; i < ITER; i++) {
		int out = rank * 100 + i, in = -1;
		MPI_Request r[2];
		MPI_Irecv(&in, 1, MPI_INT, prev, 2, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(&out, 1, MPI_INT, next, 2, MPI_COMM_WORLD, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		check(in == prev * 100 + i, "isend/irecv");
	}
	for (int i = 0; i < ITER; i++) {
		int out = rank + i, in = -1;
		MPI_Sendrecv(&out, 1, MPI_INT, next, 3, &in, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		check(in == prev + i, "sendrecv");
	}
	int rep = rank;
	MPI_Sendrecv_replace(&rep, 1, MPI_INT, next, 4, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	check(rep == prev, "sendrecv_replace");

	/* Collectives. */
	timed_barrier();
	int b = rank == 0 ? 42 : 0;
	MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
	check(b == 42, "bcast");
	int one = rank + 1, sum = 0;
	MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		check(sum == size * (size + 1) / 2, "reduce");
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	check(sum == size * (size + 1) / 2, "allreduce");
	int *all = calloc((size_t)size, sizeof(int)), *all2 = calloc((size_t)size, sizeof(int));
	MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
	for (int i = 0; i < size; i++)
		check(all[i] == i, "allgather");
	for (int i = 0; i < size; i++)
		all[i] = rank * size + i;
	MPI_Alltoall(all, 1, MPI_INT, all2, 1, MPI_INT, MPI_COMM_WORLD);
	for (int i = 0; i < size; i++)
		check(all2[i] == i * size + rank, "alltoall");
	MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		for (int i = 0; i < size; i++)
			check(all[i] == i, "gather");
	int got = -1;
	MPI_Scatter(all, 1, MPI_INT, &got, 1, MPI_INT, 0, MPI_COMM_WORLD);
	check(got == rank, "scatter");
	int scan = 0, exscan = 0;
	MPI_Scan(&one, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	check(scan == (rank + 1) * (rank + 2) / 2, "scan");
	MPI_Exscan(&one, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank > 0)
		check(exscan == rank * (rank + 1) / 2, "exscan");
	for (int i = 0; i < size; i++)
		all[i] = i;
	int blk = -1;
	MPI_Reduce_scatter_block(all, &blk, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	check(blk == rank * size, "reduce_scatter_block");

	/* A split communicator: even and odd ranks. */
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	int hs = 0;
	MPI_Allreduce(&one, &hs, 1, MPI_INT, MPI_SUM, half);
	int want = 0;
	for (int r = rank % 2; r < size; r += 2)
		want += r + 1;
	check(hs == want, "allreduce on a split communicator");
	MPI_Comm_free(&half);

	/* Nonblocking collectives. */
	MPI_Request req;
	int isum = 0;
	MPI_Iallreduce(&one, &isum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	check(isum == size * (size + 1) / 2, "iallreduce");
	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	int flag = 0, tests = 0;
	while (!flag) {
		MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
		tests++;
		if (!flag)
			usleep(200);
	}
	int ib = rank == 0 ? 7 : 0;
	MPI_Ibcast(&ib, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	check(ib == 7, "ibcast");

	/* Rank 0 comes 30 ms late: the others wait for it. */
	if (rank == 0)
		usleep(30000);
	timed_barrier();
	/* How many MPI_Test calls this rank made (the only count not fixed),
	 * and how long it waited in MPI_Barrier. */
	printf("tests %d %d\n", rank, tests);
	printf("barrier_ns %d %lld\n", rank, barrier_ns);
	fflush(stdout);
	free(all);
	free(all2);
	MPI_Finalize();
	if (rank == 0)
		printf("mpi_calls ok %d\n", size);
	return 0;
}
