#!/bin/sh
# threads.sh: thread start costs (issue 12), REPS (5) runs each way,
# interleaved, medians:
#  - pthread_create while up to LIVE (1000) threads are alive (trace on
#    /dev/shm): first quarter vs last quarter;
#  - create + join of SHORT (2000) threads that return at once, trace on the
#    disk file system of $TMPDIR or /tmp;
#  - `stress-ng --pthread 2 --timeout 2` wall time, when stress-ng is there.
# With OVNI_PREFIX naming an upstream ovni installation, the same loops run
# with every thread instrumented by hand with libovni (threads_ovni), in the
# same run.
# Usage: sh bench/threads.sh   (after make -C bench threads)
here=$(cd "$(dirname "$0")" && pwd)
lib="$here/../build/lib/libovni-auto.so"
run="$here/../build/bin/ovnirun"
reps=${REPS:-5}
live=${LIVE:-1000}
short=${SHORT:-2000}
disk=${TMPDIR:-/tmp}
res=$(mktemp -d)
ovni=""
[ -x "$here/threads_ovni" ] && ovni=1
# one ARGS: untraced, agent and libovni runs of `threads ARGS` in DIR
one() {
	tag=$1 dir=$2
	shift 2
	"$here/threads" "$@" >>"$res/$tag.none"
	w=$(mktemp -d "$dir/oa-thr.XXXXXX")
	LD_PRELOAD="$lib" OVNI_TRACEDIR="$w/t" "$here/threads" "$@" >>"$res/$tag.agent"
	rm -rf "$w"
	if [ -n "$ovni" ]; then
		w=$(mktemp -d "$dir/oa-thr.XXXXXX")
		(cd "$w" && "$here/threads_ovni" "$@") >>"$res/$tag.ovni"
		rm -rf "$w"
	fi
}
for i in $(seq "$reps"); do
	one live /dev/shm live "$live"
	one short "$disk" short "$short"
	if command -v stress-ng >/dev/null; then
		s=$(date +%s.%N); stress-ng --pthread 2 --timeout 2 >/dev/null 2>&1; e=$(date +%s.%N)
		echo "$s $e" | awk '{ print $2 - $1 }' >>"$res/stress.none"
		w=$(mktemp -d /dev/shm/oa-thr.XXXXXX)
		s=$(date +%s.%N); "$run" -q -o "$w/t" stress-ng --pthread 2 --timeout 2 >/dev/null 2>&1; e=$(date +%s.%N)
		echo "$s $e" | awk '{ print $2 - $1 }' >>"$res/stress.agent"
		rm -rf "$w"
	fi
done
# med FILE FIELD: median of that whitespace-separated field
med() { awk -v f="$2" '{ print $f }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "== thread start (pthread_create until the thread runs) with up to $live live threads (us, median of $reps; trace on /dev/shm)"
printf '%-12s %12s %12s %8s\n' run first-25% last-25% ratio
for k in none agent ovni; do
	[ -f "$res/live.$k" ] || continue
	a=$(med "$res/live.$k" 1) b=$(med "$res/live.$k" 9)
	printf '%-12s %12s %12s %7.2fx\n' "$k" "$a" "$b" "$(echo "$b $a" | awk '{ print $1 / $2 }')"
done
echo "== create + join of a thread that returns at once (us, median of $reps; trace in $disk, $(stat -f -c %T "$disk"))"
n=$(med "$res/short.none" 1)
printf '%-12s %12s\n' untraced "$n"
a=$(med "$res/short.agent" 1)
printf '%-12s %12s\n' agent "$a"
if [ -n "$ovni" ]; then
	o=$(med "$res/short.ovni" 1)
	printf '%-12s %12s   agent/libovni %.2fx (thread cost beyond untraced: %.2fx)\n' libovni "$o" \
		"$(echo "$a $o" | awk '{ print $1 / $2 }')" "$(echo "$a $o $n" | awk '{ print ($1 - $3) / ($2 - $3) }')"
fi
if [ -f "$res/stress.none" ]; then
	echo "== stress-ng --pthread 2 --timeout 2 (wall seconds, median of $reps)"
	printf '%-12s %8s\n%-12s %8s\n' untraced "$(med "$res/stress.none" 1)" ovnirun "$(med "$res/stress.agent" 1)"
fi
rm -rf "$res"
