# late start: a fork child writes nothing until it needs its stream.  One
# that execs a traced program hands its fork and exec over (one OHx, the two
# marks first, at their clocks, before the new image's setup); one that
# execs a static program, whose exec fails, that is killed, starts a thread
# or vforks starts first and keeps every event it had before; killed with
# SIGKILL, it keeps its fork mark's label.
. "$(dirname "$0")/../lib.sh"
[ -x "$PROG/static_exit" ] || skip "no static program (libc6-dev's libc.a)"
want=$("$PROG/procs" late "$PROG/exit_with" "$PROG/static_exit"); wrc=$?
got=$("$OVNIRUN" -q -o "$WORK/late" "$PROG/procs" late "$PROG/exit_with" "$PROG/static_exit"); grc=$?
assert_eq "status" "$wrc" "$grc"
assert_eq "output" "$want" "$got"
echo "$got" | grep -q "late 5: 15" || fail "the test program itself: $got"
check_trace "$WORK/late"
# The parent started first; its children in the order of its fork marks.
parent=$(procs_by_start "$WORK/late" | head -1)
children=$(fork_children "$WORK/late" "$parent")
assert_eq "forked children" 6 "$(echo "$children" | wc -l)"
set -- $children
# events of process $1 ("MCV value" per line) and its labels
ev() { "$OA" dump "$WORK"/late/loom.*/proc.$1/thread.$1 | awk '{ v = $4; sub("value=", "", v); print $2, v }'; }
label() { grep -ho "\"$2\": \"[^\"]*\"" "$WORK"/late/loom.*/proc.$1/thread.$1/stream.json | sed 's/^"[0-9-]*": "//; s/"$//'; }
nth() { ev "$1" | awk -v n="$2" 'NR == n { print $2 }'; }

# 1. exec of a traced program: handed over.
c=$1
ev "$c" >"$WORK/e"
assert_eq "handover: one start" 1 "$(grep -c "^OHx" "$WORK/e")"
assert_eq "handover: one end" 1 "$(grep -c "^OHe" "$WORK/e")"
assert_eq "handover: first events" "OHx OM= OM= OF[ OF]" "$(awk 'NR <= 5 { printf "%s%s", s, $1; s = " " }' "$WORK/e")"
assert_eq "handover: creator" "tid=$parent" "$("$OA" dump "$WORK"/late/loom.*/proc.$c/thread.$c | awk 'NR == 1 { print $5 }')"
assert_eq "handover: fork mark" "forked from $parent" "$(label "$c" "$(nth "$c" 2)")"
assert_eq "handover: exec mark" "exec $PROG/exit_with" "$(label "$c" "$(nth "$c" 3)")"
grep -q '"exit status 11"' "$WORK"/late/loom.*/proc.$c/thread.$c/stream.json || fail "handover: exit status"
# the marks keep their own clocks: fork <= exec <= the new image's setup
"$OA" dump "$WORK"/late/loom.*/proc.$c/thread.$c | awk 'NR <= 4 { if ($1 < last) bad = 1; last = $1 } END { exit bad }' ||
	fail "handover: clocks out of order"
# OVNI_FORKED was the new image's own: its program does not see it.
out=$("$OVNIRUN" -q -o "$WORK/env" sh -c 'env | grep -c OVNI_FORKED; true')
assert_eq "OVNI_FORKED left in a program's environment" 0 "$out"

# 2. exec of a static program: the child started before it (as before).
c=$2
ev "$c" >"$WORK/e"
assert_eq "static: one start" 1 "$(grep -c "^OHx" "$WORK/e")"
assert_eq "static: fork mark" "forked from $parent" "$(label "$c" "$(nth "$c" 2)")"
grep -q "\"exec $PROG/static_exit\"" "$WORK"/late/loom.*/proc.$c/thread.$c/stream.json || fail "static: exec mark"
assert_eq "static: the stream ends at the exec" OHe "$(tail -n 1 "$WORK/e" | cut -d' ' -f1)"

# 3. an exec that fails (E2BIG): fork, exec, the failure, the exit.
c=$3
labels=$(ev "$c" | awk '$1 == "OM=" { print $2 }' | while read -r v; do label "$c" "$v"; done)
assert_eq "failed exec: marks" "forked from $parent
exec $PROG/exit_with
exec failed $PROG/exit_with: Argument list too long
exit status 13" "$labels"

# 4. killed by SIGTERM while it had no stream: started by the signal.
c=$4
ev "$c" >"$WORK/e"
assert_eq "signal: fork mark" "forked from $parent" "$(label "$c" "$(nth "$c" 2)")"
grep -q "OM= 115$" "$WORK/e" || fail "signal: no SIGTERM mark"
assert_eq "signal: finished" OHe "$(tail -n 1 "$WORK/e" | cut -d' ' -f1)"

# A fork child killed with SIGKILL once its stream started: its parent
# finishes the stream, which keeps the fork mark's label (written with the
# stream's first stream.json; before, the label died with the child).
got=$("$OVNIRUN" -q -o "$WORK/k9" "$PROG/procs" kill9) || fail "kill9 mode"
assert_eq "kill9: output" "child killed by 9" "$got"
check_trace "$WORK/k9"
kc=$(grep -ho '"fork: child [0-9]*"' -r "$WORK/k9" | grep -o '[0-9]*')
[ -n "$kc" ] || fail "kill9: no child recorded"
grep -q "killed by signal SIGKILL" "$WORK"/k9/loom.*/proc.$kc/thread.$kc/stream.json || fail "kill9: how it ended"
grep -q '"forked from [0-9]*"' "$WORK"/k9/loom.*/proc.$kc/thread.$kc/stream.json || fail "kill9: fork label lost"

