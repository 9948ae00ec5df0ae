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
t0=$(date +%s%N)
out=$("$OVNIRUN" -q -o "$WORK/fail" "$PROG/procs" execfail "$WORK/notaprogram"); rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
assert_eq "execfail status" 5 $rc
# The calling thread's old slot once stayed "ending" after the failed exec,
# and the exit waited 5.8 s for it (a hang, not a speed goal).
[ "$ms" -lt 3000 ] || fail "execfail: the program took $ms ms to exit after a failed exec"
assert_eq "execfail output" "exec failed, going on" "$out"
check_trace "$WORK/fail"
grep -q "\"exec failed $WORK/notaprogram: Exec format error\"" $(find "$WORK/fail" -name stream.json) || fail "no exec-failed label"
# Labels made before the exec survive in the stream the thread goes on with.
grep -q "\"exec $WORK/notaprogram\"" $(find "$WORK/fail" -name stream.json) || fail "the exec label was lost"
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

# Execs that fail at once (missing file, not executable) are recorded in the
# child that tried, as "failed exec PATH: reason"; a PATH-like search that
# finds the program records nothing but its exec, and one that finds nothing
# records its last attempt once.
printf 'data\n' >"$WORK/plainfile"
out=$("$OVNIRUN" -q -o "$WORK/refused" "$PROG/procs" execrefused "$WORK/plainfile"); rc=$?
assert_eq "execrefused status" 0 $rc
assert_eq "execrefused output" "child 0: 127
child 1: 127
search: 0
not found: 127" "$out"
check_trace "$WORK/refused"
labels=$(cat $(find "$WORK/refused" -name stream.json) | grep -o '"failed exec [^"]*"' | tr -d '"' | LC_ALL=C sort)
assert_eq "failed exec labels" "failed exec /no/dir2/nosuchcmd: No such file or directory
failed exec /no/such/program: No such file or directory
failed exec $WORK/plainfile: Permission denied" "$labels"
# Each is on the trace: a mark event of channel 80 whose value has that label.
dump "$WORK/refused" >"$WORK/d"
for f in plainfile nosuchcmd such/program; do
	v=$(cat $(find "$WORK/refused" -name stream.json) | grep -o "\"[0-9]*\": \"failed exec [^\"]*$f[^\"]*\"" | cut -d'"' -f2)
	assert_eq "mark for $f" 1 "$(awk -v v="value=$v" '$2 == "OM=" && $4 == v && $5 == "type=80"' "$WORK/d" | wc -l)"
done
grep -q '"exec /bin/true"' $(find "$WORK/refused" -name stream.json) || fail "the search's exec of /bin/true not recorded"
# execveat relative to a directory descriptor (not the current directory):
# taken for an exec that works, the streams end before it and the new image
# continues them (before: a zeroed window and "clock goes backwards").
(cd "$WORK" && "$OVNIRUN" -q -o "$WORK/at" "$PROG/execat") >"$WORK/at.out" 2>&1; assert_eq "execveat status" 0 $?
assert_eq "execveat output" before "$(cat "$WORK/at.out")"
check_trace "$WORK/at"
grep -rq '"exec bin/true"' "$WORK/at" || fail "execveat: no exec event"
# The same exec as a raw system call through syscall() (SYS_execve,
# SYS_execveat): before, a started process left its stream open and the new
# image wrote after a zeroed window ("not an event").
for m in raw rawat; do
	(cd "$WORK" && "$OVNIRUN" -q -o "$WORK/$m" "$PROG/execat" $m) >"$WORK/$m.out" 2>&1; assert_eq "$m status" 0 $?
	assert_eq "$m output" before "$(cat "$WORK/$m.out")"
	check_trace "$WORK/$m"
	grep -rq '"exec ' "$WORK/$m" || fail "$m: no exec event"
done
# An environment with two LD_PRELOAD entries: the loader takes the last (an
# empty one here), and so does the agent, which adds itself to that one and
# leaves the other (before: it merged into the first and dropped the last,
# so the child loaded a library that untraced it would not).
want=$("$PROG/execat" preload 2>&1)
got=$(OVNI_TRACEDIR="$WORK/dup" LD_PRELOAD="$LIBAGENT" "$PROG/execat" preload 2>&1)
assert_eq "two LD_PRELOAD: untraced" "before
preload=[]" "$want"
assert_eq "two LD_PRELOAD: traced, the last one taken" "before
preload=[$LIBAGENT]" "$got"
check_trace "$WORK/dup"

# An exec whose environment fits the kernel's limit only without the agent's
# variables (~450 bytes: OVNI_*, the agent in LD_PRELOAD, ASAN_OPTIONS's
# flag) is made again with the program's own environment, and said: the
# largest environment that works is the same as untraced (before: ~400
# bytes less, the exec failing with E2BIG).
want=$("$PROG/procs" argmax)
got=$("$OVNIRUN" -q -o "$WORK/argmax" "$PROG/procs" argmax 2>"$WORK/argmax.err")
assert_eq "largest environment" "$want" "$got"
grep -q "leave no room for the agent's variables (E2BIG)" "$WORK/argmax.err" || fail "E2BIG not said: $(head -n 3 "$WORK/argmax.err")"
check_trace "$WORK/argmax"

# An exec the agent does not see: another preloaded library calls libc's
# execve through a handle of its own (libtorsocks does). The new image
# continued the earlier image's stream after its whole window, zeros
# between ("offset 316: not an event", every time); it now cuts the
# stream back to its last whole event and closes what it left open (its
# OHe), as a seen exec does.
for how in ovnirun preload; do
	rm -rf "$WORK/shim"
	if [ $how = ovnirun ]; then
		out=$("$OVNIRUN" -q -o "$WORK/shim" bash -c 'LD_PRELOAD="$0:$LD_PRELOAD" bash -c "/bin/echo a; /bin/echo b"' "$PROG/so_exec_shim.so")
	else
		out=$(OVNI_TRACEDIR="$WORK/shim" LD_PRELOAD="$LIBAGENT" bash -c 'LD_PRELOAD="$0:$LD_PRELOAD" bash -c "/bin/echo a; /bin/echo b"' "$PROG/so_exec_shim.so")
	fi
	assert_eq "unseen exec ($how): output" "a
b" "$out"
	check_trace "$WORK/shim"
done
