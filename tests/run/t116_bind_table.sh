# OVNI_BIND (preload/real.c): a traced process binds the agent's ~150
# imports itself; a process started by a traced one with the same agent
# and libc takes its parent's answers instead of looking each name up
# again (~20 us less per command), unless something before that answer in
# its own scope defines the name.  tests/prog/bindpeek defines getsid and
# getpgid, which the agent calls at the start of a child (its PID
# namespace check), and counts the calls: the agent must call the
# program's, as the loader would bind them, taken from the table or not.
# The variable is not in the program's environment; the children get it.
. "$(dirname "$0")/../lib.sh"
P="$PROG/bindpeek"
[ -x "$P" ] || fail "tests/prog/bindpeek not built"

untraced=$("$P" exec "$P")
assert_eq "untraced: the program's own calls only" "getsid 0 getpgid 0
getsid 0 getpgid 0" "$untraced"

# From a traced shell: the table made by sh serves every import but the two
# the program defines; each image exec'd in place takes it again.
out=$(OVNI_DEBUG=1 OVNI_TRACEDIR="$WORK/t1" LD_PRELOAD="$LIBAGENT" sh -c "$P; $P exec $P; /bin/true" 2>"$WORK/err")
assert_eq "status" 0 "$?"
cat "$WORK/err" >&2
assert_eq "the agent calls the program's getsid and getpgid" "getsid 1 getpgid 1
getsid 1 getpgid 1
getsid 1 getpgid 1" "$out"
bound=$(grep -o 'bound [0-9]* imports ([0-9]* as OVNI_BIND says)' "$WORK/err")
n=$(echo "$bound" | wc -l)
assert_eq "processes that bound their imports (sh, bindpeek x3, true)" 5 "$n"
first=$(echo "$bound" | head -n 1 | sed 's/.*(\([0-9]*\) as.*/\1/')
assert_eq "sh, the first traced process, had no table" 0 "$first"
all=$(echo "$bound" | head -n 1 | sed 's/bound \([0-9]*\) .*/\1/')
assert_ge "imports bound" 100 "$all"
for k in 2 3 4; do
	got=$(echo "$bound" | sed -n "${k}p" | sed 's/.*(\([0-9]*\) as.*/\1/')
	assert_eq "bindpeek $((k - 1)): from the table, but the two it defines" "$((all - 2))" "$got"
done
got=$(echo "$bound" | sed -n 5p | sed 's/.*(\([0-9]*\) as.*/\1/')
assert_eq "/bin/true: every import from the table" "$all" "$got"
check_trace "$WORK/t1"

# Not in the program's environment; in its children's.
out=$(OVNI_DEBUG=1 OVNI_TRACEDIR="$WORK/t2" LD_PRELOAD="$LIBAGENT" sh -c 'env | grep -c "^OVNI_BIND="; env -i sh -c "env | grep -c ^OVNI_BIND="' 2>/dev/null)
assert_eq "OVNI_BIND in no program's environment (sh's env, a child's env -i)" "0
0" "$(echo "$out")"

# A table of another libc (its build ID changed) or garbled is not used:
# the process binds as before, its own table goes to its children.
for bad in "0000000000000000:0000000000000000:L0000" "garbage"; do
	out=$(OVNI_BIND="$bad" OVNI_DEBUG=1 OVNI_TRACEDIR="$WORK/t3" LD_PRELOAD="$LIBAGENT" sh -c "$P" 2>"$WORK/err")
	assert_eq "with OVNI_BIND=$bad: the program's getsid is the agent's" "getsid 1 getpgid 1" "$out"
	first=$(grep -o '([0-9]* as OVNI_BIND says)' "$WORK/err" | head -n 1)
	assert_eq "with OVNI_BIND=$bad: sh did not use it" "(0 as OVNI_BIND says)" "$first"
	second=$(grep -o '([0-9]* as OVNI_BIND says)' "$WORK/err" | sed -n 2p)
	assert_eq "with OVNI_BIND=$bad: bindpeek used sh's" "($((all - 2)) as OVNI_BIND says)" "$second"
done
check_trace "$WORK/t3"
exit 0
