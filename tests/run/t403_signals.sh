# Crashes and signals: exit status exactly as without the agent, every stream
# finished and valid, every event before the crash kept (50 thread
# creations), the signal recorded; the program's own handlers still run.
. "$(dirname "$0")/../lib.sh"
for case in "segv:139" "abort:134" "term:143" "handler:130" "segvhandler:4" "usr1:4" "exitthreads:6"; do
	mode=${case%%:*}; want=${case#*:}
	plain=$(sh -c "\"$PROG/crash\" $mode" 2>/dev/null); prc=$?
	assert_eq "$mode status without the agent" "$want" "$prc"
	got=$(sh -c "\"$OVNIRUN\" -q -o \"$WORK/$mode\" \"$PROG/crash\" $mode" 2>/dev/null); grc=$?
	assert_eq "$mode status with the agent" "$want" "$grc"
	assert_eq "$mode output" "$plain" "$got"
	check_trace "$WORK/$mode"
	dump "$WORK/$mode" >"$WORK/d"
	assert_ge "$mode thread creations kept" 51 "$(count OHC "$WORK/d")"
	assert_eq "$mode unfinished streams" 0 "$(grep -L '"finished": 1' $(find "$WORK/$mode" -name stream.json) | wc -l)"
done
for sig in segv:SEGV:11 abort:ABRT:6 term:TERM:15; do
	mode=${sig%%:*}; rest=${sig#*:}; name=${rest%%:*}; num=${rest#*:}
	grep -q "\"signal SIG$name\"" $(find "$WORK/$mode" -name stream.json) || fail "$mode: no signal label"
	"$OA" dump "$WORK/$mode" | grep -q " OM= .* value=$((100 + num)) type=80" || fail "$mode: signal mark not emitted"
done

# Killed from outside while waiting: SIGINT and SIGTERM.
for sig in INT:2 TERM:15; do
	num=${sig#*:}; sig=${sig%%:*}
	fifo="$WORK/fifo$sig"; mkfifo "$fifo"
	# A shell starts background jobs with SIGINT ignored, which the program
	# would inherit (ovnirun keeps inherited dispositions): default it.
	env --default-signal=INT,TERM "$OVNIRUN" -q -o "$WORK/kill$sig" "$PROG/crash" wait >"$fifo" 2>/dev/null &
	pid=$!
	read -r line <"$fifo"
	assert_eq "ready" ready "$line"
	pkill -$sig -P $pid || fail "no process to kill" # the program, ovnirun's child (not another suite's)
	wait $pid; rc=$?
	assert_eq "killed by SIG$sig" $((128 + num)) $rc
	check_trace "$WORK/kill$sig"
done

# Every stream labels signals 1-31 as glibc names them (the agent's table
# is made by the compiler, keyed by the signals' numbers).
json=$(find "$WORK/term" -name stream.json | head -1)
"$PROG/sigabbrev" | while read -r sig text; do
	grep -q "\"$((100 + sig))\": \"$text\"" "$json" || fail "signal $sig: no label '$text' in $json"
done || exit 1

# A shell that kills its own process group right after a fork (`sleep 5 &
# kill 0`): the fork child may get its SIGTERM before the agent's fork
# handler ran in it, with its parent's state still in hand; it wrote its
# signal mark into the parent's window (a shared mapping), and the parent's
# stream had two marks with the clock going backwards (about half the runs).
# setsid: the group is the run's, not the test's.
command -v setsid >/dev/null || exit 0
for i in 1 2 3 4 5 6 7 8 9 10; do
	setsid -w "$OVNIRUN" -q -o "$WORK/k0.$i" sh -c 'sleep 5 & kill 0' >/dev/null 2>&1
	assert_eq "kill 0 ($i): status" 143 $?
	check_trace "$WORK/k0.$i"
done
# ovnirun passes a signal on to the program, once: one the program sent to
# its group (which holds ovnirun) is not sent again (a trap counted 3 or 4
# of 2); one sent to ovnirun alone from outside still reaches it.
script='n=0; trap "n=\$((n+1))" USR1; kill -USR1 0; sleep 0.3; kill -USR1 0; sleep 0.3; echo count $n'
assert_eq "group signals untraced" "count 2" "$(setsid -w bash -c "$script")"
for i in 1 2 3; do
	assert_eq "group signals ($i)" "count 2" "$(setsid -w "$OVNIRUN" -q -o "$WORK/g.$i" bash -c "$script")"
done
"$OVNIRUN" -q -o "$WORK/direct" sleep 10 &
p=$!
sleep 0.5
kill $p
wait $p
assert_eq "kill of ovnirun: the program's status" 143 $?
check_trace "$WORK/direct"

# The terminal hung up while ovnirun leads its session (`ssh -t host
# ovnirun app`, `script -c`): the kernel sends SIGHUP to the leader alone,
# and the program, which untraced would be the leader and die of it, ran
# on to its end.  A pty's child in a new session, its master closed.
cat >"$WORK/hangup.py" <<'PY'
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
time.sleep(0.5)
t0 = time.time()
os.close(fd)
_, st = os.waitpid(pid, 0)
print("%s after %s" % ("signal %d" % os.WTERMSIG(st) if os.WIFSIGNALED(st) else "exit %d" % os.WEXITSTATUS(st),
                       "<2s" if time.time() - t0 < 2 else ">=2s"))
PY
assert_eq "hangup untraced" "signal 1 after <2s" "$(python3 "$WORK/hangup.py" sleep 5)"
assert_eq "hangup, ovnirun the session's leader" "signal 1 after <2s" \
	"$(python3 "$WORK/hangup.py" "$OVNIRUN" -q -o "$WORK/hup" sleep 5)"
check_trace "$WORK/hup"
grep -q '"signal SIGHUP"' $(find "$WORK/hup" -name stream.json) || fail "hangup: no signal label"
# A program that traps it: its handler runs, as untraced.
assert_eq "hangup trapped" "exit 129 after <2s" \
	"$(python3 "$WORK/hangup.py" "$OVNIRUN" -q -o "$WORK/hup2" sh -c 'trap "exit 129" HUP; sleep 5 & wait')"
check_trace "$WORK/hup2"
# What the program started in its group ends with it, as the kernel does
# at the end of a session's leader after a hangup (ovnirun waited 3 s
# for it, and it ran on).
assert_eq "hangup, a child in the group" "signal 1 after <2s" \
	"$(python3 "$WORK/hangup.py" "$OVNIRUN" -q -o "$WORK/hup3" sh -c 'sleep 5; :')"
check_trace "$WORK/hup3"
