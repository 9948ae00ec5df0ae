# The traced program behaves exactly as without the agent: same stdout, same
# exit status, for every thread mode.
. "$(dirname "$0")/../lib.sh"
for args in "join 3" "exit 2" "cancel 2" "detach 2" "alive 2" "mainexit 2" "exitcode 9" "nested 2"; do
	a=$("$PROG/threads" $args); ra=$?
	b=$(LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR="$WORK/t" "$PROG/threads" $args); rb=$?
	assert_eq "stdout of $args" "$a" "$b"
	assert_eq "status of $args" "$ra" "$rb"
	rm -rf "$WORK/t"
done
