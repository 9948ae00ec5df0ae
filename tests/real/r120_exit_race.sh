# Threads alive at exit, under load: main returns while a thread runs and a
# detached thread may still be starting; 30 runs, 3 at a time. Every stream
# must exist complete (never an empty or unfinished stream.json).
. "$(dirname "$0")/lib_real.sh"
run_one() {
	"$OVNIRUN" -q -o "$WORK/race.$1" "$PROG/threads" exitrace 4 >/dev/null 2>&1 || echo "status $?" >"$WORK/race.$1.bad"
}
for round in 1 2 3 4 5 6 7 8 9 10; do
	run_one "$round.a" & run_one "$round.b" & run_one "$round.c" &
	wait
done
for t in "$WORK"/race.*; do
	case "$t" in *.bad) cat "$t"; fail "a run failed";; esac
	check_trace "$t"
	empty=$(find "$t" -name stream.json -size 0 | wc -l)
	assert_eq "$t: empty stream.json" 0 "$empty"
	assert_eq "$t: unfinished" 0 "$(grep -L '"finished": 1' $(find "$t" -name stream.json) | wc -l)"
done
