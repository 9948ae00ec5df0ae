# The OMPT tool is found through LD_PRELOAD, through OMP_TOOL_LIBRARIES
# alone (the runtime loads the agent; its worker threads get streams from
# thread_begin), and through both (ovnirun sets both): it starts once.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/t3_omp.inc"
P="$PROG/clang_omp_tasks"
[ -x "$P" ] || skip "no $P (clang missing?)"
# Both (ovnirun): one type declaration per label, one PA[ per thread.
omp_run both OMP_NUM_THREADS=3 -- "$P" group
assert_eq "attached once per thread" "$(streams "$WORK/both")" "$(count 'PA[' "$WORK/both.d")"
assert_eq "spawn_group declared once" 1 "$(grep -c 'POc .*label="spawn_group"' "$WORK/both.d")"
# The runtime's threads are named "OpenMP worker" (mark channel 84).
assert_eq "worker names" 2 "$("$OA" stats "$WORK/both" | grep -c 'Thread name: OpenMP worker')"
# OMP_TOOL_LIBRARIES only.
OMP_NUM_THREADS=3 OMP_TOOL_LIBRARIES="$LIBAGENT" OVNI_TRACEDIR="$WORK/tl" "$P" group >"$WORK/tl.out" 2>"$WORK/tl.err" ||
	fail "exit status $?"
assert_eq "output" "group = 14" "$(cat "$WORK/tl.out")"
# Loaded by the runtime (dlopen), after libc: the real functions are the
# ones before it (each lookup failed and said so on stderr before).
assert_eq "stderr (tool libraries)" "" "$(cat "$WORK/tl.err")"
check_trace "$WORK/tl"
dump "$WORK/tl" >"$WORK/tl.d"
omp_replay "$WORK/tl.d" >"$WORK/tl.r" || { cat "$WORK/tl.r"; fail "replay"; }
assert_eq "tasks (tool libraries)" 14 "$(rval tasks "$WORK/tl.r")"
assert_ge "worker streams" 2 "$(streams "$WORK/tl")"
assert_eq "attached per thread" "$(streams "$WORK/tl")" "$(count 'PA[' "$WORK/tl.d")"
# LD_PRELOAD only.
OMP_NUM_THREADS=3 LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR="$WORK/pl" "$P" group >"$WORK/pl.out" || fail "exit status $?"
check_trace "$WORK/pl"
assert_eq "tasks (preload)" 14 "$(dump "$WORK/pl" | awk '$2 == "PPc"' | wc -l)"
# A process the agent does not trace costs nothing: the tool stays off.
OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES="$LIBAGENT" OVNI_DISABLE=1 "$P" group >"$WORK/off.out" || fail "exit status $?"
assert_eq "output (disabled)" "group = 14" "$(cat "$WORK/off.out")"
