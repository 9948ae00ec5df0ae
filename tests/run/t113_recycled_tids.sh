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
# in_pidns HOW DIR MODE N: `threads MODE N` in a PID namespace of its own,
# traced into DIR with LD_PRELOAD alone (plain) or under ovnirun.
in_pidns() {
	if [ "$1" = plain ]; then
		OVNI_TRACEDIR="$2" LD_PRELOAD="$LIBAGENT" unshare -p -f --mount-proc "$PROG/threads" "$3" "$4"
	else
		"$OVNIRUN" -q -o "$2" unshare -p -f --mount-proc "$PROG/threads" "$3" "$4"
	fi
}
n=2400
for how in plain ovnirun; do
	out=$(in_pidns $how "$WORK/$how" recycle $n 2>"$WORK/err") || fail "$how: exit status $?"
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
# Four threads each starting 3000 threads one after another, each given
# the tid of its creator's one before: tids recycled at once from four
# places while ovnirun writes the ended ones out.  Before, ovnirun wrote a
# later stream of a tid while a thread of the process still wrote the
# earlier one out (or while its thread still ran, at a place the pass had
# passed): stream.obs files with two headers or clocks going back (3/3
# runs; under ovnirun with 4 x 12000 plain threads past pid_max, 5858 of
# 32448 streams).
n=3000
for how in plain ovnirun; do
	out=$(in_pidns $how "$WORK/r4$how" recycle4 $n 2>"$WORK/err") || fail "recycle4 $how: exit status $?"
	assert_eq "recycle4 $how: output" "done recycle4 $n" "$out"
	read -r _ again _ <"$WORK/err" || fail "recycle4 $how: no count: $(cat "$WORK/err")"
	assert_ge "recycle4 $how: threads given the tid of their creator's one before" $((4 * n * 9 / 10)) "$again"
	check_trace "$WORK/r4$how"
	p=$(ls -d "$WORK/r4$how"/loom.*.pidns*/proc.1) || fail "recycle4 $how: no proc.1 in the namespace's loom"
	dump "$p" >"$WORK/d"
	assert_eq "recycle4 $how: thread starts" $((4 * n + 5)) "$(count OHx "$WORK/d")"
	assert_eq "recycle4 $how: thread ends" $((4 * n + 5)) "$(count OHe "$WORK/d")"
	assert_eq "recycle4 $how: spool files left" 0 "$(find "$WORK/r4$how" -name 'spool.*' | wc -l)"
done
