# Threads creating threads: a tree of depth 4 (15 threads); each OHx names
# the thread that created it, through the OHC of that creator.
. "$(dirname "$0")/../lib.sh"
# creators DUMP: how many threads each creator's OHx name, as "K of N"
# (K creators made N threads each), fewest threads first.
creators() {
	awk '$2 == "OHx" && $5 != "tid=-1" { split($5, c, "="); n[c[2]]++ } END { for (t in n) print n[t] }' "$1" |
		sort -n | uniq -c | awk '{ printf "%s%d of %d", sep, $1, $2; sep = ", " }'
}
"$OVNIRUN" -q -o "$WORK/tr" "$PROG/threads" nested 4 >/dev/null || fail "exit status $?"
check_trace "$WORK/tr"
dump "$WORK/tr" >"$WORK/d"
assert_eq "streams" 16 "$(streams "$WORK/tr")"
assert_eq "OHC" 15 "$(count OHC "$WORK/d")"
# creators: the main thread created 1, every inner tree thread created 2.
assert_eq "creators of the tree" "1 of 1, 7 of 2" "$(creators "$WORK/d")"

# Many creations in flight at once (4 creators on one CPU, 150 threads
# each: more than the 64 start records of the pool, the rest malloc'd):
# every OHx names its creator, whose OHC count matches.
"$OVNIRUN" -q -o "$WORK/tb" "$PROG/threads" burst 150 >"$WORK/out" || fail "burst: exit status $?"
assert_eq "burst output" "done burst 150" "$(cat "$WORK/out")"
check_trace "$WORK/tb"
dump "$WORK/tb" >"$WORK/db"
assert_eq "burst streams" 605 "$(streams "$WORK/tb")"
assert_eq "burst OHC" 604 "$(count OHC "$WORK/db")"
assert_eq "burst: creators" "1 of 4, 4 of 150" "$(creators "$WORK/db")"
