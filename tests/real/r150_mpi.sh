# MPI under mpirun (Open MPI from Debian): `ovnirun mpirun -np 4 ./app` and
# `mpirun -np 4 ovnirun ./app` give one trace with 4 ranked processes and no
# launcher process; the program's output is that of an untraced run.
. "$(dirname "$0")/lib_real.sh"
need mpicc
need mpirun
cat >"$WORK/ring.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int rank, size, token = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		token = 1;
		MPI_Send(&token, 1, MPI_INT, 1 % size, 0, MPI_COMM_WORLD);
		MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		printf("token %d after %d ranks\n", token, size);
	} else {
		MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		token++;
		MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
C
mpicc -O1 -o "$WORK/ring" "$WORK/ring.c" || fail "mpicc"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 4"
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
plain=$($MPIRUN "$WORK/ring" 2>/dev/null) || fail "untraced mpirun failed"
assert_eq "untraced output" "token 4 after 4 ranks" "$plain"

ranked() { # DIR: every process has a rank; 4 distinct ranks
	for j in $(find "$1" -name stream.json); do
		grep -q '"rank"' "$j" || fail "$j has no rank"
	done
	n=$(grep -ho '"rank": [0-9]*' $(find "$1" -name stream.json) | sort -u | wc -l)
	assert_eq "distinct ranks in $1" 4 "$n"
}
got=$("$OVNIRUN" -q -o "$WORK/outer" $MPIRUN "$WORK/ring" 2>"$WORK/outer.err"); rc=$?
assert_eq "ovnirun mpirun status" 0 "$rc"
assert_eq "ovnirun mpirun output" "$plain" "$got"
check_trace "$WORK/outer"
ranked "$WORK/outer"

got=$(cd "$WORK" && $MPIRUN "$OVNIRUN" -q -o "$WORK/inner" "$WORK/ring" 2>"$WORK/inner.err"); rc=$?
assert_eq "mpirun ovnirun status" 0 "$rc"
assert_eq "mpirun ovnirun output" "$plain" "$got"
check_trace "$WORK/inner"
ranked "$WORK/inner"
