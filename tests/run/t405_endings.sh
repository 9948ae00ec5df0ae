# Processes that end without libc's exit (issue 30, items 9-11 and 13): a raw
# exit_group (the Go runtime's way), quick_exit, daemon() (glibc's internal
# _exit in the parent), a SIGABRT handler that returns, a stack overflow,
# deaths by SIGRTMIN+2, SIGPROF and SIGKILL; each as the program itself and
# as a child of a shell.  Output and status as untraced, and the trace valid
# the moment ovnirun returns: the process finished its streams itself, or
# ovnirun did when it found it gone (with a mark saying how it ended).  Then
# a Python spawn pool, whose resource tracker outlives the program: ovnirun
# waits for it.
. "$(dirname "$0")/../lib.sh"
for how in exit_group quick_exit daemon abort_ret overflow rtsig prof kill9; do
	for shape in root child; do
		if [ $shape = root ]; then set -- "$PROG/endings" $how; else set -- sh -c "\"$PROG/endings\" $how; echo status \$?"; fi
		want=$("$@" 2>/dev/null); wst=$?
		got=$("$OVNIRUN" -q -o "$WORK/$how.$shape" "$@" 2>"$WORK/err"); gst=$?
		assert_eq "$how/$shape: status" "$wst" "$gst"
		assert_eq "$how/$shape: output" "$want" "$got"
		"$OA" check -q "$WORK/$how.$shape" >/dev/null 2>&1 ||
			fail "$how/$shape: trace not finished when ovnirun returned: $("$OA" check "$WORK/$how.$shape" 2>&1 | head -3)"
	done
done
# Who finished what: the processes that could not say it themselves are
# marked by ovnirun, with what it knows.
labels() { grep -ho '"[^"]*; streams finished by [a-z ]*"' -r "$WORK/$1" --include=stream.json | sort -u | tr '\n' ' '; }
assert_eq "exit_group (program)" '"exit status 3; streams finished by ovnirun" ' "$(labels exit_group.root)"
# A child is finished by the shell that reaps it, which knows its status.
assert_eq "exit_group (child)" '"exit status 3; streams finished by its parent" ' "$(labels exit_group.child)"
assert_eq "kill9 (program)" '"killed by signal SIGKILL; streams finished by ovnirun" ' "$(labels kill9.root)"
assert_eq "kill9 (child)" '"killed by signal SIGKILL; streams finished by its parent" ' "$(labels kill9.child)"
assert_eq "daemon (child)" '"exit status 0; streams finished by its parent" ' "$(labels daemon.child)"
# quick_exit, the default-fatal signals the agent now handles, and a SIGABRT
# handler that returns end their own streams, saying how.
# A stack overflow too: the agent gives each thread an alternate signal
# stack, where its crash handler runs.
for t in quick_exit.child abort_ret.child rtsig.child prof.child overflow.root overflow.child; do
	assert_eq "$t: finished by itself" "" "$(labels $t)"
done
grep -rq '"exit status 4"' "$WORK/quick_exit.child" || fail "quick_exit: no exit status 4"
grep -rq '"signal SIGRTMIN+2"' "$WORK/rtsig.child" || fail "rtsig: no signal label"
grep -rq '"signal SIGPROF"' "$WORK/prof.child" || fail "prof: no signal label"
for t in overflow.root overflow.child; do
	"$OA" dump "$WORK/$t" | grep -q "OM=.*value=111 type=80" || fail "$t: no SIGSEGV event"
done

# A Python spawn pool: the trace is complete when ovnirun returns.
for i in 1 2 3; do
	out=$("$OVNIRUN" -q -o "$WORK/py.$i" python3 -c '
import multiprocessing as mp
if __name__ == "__main__":
    mp.set_start_method("spawn")
    with mp.Pool(2) as p:
        print(sum(p.map(abs, range(-50, 50))))
') || fail "python pool status"
	assert_eq "python pool output" 2500 "$out"
	"$OA" check -q "$WORK/py.$i" >/dev/null 2>&1 || fail "python pool $i: unfinished when ovnirun returned: $("$OA" check "$WORK/py.$i" 2>&1 | head -3)"
done
# A process left running (a daemon) is named, and not touched; with -q too
# (the trace is not whole until it ends).
for q in "" -q; do
	OVNI_END_WAIT_MS=500 "$OVNIRUN" $q -o "$WORK/bg$q" sh -c "sleep 5 & echo started" >"$WORK/bg.out" 2>"$WORK/bg.err"
	grep -q "1 process of the run still running" "$WORK/bg.err" || fail "the running sleep is not named ($q): $(cat "$WORK/bg.err")"
	grep -q "pid [0-9]* (sleep)" "$WORK/bg.err" || fail "no pid and name ($q): $(cat "$WORK/bg.err")"
done
# A daemon that forks twice, the second fork after the program ended and
# before the daemon records anything: ovnirun waits for it (it returned
# before, its trace unfinished, in 5 runs of 8 of a daemon closing its
# descriptors).
for i in 1 2 3; do
	rm -f "$WORK/d2"
	"$OVNIRUN" -q -o "$WORK/d2.$i" "$PROG/endings" daemon2 "$WORK/d2" >/dev/null 2>"$WORK/d2.err" || fail "daemon2 status"
	[ -f "$WORK/d2" ] || fail "daemon2 $i: ovnirun returned before the daemon ended"
	"$OA" check -q "$WORK/d2.$i" >/dev/null 2>&1 || fail "daemon2 $i: trace unfinished: $("$OA" check "$WORK/d2.$i" 2>&1 | head -3)"
	assert_eq "daemon2 $i: processes" 3 "$(ls -d "$WORK/d2.$i"/loom.*/proc.* | wc -l)"
done
# exit() on glibc's timer thread (no stream of its own) while the main
# thread forks: the exit label went into the global list, and the children
# forked meanwhile listed their own labels twice (a duplicate key in
# stream.json, which the emulator refuses; 10 runs of 10), or (the label
# kept apart) waited up to 15 s at their _exit for the parent's end.
for i in 1 2 3; do
	"$OVNIRUN" -q -o "$WORK/te.$i" "$PROG/endings" timerexit >"$WORK/te.out" 2>"$WORK/te.err"
	assert_eq "timerexit $i: status" 5 $?
	assert_eq "timerexit $i: output" "ending by timerexit" "$(cat "$WORK/te.out")"
	assert_eq "timerexit $i: ovnirun said" "" "$(cat "$WORK/te.err")"
	check_trace "$WORK/te.$i"
done
