# fork: one process per real process, each finished and valid, linked to its
# parent by the process-event marks ("fork: child N" / "forked from P").
. "$(dirname "$0")/../lib.sh"
proc_count() { ls -d "$1"/loom.*/proc.* | wc -l; }
labels() { cat $(find "$1" -name stream.json) | grep -o '"[^"]*\(fork\|forked\|spawn\|exec\|exit\|signal\)[^"]*"' | sort -u; }

for mode in fork forkthreads; do
	want=$("$PROG/procs" $mode); wrc=$?
	got=$("$OVNIRUN" -q -o "$WORK/$mode" "$PROG/procs" $mode); grc=$?
	assert_eq "$mode status" "$wrc" "$grc"
	assert_eq "$mode output" "$(echo "$want" | sort)" "$(echo "$got" | sort)"
	check_trace "$WORK/$mode"
	assert_eq "$mode processes" 2 "$(proc_count "$WORK/$mode")"
	parent=$(procs_by_start "$WORK/$mode" | head -1)
	child=$(procs_by_start "$WORK/$mode" | tail -1)
	labels "$WORK/$mode" >"$WORK/labels"
	grep -q "\"fork: child $child\"" "$WORK/labels" || fail "$mode: parent does not name child $child"
	grep -q "\"forked from $parent\"" "$WORK/labels" || fail "$mode: child does not name parent $parent"
	grep -q '"exit status 0"' "$WORK/labels" || fail "$mode: exit status of the parent not recorded"
done
grep -q '"exit status 3"' $(find "$WORK/fork"/loom.*/proc.$(procs_by_start "$WORK/fork" | tail -1) -name stream.json) ||
	fail "the child's _exit(3) status is not recorded"
# forkthreads: the child has only the forking thread; the parent all four.
assert_eq "threads of the child" 1 "$(ls -d "$WORK/forkthreads"/loom.*/proc.$child/thread.* | wc -l)"
assert_eq "threads of the parent" 4 "$(ls -d "$WORK/forkthreads"/loom.*/proc.$parent/thread.* | wc -l)"

"$OVNIRUN" -q -o "$WORK/bomb" "$PROG/procs" bomb 3 >/dev/null || fail "bomb status"
check_trace "$WORK/bomb"
assert_eq "bomb processes" 4 "$(proc_count "$WORK/bomb")"
assert_eq "bomb fork labels" 3 "$(labels "$WORK/bomb" | grep -c '"fork: child')"
assert_eq "bomb forked-from labels" 3 "$(labels "$WORK/bomb" | grep -c '"forked from')"
# A child made with glibc's clone() without CLONE_VM (no fork handler runs in
# it) is a process of its own: its thread and its waits are in its own
# directory, not on its parent's streams.
out=$("$OVNIRUN" -q -o "$WORK/clone" "$PROG/clonechild") || fail "clonechild status"
assert_eq "clonechild output" "child status 7" "$out"
check_trace "$WORK/clone"
assert_eq "clone: processes" 2 "$(ls -d "$WORK"/clone/loom.*/proc.* | wc -l)"
child=$(grep -ho '"clone: child [0-9]*"' -r "$WORK/clone" | grep -o '[0-9]*')
[ -n "$child" ] || fail "clone: the parent did not record its child"
assert_eq "clone: the child's threads" 2 "$(ls -d "$WORK"/clone/loom.*/proc.$child/thread.* | wc -l)"

