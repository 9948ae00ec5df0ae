# exec: a chain of three execs is one process whose main thread runs four
# times in its stream; the exec points and programs are labelled; a failed
# exec goes on traced.
. "$(dirname "$0")/../lib.sh"
out=$("$OVNIRUN" -q -o "$WORK/chain" "$PROG/procs" chain 3) || fail "chain status $?"
assert_eq "chain output" "chain 3
chain 2
chain 1
chain 0" "$out"
check_trace "$WORK/chain"
assert_eq "processes" 1 "$(ls -d "$WORK/chain"/loom.*/proc.* | wc -l)"
dump "$WORK/chain" >"$WORK/d"
assert_eq "OHx of the main thread (4 images)" 4 "$(count OHx "$WORK/d")"
assert_eq "OHe of the main thread" 4 "$(count OHe "$WORK/d")"
assert_eq "exec labels" 3 "$(grep -ho '"exec /proc/self/exe"' $(find "$WORK/chain" -name stream.json) | wc -l)"

out=$("$OVNIRUN" -q -o "$WORK/fail" "$PROG/procs" execfail); rc=$?
assert_eq "execfail status" 5 $rc
assert_eq "execfail output" "exec failed, going on" "$out"
check_trace "$WORK/fail"
grep -q '"exec failed /no/such/program"' $(find "$WORK/fail" -name stream.json) || fail "no exec-failed label"
dump "$WORK/fail" >"$WORK/d"
assert_eq "OHx (before and after the failed exec)" 2 "$(count OHx "$WORK/d")"
