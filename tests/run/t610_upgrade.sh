# Format v1 (seed 002): a trace written by the test's own v1 writer is read
# directly by dump/check/stats, and `upgrade` turns it into a v3 trace with
# the same events that check (and upstream ovniemu, when present) accepts.
. "$(dirname "$0")/../lib.sh"
"$PROG/mktrace" "$WORK/v1" <<'EOS'
v1proc loom.node1/proc.100 {"version":1,"app_id":1,"cpus":[{"index":0,"phyid":0},{"index":1,"phyid":4}]}
v1thread loom.node1/proc.100/thread.100
ev OHx 5000 i32:0 i32:-1 u64:0
ev OHC 5100 i32:0 u64:1
ev KCO 5200
ev KCI 5300
ev OHe 9000
v1thread loom.node1/proc.100/thread.101
ev OHx 5150 i32:-1 i32:100 u64:1
ev OHe 6000
v1proc loom.node1/proc.200 {"version":1,"app_id":2}
v1thread loom.node1/proc.200/thread.200
ev OHx 5500 i32:1 i32:-1 u64:0
ev OHe 7000
EOS
"$OA" dump "$WORK/v1" >"$WORK/d1" || fail "dump of a v1 trace"
assert_eq "v1 events read directly" 9 "$(wc -l <"$WORK/d1")"
grep -q "^5150  OHx  loom.node1/proc.100/thread.101  cpu=-1 tid=100 tag=1$" "$WORK/d1" || fail "v1 dump line: $(cat "$WORK/d1")"
"$OA" stats --json "$WORK/v1" | grep -q '"streams": 3' || fail "stats of a v1 trace"

out=$("$OA" upgrade "$WORK/v1" "$WORK/v3") || fail "upgrade"
assert_eq "upgrade report" "upgraded 3 streams, 9 events: $WORK/v1 -> $WORK/v3 (format v3)" "$out"
check_trace "$WORK/v3"
"$OA" dump "$WORK/v3" >"$WORK/d3"
diff "$WORK/d1" "$WORK/d3" || fail "the upgraded trace holds other events"
j="$WORK/v3/loom.node1/proc.100/thread.100/stream.json"
grep -q '"kernel": "1.0.0"' "$j" || fail "kernel model not required"
grep -q '"phyid": 4' "$j" || fail "loom CPUs not carried over"
grep -q '"app_id": 2' "$WORK/v3/loom.node1/proc.200/thread.200/stream.json" || fail "app id"
grep -q '"phyid": 4' "$WORK/v3/loom.node1/proc.200/thread.200/stream.json" || fail "loom CPUs from the other process"

"$OA" upgrade "$WORK/v1" "$WORK/v3" 2>"$WORK/err" && fail "upgrade into an existing directory"
grep -q "exists" "$WORK/err" || fail "no reason given"
"$OA" upgrade "$WORK/v3" "$WORK/v3b" 2>"$WORK/err" && fail "upgrade of a v3 trace"
grep -q "not a format-v1 trace" "$WORK/err" || fail "no reason for a v3 input"
printf '\017OHx' >>"$WORK/v1/loom.node1/proc.200/thread.200"
"$OA" upgrade "$WORK/v1" "$WORK/v3c" 2>"$WORK/err"; rc=$?
assert_eq "damaged v1 status" 1 $rc
grep -q "incomplete event" "$WORK/err" || fail "damage not named: $(cat "$WORK/err")"