# A child made with a raw system call through syscall() (SYS_fork, a
# fork-like SYS_clone or SYS_clone3, as bubblewrap makes its sandbox): a
# process of its own, with the agent's fork handlers.  Before: no process
# in the trace, its threads in the parent's directory, its events written
# into the parent's windows (the parent's 2000 yields overwritten), and
# without ovnirun a spool file left behind.
for how in fork clone clone3; do
	for run in ovnirun plain; do
		d="$WORK/raw$how$run"
		if [ $run = plain ]; then
			out=$(OVNI_TRACEDIR="$d" LD_PRELOAD="$LIBAGENT" "$PROG/clonechild" $how) || fail "raw $how ($run): status"
		else
			out=$("$OVNIRUN" -q -o "$d" "$PROG/clonechild" $how) || fail "raw $how ($run): status"
		fi
		assert_eq "raw $how ($run): output" "child status 7" "$out"
		check_trace "$d"
		assert_eq "raw $how ($run): processes" 2 "$(ls -d "$d"/loom.*/proc.* | wc -l)"
		word=$how
		[ $how = fork ] || word=clone
		child=$(grep -ho "\"$word: child [0-9]*\"" -r "$d" | grep -o '[0-9]*')
		[ -n "$child" ] || fail "raw $how ($run): the parent did not record its child"
		assert_eq "raw $how ($run): the child's threads" 3 "$(ls -d "$d"/loom.*/proc.$child/thread.* | wc -l)"
		dump "$d" >"$WORK/d"
		# Each process's main thread yields 2000 times: OM[ of a yield each.
		for p in "$d"/loom.*/proc.*; do
			n=$("$OA" dump "$p/thread.${p##*proc.}" | awk '$2 == "OHp" || $2 == "OM[" { n++ } END { print n + 0 }')
			assert_ge "raw $how ($run): ${p##*/}'s main thread events" 2000 "$n"
		done
	done
done

# A clone(CLONE_VM) child that ends by exit(): it runs its parent's exit
# handlers and the loader's destructors (the agent's too, which took the
# agent's fork handlers off libc's list).  Before, the parent's fork child
# was never traced, its own stream never finished (LD_PRELOAD: check
# failed) and its exit waited ~1 s.  Now: the fork child traced, every
# stream finished.
want="vm child status 7
fork child status 3"
# clonechild MODE traced into $WORK/MODE-HOW (HOW: ovnirun, or preload:
# LD_PRELOAD alone): its output.
traced_clonechild() {
	if [ "$2" = ovnirun ]; then
		"$OVNIRUN" -q -o "$WORK/$1-$2" "$PROG/clonechild" "$1"
	else
		OVNI_TRACEDIR="$WORK/$1-$2" LD_PRELOAD="$LIBAGENT" "$PROG/clonechild" "$1"
	fi
}
for how in ovnirun preload; do
	d="$WORK/vmexit-$how"
	out=$(traced_clonechild vmexit $how) || fail "vmexit ($how): status"
	assert_eq "vmexit ($how): output" "$want" "$out"
	check_trace "$d"
	assert_eq "vmexit ($how): processes (the parent, its fork child)" 2 "$(proc_count "$d")"
	assert_eq "vmexit ($how): streams (2 processes, 3 threads)" 5 "$(streams "$d")"
done
# A clone(CLONE_VM) child that is not a thread (untraced) starting a thread
# and forking: its thread was written as a thread of the parent, in the
# parent's directory, and its fork child was said to be the parent's.
for how in ovnirun preload; do
	d="$WORK/vmwork-$how"
	out=$(traced_clonechild vmwork $how) || fail "vmwork ($how): status"
	vm=$(echo "$out" | sed -n 's/^vm child \([0-9]*\): its fork child \([0-9]*\) status 5$/\1/p')
	fc=$(echo "$out" | sed -n 's/^vm child \([0-9]*\): its fork child \([0-9]*\) status 5$/\2/p')
	[ -n "$vm" ] && [ -n "$fc" ] || fail "vmwork ($how): output: $out"
	echo "$out" | grep -q "^vm child status 6$" || fail "vmwork ($how): output: $out"
	check_trace "$d"
	assert_eq "vmwork ($how): streams (the parent, the fork child)" 2 "$(streams "$d")"
	[ -d "$d"/loom.*/proc.$fc ] || fail "vmwork ($how): no directory for the fork child $fc"
	grep -q "\"forked from $vm\"" $(find "$d" -name stream.json) ||
		fail "vmwork ($how): the fork child's parent is not $vm: $(grep -ho '"[^"]*fork[^"]*"' $(find "$d" -name stream.json) | sort -u | tr '\n' ' ')"
done
exit 0
