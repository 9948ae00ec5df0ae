# OpenMP tasks (clang, libomp): task counts and type labels, taskwait,
# taskgroup, if(0) and final tasks, taskloop, dependences and taskwait
# depend, detached tasks, cancellation, fib with a depth cutoff.  Each trace
# passes the checks and the replay (ovni-auto's own rules in clock order).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/t3_omp.inc"
P="$PROG/clang_omp_tasks"
[ -x "$P" ] || skip "no $P (clang missing?)"
mark85() { awk -v v="value=$1" '$2 == "OM=" && $4 == v && $5 == "type=85"' "$2" | wc -l; }

omp_run fib OMP_NUM_THREADS=2 -- "$P" fib 20 10
assert_eq "fib output" "fib 20 = 6765" "$(cat "$WORK/fib.out")"
assert_eq "fib tasks" 2046 "$(rval tasks "$WORK/fib.r")"
assert_eq "fib completed" 2046 "$(rval completed "$WORK/fib.r")"
assert_eq "fib label" 2046 "$(rval label.fib "$WORK/fib.r")"
assert_ge "fib taskwaits" 1 "$(count PTt "$WORK/fib.d")"

omp_run group OMP_NUM_THREADS=2 -- "$P" group
assert_eq "group output" "group = 14" "$(cat "$WORK/group.out")"
assert_eq "group tasks" 14 "$(rval tasks "$WORK/group.r")"
assert_eq "group completed" 14 "$(rval completed "$WORK/group.r")"
assert_eq "tasks created in spawn_group" 9 "$(rval label.spawn_group "$WORK/group.r")"
assert_ge "taskgroup waits" 1 "$(count PTg "$WORK/group.d")"
assert_ge "if(0) task" 1 "$(count PTi "$WORK/group.d")"

omp_run taskloop OMP_NUM_THREADS=3 -- "$P" taskloop
assert_eq "taskloop output" "taskloop = 29" "$(cat "$WORK/taskloop.out")"
# 20 iterations by 4, then 3 tasks: labelled with the user function that
# holds the taskloop (libomp gives an address inside __kmpc_taskloop).
assert_eq "taskloop tasks" 8 "$(rval label.run_taskloop "$WORK/taskloop.r")"
assert_eq "taskloop creation states" 2 "$(count PTd "$WORK/taskloop.d")"
assert_eq "no runtime labels" 0 "$(grep -c 'POc .*label="__kmp' "$WORK/taskloop.d")"

omp_run deps OMP_NUM_THREADS=2 -- "$P" deps
assert_eq "deps output" "deps = 304" "$(cat "$WORK/deps.out")"
assert_eq "deps tasks" 6 "$(rval tasks "$WORK/deps.r")"
# Edges to predecessors that still run, on mark channel 86.
assert_ge "dependence marks" 1 "$(awk '$2 == "OM=" && $5 == "type=86"' "$WORK/deps.d" | wc -l)"
# Every dependence's kind on channel 89: out(a); in(a) out(b); inout(b);
# mutexinoutset(c) x2; taskwait depend(in:b); if(0) depend(in:c). libomp 14
# reports out as inout.
dk() { awk -v v="value=$1" '$2 == "OM=" && $5 == "type=89" && $4 == v' "$WORK/deps.d" | wc -l; }
assert_eq "dependences" 8 "$(awk '$2 == "OM=" && $5 == "type=89"' "$WORK/deps.d" | wc -l)"
assert_eq "in dependences" 3 "$(dk 1)"
assert_eq "inout dependences" 3 "$(($(dk 2) + $(dk 3)))"
assert_eq "mutexinoutset dependences" 2 "$(dk 4)"
grep -q '"89": *{' $(find "$WORK/deps" -name stream.json | head -1) || grep -q 'mutexinoutset' $(find "$WORK/deps" -name stream.json | head -1) ||
	fail "channel 89 labels not declared"
# taskwait depend and task if(0) depend wait as "Taskwait deps".
assert_eq "taskwait deps opened = closed" "$(count PTw "$WORK/deps.d")" "$(count PTW "$WORK/deps.d")"
assert_ge "taskwait deps" 2 "$(count PTw "$WORK/deps.d")"

omp_run detach OMP_NUM_THREADS=2 -- "$P" detach
assert_eq "detach output" "detach = 2" "$(cat "$WORK/detach.out")"
assert_eq "detach tasks" 3 "$(rval tasks "$WORK/detach.r")"
assert_eq "detached body ends" 1 "$(mark85 4 "$WORK/detach.d")"
assert_eq "early fulfill" 1 "$(mark85 5 "$WORK/detach.d")"
assert_eq "late fulfill" 1 "$(mark85 6 "$WORK/detach.d")"
assert_eq "detach completed" 3 "$(rval completed "$WORK/detach.r")"

omp_run cancel OMP_NUM_THREADS=2 OMP_CANCELLATION=true -- "$P" cancel
assert_eq "cancel output" "cancel = yes" "$(cat "$WORK/cancel.out")"
assert_eq "cancel tasks" 50 "$(rval tasks "$WORK/cancel.r")"
assert_eq "cancel taskgroup activated" 1 "$(mark85 124 "$WORK/cancel.d")"
assert_eq "cancel loop activated" 1 "$(mark85 120 "$WORK/cancel.d")"
disc=$(mark85 8 "$WORK/cancel.d")
assert_ge "discarded tasks" 1 "$disc"
assert_eq "executed + discarded" 50 "$(($(rval executions "$WORK/cancel.r") + disc))"

# Taskloops in 360 short regions (master, then single): libomp splits a
# large taskloop into helper tasks that create the rest of its tasks on the
# thread that runs them.  Those creations belong to the helper task running
# there (they once opened the taskloop's encountering task on two threads).
# The tasks that ran user code are exactly the program's own count.
for m in master single nogroup intask; do
	omp_run "tl_$m" OMP_NUM_THREADS=4 -- "$PROG/clang_omp_taskloop" $m
	want=$(OMP_NUM_THREADS=4 "$PROG/clang_omp_taskloop" $m)
	assert_eq "taskloop $m output" "$want" "$(cat "$WORK/tl_$m.out")"
	user=${want##* }
	r="$WORK/tl_$m.r"
	got=0
	for l in loop_num_tasks loop_grainsize loop_nogroup; do
		n=$(rval "label.$l" "$r"); c=$(rval "creators.$l" "$r")
		got=$((got + ${n:-0} - ${c:-0}))
	done
	info "taskloop $m: $user user tasks, $(rval tasks "$r") in the trace"
	assert_eq "taskloop $m: tasks that ran user code" "$user" "$got"
	assert_eq "taskloop $m: no runtime labels" 0 "$(grep -c 'POc .*label="__kmp' "$WORK/tl_$m.d")"
done

# A team taking one pthread mutex in turn, a barrier after each: a thread
# that waited for the lock writes its wait's end (OHr) before the barrier's
# OpenMP events.  They were written after them (the OMPT batch skipped the
# deferred end), and check and ovniemu refused the thread's OpenMP events
# while it was Paused.
omp_run mutexbar OMP_NUM_THREADS=4 -- "$P" mutexbar 1000
assert_eq "mutexbar output" "mutexbar 1000" "$(cat "$WORK/mutexbar.out")"
assert_ge "mutex waits recorded" 1 "$(awk '$2 == "OM[" && $4 == "value=1" && $5 == "type=81"' "$WORK/mutexbar.d" | wc -l)"
