# ovni-auto stats: exact figures on a hand-made trace, and figures that
# follow from a real program (thread counts, events per MCV, bytes).
. "$(dirname "$0")/../lib.sh"
meta() { trace_meta "$1" ',"labels":{"3":"three"}'; }
"$PROG/mktrace" "$WORK/t" <<EOS
stream loom.node0/proc.1/thread.1 $(meta 1)
ev OHx 1000 i32:0 i32:-1 u64:0
ev OM[ 1200 i64:1 i32:5
ev OM] 1300 i64:1 i32:5
ev OM= 1310 i64:3 i32:6
ev jumbo POc 1400 u32:1 str:mytask
ev PPc 1500 u32:1 u32:1
ev PBb 1700
ev PBB 1800
ev OF[ 1850
ev OF] 1860
ev OHp 2000
ev OHr 2600
ev OHe 3000
stream loom.node0/proc.1/thread.2 $(meta 2)
ev OHx 1150 i32:1 i32:1 u64:7
ev PT[ 1450
ev PPx 2000 u32:1
ev PPe 2300 u32:1
ev PT] 2400
ev OHe 2500
EOS
check_trace "$WORK/t"
"$OA" stats --json "$WORK/t" >"$WORK/j" || fail "stats --json"
"$OA" stats "$WORK/t" >"$WORK/h" || fail "stats"
want() { grep -q -- "$1" "$WORK/j" || { cat "$WORK/j"; fail "stats --json lacks $1"; }; }
want '"streams": 2'
want '"events": 19'
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
