# A gcc-compiled OpenMP program (libgomp has no OMPT): ovnirun runs it on LLVM
# libomp and says so; the tasks, loops, critical sections and barriers are
# traced; with --no-libomp it keeps libgomp and the trace has no OpenMP
# events. The program's output is the same either way.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/t3_omp.inc"
P="$PROG/omp_gcc"
[ -x "$P" ] || skip "no $P"
ls /usr/lib/x86_64-linux-gnu/libomp.so.5 /usr/lib/llvm-*/lib/libomp.so.5 >/dev/null 2>&1 || skip "LLVM libomp not installed"
expect="gcc tasks=200 loops=9902"
# Not quiet: the swap is announced.
OMP_NUM_THREADS=2 "$OVNIRUN" -o "$WORK/g" "$P" >"$WORK/g.out" 2>"$WORK/g.err" || fail "exit status $?"
grep -q "uses GCC's libgomp.*running it on LLVM libomp" "$WORK/g.err" || { cat "$WORK/g.err"; fail "no swap message"; }
assert_eq "output" "$expect" "$(cat "$WORK/g.out")"
check_trace "$WORK/g"
dump "$WORK/g" >"$WORK/g.d"
omp_replay "$WORK/g.d" >"$WORK/g.r" || { cat "$WORK/g.r"; fail "replay"; }
assert_eq "tasks" 200 "$(rval tasks "$WORK/g.r")"
assert_eq "task label" 200 "$(rval label.gcc_spawn "$WORK/g.r")"
assert_ge "dynamic loop" 2 "$(count PWc "$WORK/g.d")"
assert_ge "critical" 2 "$(count 'PI[' "$WORK/g.d")"
assert_ge "taskwait" 1 "$(count PTt "$WORK/g.d")"
assert_ge "taskgroup" 1 "$(count PTg "$WORK/g.d")"
assert_eq "join barrier" 1 "$(count PBj "$WORK/g.d")"
# gcc code never migrates untied tasks.
assert_eq "migrations" 0 "$(rval migrations "$WORK/g.r")"

OMP_NUM_THREADS=2 "$OVNIRUN" --no-libomp -o "$WORK/n" "$P" >"$WORK/n.out" 2>"$WORK/n.err" || fail "exit status $?"
grep -q "uses GCC's libgomp.*not traced" "$WORK/n.err" || { cat "$WORK/n.err"; fail "no libgomp message"; }
assert_eq "output (libgomp)" "$expect" "$(cat "$WORK/n.out")"
check_trace "$WORK/n"
assert_eq "no openmp events with libgomp" 0 "$(dump "$WORK/n" | awk '$2 ~ /^P/' | wc -l)"

# Detached tasks in gcc code cannot run on libomp 14 (omp_fulfill_event@OMP_5.0.1
# would bind to libgomp's and crash): ovnirun keeps libgomp and says why.
P="$PROG/omp_gcc_detach"
"$OVNIRUN" -o "$WORK/d" "$P" >"$WORK/d.out" 2>"$WORK/d.err" || { cat "$WORK/d.err"; fail "detach: exit status $?"; }
assert_eq "detach output" "detach done=1" "$(cat "$WORK/d.out")"
grep -q "omp_fulfill_event@OMP_5.0.1, which LLVM libomp .* does not have: keeping libgomp" "$WORK/d.err" || { cat "$WORK/d.err"; fail "no detach message"; }
check_trace "$WORK/d"
