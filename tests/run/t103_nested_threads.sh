# Threads creating threads: a tree of depth 4 (15 threads); each OHx names
# the thread that created it, through the OHC of that creator.
. "$(dirname "$0")/../lib.sh"
"$OVNIRUN" -q -o "$WORK/tr" "$PROG/threads" nested 4 >/dev/null || fail "exit status $?"
check_trace "$WORK/tr"
dump "$WORK/tr" >"$WORK/d"
assert_eq "streams" 16 "$(streams "$WORK/tr")"
assert_eq "OHC" 15 "$(count OHC "$WORK/d")"
# creators: the main thread created 1, every inner tree thread created 2.
awk '$2 == "OHx" && $5 != "tid=-1" { split($5, c, "="); n[c[2]]++ }
     END { ones = 0; twos = 0; for (t in n) { if (n[t] == 1) ones++; else if (n[t] == 2) twos++; else exit 1 }
           if (ones != 1 || twos != 7) exit 1 }' "$WORK/d" || fail "creator tids do not form the tree"

# Many creations in flight at once (4 creators on one CPU, 150 threads
# each: more than the 64 start records of the pool, the rest malloc'd):
# every OHx names its creator, whose OHC count matches.
"$OVNIRUN" -q -o "$WORK/tb" "$PROG/threads" burst 150 >"$WORK/out" || fail "burst: exit status $?"
assert_eq "burst output" "done burst 150" "$(cat "$WORK/out")"
check_trace "$WORK/tb"
dump "$WORK/tb" >"$WORK/db"
assert_eq "burst streams" 605 "$(streams "$WORK/tb")"
assert_eq "burst OHC" 604 "$(count OHC "$WORK/db")"
awk '$2 == "OHx" && $5 != "tid=-1" { split($5, c, "="); n[c[2]]++ }
     END { four = 0; many = 0; for (t in n) { if (n[t] == 4) four++; else if (n[t] == 150) many++; else exit 1 }
           if (four != 1 || many != 4) exit 1 }' "$WORK/db" || fail "burst: creator tids do not match the creations"
