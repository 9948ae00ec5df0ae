# The traced program behaves exactly as without the agent: same stdout, same
# exit status, for every thread mode (a failed creation: the errno glibc
# left, not the one before the call).
. "$(dirname "$0")/../lib.sh"
for args in "join 3" "exit 2" "cancel 2" "detach 2" "alive 2" "mainexit 2" "exitcode 9" "nested 2" "createfail 2"; do
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
# A traced shell (bash) that lowers its own limit under what the agent's files
# need, then starts programs: the loom's value page (4 KiB), each new
# process's files and the shell's last stream.json cannot be written.  The
# shell and its programs run as untraced (before: SIGXFSZ killed the shell
# at its next fork, status 153), each process that cannot write says so,
# and the trace stays valid: the shell's stream.json is not written in part
# (it was cut at the limit: no JSON), ovnirun finishes its stream.
for lim in 1 3; do
	script="ulimit -f $lim; \"$PROG/threads\" join 2; sh -c 'echo inner'; echo after"
	a=$(bash -c "$script" 2>&1); ra=$?
	b=$("$OVNIRUN" -o "$WORK/g$lim" bash -c "$script" 2>"$WORK/g.err"); rb=$?
	assert_eq "shell at ulimit -f $lim: status" "$ra" "$rb"
	assert_eq "shell at ulimit -f $lim: stdout" "$a" "$b"
	# Said to ovnirun (its report), not into the program's stderr file,
	# whose few bytes under the limit are the program's (below).
	grep -q "ovnirun:   pid [0-9]* cannot write the trace in .*File too large" "$WORK/g.err" ||
		fail "ulimit -f $lim: not said: $(cat "$WORK/g.err")"
	grep -q "^ovni-auto:" "$WORK/g.err" && fail "ulimit -f $lim: a line of the agent in the program's stderr file"
	check_trace "$WORK/g$lim"
done
# A program whose stderr is a file under its own limit: a line of the agent
# there took ~110 of its 512 bytes, and its next write past them raised
# SIGXFSZ (status 153 where untraced it ran to its end), or the line was
# cut in its file.  Not written there (ovnirun's report has it).
script="ulimit -f 1; exec 2>err.txt; \"$PROG/threads\" join 2; head -c 450 /dev/zero >&2; echo rc=\$?; wc -c <err.txt"
mkdir -p "$WORK/e1" "$WORK/e2" "$WORK/e3"
a=$(cd "$WORK/e1" && sh -c "$script"); ra=$?
b=$(cd "$WORK/e2" && LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR="$WORK/e2/t" sh -c "$script"); rb=$?
c=$(cd "$WORK/e3" && "$OVNIRUN" -q -o "$WORK/e3/t" sh -c "$script" 2>/dev/null); rc=$?
assert_eq "stderr file at ulimit -f 1: untraced" "done join 2 rc=0 450" "$(echo $a)"
assert_eq "stderr file at ulimit -f 1: LD_PRELOAD status" "$ra" "$rb"
assert_eq "stderr file at ulimit -f 1: LD_PRELOAD stdout" "$a" "$b"
assert_eq "stderr file at ulimit -f 1: ovnirun status" "$ra" "$rc"
assert_eq "stderr file at ulimit -f 1: ovnirun stdout" "$a" "$c"
# The same under ovnirun, where each process's first stream starts in the
# run's spool (no file) and meets the limit only later: at an exec (the next
# image goes on in files), in its threads' files, in a parent finishing a
# child.  The program was killed by SIGXFSZ (status 153, 5 runs in 5) and
# the trace held stream.json files cut at the limit, or empty ones.
for lim in 1 2; do
	script="ulimit -f $lim; for i in 1 2 3 4 5; do bash -c 'exec env true'; done; sh -c 'exec sh -c \"exec echo x\"'; \"$PROG/threads\" join 20; echo end"
	a=$(sh -c "$script" 2>&1); ra=$?
	b=$("$OVNIRUN" -q -o "$WORK/h$lim" sh -c "$script" 2>"$WORK/h.err"); rb=$?
	assert_eq "exec chains at ulimit -f $lim under ovnirun: status" "$ra" "$rb"
	assert_eq "exec chains at ulimit -f $lim under ovnirun: stdout" "$a" "$b"
	check_trace "$WORK/h$lim"
done
