# exec: a chain of three execs is one process whose main thread runs four
# times in its stream; the exec points and programs are labelled; a failed
# exec goes on traced.
. "$(dirname "$0")/../lib.sh"
out=$("$OVNIRUN" -q -o "$WORK/chain" "$PROG/procs" chain 3) || fail "chain status $?"
assert_eq "chain output" "chain 3
chain 2
chain 1
chain 0" "$out"
check_trace "$WORK/chain"
assert_eq "processes" 1 "$(ls -d "$WORK/chain"/loom.*/proc.* | wc -l)"
dump "$WORK/chain" >"$WORK/d"
assert_eq "OHx of the main thread (4 images)" 4 "$(count OHx "$WORK/d")"
assert_eq "OHe of the main thread" 4 "$(count OHe "$WORK/d")"
assert_eq "exec labels" 3 "$(grep -ho '"exec /proc/self/exe"' $(find "$WORK/chain" -name stream.json) | wc -l)"

# A chain of different programs: sh, env, sh again, then procs.
out=$("$OVNIRUN" -q -o "$WORK/progs" sh -c "exec env A=1 sh -c 'exec \"$PROG/procs\" chain 0'") || fail "program chain"
assert_eq "program chain output" "chain 0" "$out"
check_trace "$WORK/progs"
assert_eq "program chain: one process" 1 "$(ls -d "$WORK/progs"/loom.*/proc.* | wc -l)"
dump "$WORK/progs" >"$WORK/d"
assert_eq "program chain: four images" 4 "$(count OHx "$WORK/d")"
for prog in /usr/bin/env /bin/sh; do
	grep -q "\"exec $prog\"\|\"exec ${prog##*/}\"" $(find "$WORK/progs" -name stream.json) || fail "no exec label for $prog"
done

# A missing program fails before anything is ended: the trace is untouched.
out=$("$OVNIRUN" -q -o "$WORK/missing" "$PROG/procs" execfail /no/such/program); rc=$?
assert_eq "exec of a missing program: status" 5 $rc
assert_eq "exec of a missing program: output" "exec failed, going on" "$out"
check_trace "$WORK/missing"
dump "$WORK/missing" >"$WORK/d"
assert_eq "exec of a missing program: OHx" 1 "$(count OHx "$WORK/d")"

# An executable file that is no program passes every check but fails in the
# kernel (ENOEXEC): the streams were ended, and tracing resumes.
printf 'garbage\n' >"$WORK/notaprogram"
chmod +x "$WORK/notaprogram"
out=$("$OVNIRUN" -q -o "$WORK/fail" "$PROG/procs" execfail "$WORK/notaprogram"); rc=$?
assert_eq "execfail status" 5 $rc
assert_eq "execfail output" "exec failed, going on" "$out"
check_trace "$WORK/fail"
grep -q "\"exec failed $WORK/notaprogram\"" $(find "$WORK/fail" -name stream.json) || fail "no exec-failed label"
dump "$WORK/fail" >"$WORK/d"
assert_eq "OHx (before and after the failed exec)" 2 "$(count OHx "$WORK/d")"

# Other threads that kept running across the failed exec go on being traced:
# their streams end at the exec and continue (OHx again) at their next event.
out=$("$OVNIRUN" -q -o "$WORK/failthr" "$PROG/procs" execfailthreads "$WORK/notaprogram"); rc=$?
assert_eq "execfailthreads status" 5 $rc
check_trace "$WORK/failthr"
dump "$WORK/failthr" >"$WORK/d"
# Both creator threads reopened their streams after the failed exec (an OHx
# without creator besides the main thread's) and created threads afterwards.
main=$(ls -d "$WORK/failthr"/loom.*/proc.* | sed 's/.*proc\.//')
awk -v m="thread.$main" '$2 == "OHx" && $5 == "tid=-1" && $3 !~ m"$" { reopened[$3] = $1 }
	$2 == "OHC" && ($3 in reopened) && $1 > reopened[$3] { after[$3]++ }
	END { n = 0; for (s in after) if (after[s] >= 3) n++; print n }' "$WORK/d" >"$WORK/n"
assert_eq "creator streams reopened and recording after the failed exec" 2 "$(cat "$WORK/n")"
grep -q '"exit status 5"' $(find "$WORK/failthr" -name stream.json) || fail "exit status 5 not recorded"
