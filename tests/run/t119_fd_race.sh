# The program's closes and dup2s on one thread while its other threads
# start and end (each start and end is file work of the agent, with a
# descriptor open for a moment): close_range(3, 64) then an open of its
# own file, dup2 over 3-8 then close, the same through syscall().  The
# agent's descriptor was closed under it and the program's file opened
# under its number: the program's fstat and close failed (thousands of
# times in 20000 rounds), the agent wrote its trace into the program's
# file, and said it could not write the trace; both under ovnirun and
# with LD_PRELOAD alone.  Now the two wait for each other
# (common/fdroom.h, hooks/fd.c): the same output as untraced, nothing on
# stderr, a whole trace.
. "$(dirname "$0")/../lib.sh"
[ -x "$PROG/adv21_fd_race" ] || fail "tests/prog/adv21_fd_race not built"
for how in range dup2 syscall; do
	mkdir -p "$WORK/$how" && cd "$WORK/$how" || fail "cd"
	want=$("$PROG/adv21_fd_race" $how 5000) || fail "$how: untraced status $?"
	assert_eq "$how: untraced" "errors 0 intact 1" "$want"
	got=$("$OVNIRUN" -q -o "$WORK/$how/run" "$PROG/adv21_fd_race" $how 5000 2>"$WORK/$how/err") ||
		fail "$how: status under ovnirun"
	assert_eq "$how: under ovnirun" "$want" "$got"
	assert_eq "$how: stderr under ovnirun" "" "$(cat "$WORK/$how/err")"
	check_trace "$WORK/$how/run"
	got=$(OVNI_TRACEDIR="$WORK/$how/pre" LD_PRELOAD="$LIBAGENT" "$PROG/adv21_fd_race" $how 5000 2>"$WORK/$how/err") ||
		fail "$how: status with LD_PRELOAD"
	assert_eq "$how: with LD_PRELOAD" "$want" "$got"
	assert_eq "$how: stderr with LD_PRELOAD" "" "$(cat "$WORK/$how/err")"
	check_trace "$WORK/$how/pre"
done
exit 0
