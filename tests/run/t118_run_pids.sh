# The run's spool and pids given again, and ovnirun's last look at the trace.
# - A pid given to a new process while the stream of the process that had
#   it still waits in the run's spool (ovnirun writes slots out every 10
#   ms): the new one writes that stream out first and goes on after it.
#   Before, both wrote loom.L/proc.P/thread.P at once: stream.json cut or
#   mixed, processes lost or out of order (3 runs in 10 failed `check`,
#   some passed it with a process missing).  Pids are forced with
#   ns_last_pid in a PID namespace of our own, ovnirun its first process.
# - A process whose main thread leaves (pthread_exit) and which dies by
#   SIGKILL with its other threads in its spool, reaped by no traced
#   parent: its main stream is finished, the spool's are not; ovnirun's
#   last look takes a spool file for unfinished streams (it left the file,
#   `check` failed, 4 runs in 5).
# - The end of a process that finished all its streams is noted in the
#   run's spool (oa_run_mark_ended): ovnirun's last look reads one
#   stream.json of it, not one per thread; the count it prints is the same.
. "$(dirname "$0")/../lib.sh"
export TMPDIR="$WORK"

# Threads counted without their stream.json read.
"$OVNIRUN" -o "$WORK/a" "$PROG/threads" join 200 >"$WORK/a.out" 2>"$WORK/a.err" || fail "a: status $?"
grep -q "(201 threads in 1 processes)" "$WORK/a.err" || fail "a: ovnirun's count: $(cat "$WORK/a.err")"
check_trace "$WORK/a"
assert_eq "a: thread directories" 201 "$(find "$WORK/a" -name 'thread.*' -type d | wc -l)"

# Main thread gone, then SIGKILL, orphaned: the spool's threads finished.
for i in 1 2 3; do
	"$OVNIRUN" -q -o "$WORK/b$i" sh -c "( \"$PROG/endings\" mainkill >/dev/null & ); sleep 0.4" 2>"$WORK/b.err" ||
		fail "b$i: status $?"
	check_trace "$WORK/b$i"
	assert_eq "b$i: spool files left" 0 "$(find "$WORK/b$i" -name 'spool.*.oa' | wc -l)"
done

command -v unshare >/dev/null || skip "no unshare"
unshare -p -f --mount-proc sh -c 'echo 500 > /proc/sys/kernel/ns_last_pid' 2>/dev/null ||
	skip "no PID namespace whose ns_last_pid can be set here"

# Five programs in a row, each given pid 1000.
cat >"$WORK/five.sh" <<'EOF'
for p in echo true date pwd id; do
	echo 999 > /proc/sys/kernel/ns_last_pid
	/bin/$p >/dev/null & wait $!
	echo "$p $!" >> "$PIDLOG"
done
EOF
for i in 1 2 3 4 5; do
	rm -f "$WORK/pids"
	PIDLOG="$WORK/pids" unshare -p -f --mount-proc "$OVNIRUN" -q -o "$WORK/c$i" sh "$WORK/five.sh" ||
		fail "c$i: status $?"
	assert_eq "c$i: the programs' pids" 1000 "$(awk '{ print $2 }' "$WORK/pids" | sort -u | tr -d '\n')"
	check_trace "$WORK/c$i"
	dump "$WORK/c$i" >"$WORK/c.dump"
	assert_eq "c$i: processes of pid 1000" 5 "$(awk '$2 == "OHx" && $3 ~ /proc\.1000\/thread\.1000$/' "$WORK/c.dump" | wc -l)"
	for p in echo true date pwd id; do
		grep -q "\"$p\"" "$WORK/c$i"/loom.*/proc.1000/thread.1000/stream.json || fail "c$i: no label of $p"
	done
done

# A process with threads ends whole at pid 2000; the next one given 2000
# leaves its main thread and is killed with a thread writing files of its
# own, orphaned: its streams are finished all the same.
cat >"$WORK/two.sh" <<EOF
echo 1999 > /proc/sys/kernel/ns_last_pid; "$PROG/threads" join 4 >/dev/null
echo 1998 > /proc/sys/kernel/ns_last_pid; ( "$PROG/endings" mainkill 1000 >/dev/null & )
sleep 0.6
EOF
for i in 1 2 3; do
	unshare -p -f --mount-proc "$OVNIRUN" -q -o "$WORK/d$i" sh "$WORK/two.sh" 2>"$WORK/d.err" || fail "d$i: status $?"
	check_trace "$WORK/d$i"
	assert_eq "d$i: spool files left" 0 "$(find "$WORK/d$i" -name 'spool.*.oa' | wc -l)"
done

# The other way round: the killed one first (reaped by its traced shell,
# which leaves it: its main stream is finished), its threads dead in its
# spool; the next process of its pid, with threads of the same tids,
# writes them out and finishes them before its own go on after them
# (they were appended after its own at the end: "clock goes backwards",
# 3 runs in 3).
for n in 0 1000; do
	cat >"$WORK/three.sh" <<EOF
echo 2999 > /proc/sys/kernel/ns_last_pid; "$PROG/endings" mainkill $n >/dev/null
echo 2999 > /proc/sys/kernel/ns_last_pid; "$PROG/threads" join 4 >/dev/null
EOF
	for i in 1 2; do
		unshare -p -f --mount-proc "$OVNIRUN" -q -o "$WORK/e$n.$i" sh "$WORK/three.sh" 2>"$WORK/e.err" ||
			fail "e$n.$i: status $?"
		check_trace "$WORK/e$n.$i"
		assert_eq "e$n.$i: spool files left" 0 "$(find "$WORK/e$n.$i" -name 'spool.*.oa' | wc -l)"
	done
done

# A process of an older run whose root had the pid this run's root gets
# (pids given again: another session's run, a program past pid_max
# forks) is not one of this run: before, ovnirun listed it as "still
# running" and waited 3 s for it.
unshare -p -f --mount-proc sh -c "
	env OVNI_ROOT_PID=4001 sleep 5 & sleep 0.05
	echo 3999 > /proc/sys/kernel/ns_last_pid
	'$OVNIRUN' -o '$WORK/f' /bin/true 2>'$WORK/f.err'
	ls -d '$WORK'/f/loom.*/proc.* > '$WORK/f.procs'
	kill \$! 2>/dev/null" || fail "f: status $?"
check_trace "$WORK/f"
if grep -q "/proc.4001$" "$WORK/f.procs"; then
	grep -q "still running" "$WORK/f.err" && fail "f: another run's process listed as this run's: $(cat "$WORK/f.err")"
else
	info "f: the run's root did not get pid 4001 ($(cat "$WORK/f.procs")): not checked"
fi
exit 0
