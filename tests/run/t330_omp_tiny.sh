# One million tiny tasks from one single, 2 threads: every task is created,
# run and completed once, under one type labelled spawn_tiny.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/t3_omp.inc"
P="$PROG/clang_omp_tasks"
[ -x "$P" ] || skip "no $P (clang missing?)"
omp_run tiny OMP_NUM_THREADS=2 -- "$P" tiny 1000000
assert_eq "output" "tiny 1000000 = 1000000" "$(cat "$WORK/tiny.out")"
r="$WORK/tiny.r"
assert_eq "tasks" 1000000 "$(rval tasks "$r")"
assert_eq "executions" 1000000 "$(rval executions "$r")"
assert_eq "completed" 1000000 "$(rval completed "$r")"
assert_eq "label" 1000000 "$(rval label.spawn_tiny "$r")"
assert_eq "one task type" 1 "$(grep -c 'POc .*label="spawn_tiny"' "$WORK/tiny.d")"
# The runtime's idle loops call sched_yield all the time: not recorded (the
# barrier and task states show that time); a yield of the program still is
# (t500).
assert_eq "no yields of the OpenMP runtime" 0 \
	"$(awk '$2 == "OM[" && $5 == "type=81"' "$WORK/tiny.d" | grep -c 'value=10 ')"
# Nor is the runtime joining its threads at exit (the agent releases them).
assert_eq "no joins of the OpenMP runtime" 0 \
	"$(awk '$2 == "OM[" && $5 == "type=81"' "$WORK/tiny.d" | grep -c 'value=6 ')"
