# Two PID namespaces at once (issue 30, item 5): `unshare -p -f`, as
# containers, bubblewrap and Apptainer do, twice in parallel: both children
# are pid 1.  Each namespace gets a loom of its own (LOOM.pidns<inode>, the
# same host), so the two pid-1 processes never share a directory (before:
# one truncated the other's file, SIGBUS killed a sandbox, and the clock
# went backwards), and their mark values differ.  Root only (CI is root).
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "PID namespaces need root"
command -v unshare >/dev/null || skip "no unshare"
unshare -p -f true 2>/dev/null || skip "unshare -p -f is not allowed here"
script='for i in 1 2; do unshare -p -f sh -c "echo pid \$\$; '"$PROG"'/threads join 3 | tail -n 1" & done; wait; echo done'
want=$(sh -c "$script" 2>&1 | sort)
got=$("$OVNIRUN" -q -o "$WORK/ns" sh -c "$script" 2>&1 | sort); st=$?
assert_eq "status" 0 "$st"
assert_eq "output" "$want" "$got"
check_trace "$WORK/ns"
assert_eq "looms of the namespaces" 2 "$(ls -d "$WORK"/ns/loom.*.pidns* | wc -l)"
for l in "$WORK"/ns/loom.*.pidns*; do
	[ -d "$l/proc.1" ] || fail "$l: no proc.1"
	grep -q "\"loom\": \"${l##*/loom.}\"" "$l"/proc.1/thread.1/stream.json || fail "$l: stream.json names another loom"
done
# The run's own processes stay in the host's loom.
assert_ge "processes in the host's loom" 1 "$(ls -d "$WORK"/ns/loom.*[0-9a-z]/proc.* 2>/dev/null | grep -vc pidns)"
# Inside each namespace, sh (pid 1) runs `threads` and `tail`: they learn
# their namespace from their parent or from OVNI_NSPID (written by the exec
# wrapper), not from /proc, and land in the namespace's loom too.
for l in "$WORK"/ns/loom.*.pidns*; do
	assert_ge "$l: processes" 3 "$(ls -d "$l"/proc.* | wc -l)"
done

# OVNI_NSPID is believed only when its numbers are the process's own: one
# written for another process (here by hand, passed on by a program without
# the agent: a disabled `env`) is ignored, and the program still lands in
# its namespace's loom (before OVNI_NSPID existed, it always read /proc).
host=$(stat -L -c %i /proc/self/ns/pid)
script='unshare -p -f sh -c "OVNI_DISABLE=1 env -u OVNI_DISABLE OVNI_DEBUG=1 OVNI_NSPID='"$host"':p:1:0:99999 '"$PROG"'/threads join 1 2>&1 | grep -c \"PID namespace [0-9]*, read from /proc\""'
got=$("$OVNIRUN" -q -o "$WORK/forged" sh -c "$script" 2>&1); st=$?
assert_eq "forged: status" 0 "$st"
assert_eq "forged: the program read its namespace" 1 "$got"
check_trace "$WORK/forged"
l=$(ls -d "$WORK"/forged/loom.*.pidns*)
assert_eq "forged: processes in the namespace's loom (sh, threads, grep)" 3 "$(ls -d "$l"/proc.* | wc -l)"

# A namespace whose init is killed from outside (SIGKILL): the kernel kills
# the rest, nothing in it can finish its streams, and its pids are not ours
# to look up; ovnirun sees the namespace gone (no process has its inode) and
# finishes every stream of its loom, saying so.
script='unshare -p -f sh -c "'"$PROG"'/threads join 2 >/dev/null; sleep 5; echo inner" & u=$!; sleep 0.5; kill -9 $(pgrep -P $u); wait; echo done'
want=$(sh -c "$script" 2>/dev/null)
got=$("$OVNIRUN" -q -o "$WORK/gone" sh -c "$script" 2>/dev/null); st=$?
assert_eq "gone: status" 0 "$st"
assert_eq "gone: output" "$want" "$got"
check_trace "$WORK/gone"
n=$(grep -rl '"ended without notice (its PID namespace is gone); streams finished by ovnirun"' "$WORK"/gone/loom.*.pidns* | wc -l)
assert_ge "gone: processes of the namespace finished by ovnirun" 2 "$n"

# Joining a namespace that outlives the run (nsenter, setns): the processes
# that ended in it are not taken for running while it lives on (before:
# ovnirun waited its 3 s and named them all as still running); one left
# running there is named, alone.
command -v nsenter >/dev/null || exit 0
unshare -p -f --mount-proc sleep 60 & u=$!
trap 'kill $u 2>/dev/null; rm -rf "$WORK"' EXIT
for i in 1 2 3 4 5 6 7 8 9 10; do
	inner=$(pgrep -P $u)
	[ -n "$inner" ] && break
	sleep 0.1
done
[ -n "$inner" ] || fail "lasting: no namespace"
got=$("$OVNIRUN" -q -o "$WORK/join" nsenter -t "$inner" -p sh -c 'echo in; sh -c "echo again"' 2>"$WORK/join.err"); st=$?
assert_eq "join: status" 0 "$st"
assert_eq "join: output" "in
again" "$got"
assert_eq "join: messages" "" "$(cat "$WORK/join.err")"
check_trace "$WORK/join"
assert_ge "join: processes in the namespace's loom" 2 "$(ls -d "$WORK"/join/loom.*.pidns*/proc.* | wc -l)"
"$OVNIRUN" -q -o "$WORK/left" nsenter -t "$inner" -p sh -c '(sleep 5 &); echo x' >/dev/null 2>"$WORK/left.err"
grep -q "ovnirun: 1 process of the run still running" "$WORK/left.err" || fail "left: $(cat "$WORK/left.err")"
assert_eq "left: named" 1 "$(grep -c '(in a PID namespace still running)' "$WORK/left.err")"
kill $u

