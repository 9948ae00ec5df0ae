# An OpenMP program that dies (SIGSEGV, abort), exits or execs in the middle
# of its tasks, with OpenMP states open on every thread: the agent closes
# them before each thread's OHe, so every trace passes the checks (and
# ovniemu -l, which rejects a thread that ends with open subsystem states).
# A failed exec reopens them and the program goes on; after kill -9 ovnirun
# finishes the streams (ovni-auto repair) when the run ends.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/t3_omp.inc"
P="$PROG/clang_omp_crash"
[ -x "$P" ] || skip "no $P (clang missing?)"
for m in segv:139 abort:134 exit:3; do
	mode=${m%:*} want=${m#*:}
	OMP_NUM_THREADS=2 "$OVNIRUN" -q -o "$WORK/$mode" "$P" "$mode" >"$WORK/$mode.out" 2>&1
	assert_eq "$mode: exit status" "$want" "$?"
	check_trace "$WORK/$mode"
	dump "$WORK/$mode" >"$WORK/$mode.d"
	assert_eq "$mode: streams" 2 "$(streams "$WORK/$mode")"
	# Tasks were running and states open when it ended: the closings are
	# at each thread's end (the replay checks every thread ends balanced).
	assert_ge "$mode: tasks" 1 "$(count PPc "$WORK/$mode.d")"
	omp_replay "$WORK/$mode.d" >"$WORK/$mode.r" || { cat "$WORK/$mode.r"; fail "$mode: replay"; }
	assert_eq "$mode: attached closed" "$(count 'PA[' "$WORK/$mode.d")" "$(count 'PA]' "$WORK/$mode.d")"
done

OMP_NUM_THREADS=2 "$OVNIRUN" -q -o "$WORK/ef" "$P" execfail >"$WORK/ef.out" 2>&1 || fail "execfail: exit status $?"
assert_eq "execfail output" "execfail done 4950" "$(cat "$WORK/ef.out")"
check_trace "$WORK/ef"
dump "$WORK/ef" >"$WORK/ef.d"
omp_replay "$WORK/ef.d" >"$WORK/ef.r" || { cat "$WORK/ef.r"; fail "execfail: replay"; }
assert_eq "execfail: tasks" 100 "$(rval tasks "$WORK/ef.r")"
assert_eq "execfail: completed" 100 "$(rval completed "$WORK/ef.r")"
assert_ge "execfail: thread ended and started again" 2 "$(count OHx "$WORK/ef.d")"

# exec from a task: the new image is the same process, so its task and type
# ids must not repeat those of the first image (ovniemu rejects a type or
# task id declared twice in a process).
OMP_NUM_THREADS=2 "$OVNIRUN" -q -o "$WORK/rx" "$P" reexec >"$WORK/rx.out" 2>&1 || fail "reexec: exit status $?"
assert_eq "reexec output" "plain done 4950" "$(cat "$WORK/rx.out")"
check_trace "$WORK/rx"
dump "$WORK/rx" >"$WORK/rx.d"
assert_ge "reexec: tasks of both images" 150 "$(count PPc "$WORK/rx.d")"
assert_eq "reexec: task ids unique" 0 "$(awk '$2 == "PPc" { print $4 }' "$WORK/rx.d" | sort | uniq -d | wc -l)"
assert_eq "reexec: type ids unique" 0 "$(awk '$2 == "POc" { print $4 }' "$WORK/rx.d" | sort | uniq -d | wc -l)"
assert_ge "reexec: types declared by both images" 2 "$(count POc "$WORK/rx.d")"

OMP_NUM_THREADS=2 "$OVNIRUN" -q -o "$WORK/k" "$P" hang >/dev/null 2>&1 &
pid=$!
n=0
while [ "$(dump "$WORK/k" 2>/dev/null | awk '$2 == "PPx"' | wc -l)" -lt 50 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
pkill -KILL -P $pid || fail "no program to kill" # the program, ovnirun's child
wait $pid
assert_eq "killed by SIGKILL" 137 $?
# ovnirun finished the killed process's streams when the run ended.
check_trace "$WORK/k"
grep -rq '"killed by signal SIGKILL; streams finished by ovnirun"' "$WORK/k" || fail "kill -9: how it ended is not said"
"$OA" repair "$WORK/k" >"$WORK/k.rep" || { cat "$WORK/k.rep"; fail "repair"; }
check_trace "$WORK/k"

# libomp registers each process in /dev/shm and unregisters it when it
# exits: the programs that died here (untraced too) leave theirs behind.
for d in "$WORK/segv" "$WORK/abort" "$WORK/k"; do
	for p in "$d"/loom.*/proc.*; do
		if [ -d "$p" ]; then rm -f "/dev/shm/__KMP_REGISTERED_LIB_${p##*proc.}_"*; fi
	done
done
