# lib_mpi.sh: helpers for the MPI cases (tests/run/t9*_mpi*.sh): build the
# programs of tests/mpi with one MPI implementation and run them with its
# launcher.  Source it after lib.sh.
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
MPISRC="$OA_TOP/tests/mpi"

# mpi_impl openmpi|mpich: sets MPICC, MPIFORT and MPIRUN (skips when the
# implementation is not installed: scripts/deps.sh installs both).
mpi_impl() {
	IMPL=$1
	case $1 in
	openmpi) MPICC=mpicc.openmpi MPIFORT=mpifort.openmpi MPIRUN="mpirun.openmpi --allow-run-as-root --oversubscribe" ;;
	mpich) MPICC=mpicc.mpich MPIFORT=mpifort.mpich MPIRUN="mpirun.mpich" ;;
	esac
	command -v "$MPICC" >/dev/null 2>&1 || skip "$MPICC is not installed (scripts/deps.sh installs it)"
	mkdir -p "$WORK/$IMPL"
}

# mpi_build NAME [FLAGS [OUT]]: tests/mpi/NAME.c (or .f90) into $WORK/$IMPL/OUT
# (default NAME)
mpi_build() {
	if [ -f "$MPISRC/$1.f90" ]; then
		$MPIFORT -O1 ${2:-} -o "$WORK/$IMPL/${3:-$1}" "$MPISRC/$1.f90" || fail "$MPIFORT $1"
	else
		$MPICC -std=gnu11 -O1 -Wall -Wno-stringop-overflow ${2:-} -o "$WORK/$IMPL/$1" "$MPISRC/$1.c" ||
			fail "$MPICC $1"
	fi
}

# per_rank DIR MCV: "rank count" lines, the events MCV of each rank's threads
per_rank() {
	for p in "$1"/loom.*/proc.*; do
		r=$(grep -ho '"rank": [0-9]*' "$p"/thread.*/stream.json | head -n 1 | awk '{print $2}')
		n=$("$OA" dump "$p" 2>/dev/null | awk -v m="$2" '$2 == m { n++ } END { print n + 0 }')
		echo "$r $n"
	done | sort -n
}
