# Blocking pthread calls: each wait that really blocks is a labelled state of
# mark channel 81 on the waiting thread, which is Paused meanwhile; results,
# errno values and output are exactly those without the agent.
. "$(dirname "$0")/../lib.sh"
want=$("$PROG/sync" all) || fail "plain run"
got=$("$OVNIRUN" -q -o "$WORK/t" "$PROG/sync" all) || fail "traced run"
assert_eq "output (results and errno values)" "$want" "$got"
echo "$got" | grep -qx "timedlock ETIMEDOUT" || fail "timedlock did not time out: $got"
echo "$got" | grep -qx "nanosleep -1 EINTR rem>1s 1" || fail "EINTR: $got"
echo "$got" | grep -qx "errno kept 1" || fail "errno: $got"
check_trace "$WORK/t"
dump "$WORK/t" >"$WORK/d"
labels=$(cat $(find "$WORK/t" -name stream.json) | tr -d '\n ')
for kind in 1:mutexlock 2:conditionwait 3:rwlockread 5:barrier 6:join 7:semaphorewait 8:once 9:sleep; do
	v=${kind%%:*}; name=${kind#*:}
	echo "$labels" | grep -q "\"$v\":\"$name\"" || fail "label of wait kind $v"
	n=$(awk -v v="value=$v" '$2 == "OM[" && $4 == v && $5 == "type=81"' "$WORK/d" | wc -l)
	assert_ge "recorded waits of kind $name" 1 "$n"
done
# Pushes and pops match, and every pause is resumed (check verifies order).
assert_eq "waits opened and closed" "$(count 'OM[' "$WORK/d")" "$(count 'OM]' "$WORK/d")"
assert_eq "pauses and resumes" "$(count OHp "$WORK/d")" "$(count OHr "$WORK/d")"
assert_ge "pauses" 7 "$(count OHp "$WORK/d")"
# Only calls that block are recorded: in the join mode the main thread waits
# once (join) and the joined thread once (its sleep); no lock call waits.
"$OVNIRUN" -q -o "$WORK/j" "$PROG/sync" join >/dev/null || fail "join run"
dump "$WORK/j" >"$WORK/dj"
assert_eq "join waits" 1 "$(awk '$2 == "OM[" && $4 == "value=6"' "$WORK/dj" | wc -l)"
assert_eq "sleep waits" 1 "$(awk '$2 == "OM[" && $4 == "value=9"' "$WORK/dj" | wc -l)"
assert_eq "all waits" 2 "$(count 'OM[' "$WORK/dj")"
# A barrier of 3: the main thread blocks in it first, a worker 10 ms later,
# the other 10 ms after that one blocked (in that order whatever the load:
# the workers look at /proc); the last one releases the others and does not
# wait, so there are exactly two barrier waits (main 20 ms or more, first
# worker ~10 ms) and the last worker's stream has none.  (The workers
# once slept 10 and 20 ms from their start: a main thread preempted on its
# way to the barrier waited 13 ms, two suites at once.)
"$OVNIRUN" -q -o "$WORK/b" "$PROG/sync" barrier >/dev/null || fail "barrier run"
check_trace "$WORK/b"
dump "$WORK/b" >"$WORK/db"
assert_eq "barrier waits" 2 "$(awk '$2 == "OM[" && $4 == "value=5" && $5 == "type=81"' "$WORK/db" | wc -l)"
main=$(awk '$2 == "OHx" { print $3; exit }' "$WORK/db")
assert_eq "main thread's barrier waits" 1 "$(awk -v s="$main" '$2 == "OM[" && $3 == s && $4 == "value=5"' "$WORK/db" | wc -l)"
# The main thread's wait lasts from its arrival to the last worker's (20 ms or more).
ms=$(awk -v s="$main" '$3 == s && $2 == "OM[" && $4 == "value=5" { a = $1 } $3 == s && $2 == "OM]" && $4 == "value=5" { b = $1 }
	END { printf "%d", (b - a) / 1e6 }' "$WORK/db")
[ "$ms" -ge 15 ] && [ "$ms" -le 200 ] || fail "main thread's barrier wait: $ms ms, expected about 20"
assert_eq "barrier pauses and resumes" "$(count OHp "$WORK/db")" "$(count OHr "$WORK/db")"

# The clock/timed variants: clocklock, clockrdlock, clockwrlock, a timed
# join that times out, then a clock join: one wait each, same results.
want=$("$PROG/sync" clock) || fail "plain clock run"
got=$("$OVNIRUN" -q -o "$WORK/c" "$PROG/sync" clock) || fail "traced clock run"
assert_eq "clock results" "clock 0 0 0 ETIMEDOUT 0" "$got"
assert_eq "clock results as without the agent" "$want" "$got"
dump "$WORK/c" >"$WORK/dc"
main=$(awk '$2 == "OHx" { print $3; exit }' "$WORK/dc")
w() { awk -v s="$main" -v v="value=$1" '$2 == "OM[" && $3 == s && $4 == v && $5 == "type=81"' "$WORK/dc" | wc -l; }
assert_eq "clocklock waits" 1 "$(w 1)"
assert_eq "clockrdlock waits" 1 "$(w 3)"
assert_eq "clockwrlock waits" 1 "$(w 4)"
assert_ge "join waits (timed, clock and the plain joins)" 2 "$(w 6)"
# The program's own sched_yield calls are recorded (the agent's and the
# OpenMP runtime's are not: t330).
"$OVNIRUN" -q -o "$WORK/y" "$PROG/sync" yield >/dev/null || fail "yield run"
assert_eq "yields" 3 "$(dump "$WORK/y" | awk '$2 == "OM[" && $4 == "value=10" && $5 == "type=81"' | wc -l)"
# The 100 ms sleep: >= 100 ms in "sleep" and Paused, as stats says.
"$OVNIRUN" -q -o "$WORK/s" "$PROG/sync" sleep >/dev/null || fail "sleep run"
"$OA" stats --json "$WORK/s" >"$WORK/j.json"
paused=$(grep -o '"paused": [0-9]*' "$WORK/j.json" | awk '{print $2}' | sort -n | tail -1)
assert_ge "paused ns during the 100 ms sleep" 100000000 "$paused"
grep -A3 '"label": "sleep"' "$WORK/j.json" | grep -o '"ns": [0-9]*' | awk '{ if ($2 < 100000000) exit 1 }' ||
	fail "less than 100 ms in the sleep state"

# Thread names: the program, each start routine, pthread_setname_np and
# prctl(PR_SET_NAME).
names=$(cat $(find "$WORK/j" -name stream.json) | tr -d '\n ')
for n in '"sync"' '"napper"' '"napper-42"' '"napper-prctl"'; do
	echo "$names" | grep -q ":$n" || fail "thread name label $n"
done
assert_ge "thread name marks" 4 "$(awk '$2 == "OM=" && $5 == "type=84"' "$WORK/dj" | wc -l)"
# A thread given 100 000 names, each a new one: every name is marked, the
# first ones labelled; the labels stop at the table's bound (each bucket
# of a chain of at most 64), so that no lookup walks more (before: every
# new name walked all the earlier ones of its bucket, 300 000 names took
# 34 s, 0.24 s now).
out=$("$OVNIRUN" -q -o "$WORK/names" "$PROG/threads" names 100000) || fail "names: status $?"
assert_eq "names: output" "done names 100000" "$out"
check_trace "$WORK/names"
assert_eq "names: marks" 100001 "$(dump "$WORK/names" | awk '$2 == "OM=" && $5 == "type=84"' | wc -l)"
nl=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["ovni"]["mark"]["84"]["labels"]))' \
	"$(find "$WORK/names" -name stream.json)")
assert_ge "names: labels" 4000 "$nl"
assert_le "names: labels, at most the small table's 128 x 64" 8192 "$nl"

# Call sites (ovnirun -s): waits and thread creations carry the calling
# function on channel 82, named from the program's symbols.
"$OVNIRUN" -q -s -o "$WORK/cs" "$PROG/sync" mutex >/dev/null || fail "callsites run"
check_trace "$WORK/cs"
dump "$WORK/cs" >"$WORK/dcs"
assert_ge "call site marks" 3 "$(awk '$2 == "OM[" && $5 == "type=82"' "$WORK/dcs" | wc -l)"
# Unwinding takes libunwind's own locks: never recorded as the program's
# waits (they used to nest inside the wait being recorded).
assert_eq "mutex waits with call sites" 1 "$(awk '$2 == "OM[" && $4 == "value=1" && $5 == "type=81"' "$WORK/dcs" | wc -l)"
assert_eq "call sites balanced" "$(awk '$2 == "OM[" && $5 == "type=82"' "$WORK/dcs" | wc -l)" \
	"$(awk '$2 == "OM]" && $5 == "type=82"' "$WORK/dcs" | wc -l)"
sites=$(cat $(find "$WORK/cs" -name stream.json) | tr -d '\n ')
echo "$sites" | grep -q '"main"' || fail "call site main"
echo "$sites" | grep -q '"holder_then_say"' || fail "call site holder_then_say (the thread that sleeps)"
assert_eq "no call sites without -s" 0 "$(awk '$5 == "type=82"' "$WORK/dj" | wc -l)"