# bubblewrap's init in its PID namespace is a fork child that does not
# exec: it labelled its forks with values of the loom it was forked in
# (its parent's counter, inherited) but of its new loom, the same values as
# the namespace's own processes drew from theirs (check: "mark value ...
# already defined").  It takes its new loom's counter.
if command -v bwrap >/dev/null && bwrap --unshare-pid --bind / / true 2>/dev/null; then
	want=$(bash -c 'bwrap --unshare-pid --bind / / sh -c "for i in 1 2 3 4; do echo \$i | cat; done"; echo end')
	got=$("$OVNIRUN" -q -o "$WORK/bwrap" bash -c 'bwrap --unshare-pid --bind / / sh -c "for i in 1 2 3 4; do echo \$i | cat; done"; echo end' 2>"$WORK/bwrap.err"); st=$?
	assert_eq "bwrap: status" 0 "$st"
	assert_eq "bwrap: output" "$want" "$got"
	check_trace "$WORK/bwrap"
	assert_ge "bwrap: processes in the namespace's loom" 6 "$(ls -d "$WORK"/bwrap/loom.*.pidns*/proc.* | wc -l)"
fi

# ovnirun as pid 1 of a namespace (`unshare -p -f ovnirun ...`) reaps the
# orphans the kernel gives it, as an init does: a script that waits with
# `kill -0` for a process it started in the background of a subshell sees
# it go, and no zombie is left (before: it waited for ever, 21 zombies).
if unshare -p -f --mount-proc true 2>/dev/null; then
	script='sh -c "sleep 0.3 & echo \$! > '"$WORK"'/d.pid"; p=$(cat '"$WORK"'/d.pid); n=0
while kill -0 $p 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
[ $n -lt 50 ] && echo "gone"
for i in $(seq 10); do (sh -c "exit 0" &); done; sleep 0.5
echo "zombies: $(ps -e -o stat= | grep -c ^Z)"'
	want=$(unshare -p -f --mount-proc sh -c "$script")
	got=$(timeout 60 unshare -p -f --mount-proc "$OVNIRUN" -q -o "$WORK/pid1" sh -c "$script" 2>"$WORK/pid1.err"); st=$?
	assert_eq "pid 1: status" 0 "$st"
	assert_eq "pid 1: untraced" "gone
zombies: 0" "$want"
	assert_eq "pid 1: output" "$want" "$got"
	check_trace "$WORK/pid1"
fi

# A process that clears its environment and then starts a child in a new
# PID namespace (firejail's sandbox init is made so): the child, pid 1
# there, had no OVNI_PIDNS to tell it apart, kept the run's loom and its
# parent's mapping of the run's spool, and took the slot of "pid 1" of
# the run's loom; ovnirun took that for the host's init, still running:
# the stream stayed in spool.run.oa (check failed, every run).
out=$("$OVNIRUN" -q -o "$WORK/clear" "$PROG/pidns_clearenv" 2>"$WORK/clear.err")
if [ -z "$out" ]; then
	info "clone(CLONE_NEWPID) is not allowed here: the cleared-environment case skipped"
	exit 0
fi
assert_eq "cleared environment, new namespace: output" "child 1 ok
status 0" "$out"
check_trace "$WORK/clear"
ls -d "$WORK"/clear/loom.*.pidns*/proc.1 >/dev/null 2>&1 || fail "no proc.1 in the namespace's loom: $(ls "$WORK/clear")"
assert_eq "cleared environment: stderr" "" "$(cat "$WORK/clear.err")"

# ovnirun itself in a PID namespace of its own (`unshare -p -f ovnirun -f
# -o DIR`, a container per run), two runs into one directory at once: both
# programs are pid 2 there, and in one loom two live processes wrote one
# stream's files (SIGBUS or SIGSEGV in the programs 2 times of 5, and
# hundreds of problems in the trace).  Each run's loom takes its
# namespace (LOOM.runns<inode>); a later run whose namespace got the same
# inode, a number more.
pids=""
for i in 1 2; do
	(unshare -p -f "$OVNIRUN" -q -f -o "$WORK/shared" "$PROG/threads" join 300 >"$WORK/shared.$i.out"; echo "status $?" >>"$WORK/shared.$i.out") &
	pids="$pids $!"
done
wait $pids
for i in 1 2; do
	assert_eq "shared $i: output" "done join 300
status 0" "$(cat "$WORK/shared.$i.out")"
done
check_trace "$WORK/shared"
assert_eq "shared: looms, one per run" 2 "$(ls -d "$WORK"/shared/loom.*.runns* | wc -l)"
assert_eq "shared: streams" 602 "$(streams "$WORK/shared")"
for i in 1 2 3; do
	unshare -p -f "$OVNIRUN" -q -f -o "$WORK/seq" sh -c 'echo pid $$' >>"$WORK/seq.out" || fail "seq $i: status"
done
assert_eq "seq: output" "pid 2
pid 2
pid 2" "$(cat "$WORK/seq.out")"
check_trace "$WORK/seq"
assert_eq "seq: looms, one per run" 3 "$(ls -d "$WORK"/seq/loom.*runns* | wc -l)"