# A child that leaves with _exit before it needed its stream has it written
# at once: the same events as a child that started (fork, the agent's
# setup, the end mark, the last flush), its labels, nothing open.
"$OVNIRUN" -q -o "$WORK/exit" "$PROG/procs" fork >/dev/null || fail "fork mode"
check_trace "$WORK/exit"
ec=$(grep -ho '"fork: child [0-9]*"' -r "$WORK/exit" | grep -o '[0-9]*')
assert_eq "_exit child: events" "OHx OM= OF[ OF] OM= OF[ OF] OHe" \
	"$("$OA" dump "$WORK"/exit/loom.*/proc.$ec/thread.$ec | awk '{ printf "%s%s", s, $2; s = " " }')"
grep -q '"exit status 3"' "$WORK"/exit/loom.*/proc.$ec/thread.$ec/stream.json || fail "_exit child: exit label"
grep -q '"forked from [0-9]*"' "$WORK"/exit/loom.*/proc.$ec/thread.$ec/stream.json || fail "_exit child: fork label"
grep -q '"finished": 1' "$WORK"/exit/loom.*/proc.$ec/thread.$ec/stream.json || fail "_exit child: stream.json not final"

# One that returns from main (exit()) notes its exit, and is written at
# once when it ends: the same events.
"$OVNIRUN" -q -o "$WORK/ret" "$PROG/procs" bomb 1 >/dev/null || fail "bomb 1"
check_trace "$WORK/ret"
rc_=$(grep -ho '"fork: child [0-9]*"' -r "$WORK/ret" | grep -o '[0-9]*')
assert_eq "exit() child: events" "OHx OM= OF[ OF] OM= OF[ OF] OHe" \
	"$("$OA" dump "$WORK"/ret/loom.*/proc.$rc_/thread.$rc_ | awk '{ printf "%s%s", s, $2; s = " " }')"
grep -q '"exit status 0"' "$WORK"/ret/loom.*/proc.$rc_/thread.$rc_/stream.json || fail "exit() child: exit label"

# 5. a thread: the child and its thread, both traced.
c=$5
assert_eq "thread: streams" 2 "$(ls -d "$WORK"/late/loom.*/proc.$c/thread.* | wc -l)"
grep -q '"exit status 14"' "$WORK"/late/loom.*/proc.$c/thread.$c/stream.json || fail "thread: exit status"

# 6. a vfork whose child execs: the vfork child is a process of its own.
c=$6
grep -q '"exit status 15"' "$WORK"/late/loom.*/proc.$c/thread.$c/stream.json || fail "vfork: exit status"
assert_eq "processes" 8 "$(ls -d "$WORK"/late/loom.*/proc.* | wc -l)"

# Under a shell: every pipeline element is a process, each linked to its parent.
out=$("$OVNIRUN" -q -o "$WORK/sh" sh -c 'for i in 1 2 3; do echo $i | cat; done')
assert_eq "shell output" "1
2
3" "$out"
check_trace "$WORK/sh"
assert_eq "shell: processes" 7 "$(ls -d "$WORK"/sh/loom.*/proc.* | wc -l)"
assert_eq "shell: forked-from marks" 6 "$(grep -ho '"forked from [0-9]*"' -r "$WORK/sh" | wc -l)"
assert_eq "shell: exec marks" 3 "$(grep -ho '"exec [^"]*cat"' -r "$WORK/sh" | wc -l)"

# xargs runs each command with fork and execvp: a bare name (found in PATH)
# and a script (its interpreter is traced) are handed over; a set-user-ID
# copy is not (the loader may drop the agent): its child starts before the
# exec, and the new image goes on in the same stream.
cp "$PROG/exit_with" "$WORK/suid_exit" && chmod u+s "$WORK/suid_exit"
printf '#!/bin/sh\necho script "$@"\n' >"$WORK/script.sh" && chmod +x "$WORK/script.sh"
for what in "exit_with 1" "$WORK/script.sh 2" "$WORK/suid_exit 3"; do
	name=${what%% *}
	want=$(echo "${what#* }" | PATH="$PROG:$PATH" xargs "$name")
	got=$(echo "${what#* }" | PATH="$PROG:$PATH" "$OVNIRUN" -q -o "$WORK/x" xargs "$name")
	assert_eq "$name: output" "$want" "$got"
	check_trace "$WORK/x"
	c=$(grep -ho '"fork: child [0-9]*"' -r "$WORK/x" | grep -o '[0-9]*')
	[ -n "$c" ] || fail "$name: xargs recorded no child"
	"$OA" dump "$WORK"/x/loom.*/proc.$c/thread.$c >"$WORK/e"
	grep -q "\"exec $name\"" "$WORK"/x/loom.*/proc.$c/thread.$c/stream.json || fail "$name: no exec mark"
	grep -q "\"forked from [0-9]*\"" "$WORK"/x/loom.*/proc.$c/thread.$c/stream.json || fail "$name: no fork mark"
	case $name in
	*suid*) assert_eq "$name: started before the exec" 2 "$(count OHx "$WORK/e")" ;;
	*) assert_eq "$name: handed over" 1 "$(count OHx "$WORK/e")" ;;
	esac
	rm -rf "$WORK/x"
done
echo ok
