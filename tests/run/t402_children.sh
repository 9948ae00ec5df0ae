# Children made by system, popen, posix_spawn (with an environment without
# the agent), vfork+exec, a detached child and a shell pipeline are traced
# into the same trace; the child policy limits that.
. "$(dirname "$0")/../lib.sh"
procs() { ls -d "$1"/loom.*/proc.* 2>/dev/null | wc -l; }
for case in "system:4" "popen:2" "spawn:2" "vfork:2" "daemon:2" "clone:2"; do
	mode=${case%%:*}; want=${case#*:}
	plain=$("$PROG/procs" $mode)
	got=$("$OVNIRUN" -q -o "$WORK/$mode" "$PROG/procs" $mode) || fail "$mode status"
	assert_eq "$mode output" "$plain" "$got"
	check_trace "$WORK/$mode"
	assert_ge "$mode processes" "$want" "$(procs "$WORK/$mode")"
done
grep -q '"spawn /bin/true: child' $(find "$WORK/spawn" -name stream.json) || fail "spawn not labelled"

out=$("$OVNIRUN" -q -o "$WORK/pipe" sh -c 'echo abc | tr a-z A-Z | cat') || fail "pipeline status"
assert_eq "pipeline output" "ABC" "$out"
check_trace "$WORK/pipe"
assert_ge "pipeline processes" 3 "$(procs "$WORK/pipe")"

"$OVNIRUN" -q -c none -o "$WORK/none" "$PROG/procs" system >/dev/null || fail "policy none"
assert_eq "children none: processes" 1 "$(procs "$WORK/none")"
check_trace "$WORK/none"
"$OVNIRUN" -q -c 'tru*' -o "$WORK/match" "$PROG/procs" system >/dev/null || fail "policy pattern"
assert_eq "children tru*: processes (root + 2 true)" 3 "$(procs "$WORK/match")"
check_trace "$WORK/match"

# A child given an environment without the agent gets it back, by an
# absolute path: the one the loader was given, or a relative one made
# absolute (the child may run elsewhere).
for pre in "$LIBAGENT" ./libovni-auto.so; do
	out=$(cd "$B/lib" && LONG_PRELOAD=libnone.so LD_PRELOAD="$pre" OVNI_TRACEDIR="$WORK/rel" \
		"$PROG/adv10_long_preload" 2>/dev/null | grep '^LD_PRELOAD=')
	want=$LIBAGENT
	[ "$pre" = "$LIBAGENT" ] || want="$(cd "$B/lib" && pwd -P)/libovni-auto.so"
	case "$out" in
	*"$want"*) ;;
	*) fail "LD_PRELOAD=$pre: the child got '$out', not $want" ;;
	esac
done
