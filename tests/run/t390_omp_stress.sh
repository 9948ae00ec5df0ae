# Every OpenMP case under stress: each program and mode runs OA_OMP_REPEAT
# times (default 5; `make test-omp-stress` 20, `make test-stress` 50) with 2
# and with 4 threads, two runs at a time.  Every trace must pass the checks
# (ovni-auto check, upstream ovniemu -l when OVNIEMU is set) and the replay
# of t3_omp.inc, and every output must equal the untraced run's.  A fault
# that depends on the interleaving (a callback order the tool did not
# expect) fails here even when the single-run cases pass.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/t3_omp.inc"
[ -x "$PROG/clang_omp_tasks" ] || skip "no clang OpenMP programs (clang missing?)"
N=${OA_OMP_REPEAT:-5}

# Cases: name|environment|program and arguments
cases="tl_master||clang_omp_taskloop master
tl_single||clang_omp_taskloop single
tl_nogroup||clang_omp_taskloop nogroup
tl_intask||clang_omp_taskloop intask
fib||clang_omp_tasks fib 18 8
group||clang_omp_tasks group
taskloop||clang_omp_tasks taskloop
deps||clang_omp_tasks deps
detach||clang_omp_tasks detach
cancel|OMP_CANCELLATION=true|clang_omp_tasks cancel
untied||clang_omp_tasks untied 100 10
tied||clang_omp_tasks tied 50 10
untiedlock||clang_omp_tasks untiedlock 30
mutexbar||clang_omp_tasks mutexbar 300
tiny||clang_omp_tasks tiny 20000
ws||clang_omp_ws
gcc||omp_gcc 200"

# one NAME ENV PROG...: a traced run, checked; prints a line on failure.
one() {
	d="$WORK/$1"; shift
	envs=$1; shift
	if ! env $envs "$OVNIRUN" -q -o "$d" "$@" >"$d.out" 2>"$d.err"; then
		echo "$d: exit status $?: $(tail -n 3 "$d.err")"; return
	fi
	if ! cmp -s "$d.out" "$d.want"; then
		echo "$d: output differs: $(head -c 200 "$d.out") / $(head -c 200 "$d.want")"; return
	fi
	if ! "$OA" check "$d" >"$d.chk" 2>&1; then
		echo "$d: check: $(head -n 3 "$d.chk")"; return
	fi
	if [ -n "${OVNIEMU:-}" ] && [ -x "$OVNIEMU" ] && ! "$OVNIEMU" -l "$d" >"$d.emu" 2>&1; then
		echo "$d: ovniemu: $(tail -n 3 "$d.emu")"; return
	fi
	"$OA" dump "$d" >"$d.d" && omp_replay "$d.d" >"$d.r" || { echo "$d: replay: $(grep error "$d.r" | head -n 3)"; return; }
	rm -rf "$d" "$d.d" "$d.r" "$d.chk" "$d.emu" "$d.out" "$d.err"
}

while IFS='|' read -r name envs cmd; do
	for thr in 2 4; do
		env $envs OMP_NUM_THREADS=$thr "$PROG"/$cmd >"$WORK/want" 2>/dev/null || fail "$name: untraced run failed"
		i=1
		while [ $i -le "$N" ]; do
			for j in $i $((i + 1)); do
				[ $j -le "$N" ] || continue
				cp "$WORK/want" "$WORK/$name.$thr.$j.want"
				one "$name.$thr.$j" "$envs OMP_NUM_THREADS=$thr" "$PROG"/$cmd >"$WORK/$name.$thr.$j.res" &
			done
			wait
			for j in $i $((i + 1)); do
				[ -f "$WORK/$name.$thr.$j.res" ] || continue
				if [ -s "$WORK/$name.$thr.$j.res" ]; then cat "$WORK/$name.$thr.$j.res" >>"$WORK/failures"; fi
				rm -f "$WORK/$name.$thr.$j.res" "$WORK/$name.$thr.$j.want"
			done
			i=$((i + 2))
		done
		echo "-- $name, $thr threads: $N runs"
	done
done <<EOC
$cases
EOC
if [ -s "$WORK/failures" ]; then
	cat "$WORK/failures"
	fail "$(wc -l <"$WORK/failures") of the runs failed"
fi
