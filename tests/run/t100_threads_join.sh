# Two joined threads: one stream per thread, OHC in the creator and OHx in the
# new thread with the same tag, every thread Dead at the end, output unchanged.
. "$(dirname "$0")/../lib.sh"
out=$("$OVNIRUN" -q -o "$WORK/tr" "$PROG/threads" join 2) || fail "exit status $?"
assert_eq "program output" "done join 2" "$out"
check_trace "$WORK/tr"
dump "$WORK/tr" >"$WORK/d"
assert_eq "streams" 3 "$(streams "$WORK/tr")"
assert_eq "OHx" 3 "$(count OHx "$WORK/d")"
assert_eq "OHe" 3 "$(count OHe "$WORK/d")"
assert_eq "OHC" 2 "$(count OHC "$WORK/d")"
# The main thread has no creator.
main=$(awk '$2 == "OHx" && $5 == "tid=-1"' "$WORK/d" | wc -l)
assert_eq "main thread OHx with creator -1" 1 "$main"
# Each OHC tag appears in exactly one OHx of another stream, created by the OHC's thread.
awk '$2 == "OHC" { split($3, p, "thread."); tag[$5] = p[2]; st[$5] = $3 }
     $2 == "OHx" && $6 != "tag=0" { split($5, c, "="); ohx[$6] = c[2]; ost[$6] = $3 }
     END { n = 0; for (t in tag) { if (ohx[t] != tag[t] || ost[t] == st[t]) { print "bad tag " t; exit 1 } n++ }
           if (n != 2) { print "tags " n; exit 1 } }' "$WORK/d" || fail "OHC/OHx tags do not link creator and thread"
# Every stream ends with OHe.
for s in $(find "$WORK/tr" -name stream.obs); do
	last=$("$OA" dump "$(dirname "$s")" | tail -n 1 | awk '{print $2}')
	assert_eq "last event of $s" OHe "$last"
done
# The agent's own work at a thread's start (directories, files, metadata)
# and end (the final metadata) is a flush of the thread (issue 18, item 4):
# every stream begins OHx OF[ OF] and ends OF[ OF] OHe, the OF[ at the
# OHx's clock.
for s in $(find "$WORK/tr" -name stream.obs); do
	"$OA" dump "$(dirname "$s")" >"$WORK/one"
	assert_eq "first events of $s" "OHx OF[ OF]" "$(head -n 3 "$WORK/one" | awk '{print $2}' | xargs)"
	assert_eq "OF[ at the OHx clock in $s" 1 "$(head -n 2 "$WORK/one" | awk '{print $1}' | sort -u | wc -l)"
	assert_eq "last events of $s" "OF[ OF] OHe" "$(tail -n 3 "$WORK/one" | awk '{print $2}' | xargs)"
done
