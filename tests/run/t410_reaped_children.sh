# The parent that reaps a traced child finishes its streams (issue 30): a
# child killed by SIGKILL or SIGTERM, or gone through a raw exit_group,
# cannot end its own streams; its parent's wait does, at once, with a
# process event saying how it ended.  Run with LD_PRELOAD alone (no ovnirun
# to finish anything at the end): the trace is valid the moment the parent
# returns.  Reaped in a SIGCHLD handler (the async-signal-safe path), with
# waitid(WNOWAIT) then wait4, and by shells (bash's and dash's wait).
. "$(dirname "$0")/../lib.sh"
run() { # NAME COMMAND...: untraced and traced alike
	name=$1; shift
	want=$("$@" 2>/dev/null); wst=$?
	got=$(OVNI_TRACEDIR="$WORK/$name" LD_PRELOAD="$LIBAGENT" "$@" 2>"$WORK/$name.err"); gst=$?
	assert_eq "$name: status" "$wst" "$gst"
	assert_eq "$name: output" "$want" "$got"
	check_trace "$WORK/$name"
	assert_eq "$name: unfinished streams" 0 "$(grep -L '"finished": 1' $(find "$WORK/$name" -name stream.json) | wc -l)"
}
labels() { grep -ho '"[^"]*; streams finished by its parent"' -r "$WORK/$1" --include=stream.json | sort | tr '\n' '|'; }
# SIGTERM's child ends its streams itself (the agent handles the signal).
expect='"exit status 5; streams finished by its parent"|"killed by signal SIGKILL; streams finished by its parent"|'
for mode in handler waitid; do
	run $mode "$PROG/reaper" $mode
	assert_eq "$mode: output" "child 0: signal 9
child 1: exit 5
child 2: exit 2
child 3: signal 15" "$got"
	assert_eq "$mode: how each ended" "$expect" "$(labels $mode)"
	# Both threads of each child and the parent: ended (OHe) in the trace.
	dump "$WORK/$mode" >"$WORK/$mode.dump"
	assert_eq "$mode: threads ended" 9 "$(count OHe "$WORK/$mode.dump")"
	# The event is on the child's main thread, labelled where it is.
	for f in $(grep -l 'finished by its parent' -r "$WORK/$mode" --include=stream.json); do
		d=${f%/stream.json}; tid=${d##*thread.}; p=${d%/thread.*}
		assert_eq "$f: on the main thread" "${p##*proc.}" "$tid"
	done
done
# Shells: bash's wait builtin and dash's.
run bash bash -c 'sleep 5 & p=$!; sleep 0.3; kill -9 $p; wait $p; echo "st $?"; sh -c "kill -TERM \$\$"; echo "st $?"'
assert_eq "bash: how each ended" '"killed by signal SIGKILL; streams finished by its parent"|' "$(labels bash)"
run dash sh -c "$PROG/endings exit_group; echo st \$?"
assert_eq "dash: how it ended" '"exit status 3; streams finished by its parent"|' "$(labels dash)"
# A child that ended its streams itself is left as it was.
run clean sh -c "$PROG/threads join 2 >/dev/null; echo ok"
assert_eq "clean: nothing finished by the parent" "" "$(labels clean)"
