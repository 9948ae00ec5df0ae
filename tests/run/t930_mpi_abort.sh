# A job that ends by MPI_Abort while other ranks wait in MPI_Recv: the exit
# status is the untraced one (3); a rank killed by SIGTERM (Open MPI) ends
# its streams with the open MPI_Recv closed, so the trace passes check as
# it is; ranks killed by SIGKILL (MPICH) leave streams that `ovni-auto
# repair` completes, MPI calls included.
. "$(dirname "$0")/../lib.sh"
. "$OA_TOP/tests/mpi/lib_mpi.sh"
for impl in openmpi mpich; do
	mpi_impl $impl
	mpi_build mpi_abort
	$MPIRUN -np 2 "$WORK/$impl/mpi_abort" >/dev/null 2>&1
	assert_eq "$impl: untraced status" 3 $?
	"$OVNIRUN" -q -o "$WORK/$impl/t" $MPIRUN -np 2 "$WORK/$impl/mpi_abort" >/dev/null 2>&1
	assert_eq "$impl: traced status" 3 $?
	assert_eq "$impl: MPI_Recv entered" "0 0 1 1 " "$(per_rank "$WORK/$impl/t" 'MR[' | tr '\n' ' ')"
	if [ $impl = openmpi ]; then
		assert_eq "$impl: MPI_Recv closed at the end" "0 0 1 1 " "$(per_rank "$WORK/$impl/t" 'MR]' | tr '\n' ' ')"
	else
		"$OA" repair "$WORK/$impl/t" >/dev/null || fail "$impl: repair"
		assert_eq "$impl: MPI_Recv closed by repair" "0 0 1 1 " "$(per_rank "$WORK/$impl/t" 'MR]' | tr '\n' ' ')"
	fi
	check_trace "$WORK/$impl/t"
done
