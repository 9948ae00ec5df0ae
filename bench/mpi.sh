#!/bin/sh
# mpi.sh: the cost of tracing MPI calls (make -C bench mpi): bench/mpi_calls
# on 2 ranks with Open MPI, untraced and under ovnirun (trace on /dev/shm),
# alternately, RUNS times each; the median of each figure.
set -e
cd "$(dirname "$0")"
RUNS=${RUNS:-5}
MPICC=${MPICC:-mpicc.openmpi}
MPIRUN=${MPIRUN:-mpirun.openmpi --allow-run-as-root --oversubscribe}
export OMPI_MCA_btl_vader_single_copy_mechanism=none
$MPICC -O2 -o mpi_calls mpi_calls.c
OVNIRUN=$(cd .. && pwd)/build/bin/ovnirun
d=$(mktemp -d /dev/shm/oa-bench.XXXXXX)
for i in $(seq "$RUNS"); do
	$MPIRUN -np 2 ./mpi_calls | sed 's/^/untraced /'
	rm -rf "$d/t"
	$OVNIRUN -q -o "$d/t" $MPIRUN -np 2 ./mpi_calls | sed 's/^/traced /'
done >"$d/out"
rm -rf "$d/t"
awk '{ k = $1; rt[k] = rt[k] " " $4; te[k] = te[k] " " $7 }
function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
END {
	printf "%-10s %16s %14s\n", "", "round trip (ns)", "MPI_Test (ns)"
	printf "%-10s %16s %14s\n", "untraced", med(rt["untraced"]), med(te["untraced"])
	printf "%-10s %16s %14s\n", "traced", med(rt["traced"]), med(te["traced"])
	printf "added per call: MPI_Test %+.1f ns, round trip (4 calls) %+.0f ns\n", med(te["traced"]) - med(te["untraced"]), med(rt["traced"]) - med(rt["untraced"])
}' "$d/out"
rm -rf "$d"
