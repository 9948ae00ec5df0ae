# MPI behind a job script (issue 30, item 12): `ovnirun bash -c "mpirun ...;
# mpirun ..."`, as every job script does, with Open MPI and MPICH.  The
# shell has no MPI rank while the ranks of its loom have one, which the
# emulator refuses; ovnirun moves the processes without a rank to the loom
# LOOM.norank (the same host).  Output as untraced; the trace passes check;
# every rank of both jobs is there.
. "$(dirname "$0")/../lib.sh"
. "$OA_TOP/tests/mpi/lib_mpi.sh"
for impl in openmpi mpich; do
	mpi_impl $impl
	mpi_build mpi_calls
	script="$MPIRUN -np 2 $WORK/$impl/mpi_calls; echo first \$?; $MPIRUN -np 2 $WORK/$impl/mpi_calls; echo second \$?"
	want=$(bash -c "$script" 2>/dev/null | grep -E "^(mpi_calls ok|first|second)")
	got=$("$OVNIRUN" -o "$WORK/$impl/t" bash -c "$script" 2>"$WORK/$impl/err" | grep -E "^(mpi_calls ok|first|second)")
	assert_eq "$impl: output" "$want" "$got"
	check_trace "$WORK/$impl/t"
	grep -q "to loom .*\.norank" "$WORK/$impl/err" || fail "$impl: nothing said about the move: $(cat "$WORK/$impl/err")"
	ranks=$(grep -ho '"rank": [0-9]*' "$WORK/$impl/t"/loom.*/proc.*/thread.*/stream.json | sort | uniq -c | awk '{print $1 "x" $3}' | tr '\n' ' ')
	[ -n "$ranks" ] || fail "$impl: no ranks"
	assert_eq "$impl: both jobs' ranks" 4 "$(ls -d "$WORK/$impl/t"/loom.*[!k]/proc.* | wc -l)"
	assert_ge "$impl: the shell in its own loom" 1 "$(ls -d "$WORK/$impl/t"/loom.*.norank/proc.* | wc -l)"
	grep -L '"rank"' "$WORK/$impl/t"/loom.*[!k]/proc.*/thread.*/stream.json | grep -q . &&
		fail "$impl: a process without a rank is left among the ranks"
done
true
