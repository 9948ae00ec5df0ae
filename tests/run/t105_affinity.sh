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

# The online CPUs are read once per run and loom (OVNI_CPUS, LOOM:LIST) and
# told to the children; a value for another loom (another host, through
# ssh or Slurm) is not believed.
ncpu=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["ovni"]["loom_cpus"]))' "$(find "$WORK/tr" -name stream.json | head -n 1)")
assert_ge "loom CPUs" 1 "$ncpu"
sh_cpus() { # DIR: the CPU counts of the streams' loom_cpus, one per line, sorted and unique
	for f in $(find "$1" -name stream.json); do
		python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["ovni"].get("loom_cpus", [])))' "$f"
	done | sort -u | tr '\n' ' '
}
got=$(OVNI_CPUS="another-host:0-99" "$OVNIRUN" -q -o "$WORK/other" sh -c "$PROG/threads join 2; env" | grep -c "^OVNI_CPUS=[^:]*:[0-9]")
assert_eq "OVNI_CPUS told to the children" 1 "$got"
check_trace "$WORK/other"
assert_eq "another loom's CPUs not believed" "$ncpu " "$(sh_cpus "$WORK/other")"
loom=$(ls "$WORK/tr" | sed -n 's/^loom\.//p' | head -n 1)
OVNI_CPUS="$loom:0-127" "$OVNIRUN" -q -o "$WORK/told" "$PROG/threads" join 2 >/dev/null || fail "told: exit status $?"
assert_eq "this loom's CPUs as told" "128 " "$(sh_cpus "$WORK/told")"
