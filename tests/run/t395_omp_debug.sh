# OVNI_OMP_DEBUG: an unexpected callback order (here: implicit tasks nested
# deeper than the tool follows) is reported on stderr with the tasks
# involved and the thread's last 16 callbacks; without the variable nothing
# is printed; the trace stays valid either way.  A normal run of the
# taskloop pattern (issue 15's fault) reports no anomaly at all.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/t3_omp.inc"
P="$PROG/clang_omp_deep"
[ -x "$P" ] || skip "no $P (clang missing?)"

"$OVNIRUN" -q -o "$WORK/quiet" "$P" >"$WORK/quiet.out" 2>"$WORK/quiet.err" || fail "quiet run"
assert_eq "output" "deep 40" "$(cat "$WORK/quiet.out")"
assert_eq "nothing on stderr without OVNI_OMP_DEBUG" "" "$(cat "$WORK/quiet.err")"
check_trace "$WORK/quiet"

OVNI_OMP_DEBUG=1 "$OVNIRUN" -q -o "$WORK/dbg" "$P" >"$WORK/dbg.out" 2>"$WORK/dbg.err" || fail "debug run"
assert_eq "output with OVNI_OMP_DEBUG" "deep 40" "$(cat "$WORK/dbg.out")"
check_trace "$WORK/dbg"
grep -q "unexpected callback order #1: implicit tasks nested too deep" "$WORK/dbg.err" ||
	{ cat "$WORK/dbg.err"; fail "no anomaly report"; }
grep -q "thread runs: implicit task .*(running, last on tid [0-9]*, regions Cf)" "$WORK/dbg.err" ||
	fail "the running task is not described"
grep -q "its last 16 callbacks (oldest first" "$WORK/dbg.err" || fail "no callback history"
# The history of report #1: 16 lines, the nesting's parallel_begin and
# implicit_task begin callbacks among them.
awk '/order #1:/ { on = 1 } /order #2:/ { on = 0 } on && / us ago / { n++ } END { print n + 0 }' "$WORK/dbg.err" >"$WORK/n"
assert_eq "callbacks listed in report #1" 16 "$(cat "$WORK/n")"
assert_ge "parallel_begin in the history" 1 "$(grep -c ' us ago  parallel_begin ' "$WORK/dbg.err")"
assert_ge "implicit_task begin in the history" 1 "$(grep -c ' us ago  implicit_task begin ' "$WORK/dbg.err")"

for thr in 2 4; do
	OMP_NUM_THREADS=$thr OVNI_OMP_DEBUG=1 "$OVNIRUN" -q -o "$WORK/tl$thr" "$PROG/clang_omp_taskloop" master \
		>/dev/null 2>"$WORK/tl$thr.err" || fail "taskloop run"
	assert_eq "anomalies in the taskloop pattern, $thr threads" 0 "$(grep -c 'unexpected callback order' "$WORK/tl$thr.err")"
done
