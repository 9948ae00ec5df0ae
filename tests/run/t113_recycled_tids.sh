# A tid the kernel gives again to a later thread of the same process (a
# server or pool that starts threads for years: pid_max is 32768 on many
# machines): both threads write thread.TID/stream.obs, one stream after the
# other in the order they ran.  `threads recycle` makes it happen at once:
# in a PID namespace of its own it sets ns_last_pid so that every second
# thread gets the tid of the one before, and that thread writes more
# events than a spool slot holds.  Before, its files were written before
# the earlier thread's stream left the spool (at the end, or when ovnirun
# got to it): the clock went back in every such stream.  2400 threads
# without a watcher also fill the spool's first file: the process writes
# its ended threads out itself and takes their slots again (before: 64
# files, then the 65 537th thread and those after wrote files of their
# own, ahead of the spooled streams of their tids).  Root only (CI is root).
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "ns_last_pid needs root"
command -v unshare >/dev/null || skip "no unshare"
unshare -p -f --mount-proc true 2>/dev/null || skip "unshare -p -f --mount-proc is not allowed here"
n=2400
for how in plain ovnirun; do
	if [ $how = plain ]; then
		out=$(OVNI_TRACEDIR="$WORK/$how" LD_PRELOAD="$LIBAGENT" unshare -p -f --mount-proc "$PROG/threads" recycle $n 2>"$WORK/err") ||
			fail "$how: exit status $?"
	else
		out=$("$OVNIRUN" -q -o "$WORK/$how" unshare -p -f --mount-proc "$PROG/threads" recycle $n 2>"$WORK/err") ||
			fail "$how: exit status $?"
	fi
	assert_eq "$how: output" "done recycle $n" "$out"
	read -r _ again _ tids <"$WORK/err" || fail "$how: no count: $(cat "$WORK/err")"
	# Nearly every odd thread gets the tid (one may find it not yet free).
	assert_ge "$how: threads given the tid of the one before" $((n / 2 - n / 50)) "$again"
	check_trace "$WORK/$how"
	p=$(ls -d "$WORK/$how"/loom.*.pidns*/proc.1) || fail "$how: no proc.1 in the namespace's loom"
	assert_eq "$how: streams (a tid, a stream)" $((tids + 1)) "$(ls -d "$p"/thread.* | wc -l)"
	dump "$p" >"$WORK/d"
	assert_eq "$how: thread starts" $((n + 1)) "$(count OHx "$WORK/d")"
	assert_eq "$how: thread ends" $((n + 1)) "$(count OHe "$WORK/d")"
	assert_eq "$how: spool files left" 0 "$(find "$WORK/$how" -name 'spool.*' | wc -l)"
done
