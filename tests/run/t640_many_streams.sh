# No fixed limits in the tools: check, stats, repair and dump read a trace
# of 70 000 streams (70 000 processes: more than the ~65 000 mappings a
# process may have) with only 256 descriptors.
. "$(dirname "$0")/../lib.sh"
awk 'BEGIN { for (i = 1; i <= 70000; i++) {
	printf "stream loom.node0/proc.%d/thread.%d {\"version\":3,\"ovni\":{\"part\":\"thread\",\"tid\":%d,\"pid\":%d,\"loom\":\"node0\",\"app_id\":1,\"loom_cpus\":[{\"index\":0,\"phyid\":0}],\"require\":{\"ovni\":\"1.1.0\"},\"lib\":{\"version\":\"t\",\"commit\":\"t\"},\"finished\":1}}\n", 200000 + i, i, i, 200000 + i
	printf "ev OHx %d i32:-1 i32:-1 u64:0\nev OHe %d\n", 1000 + i, 300000 + i } }' >"$WORK/spec"
"$PROG/mktrace" "$WORK/t" <"$WORK/spec" >/dev/null || fail "mktrace"
ulimit -n 256
out=$("$OA" check "$WORK/t" 2>&1) || fail "check: $out"
assert_eq "check" "ok: 70000 streams, 140000 events" "$out"
"$OA" stats "$WORK/t" | head -n 1 | grep -q "70000 streams in 70000 processes" || fail "stats"
"$OA" repair "$WORK/t" | grep -q "70000 streams are complete" || fail "repair"
assert_eq "dump" 140000 "$("$OA" dump "$WORK/t" | wc -l)"
