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

# A file size limit (`ulimit -f`) that the trace outgrows: the agent's file
# work fails with EFBIG and the kernel raises SIGXFSZ, which would kill the
# program (its default action); the agent takes its own back.  With no
# limit it makes no check at all (getrlimit first).
for lim in 4 16; do
	a=$(sh -c "ulimit -f $lim; \"$PROG/threads\" join 40"); ra=$?
	b=$(sh -c "ulimit -f $lim; LD_PRELOAD=\"$LIBAGENT\" OVNI_TRACEDIR=\"$WORK/f\" \"$PROG/threads\" join 40" 2>"$WORK/f.err"); rb=$?
	assert_eq "ulimit -f $lim: stdout" "$a" "$b"
	assert_eq "ulimit -f $lim: status" "$ra" "$rb"
	rm -rf "$WORK/f"
done
# The same limit with stderr a file already past it (OpenSSH's sandboxed
# child sets the limit to 0): the agent's line about the trace it cannot
# write fails with EFBIG, and its SIGXFSZ must not reach the program (it
# killed it: status 153).
for lim in 0 1; do
	head -c 2048 /dev/zero >"$WORK/full.err"
	b=$(sh -c "ulimit -f $lim; LD_PRELOAD=\"$LIBAGENT\" OVNI_TRACEDIR=/proc/none \"$PROG/threads\" join 4" 2>>"$WORK/full.err"); rb=$?
	assert_eq "stderr past ulimit -f $lim: status" 0 "$rb"
	assert_eq "stderr past ulimit -f $lim: stdout" "done join 4" "$b"
	assert_eq "stderr past ulimit -f $lim: nothing written" 2048 "$(wc -c <"$WORK/full.err")"
done
