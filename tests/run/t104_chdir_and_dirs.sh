# A relative OVNI_TRACEDIR is fixed at start: a program that chdirs keeps
# every stream in one trace. An unwritable trace directory gives one clear
# line on stderr and leaves the program untouched.
. "$(dirname "$0")/../lib.sh"
cd "$WORK" || exit 1
out=$(LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR=rel "$PROG/threads" chdir 3) || fail "exit status $?"
assert_eq "output" "done chdir 3" "$out"
assert_eq "streams under ./rel" 4 "$(streams "$WORK/rel")"
[ -e /rel ] && fail "streams scattered into /rel"
check_trace "$WORK/rel"

touch "$WORK/afile"
LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR="$WORK/afile/sub" "$PROG/threads" exitcode 3 >"$WORK/out" 2>"$WORK/err"
assert_eq "exit status with no trace dir" 3 $?
assert_eq "stdout with no trace dir" "done exitcode 3" "$(cat "$WORK/out")"
assert_eq "stderr lines" 1 "$(wc -l <"$WORK/err")"
grep -q "ovni-auto: cannot write the trace in $WORK/afile/sub" "$WORK/err" || fail "unclear message: $(cat "$WORK/err")"

# OVNI_DISABLE turns the agent off entirely.
LD_PRELOAD="$LIBAGENT" OVNI_DISABLE=1 OVNI_TRACEDIR="$WORK/off" "$PROG/threads" join 2 >/dev/null || fail "disabled run"
[ -e "$WORK/off" ] && fail "a disabled agent wrote a trace"
exit 0
