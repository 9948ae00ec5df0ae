# Process-event values are unique in the whole trace, their low 32 bits too
# (all the emulator keeps for Paraver: "pcf_add_value: PCF value ... already
# in type 180" stopped it) (issue 30, item 8):
# - 4200 processes from one shell: before, values were pid << 20 | sequence,
#   and two processes whose pids differ by 4096 agreed in their low 32 bits;
# - a process whose loom changes across exec (a wrapper that sets OVNI_LOOM
#   and execs) has values of its own in each loom (before: the same values
#   with two labels).
# check reports any two labelled values of a mark type that agree in their
# low 32 bits.
. "$(dirname "$0")/../lib.sh"
out=$("$OVNIRUN" -q -o "$WORK/many" sh -c 'i=0; while [ $i -lt 4200 ]; do /bin/true; i=$((i + 1)); done; echo $i') ||
	fail "many: status"
assert_eq "many: output" 4200 "$out"
check_trace "$WORK/many"
assert_ge "many: processes" 4201 "$(ls -d "$WORK"/many/loom.*/proc.* | wc -l)"
out=$("$OVNIRUN" -q -o "$WORK/loom" -l first sh -c 'sh -c "echo a"; OVNI_LOOM=second exec sh -c "sh -c \"echo b\"; echo c"') ||
	fail "loom: status"
assert_eq "loom: output" "a
b
c" "$out"
check_trace "$WORK/loom"
assert_eq "loom: looms" 2 "$(ls -d "$WORK"/loom/loom.* | wc -l)"
