# The benchmarks build against the current sources and run a short round
# each (they are not part of the build, so nothing else notices when an
# interface they use changes); their output has the lines bench/README.md
# quotes.  Built into the case's own directory: two suites may run at once.
. "$(dirname "$0")/../lib.sh"
cd "$OA_TOP/bench" || fail "cd bench"
cc="${CC:-cc} -std=gnu11 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror"
W=$(cd "$OA_TOP/bench" && echo ../common/*.c ../writer/*.c)
$cc -o "$WORK/emit" emit.c $W -ljansson || fail "emit does not build"
$cc -o "$WORK/gentrace" gentrace.c $W -ljansson || fail "gentrace does not build"
for p in create sync_lock threads runt forks floor; do
	$cc -o "$WORK/$p" $p.c -lpthread || fail "$p does not build"
done
# runt: wall and CPU seconds of a command and its children, and their page
# faults, its status kept.
out=$("$WORK/runt" sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; exit 3')
assert_eq "runt passes the status on" 3 "$?"
echo "$out" | awk '{ exit !(NF == 3 && $1 > 0 && $2 > 0 && $2 <= $1 * 2 + 0.01 && $3 > 10) }' || fail "runt output: $out"
out=$(BENCH_DIR="$WORK" "$WORK/emit" 20000) || fail "emit: $out"
echo "$out" | grep -q "^emit, 0-byte payload .* ns" || fail "emit output: $out"
"$WORK/gentrace" "$WORK/t" 20000 2 || fail "gentrace"
"$OA" check "$WORK/t" | grep -q "^ok: 2 streams, 200[0-9][0-9] events" || fail "gentrace trace: $("$OA" check "$WORK/t" 2>&1 | tail -n 3)"
out=$(LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR="$WORK/live" "$WORK/threads" live 40) || fail "threads live: $out"
echo "$out" | grep -q "us per start at 0-10 live threads, .* us at 30-40, ratio" || fail "threads live output: $out"
assert_eq "threads live streams" 41 "$(streams "$WORK/live")"
check_trace "$WORK/live"
# forks: a fork loop, untraced and traced; every child in the trace.
out=$("$WORK/forks" 5 1 untraced) || fail "forks: $out"
echo "$out" | grep -q "^untraced: .* us per fork+exec$" || fail "forks output: $out"
out=$("$OVNIRUN" -q -o "$WORK/forks.t" "$WORK/forks" 5 0 traced) || fail "forks traced: $out"
echo "$out" | grep -q "^traced: .* us per fork$" || fail "forks traced output: $out"
check_trace "$WORK/forks.t"
assert_eq "forks: the parent and its 5 children" 6 "$(ls -d "$WORK"/forks.t/loom.*/proc.* | wc -l)"
out=$("$WORK/threads" short 20) || fail "threads short"
echo "$out" | grep -q "us per create+join (20 threads)" || fail "threads short output: $out"
# floor: the format's files alone, laid out as a trace is.
out=$("$WORK/floor" "$WORK/fl" procs 3) || fail "floor procs: $out"
echo "$out" | grep -q "^[0-9.]* us per process stream (3)$" || fail "floor procs output: $out"
assert_eq "floor: 3 process streams" 3 "$(ls "$WORK"/fl/loom.floor/proc.*/thread.*/stream.json | wc -l)"
assert_eq "floor: a stream.obs as a traced /bin/true leaves" 144 "$(stat -c %s "$WORK/fl/loom.floor/proc.2/thread.2/stream.obs")"
out=$("$WORK/floor" "$WORK/fl2" threads 5) || fail "floor threads: $out"
echo "$out" | grep -q "^[0-9.]* us per thread stream (5)$" || fail "floor threads output: $out"
assert_eq "floor: 5 thread streams in one process" 5 "$(ls "$WORK"/fl2/loom.floor/proc.1/thread.*/stream.obs | wc -l)"
"$WORK/floor" "$WORK/fl2" threads 5 >/dev/null 2>&1 && fail "floor: wrote over an existing trace"
sh -n procs.sh && sh -n threads.sh && sh -n cost.sh && sh -n real.sh || fail "bench scripts do not parse"
# real.sh: one round of its shell workload, a row with both ratios.
out=$(ONLY=dash REPS=1 sh real.sh 2>&1) || fail "real.sh: $out"
echo "$out" | grep -q "^dash  *[0-9.]*s  *[0-9.]*s  *[0-9.]*x  *[0-9.]*x$" || fail "real.sh output: $out"
