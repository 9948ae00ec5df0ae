# A trace on a file system that fills up (a 1 MiB tmpfs, mounted in a
# mount namespace of our own): the program runs as untraced (its output,
# its status, every process it starts), the agent says so, and the tools
# read what is there without dying.  Before: every traced process started
# once it was full died of SIGBUS at its start (its first write into the
# run's spool, a page without a block), a shell reaping a child died of
# SIGBUS (the loom's counter of process events, a sparse page), and
# `ovni-auto check` and `repair` too (a read through a mapping of a page
# without a block, on a full tmpfs); a spooled thread whose files could
# not be written whole left an empty stream.json.  Root only (CI is root).
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root"
command -v unshare >/dev/null || skip "no unshare"
unshare -m sh -c "mount -t tmpfs -o size=1m none '$WORK'" 2>/dev/null || skip "no mount namespace with a tmpfs here"
M="$WORK/full"
mkdir "$M"
prog="$PROG/threads seq 1000 >/dev/null; /bin/true; echo true=\$?; /bin/echo hi; exit 3"
want=$(sh -c "$prog" 2>/dev/null)
assert_eq "untraced output" "true=0
hi" "$want"
for i in 1 2; do
	rm -f "$WORK/out" "$WORK/err" "$WORK/tools"
	unshare -m sh -c "mount -t tmpfs -o size=1m none '$M' &&
		{ '$OVNIRUN' -q -o '$M/tr' sh -c '$prog' >'$WORK/out' 2>'$WORK/err'; echo \$? >'$WORK/status';
		  df -k '$M' | tail -1 >'$WORK/df';
		  '$OA' check '$M/tr' >'$WORK/check' 2>&1; echo check \$? >'$WORK/tools';
		  '$OA' repair '$M/tr' >/dev/null 2>&1; echo repair \$? >>'$WORK/tools';
		  '$OA' stats '$M/tr' >/dev/null 2>&1; echo stats \$? >>'$WORK/tools'; }" ||
		fail "$i: the mount namespace's script"
	assert_eq "$i: output" "$want" "$(cat "$WORK/out")"
	assert_eq "$i: status" 3 "$(cat "$WORK/status")"
	read -r _ _ _ avail _ <"$WORK/df"
	assert_le "$i: KiB left on the file system (it filled)" 64 "$avail"
	grep -q "No space left on device" "$WORK/err" || fail "$i: the agent did not say why: $(cat "$WORK/err")"
	# What did not fit is missing (check names it), but no stream is left
	# unreadable: a thread's stream.obs without its stream.json, or an
	# empty one (the write of a spooled thread that failed half way).
	grep -q "cannot load stream.json\|stream.json.*expected" "$WORK/check" &&
		fail "$i: a stream left unreadable: $(grep stream.json "$WORK/check" | head -3)"
	# And check says why: the file system is full.
	if grep -q "problem" "$WORK/check"; then
		grep -q "hint: the trace's file system is full" "$WORK/check" ||
			fail "$i: check does not say the file system is full: $(tail -3 "$WORK/check")"
	fi
	# Each tool ends by itself (0: fine, 1: problems named), never by a signal.
	while read -r tool st; do
		[ "$st" -le 1 ] || fail "$i: ovni-auto $tool ended with status $st (a signal?)"
	done <"$WORK/tools"
done
# A full staging directory (-t) with the trace elsewhere: the program as
# untraced, and the agent names the directory that is full (it named the
# trace's, which had room).
rm -f "$WORK/out" "$WORK/err"
unshare -m sh -c "mount -t tmpfs -o size=32k none '$M' &&
	'$OVNIRUN' -q -t '$M' -o '$WORK/staged' sh -c '$PROG/threads join 60 >/dev/null; echo done' >'$WORK/out' 2>'$WORK/err'" ||
	fail "staged: the mount namespace's script"
assert_eq "staged: output" done "$(cat "$WORK/out")"
grep -q "cannot write the trace in $M/loom\..*: No space left on device" "$WORK/err" ||
	fail "staged: the agent did not name the full directory: $(cat "$WORK/err")"
grep "cannot write the trace in $WORK/staged" "$WORK/err" && fail "staged: the trace's directory named"
exit 0
