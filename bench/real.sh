#!/bin/sh
# real.sh: the "real software" row of issue 32's table, untraced and under
# ovnirun (trace on /dev/shm), interleaved, median of REPS (5): wall time
# and the CPU time of the command and its children (bench/runt), each as a
# ratio to the untraced run.  A workload whose tools are missing is
# skipped, with the reason.
#   - dash: a shell script of 200 pipelines (`echo | cat`: fork, then exec);
#   - go:   a static Go program (CGO_ENABLED=0, built here) that runs
#           `sh -c 'echo x | cat'` 100 times (os/exec: Go's own
#           fork+exec, no libc in the parent);
#   - cmake: configure and build (ninja) a 25-file C project from scratch;
#   - parallel: `seq 100 | parallel -j$(nproc) true` (GNU parallel, Perl);
#   - spawn: a Python multiprocessing pool with the "spawn" start method,
#           4 workers, 200 small tasks.
# With VS=DIR (another built tree), its ovnirun runs each workload too.
# Usage: sh bench/real.sh      (REPS=N, ONLY="dash go ...", TRACE_ROOT=/tmp)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
run="$top/build/bin/ovnirun"
reps=${REPS:-5}
troot=${TRACE_ROOT:-/dev/shm} # where the traces go (TRACE_ROOT=/tmp: a disk)
cc=${CC:-cc}
[ -x "$run" ] || { echo "build first: make" >&2; exit 1; }
[ "$here/runt" -nt "$here/runt.c" ] || $cc -O2 -o "$here/runt" "$here/runt.c" || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
np=$(nproc)
has() { command -v "$1" >/dev/null 2>&1; }
want() { case " ${ONLY:-$1} " in *" $1 "*) return 0 ;; esac; return 1; }

# The workloads, each a command line run from $work/w (made afresh).
cat >"$work/dash.sh" <<'EOF'
for i in $(seq 200); do echo "$i" | cat >/dev/null; done
EOF
cat >"$work/spawn.py" <<'EOF'
import multiprocessing as mp
def f(x):
    return x * x
if __name__ == "__main__":
    mp.set_start_method("spawn")
    with mp.Pool(4) as p:
        print(sum(p.map(f, range(200), chunksize=1)))
EOF
mkdir -p "$work/proj"
i=0
while [ $i -lt 24 ]; do
	printf 'int f%d(int x) { return x * %d + 1; }\n' $i $i >"$work/proj/f$i.c"
	i=$((i + 1))
done
printf 'int f0(int);\nint main(void) { return f0(0) == 1 ? 0 : 1; }\n' >"$work/proj/main.c"
cat >"$work/proj/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.10)
project(bench C)
file(GLOB SRC *.c)
add_executable(app ${SRC})
EOF
cat >"$work/run.go" <<'EOF'
package main

import (
	"fmt"
	"os/exec"
)

func main() {
	n := 0
	for i := 0; i < 100; i++ {
		out, err := exec.Command("sh", "-c", "echo x | cat").Output()
		if err != nil {
			panic(err)
		}
		n += len(out)
	}
	fmt.Println(n)
}
EOF

names=""
add() { # NAME REASON-IF-MISSING CMD: CMD is run by sh -c in a fresh $work/w
	names="$names $1"
	eval "cmd_$1=\$3"
}
want dash && has dash && add dash "" "dash $work/dash.sh"
if ! want go; then
	:
elif has go && CGO_ENABLED=0 GOCACHE="$work/gocache" GOPATH="$work/gopath" \
	go build -o "$work/gorun" "$work/run.go" >/dev/null 2>&1; then
	add go "" "$work/gorun >/dev/null"
else
	echo "go: skipped (no go, or the build failed)"
fi
if ! want cmake; then
	:
elif has cmake && has ninja; then
	add cmake "" "cmake -G Ninja -S $work/proj -B build >/dev/null && ninja -C build >/dev/null"
else
	echo "cmake: skipped (no cmake or ninja)"
fi
if ! want parallel; then
	:
elif has parallel; then
	add parallel "" "seq 100 | parallel -j$np true"
else
	echo "parallel: skipped (no GNU parallel)"
fi
if ! want spawn; then
	:
elif has python3; then
	add spawn "" "python3 $work/spawn.py >/dev/null"
else
	echo "spawn: skipped (no python3)"
fi

one() { # NAME KIND [RUNNER]: one timed run, appended to $work/NAME.KIND
	name=$1 kind=$2 runner=${3:-}
	eval "c=\$cmd_$name"
	rm -rf "$work/w" "$work/tr"
	mkdir "$work/w"
	tr=$(mktemp -d "$troot/.oa-real.XXXXXX")
	if [ -z "$runner" ]; then
		(cd "$work/w" && "$here/runt" sh -c "$c" 2>/dev/null | tail -n 1) >>"$work/$name.$kind"
	else
		(cd "$work/w" && "$here/runt" "$runner" -q -f -o "$tr" sh -c "$c" 2>/dev/null | tail -n 1) >>"$work/$name.$kind"
	fi
	rm -rf "$tr"
}
for r in $(seq "$reps"); do
	for n in $names; do
		one "$n" none
		one "$n" traced "$run"
		[ -n "${VS:-}" ] && one "$n" vs "$VS/build/bin/ovnirun"
	done
done
med() { sort -n -k"$2" "$work/$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
echo "== real.sh on $(uname -n), $np cores, $(date +%F), median of $reps, trace on $troot"
printf '%-10s %10s %10s %8s %8s\n' workload untraced traced wall cpu
for n in $names; do
	for k in traced vs; do
		[ -f "$work/$n.$k" ] || continue
		w0=$(med "$n.none" 1) c0=$(med "$n.none" 2) w=$(med "$n.$k" 1) c=$(med "$n.$k" 2)
		label=$n
		[ $k = vs ] && label="  (VS)"
		printf '%-10s %9.3fs %9.3fs %7.2fx %7.2fx\n' "$label" "$w0" "$w" \
			"$(echo "$w $w0" | awk '{ print $1 / $2 }')" "$(echo "$c $c0" | awk '{ print $1 / $2 }')"
	done
done
