# exec: the shell's stream ends before exec and the new image continues it;
# an exec that fails goes on tracing. OVNI_TMPDIR: streams are staged there
# and moved into the trace directory at the end.
. "$(dirname "$0")/../lib.sh"
"$OVNIRUN" -q -o "$WORK/ex" sh -c "exec \"$PROG/threads\" join 2" >/dev/null || fail "exec run"
check_trace "$WORK/ex"
dump "$WORK/ex" >"$WORK/d"
assert_eq "one process" 1 "$(ls -d "$WORK/ex"/loom.*/proc.* | wc -l)"
assert_eq "streams (main continued after exec)" 3 "$(streams "$WORK/ex")"
main=$(ls -d "$WORK/ex"/loom.*/proc.* | sed 's/.*proc\.//')
assert_eq "main thread ran twice (sh, then threads)" 2 \
	"$(awk -v m="thread.$main" '$2 == "OHx" && $3 ~ m"$"' "$WORK/d" | wc -l)"

"$OVNIRUN" -q -o "$WORK/fail" sh -c "exec /no/such/prog" 2>/dev/null
assert_eq "sh exit status after a failed exec" 127 $?
check_trace "$WORK/fail"

mkdir "$WORK/stage"
"$OVNIRUN" -q -o "$WORK/final" -t "$WORK/stage" "$PROG/threads" join 3 >/dev/null || fail "tmpdir run"
check_trace "$WORK/final"
assert_eq "streams in the trace dir" 4 "$(streams "$WORK/final")"
assert_eq "streams left in the stage dir" 0 "$(find "$WORK/stage" -name 'stream.*' | wc -l)"
# Nothing is left in the stage dir: each process's proc.P and loom.L go
# with its last stream (a run staged there again and again adds nothing).
assert_eq "the stage dir is left empty" "" "$(ls -A "$WORK/stage")"
"$OVNIRUN" -q -o "$WORK/final2" -t "$WORK/stage" sh -c "\"$PROG/threads\" join 2; /bin/true" >/dev/null || fail "tmpdir run 2"
check_trace "$WORK/final2"
assert_eq "streams of the second staged run" 5 "$(streams "$WORK/final2")"
assert_eq "the stage dir is left empty after three processes" "" "$(ls -A "$WORK/stage")"
# A process of a staged run killed by SIGKILL (it cannot move its streams;
# a parent does not finish a staged child): ovnirun finishes its streams
# in the stage directory and moves them into the trace, saying how it
# ended.  They stayed in the stage dir, the trace had its empty directory,
# and check said ok.
"$OVNIRUN" -q -o "$WORK/killed" -t "$WORK/stage" sh -c 'sh -c "sleep 0.1; kill -9 \$\$"; echo child $?' >"$WORK/killed.out" 2>/dev/null
assert_eq "killed child: status" 0 $?
assert_eq "killed child: output" "child 137" "$(cat "$WORK/killed.out")"
check_trace "$WORK/killed"
assert_eq "killed child: streams" 3 "$(streams "$WORK/killed")"
grep -rq '"ended without notice; streams finished by ovnirun"' "$WORK/killed" || fail "killed child: not finished by ovnirun"
assert_eq "killed child: the stage dir is left empty" "" "$(ls -A "$WORK/stage")"
"$OVNIRUN" -q -o "$WORK/killed2" -t "$WORK/stage" sh -c 'kill -9 $$' 2>/dev/null
assert_eq "killed program: status" 137 $?
check_trace "$WORK/killed2"
grep -rq '"killed by signal SIGKILL; streams finished by ovnirun"' "$WORK/killed2" || fail "killed program: how"
assert_eq "killed program: the stage dir is left empty" "" "$(ls -A "$WORK/stage")"
