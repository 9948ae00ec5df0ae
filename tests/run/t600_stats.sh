# ovni-auto stats: exact figures on a hand-made trace, and figures that
# follow from a real program (thread counts, events per MCV, bytes).
. "$(dirname "$0")/../lib.sh"
sample_trace "$WORK/t" || fail "mktrace"
check_trace "$WORK/t"
"$OA" stats --json "$WORK/t" >"$WORK/j" || fail "stats --json"
"$OA" stats "$WORK/t" >"$WORK/h" || fail "stats"
want() { grep -q -- "$1" "$WORK/j" || { cat "$WORK/j"; fail "stats --json lacks $1"; }; }
want '"streams": 2'
want '"events": 22'
want '"lifetime_ns": 2000'          # thread 1: 1000 -> 3000
want '"lifetime_ns": 1350'          # thread 2: 1150 -> 2500
want '"running": 1400'              # thread 1: 2000 - 600 paused
want '"paused": 600'
want '"flush_ns": 10'
want '"label": "one"'
want '"ns": 100,'                   # mark 5 value 1: 1200 -> 1300
want '"label": "three"'
want '"ns": 1690,'                  # mark 6 value 3: 1310 -> 3000
want '"task: running"'
want '"ns": 950,'                   # PT[ 1450 -> PT] 2400
want '"barrier: plain"'
want '"label": "mytask"'
want '"total_ns": 300'              # PPx 2000 -> PPe 2300
want '"segments": 1'
want '"migrations": 0'
grep -q 'mytask' "$WORK/h" && grep -q 'Phase: one' "$WORK/h" || fail "human output: $(cat "$WORK/h")"
grep -q "^OHx *2$" "$WORK/h" || fail "events per MCV"

"$OVNIRUN" -q -o "$WORK/r" "$PROG/threads" join 8 >/dev/null || fail "run"
"$OA" stats --json "$WORK/r" >"$WORK/j"
want '"streams": 9'
want '"OHC": 8'
want '"OHx": 9'
bytes=$(cat $(find "$WORK/r" -name stream.obs) | wc -c)
want "\"bytes\": $bytes"
"$OA" stats --help | grep -q "usage: ovni-auto stats" || fail "--help"
