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
# Counted by their starts, not their directories: a pid given again (the
# suite run twice at once: t113 sets ns_last_pid) joins two processes'
# streams in one directory (4097 directories for 4201 processes once).
assert_ge "many: processes" 4201 "$(dump "$WORK/many" | awk '$2 == "OHx"' | wc -l)"
out=$("$OVNIRUN" -q -o "$WORK/loom" -l first sh -c 'sh -c "echo a"; OVNI_LOOM=second exec sh -c "sh -c \"echo b\"; echo c"') ||
	fail "loom: status"
assert_eq "loom: output" "a
b
c" "$out"
check_trace "$WORK/loom"
assert_eq "loom: looms" 2 "$(ls -d "$WORK"/loom/loom.* | wc -l)"
# Exit events have one value per status (256 + status, as the parent sees
# it: exit(-1) is 255), the same value and label in every stream that has
# one: a process that only exits never maps the loom's counter.
out=$("$OVNIRUN" -q -o "$WORK/exits" sh -c 'sh -c "exit 3"; echo $?; sh -c "exit 3"; echo $?; '"$PROG"'/threads exitcode 255; echo $?; exit 3')
assert_eq "exits: status" 3 "$?"
assert_eq "exits: output" "3
3
done exitcode 255
255" "$out"
check_trace "$WORK/exits"
assert_eq "exits: streams labelling 259 exit status 3" 3 \
	"$(grep -l '"259": "exit status 3"' "$WORK"/exits/loom.*/proc.*/thread.*/stream.json | wc -l)"
assert_eq "exits: streams labelling 511 exit status 255" 1 \
	"$(grep -l '"511": "exit status 255"' "$WORK"/exits/loom.*/proc.*/thread.*/stream.json | wc -l)"
assert_eq "exits: exit events of value 259" 3 "$(dump "$WORK/exits" | awk '$2 == "OM=" && $4 == "value=259" && $5 == "type=80"' | wc -l)"
exit 0
