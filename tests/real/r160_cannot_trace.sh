# When the agent cannot work, the program still runs to the same result, the
# agent says so once on stderr, and what was written stays readable:
# read-only trace directory, trace directory removed mid-run, a file size
# limit (the disk is full for the trace), 16 descriptors, little memory.
. "$(dirname "$0")/lib_real.sh"
want=$(seq 1 50000 | sort -r | md5sum)
job() { seq 1 50000 | sort -r | md5sum; }
export -f job 2>/dev/null || true

# Read-only directory (as a user that cannot write there).
mkdir -p "$WORK/ro" && chmod 555 "$WORK/ro"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	got=$(setpriv --reuid=65534 --regid=65534 --clear-groups env OVNI_TRACEDIR="$WORK/ro/t" LD_PRELOAD="$LIBAGENT" \
		sh -c 'seq 1 50000 | sort -r | md5sum' 2>"$WORK/ro.err"); rc=$?
	assert_eq "read-only: status" 0 "$rc"
	assert_eq "read-only: output" "$want" "$got"
	grep -q "cannot write the trace" "$WORK/ro.err" || { cat "$WORK/ro.err"; fail "read-only: no message"; }
fi

# Removed while the program runs.
got=$("$OVNIRUN" -q -o "$WORK/gone" sh -c 'seq 1 50000 | sort -r > /dev/null; rm -rf "$0"; seq 1 50000 | sort -r | md5sum' "$WORK/gone" 2>"$WORK/gone.err"); rc=$?
assert_eq "removed: status" 0 "$rc"
assert_eq "removed: output" "$want" "$got"

# File size limit: the streams cannot grow past 4 KiB (8 blocks of 512
# bytes in sh), which 1000 recorded sleeps exceed. The
# agent's writes past the limit raise SIGXFSZ, which must not reach the
# program; the limit is reported once and the trace stays valid.
# (Said by ovnirun, from its report: the agent writes no line into a
# stderr file within 1 MiB of the program's limit, whose bytes are the
# program's.)
got=$(sh -c 'ulimit -f 8; exec "$0" -o "$1" "$2" sleeps 1000' "$OVNIRUN" "$WORK/full" "$PROG/threads" 2>"$WORK/full.err"); rc=$?
assert_eq "full: status" 0 "$rc"
assert_eq "full: output" "done sleeps 1000" "$got"
n=$(grep -c "ovnirun:   pid [0-9]* cannot extend the stream" "$WORK/full.err")
[ "$n" -eq 1 ] && ! grep -q "^ovni-auto:" "$WORK/full.err" || { cat "$WORK/full.err"; fail "full: $n messages, expected the one about the limit, from ovnirun"; }
check_trace "$WORK/full"

# 16 descriptors.
got=$(sh -c 'ulimit -n 16; exec "$0" -q -o "$1" sh -c "seq 1 50000 | sort -r | md5sum"' "$OVNIRUN" "$WORK/nofile" 2>"$WORK/nofile.err"); rc=$?
assert_eq "nofile: status" 0 "$rc"
assert_eq "nofile: output" "$want" "$got"
check_trace "$WORK/nofile"

# Little address space.
got=$(sh -c 'ulimit -v 400000; exec "$0" -q -o "$1" sh -c "seq 1 50000 | sort -r | md5sum"' "$OVNIRUN" "$WORK/vm" 2>"$WORK/vm.err"); rc=$?
assert_eq "ulimit -v: status" 0 "$rc"
assert_eq "ulimit -v: output" "$want" "$got"
