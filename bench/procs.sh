#!/bin/sh
# procs.sh: the cost per short process.  A shell loop starts PROCS (300)
# processes of /bin/true; it runs REPS (5) times each way, interleaved:
# untraced, under ovnirun with the trace on tmpfs (/dev/shm), and under
# ovnirun with the trace in a directory on the default file system (the
# working directory's).  Prints the median wall time of each and its ratio
# to the untraced run, and the added cost per process.
# Usage: sh bench/procs.sh [PROCS [REPS]]
top=$(cd "$(dirname "$0")/.." && pwd)
run="$top/build/bin/ovnirun"
procs=${1:-300}
reps=${2:-5}
shm=$(mktemp -d /dev/shm/oa-procs.XXXXXX 2>/dev/null || mktemp -d)
disk=$(mktemp -d "$top/bench/.procs.XXXXXX")
loop="for i in \$(seq $procs); do /bin/true; done"
now() { date +%s.%N; }
t() { s=$(now); "$@" >/dev/null 2>&1; e=$(now); echo "$s $e" | awk '{ printf "%.4f\n", $2 - $1 }'; }
for i in $(seq "$reps"); do
	t sh -c "$loop" >>"$shm/none"
	t "$run" -q -o "$shm/trace" sh -c "$loop" >>"$shm/tmpfs"
	rm -rf "$shm/trace"
	t "$run" -q -o "$disk/trace" sh -c "$loop" >>"$shm/disk"
	rm -rf "$disk/trace"
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
n=$(med "$shm/none")
echo "== $procs short processes (sh loop of /bin/true), median of $reps"
printf '%-28s %9s %7s %12s\n' run wall ratio per-process
printf '%-28s %8ss %7s %12s\n' untraced "$n" 1.00x -
for k in tmpfs disk; do
	v=$(med "$shm/$k")
	label="ovnirun, trace on $k"
	printf '%-28s %8ss %6.2fx %9.3f ms\n' "$label" "$v" "$(echo "$v $n" | awk '{ print $1 / $2 }')" \
		"$(echo "$v $n $procs" | awk '{ print ($1 - $2) / $3 * 1000 }')"
done
rm -rf "$shm" "$disk"
