/* mpi.h: what the MPI interposer (mpi.c) and its clock synchronisation
 * (mpi_sync.c) share: the table of the functions of the mpi model, the
 * per-thread depth of MPI calls, and the few MPI calls the agent makes on
 * its own communicator.
 *
 * The wrappers never include an mpi.h: handles are pointers in Open MPI and
 * ints in MPICH, and every argument of the wrapped functions is of the
 * integer class of the x86-64 and AArch64 calling conventions (handles,
 * counts, pointers), so a wrapper that takes and passes on as many
 * intptr_t arguments as the function has is right for both. */
#ifndef OA_MPI_H
#define OA_MPI_H

#include <stdint.h>

#include "../../common/compiler.h"
#include "../../writer/ev_mpi.h"

/* The MPI calls the agent makes itself (PMPI_*, never the program's
 * profiling layer), resolved in mpi.c. NULL when not found. */
struct oa_pmpi {
	int (*comm_rank)(intptr_t comm, int *rank);
	int (*comm_size)(intptr_t comm, int *size);
	int (*comm_idup)(intptr_t comm, intptr_t *newcomm, intptr_t *req);
	int (*comm_free)(intptr_t *comm);
	int (*test)(intptr_t *req, int *flag, intptr_t status);
	int (*allgather)(const void *sbuf, int scount, intptr_t stype, void *rbuf, int rcount, intptr_t rtype,
			 intptr_t comm);
	int (*send)(const void *buf, int count, intptr_t type, int dest, int tag, intptr_t comm);
	int (*recv)(void *buf, int count, intptr_t type, int src, int tag, intptr_t comm, intptr_t status);
};

/* The constants of the library's ABI the agent needs (mpi.h's macros). */
struct oa_mpi_abi {
	const char *name; /* "openmpi", "mpich"; NULL: unknown, no rank, no offsets */
	intptr_t comm_world, byte, status_ignore;
};

extern struct oa_pmpi oa_pmpi;
extern struct oa_mpi_abi oa_mpi_abi;

/* mpi_sync.c: measure each loom's clock offset against rank 0's over a
 * duplicate of MPI_COMM_WORLD; rank 0 writes clock-offsets.txt. `at_end`:
 * the measurement in MPI_Finalize (drift). Every rank must call it. */
void oa_mpi_sync_clocks(int rank, int nranks, int at_end);
/* Every rank on one node (its clocks agree): rank 0 writes its host's line,
 * offset 0, with no collective. */
void oa_mpi_sync_one_node(int rank);

#endif
