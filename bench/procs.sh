#!/bin/sh
# procs.sh: the cost per short process.  A shell loop starts PROCS (300)
# processes of /bin/true; it runs REPS (5) times each way, interleaved:
# untraced, and under ovnirun with the trace in each directory of DIRS
# (default: /dev/shm, the working tree's bench/ directory, and $TMPDIR or
# /tmp when that is on another file system type than tmpfs).  Prints the
# median wall time of each and its ratio to the untraced run, and the added
# cost per process.  With COLLECT=1, also under `ovnirun --collect` with an
# `ovni-auto collect` on this machine (streams staged on /dev/shm, sent to
# the collector's directory on /dev/shm at each process's end).
# Usage: sh bench/procs.sh [PROCS [REPS]]     (DIRS="d1 d2" to choose)
top=$(cd "$(dirname "$0")/.." && pwd)
run="$top/build/bin/ovnirun"
procs=${1:-300}
reps=${2:-5}
tmp=${TMPDIR:-/tmp}
if [ -z "$DIRS" ]; then
	DIRS="/dev/shm $top/bench"
	[ "$(stat -f -c %T "$tmp" 2>/dev/null)" != tmpfs ] && DIRS="$DIRS $tmp"
fi
res=$(mktemp -d)
if [ "${COLLECT:-0}" = 1 ]; then
	cdir=$(mktemp -d /dev/shm/.oa-collect.XXXXXX)
	"$top/build/bin/ovni-auto" collect -q -o "$cdir/trace" -l 127.0.0.1:0 -c "$cdir/contact" >/dev/null 2>&1 &
	cpid=$!
	for i in $(seq 100); do [ -s "$cdir/contact" ] && break; sleep 0.05; done
fi
loop="for i in \$(seq $procs); do /bin/true; done"
now() { date +%s.%N; }
t() { s=$(now); "$@" >/dev/null 2>&1; e=$(now); echo "$s $e" | awk '{ printf "%.4f\n", $2 - $1 }'; }
for i in $(seq "$reps"); do
	t sh -c "$loop" >>"$res/none"
	k=0
	for d in $DIRS; do
		k=$((k + 1))
		w=$(mktemp -d "$d/.oa-procs.XXXXXX")
		t "$run" -q -o "$w/trace" sh -c "$loop" >>"$res/$k"
		rm -rf "$w"
	done
	[ -n "${cpid:-}" ] && TMPDIR=/dev/shm t "$run" -q --collect "@$cdir/contact" sh -c "$loop" >>"$res/collect"
done
if [ -n "${cpid:-}" ]; then
	kill $cpid 2>/dev/null
	wait $cpid 2>/dev/null
	rm -rf "$cdir"
fi
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
n=$(med "$res/none")
echo "== $procs short processes (sh loop of /bin/true), median of $reps"
printf '%-44s %9s %7s %12s\n' run wall ratio per-process
printf '%-44s %8ss %7s %12s\n' untraced "$n" 1.00x -
k=0
for d in $DIRS; do
	k=$((k + 1))
	v=$(med "$res/$k")
	label="trace in $d ($(stat -f -c %T "$d"))"
	printf '%-44s %8ss %6.2fx %9.3f ms\n' "$label" "$v" "$(echo "$v $n" | awk '{ print $1 / $2 }')" \
		"$(echo "$v $n $procs" | awk '{ print ($1 - $2) / $3 * 1000 }')"
done
if [ -f "$res/collect" ]; then
	v=$(med "$res/collect")
	printf '%-44s %8ss %6.2fx %9.3f ms
' "ovnirun --collect (same machine)" "$v" "$(echo "$v $n" | awk '{ print $1 / $2 }')" \
		"$(echo "$v $n $procs" | awk '{ print ($1 - $2) / $3 * 1000 }')"
fi
rm -rf "$res"
