# Sampling (OVNI_SAMPLE_US / ovnirun -S): the running function of each thread
# every N us of its CPU time, as mark channel 83 labelled with the program's
# function names; a sleep is never interrupted (CPU-time timers).
. "$(dirname "$0")/../lib.sh"
want=$("$PROG/spin") || fail "plain run"
# CPU-time timers tick with the kernel (4 ms at HZ=250): ~75 samples per
# thread on an idle machine.  On an overloaded one the kernel itself
# delivers far fewer to some thread: the same program without the agent
# (three threads with such timers, three CPU hogs on two cores) counted 0,
# 4, 6 or 15 signals in 300 ms of CPU for one of its threads in 4 runs of
# 14, and ~75 in the others.  So a run where a thread got fewer than 15 is
# run again (5 times at most): an agent that loses samples fails every time.
starved() { # DUMP: the first thread with fewer than 15 samples, or nothing
	for s in $(awk '$2 == "OHx" { print $3 }' "$1"); do
		n=$(awk -v s="$s" '$2 == "OM=" && $3 == s && $5 == "type=83"' "$1" | wc -l)
		[ "$n" -lt 15 ] && { echo "$s: $n"; return; }
	done
}
for try in 1 2 3 4 5; do
	rm -rf "$WORK/t"
	got=$("$OVNIRUN" -q -S 1000 -o "$WORK/t" "$PROG/spin") || fail "sampled run"
	assert_eq "output (the sleep returned 0, not EINTR)" "$want" "$got"
	check_trace "$WORK/t"
	dump "$WORK/t" >"$WORK/d"
	few=$(starved "$WORK/d")
	[ -z "$few" ] && break
	info "run $try: samples of $few (300 ms of CPU, 1 kHz asked)"
done
[ -z "$few" ] || fail "five runs with a thread sampled fewer than 15 times in 300 ms of CPU: $few"
labels=$(cat $(find "$WORK/t" -name stream.json) | tr -d '\n ')
echo "$labels" | grep -q '"busy_alpha"' || fail "no sample named busy_alpha"
echo "$labels" | grep -q '"busy_beta"' || fail "no sample named busy_beta"
"$OA" stats "$WORK/t" | grep -q "Sampled function: busy_beta" || fail "stats does not name the samples"
# Two processes of one program sampling the same code (no ASLR: the same
# addresses): their values were the pid's hash above bit 40 and the
# address below, so the same low 32 bits, all the emulator keeps (check
# failed, 3 runs of 3).  Each address's value comes from the loom's
# counter now.
if setarch "$(uname -m)" -R true 2>/dev/null; then
	setarch "$(uname -m)" -R "$OVNIRUN" -q -S 1000 -o "$WORK/two" sh -c '"$0" >/dev/null & "$0" >/dev/null; wait' \
		"$PROG/spin" || fail "two: status $?"
	check_trace "$WORK/two"
	assert_ge "two: samples" 20 "$(dump "$WORK/two" | awk '$5 == "type=83"' | wc -l)"
else
	info "no setarch -R here: the two-process case skipped"
fi
# Off by default.
"$OVNIRUN" -q -o "$WORK/n" "$PROG/spin" >/dev/null || fail "run"
assert_eq "no samples without -S" 0 "$("$OA" dump "$WORK/n" | awk '$5 == "type=83"' | wc -l)"
