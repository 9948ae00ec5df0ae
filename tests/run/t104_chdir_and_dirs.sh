# A relative OVNI_TRACEDIR is fixed at start: a program that chdirs keeps
# every stream in one trace, and so do the programs it starts from there
# (a script's `cd sub; tool`, `make -C sub`: their streams went to
# sub/rel, or sub/ovni with no OVNI_TRACEDIR, a trace apart); a child's
# own relative value is its own. An unwritable trace directory gives one clear
# line on stderr and leaves the program untouched.
. "$(dirname "$0")/../lib.sh"
cd "$WORK" || exit 1
out=$(LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR=rel "$PROG/threads" chdir 3) || fail "exit status $?"
assert_eq "output" "done chdir 3" "$out"
assert_eq "streams under ./rel" 4 "$(streams "$WORK/rel")"
[ -e /rel ] && fail "streams scattered into /rel"
check_trace "$WORK/rel"

mkdir -p "$WORK/sub"
out=$(LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR=rel2 sh -c 'cd sub && /bin/echo child && printenv OVNI_TRACEDIR') ||
	fail "chdir then exec: status $?"
assert_eq "chdir then exec: output" "child
$WORK/rel2" "$out"
[ -e "$WORK/sub/rel2" ] && fail "a child's streams went to sub/rel2"
assert_eq "chdir then exec: processes in ./rel2" 3 "$(ls -d "$WORK"/rel2/loom.*/proc.* | wc -l)"
check_trace "$WORK/rel2"
out=$(LD_PRELOAD="$LIBAGENT" sh -c 'cd sub && /bin/true && printenv OVNI_TRACEDIR') || fail "default: status $?"
assert_eq "default, chdir then exec: the children's trace directory" "$WORK/ovni" "$out"
[ -e "$WORK/sub/ovni" ] && fail "a child's streams went to sub/ovni"
assert_eq "default, chdir then exec: processes in ./ovni" 3 "$(ls -d "$WORK"/ovni/loom.*/proc.* | wc -l)"
check_trace "$WORK/ovni"
out=$(LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR=rel3 sh -c 'cd sub && OVNI_TRACEDIR=own printenv OVNI_TRACEDIR') ||
	fail "own value: status $?"
assert_eq "a child's own relative value" "own" "$out"

# ovnirun started in a directory that was removed (its default ./ovni
# relative to it): the program runs all the same, untraced, its status
# kept, one line saying why (before: "ovnirun: getcwd", status 1, the
# program not run).
mkdir "$WORK/gone"
(cd "$WORK/gone" && rmdir "$WORK/gone" && "$OVNIRUN" -q "$PROG/threads" exitcode 3 >"$WORK/out" 2>"$WORK/err")
assert_eq "removed cwd: status" 3 $?
assert_eq "removed cwd: output" "done exitcode 3" "$(cat "$WORK/out")"
grep -q "the current directory was removed" "$WORK/err" || fail "removed cwd: no clear line: $(cat "$WORK/err")"
assert_eq "removed cwd: stderr lines" 1 "$(wc -l <"$WORK/err")"

touch "$WORK/afile"
LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR="$WORK/afile/sub" "$PROG/threads" exitcode 3 >"$WORK/out" 2>"$WORK/err"
assert_eq "exit status with no trace dir" 3 $?
assert_eq "stdout with no trace dir" "done exitcode 3" "$(cat "$WORK/out")"
assert_eq "stderr lines" 1 "$(wc -l <"$WORK/err")"
grep -q "ovni-auto: cannot write the trace in $WORK/afile/sub" "$WORK/err" || fail "unclear message: $(cat "$WORK/err")"
# A path too long for the line (~500 bytes): its start and its end, with
# why; it was cut at 510 bytes, the reason lost.
long="$WORK/afile/$(printf 'x%.0s' $(seq 230))/$(printf 'y%.0s' $(seq 230))/t"
LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR="$long" /bin/echo hi >"$WORK/out" 2>"$WORK/err"
assert_eq "a long path: stderr lines" 1 "$(wc -l <"$WORK/err")"
grep -q "^ovni-auto: cannot write the trace in $WORK/afile/x*\.\.\.[xy/]*/t/loom\.[^ ]*: Not a directory; the program runs untraced$" "$WORK/err" ||
	fail "a long path: the line: $(cat "$WORK/err")"

# A script's processes that all cannot write there (LD_PRELOAD alone: no
# ovnirun report to gather the lines): one line, not one per process
# (before: 6), and the programs' output as untraced.
out=$(LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR="$WORK/afile/sub" sh -c 'for i in 1 2 3 4 5; do /bin/echo $i; done' 2>"$WORK/err")
assert_eq "script with no trace dir: status" 0 $?
assert_eq "script with no trace dir: output" "1 2 3 4 5" "$(echo $out)"
assert_eq "script with no trace dir: stderr lines" 1 "$(wc -l <"$WORK/err")"
# Another directory that fails: said again.
LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR="$WORK/afile/sub" sh -c 'OVNI_TRACEDIR=$0/other /bin/true' "$WORK/afile" 2>"$WORK/err"
assert_eq "another failing directory: stderr lines" 2 "$(wc -l <"$WORK/err")"

# OVNI_DISABLE turns the agent off entirely.
LD_PRELOAD="$LIBAGENT" OVNI_DISABLE=1 OVNI_TRACEDIR="$WORK/off" "$PROG/threads" join 2 >/dev/null || fail "disabled run"
[ -e "$WORK/off" ] && fail "a disabled agent wrote a trace"
exit 0
