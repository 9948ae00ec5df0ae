# Time namespaces (CLONE_NEWTIME) move CLOCK_MONOTONIC, the trace's clock,
# by an offset of theirs.  Before, a process in one (`unshare --time
# --monotonic 5000 prog`) had streams 1.4 h from the others' (check: the
# clock gate), a stream whose process exec'd into one went backwards, and a
# fork child of a process that made one (prog/timens: unshare, offsets,
# fork, no exec) started 5000 s late.  Now every reading is taken back to
# the host's clock: the output and status are the untraced ones, every
# trace passes check, and all its events lie within the run's seconds;
# also nsenter into a namespace that exists (setns), and LD_PRELOAD alone.
. "$(dirname "$0")/../lib.sh"
"$PROG/timens" >/dev/null 2>&1
[ $? = 3 ] && skip "no time namespaces here (Linux 5.6+, CAP_SYS_ADMIN)"
command -v unshare >/dev/null || skip "unshare(1) missing"
unshare --time --monotonic 5000 true 2>/dev/null || skip "unshare(1) has no --time"

# span DIR: seconds between the trace's first and last event
span() { dump "$1" | awk 'NR == 1 || $1 < lo { lo = $1 } $1 > hi { hi = $1 } END { printf "%d\n", (hi - lo) / 1e9 }'; }
case_run() { # NAME COMMAND...: untraced, then under ovnirun; same output, a good trace
	name=$1; shift
	want=$("$@" 2>&1); wst=$?
	got=$("$OVNIRUN" -q -o "$WORK/$name" "$@" 2>&1); st=$?
	assert_eq "$name: status" "$wst" "$st"
	assert_eq "$name: output" "$want" "$got"
	check_trace "$WORK/$name"
	assert_le "$name: seconds between the first and last event" 60 "$(span "$WORK/$name")"
}

case_run fork "$PROG/timens" 5000
assert_eq "fork: streams (parent, its thread, child, its two)" 5 "$(streams "$WORK/fork")"
assert_eq "fork: the child's clock was moved" "moved 1" "$(head -n 1 <<EOF2
$("$PROG/timens" 5000)
EOF2
)"
case_run exec unshare --time --monotonic 5000 "$PROG/threads" join 2
case_run forked unshare --time --fork --monotonic 5000 "$PROG/threads" join 2
case_run back sh -c '/bin/true; unshare --time --monotonic -1000 /bin/true; echo ok'
# A namespace that exists: nsenter (setns) into a process's.
unshare --time --monotonic 7000 sleep 5 &
holder=$!
sleep 0.3
case_run nsenter nsenter -t "$holder" -T "$PROG/threads" join 2
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# LD_PRELOAD alone.
want=$(unshare --time --monotonic 5000 "$PROG/threads" join 2)
got=$(OVNI_TRACEDIR="$WORK/plain" LD_PRELOAD="$LIBAGENT" unshare --time --monotonic 5000 "$PROG/threads" join 2) ||
	fail "plain: status $?"
assert_eq "plain: output" "$want" "$got"
check_trace "$WORK/plain"
assert_le "plain: seconds between the first and last event" 60 "$(span "$WORK/plain")"
exit 0
