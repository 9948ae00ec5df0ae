# Every way a thread ends: pthread_exit, cancellation, detached, still running
# at exit (busy and sleeping), main thread calling pthread_exit.
. "$(dirname "$0")/../lib.sh"
for mode in exit cancel detach alive mainexit; do
	out=$("$OVNIRUN" -q -o "$WORK/$mode" "$PROG/threads" $mode 4) || fail "$mode: exit status $?"
	assert_eq "$mode output" "done $mode 4" "$out"
	check_trace "$WORK/$mode"
	dump "$WORK/$mode" >"$WORK/d"
	assert_eq "$mode: streams" 5 "$(streams "$WORK/$mode")"
	assert_eq "$mode: OHx" 5 "$(count OHx "$WORK/d")"
	assert_eq "$mode: OHe" 5 "$(count OHe "$WORK/d")"
	# OHe is the last state event of each stream.
	bad=$(awk '$2 ~ /^OH/ { last[$3] = $2 } END { for (s in last) if (last[s] != "OHe") print s }' "$WORK/d")
	assert_eq "$mode: streams not ending with OHe" "" "$bad"
done
