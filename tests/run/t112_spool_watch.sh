# ovnirun writes the threads' spool slots out while the program runs
# (tools/ovnirun/ovnirun_watch.h): threads that end in waves are written out
# before the process ends; the trace is the one the process would have
# written itself at its end (plain LD_PRELOAD, no watcher); two processes
# at once and a process killed with threads done and running are followed
# too, and nothing is left behind (spool files, the list).
. "$(dirname "$0")/../lib.sh"
# The same program without a watcher: the process writes its spool out at its end.
out=$(OVNI_TRACEDIR="$WORK/plain" LD_PRELOAD="$LIBAGENT" "$PROG/threads" waves 200) || fail "plain: exit status $?"
assert_eq "plain: output" "done waves 200" "$out"
check_trace "$WORK/plain"
dump "$WORK/plain" >"$WORK/dplain"

out=$(OVNI_DEBUG=1 "$OVNIRUN" -o "$WORK/tr" "$PROG/threads" waves 200 2>"$WORK/err") || fail "exit status $?"
assert_eq "output" "done waves 200" "$out"
early=$(sed -n 's/^ovnirun: \([0-9]*\) thread streams written out of their spools while the program ran$/\1/p' "$WORK/err")
# 20 waves 20 ms apart: all but the last wave's are written out meanwhile
# (at least half, under load).
assert_ge "streams written out while the program ran" 100 "${early:-0}"
check_trace "$WORK/tr"
dump "$WORK/tr" >"$WORK/d"
assert_eq "streams" 201 "$(streams "$WORK/tr")"
# (Waits differ from run to run: a join finds its thread ended or not.)
for ev in OHC OHx OHe; do
	assert_eq "$ev as without a watcher" "$(count "$ev" "$WORK/dplain")" "$(count "$ev" "$WORK/d")"
done
assert_eq "unfinished streams" 0 "$(grep -L '"finished": 1' $(find "$WORK/tr" -name stream.json) | wc -l)"
assert_eq "spool files left" 0 "$(find "$WORK/tr" -name 'spool.*' | wc -l)"
grep -q "had not finished" "$WORK/err" && fail "a process was finished by ovnirun: $(cat "$WORK/err")"
# Its last line counts what settle read (no second walk of the trace).
grep -q "^ovnirun: trace in $WORK/tr (201 threads in 1 processes)" "$WORK/err" || fail "last line: $(tail -1 "$WORK/err")"
# The list lives in ovnirun's private directory, removed at the end.
ls -d "${TMPDIR:-/tmp}"/ovnirun.* 2>/dev/null | while read -r d; do
	[ -e "$d/spools" ] && [ ! -e "$d/report" ] && fail "a list left in $d"
done

# Two processes at once, each with its spool.
out=$(OVNI_DEBUG=1 "$OVNIRUN" -o "$WORK/tr2" sh -c "'$PROG/threads' waves 60 & '$PROG/threads' waves 60; wait" 2>"$WORK/err2") ||
	fail "two: exit status $?"
assert_eq "two: output" "done waves 60
done waves 60" "$(echo "$out" | sort)"
early=$(sed -n 's/^ovnirun: \([0-9]*\) thread streams.*/\1/p' "$WORK/err2")
assert_ge "two: streams written out while they ran" 60 "${early:-0}"
check_trace "$WORK/tr2"
assert_eq "two: streams (sh and 2 x 61)" 123 "$(streams "$WORK/tr2")"
grep -q "^ovnirun: trace in $WORK/tr2 (123 threads in 3 processes)" "$WORK/err2" || fail "two: last line: $(tail -1 "$WORK/err2")"
assert_eq "two: spool files left" 0 "$(find "$WORK/tr2" -name 'spool.*' | wc -l)"

# Killed with threads done (written out by ovnirun or not) and one running:
# ovnirun finishes it, every thread created is in the trace.
mkfifo "$WORK/fifo"
"$OVNIRUN" -o "$WORK/tr3" "$PROG/crash" wait >"$WORK/fifo" 2>"$WORK/err3" &
pid=$!
read -r line <"$WORK/fifo"
sleep 0.1
pkill -KILL -P $pid || fail "nothing to kill"
wait $pid
assert_eq "killed: status" 137 $?
check_trace "$WORK/tr3"
dump "$WORK/tr3" >"$WORK/d3"
assert_eq "killed: thread creations kept" 51 "$(count OHC "$WORK/d3")"
assert_eq "killed: every thread ended" "$(count OHx "$WORK/d3")" "$(count OHe "$WORK/d3")"
assert_eq "killed: spool files left" 0 "$(find "$WORK/tr3" -name 'spool.*' | wc -l)"

# The list is only read, never trusted: a line that is no path of ours
# (longer than ovnirun's buffer, here) is skipped, and the spool named after
# it is still written out while the program runs.
out=$(OVNI_DEBUG=1 "$OVNIRUN" -o "$WORK/tr4" sh -c 'head -c 70000 /dev/zero | tr "\0" x >>"$OVNI_SPOOL_WATCH" &&
	echo >>"$OVNI_SPOOL_WATCH" && echo "/not/a/spool.0.oa" >>"$OVNI_SPOOL_WATCH" && exec "$0" waves 60' \
	"$PROG/threads" 2>"$WORK/err4") || fail "garbage: exit status $?"
assert_eq "garbage: output" "done waves 60" "$out"
early=$(sed -n 's/^ovnirun: \([0-9]*\) thread streams.*/\1/p' "$WORK/err4")
assert_ge "garbage: streams written out while the program ran" 30 "${early:-0}"
check_trace "$WORK/tr4"
assert_eq "garbage: spool files left" 0 "$(find "$WORK/tr4" -name 'spool.*' | wc -l)"

# A process that execs after its threads ended, then runs threads again: the
# first image's spool is closed at the exec (written out by ovnirun or by
# the image), the second makes one of its own; both are written out while
# the program runs, and the trace is whole.
out=$(OVNI_DEBUG=1 "$OVNIRUN" -o "$WORK/tr5" "$PROG/threads" wavesexec 60 2>"$WORK/err5") || fail "exec: exit status $?"
assert_eq "exec: output" "done waves 60" "$out"
early=$(sed -n 's/^ovnirun: \([0-9]*\) thread streams.*/\1/p' "$WORK/err5")
assert_ge "exec: streams written out while the program ran" 60 "${early:-0}"
check_trace "$WORK/tr5"
assert_eq "exec: streams (the main thread and 2 x 60)" 121 "$(streams "$WORK/tr5")"
dump "$WORK/tr5" >"$WORK/d5"
assert_eq "exec: thread creations" 120 "$(count OHC "$WORK/d5")"
assert_eq "exec: spool files left" 0 "$(find "$WORK/tr5" -name 'spool.*' | wc -l)"
assert_eq "exec: unfinished streams" 0 "$(grep -L '"finished": 1' $(find "$WORK/tr5" -name stream.json) | wc -l)"
