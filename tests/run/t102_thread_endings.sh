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
# The memory barrier that ends other threads' streams is registered while
# the process has one thread (before its first thread starts): registered
# at the end, with threads, the kernel waited for an RCU grace period, and
# an exit() from a thread other than main took 10-20 ms (0.2 untraced).
if command -v strace >/dev/null; then
	strace -f -qq -o "$WORK/mb" -e trace=membarrier,clone,clone3 env LD_PRELOAD="$LIBAGENT" \
		OVNI_TRACEDIR="$WORK/mbt" "$PROG/threads" join 2 >/dev/null || fail "membarrier: status"
	first=$(grep -o -m1 'MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED\|clone3\?(' "$WORK/mb")
	assert_eq "membarrier: registered before the first thread" MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED "$first"
else
	info "no strace: the membarrier case skipped"
fi
