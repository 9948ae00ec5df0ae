# lib_truth.sh: helpers of the ground-truth tier (tests/truth/g*.sh, `make
# test-truth`, part of `make test`).  A ground-truth program measures itself
# (counts, placement, clock_gettime around waits and bodies) and prints
# "truth|..." lines; tests/prog/truthcheck.c compares them with what
# `ovni-auto stats --json` reads from the trace, with the tolerances the
# README states (counts exact, durations within 2% or 50 us).  Each case
# runs its programs OA_TRUTH_RUNS times (default 10) and fails at the first
# run that disagrees, showing every disagreement of that run.
. "$(dirname "$0")/../lib.sh"
RUNS=${OA_TRUTH_RUNS:-10}
CHECK="$PROG/truthcheck"
[ -x "$CHECK" ] || fail "no $CHECK (make test builds it)"

# truth_run NAME ENV... -- PROG ARGS: one traced run into $WORK/NAME, its
# output in $WORK/NAME.txt, the trace checked, then compared with its truth.
truth_run() {
	name=$1; shift
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	rm -rf "$WORK/$name"
	env $envs "$OVNIRUN" -q -o "$WORK/$name" "$@" >"$WORK/$name.txt" 2>"$WORK/$name.err" ||
		{ cat "$WORK/$name.err"; fail "$name: exit status"; }
	[ -s "$WORK/$name.err" ] && { cat "$WORK/$name.err"; fail "$name: wrote on stderr"; }
	grep -q "^truth|" "$WORK/$name.txt" || fail "$name: printed no truth"
	check_trace "$WORK/$name"
	"$OA" stats --json "$WORK/$name" >"$WORK/$name.json" || fail "$name: stats"
	"$CHECK" "$WORK/$name.json" "$WORK/$name.txt" >"$WORK/$name.check" ||
		{ grep -v '^ok' "$WORK/$name.check"; fail "$name: the trace disagrees with the program"; }
}

# truth_repeat PREFIX PROG ARGS: truth_run PREFIX0 .. PREFIX<RUNS-1>.
truth_repeat() {
	prefix=$1; shift
	i=0
	while [ $i -lt "$RUNS" ]; do
		truth_run $prefix$i -- "$@"
		i=$((i + 1))
	done
	info "$RUNS runs agree"
}

# truth_first NAME: "truth|first|K|TID" lines say on which thread task K
# (in creation order) ran its first user code; the first PPx of the K-th
# task created must be on that thread's stream.
truth_first() {
	name=$1
	dump "$WORK/$name" >"$WORK/$name.d"
	awk -F'|' '$1 == "truth" && $2 == "first" { print $3, $4 }' "$WORK/$name.txt" >"$WORK/$name.want"
	awk '$2 == "PPc" { id[substr($4, 6)] = n++ }
	     $2 == "PPx" && !(substr($4, 6) in seen) { t = substr($4, 6); seen[t] = 1
		s = $3; sub(/.*thread\./, "", s); first[id[t]] = s }
	     END { for (k = 0; k < n; k++) print k, first[k] }' "$WORK/$name.d" >"$WORK/$name.got"
	[ -s "$WORK/$name.want" ] || fail "$name: no first-thread truth"
	diff "$WORK/$name.want" "$WORK/$name.got" >"$WORK/$name.fdiff" ||
		{ head "$WORK/$name.fdiff"; fail "$name: first thread of a task differs (truth <, trace >)"; }
}
