# SIGKILL: nothing runs at the end, but every event written before the kill is
# in the page cache. `ovni-auto repair` trims the unwritten tail, ends the
# threads and marks the streams finished; the repaired trace is valid and
# keeps every thread creation done before the kill.
. "$(dirname "$0")/../lib.sh"
mkfifo "$WORK/fifo"
"$OVNIRUN" -q -o "$WORK/tr" "$PROG/crash" wait >"$WORK/fifo" 2>/dev/null &
pid=$!
read -r line <"$WORK/fifo"
assert_eq "ready" ready "$line"
pkill -KILL -P $! || fail "nothing to kill" # the program, ovnirun's child
wait $pid
assert_eq "killed by SIGKILL" 137 $?
"$OA" check -q "$WORK/tr" >/dev/null 2>&1 && fail "an unrepaired kill -9 trace passed check"
"$OA" repair "$WORK/tr" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "repair failed"; }
grep -q "repaired" "$WORK/out" || fail "repair did not say what it did: $(cat "$WORK/out")"
check_trace "$WORK/tr"
dump "$WORK/tr" >"$WORK/d"
assert_eq "thread creations kept" 51 "$(count OHC "$WORK/d")"
assert_eq "every thread ended" "$(count OHx "$WORK/d")" "$(count OHe "$WORK/d")"
# A second repair finds nothing to do.
"$OA" repair "$WORK/tr" >"$WORK/out2" 2>&1 || fail "second repair failed"
grep -q "nothing to repair" "$WORK/out2" || fail "second repair: $(cat "$WORK/out2")"
