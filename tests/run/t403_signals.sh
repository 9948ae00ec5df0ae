# Crashes and signals: exit status exactly as without the agent, every stream
# finished and valid, every event before the crash kept (50 thread
# creations), the signal recorded; the program's own handlers still run.
. "$(dirname "$0")/../lib.sh"
for case in "segv:139" "abort:134" "term:143" "handler:130" "segvhandler:4" "usr1:4" "exitthreads:6"; do
	mode=${case%%:*}; want=${case#*:}
	plain=$(sh -c "\"$PROG/crash\" $mode" 2>/dev/null); prc=$?
	assert_eq "$mode status without the agent" "$want" "$prc"
	got=$(sh -c "\"$OVNIRUN\" -q -o \"$WORK/$mode\" \"$PROG/crash\" $mode" 2>/dev/null); grc=$?
	assert_eq "$mode status with the agent" "$want" "$grc"
	assert_eq "$mode output" "$plain" "$got"
	check_trace "$WORK/$mode"
	dump "$WORK/$mode" >"$WORK/d"
	assert_ge "$mode thread creations kept" 51 "$(count OHC "$WORK/d")"
	assert_eq "$mode unfinished streams" 0 "$(grep -L '"finished": 1' $(find "$WORK/$mode" -name stream.json) | wc -l)"
done
for sig in segv:SEGV:11 abort:ABRT:6 term:TERM:15; do
	mode=${sig%%:*}; rest=${sig#*:}; name=${rest%%:*}; num=${rest#*:}
	grep -q "\"signal SIG$name\"" $(find "$WORK/$mode" -name stream.json) || fail "$mode: no signal label"
	"$OA" dump "$WORK/$mode" | grep -q " OM= .* value=$((100 + num)) type=80" || fail "$mode: signal mark not emitted"
done

# Killed from outside while waiting: SIGINT and SIGTERM.
for sig in INT:2 TERM:15; do
	num=${sig#*:}; sig=${sig%%:*}
	fifo="$WORK/fifo$sig"; mkfifo "$fifo"
	# A shell starts background jobs with SIGINT ignored, which the program
	# would inherit (ovnirun keeps inherited dispositions): default it.
	env --default-signal=INT,TERM "$OVNIRUN" -q -o "$WORK/kill$sig" "$PROG/crash" wait >"$fifo" 2>/dev/null &
	pid=$!
	read -r line <"$fifo"
	assert_eq "ready" ready "$line"
	pkill -$sig -P $pid || fail "no process to kill" # the program, ovnirun's child (not another suite's)
	wait $pid; rc=$?
	assert_eq "killed by SIG$sig" $((128 + num)) $rc
	check_trace "$WORK/kill$sig"
done

# Every stream labels signals 1-31 as glibc names them (the agent's table
# is made by the compiler, keyed by the signals' numbers).
json=$(find "$WORK/term" -name stream.json | head -1)
"$PROG/sigabbrev" | while read -r sig text; do
	grep -q "\"$((100 + sig))\": \"$text\"" "$json" || fail "signal $sig: no label '$text' in $json"
done || exit 1
