# lib_real.sh: helpers for the real-software tier (tests/real/r*.sh): run a
# command untraced and under ovnirun in two fresh directories, compare exit
# status, output and every file it wrote byte for byte, and check the trace.
. "$(dirname "$0")/../lib.sh"

# same_run NAME CMD...: CMD runs with its working directory in a fresh
# directory (untraced: $WORK/NAME.plain, traced: $WORK/NAME.traced); the
# trace goes to $WORK/NAME.trace.
same_run() {
	name=$1; shift
	mkdir -p "$WORK/$name.plain" "$WORK/$name.traced"
	(cd "$WORK/$name.plain" && "$@") >"$WORK/$name.out1" 2>"$WORK/$name.err1"; rc1=$?
	(cd "$WORK/$name.traced" && "$OVNIRUN" -q -o "$WORK/$name.trace" "$@") >"$WORK/$name.out2" 2>"$WORK/$name.err2"; rc2=$?
	assert_eq "$name: exit status" "$rc1" "$rc2"
	cmp -s "$WORK/$name.out1" "$WORK/$name.out2" || { diff "$WORK/$name.out1" "$WORK/$name.out2" | head; fail "$name: output differs"; }
	diff -r "$WORK/$name.plain" "$WORK/$name.traced" >"$WORK/$name.diff" ||
		{ head -n 20 "$WORK/$name.diff"; fail "$name: the files it wrote differ"; }
	grep -q "ovni-auto:" "$WORK/$name.err2" && { cat "$WORK/$name.err2"; fail "$name: the agent complained"; }
	check_trace "$WORK/$name.trace"
	unfinished=$(grep -L '"finished": 1' $(find "$WORK/$name.trace" -name stream.json) | wc -l)
	assert_eq "$name: unfinished streams" 0 "$unfinished"
}

need() { command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed (scripts/deps.sh installs it)"; }
