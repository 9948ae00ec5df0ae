# Pinned threads are shown on their physical CPU (OAs / OAr, OHx cpu=N), never
# two running threads on one CPU (check), the rest on the virtual CPU.
. "$(dirname "$0")/../lib.sh"
"$OVNIRUN" -q -o "$WORK/tr" "$PROG/threads" pin 4 >/dev/null || fail "exit status $?"
check_trace "$WORK/tr"
dump "$WORK/tr" >"$WORK/d"
assert_ge "OAs events" 2 "$(count OAs "$WORK/d")"
assert_ge "OAr events" 1 "$(count OAr "$WORK/d")"
grep -q ' OAs .* cpu=0$' "$WORK/d" || fail "no thread shown on CPU 0"
grep -q ' OAs .* cpu=-1$' "$WORK/d" || fail "no thread back on the virtual CPU"
# The whole process pinned to one CPU: only the first thread can hold it.
taskset -c 0 "$OVNIRUN" -q -o "$WORK/one" "$PROG/threads" join 3 >/dev/null || fail "taskset run"
check_trace "$WORK/one"
dump "$WORK/one" >"$WORK/d1"
assert_eq "threads on CPU 0" 1 "$(awk '$2 == "OHx" && $4 == "cpu=0"' "$WORK/d1" | wc -l)"
assert_eq "threads on the virtual CPU" 3 "$(awk '$2 == "OHx" && $4 == "cpu=-1"' "$WORK/d1" | wc -l)"
[ -z "$(ls -A "$WORK/one"/loom.*/.cpus 2>/dev/null)" ] || fail "CPU claims left behind"
