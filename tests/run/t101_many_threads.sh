# 64, 1000 and 2500 threads: every one gets a finished stream, created by
# main.  All but the main thread start in the process's spool, 1024 to a
# file (writer/spool.h): 2500 need three files, all unpacked at the end.
. "$(dirname "$0")/../lib.sh"
for n in 1 64 1000 2500; do
	out=$("$OVNIRUN" -q -o "$WORK/tr$n" "$PROG/threads" join $n) || fail "$n threads: exit status $?"
	assert_eq "output" "done join $n" "$out"
	check_trace "$WORK/tr$n"
	dump "$WORK/tr$n" >"$WORK/d"
	assert_eq "$n threads: streams" $((n + 1)) "$(streams "$WORK/tr$n")"
	assert_eq "$n threads: OHC" $n "$(count OHC "$WORK/d")"
	assert_eq "$n threads: OHe" $((n + 1)) "$(count OHe "$WORK/d")"
	unfinished=$(grep -L '"finished": 1' $(find "$WORK/tr$n" -name stream.json) | wc -l)
	assert_eq "$n threads: unfinished streams" 0 "$unfinished"
	assert_eq "$n threads: spool files left" 0 "$(find "$WORK/tr$n" -name 'spool.*' | wc -l)"
done
# A program that limits its address space (RLIMIT_AS) gets no spool (8 MiB
# of address space is not the agent's to take): each thread writes its own
# files, all finished.
out=$(ulimit -v 4000000 && "$OVNIRUN" -q -o "$WORK/tras" "$PROG/threads" join 64) || fail "RLIMIT_AS: exit status $?"
assert_eq "RLIMIT_AS: output" "done join 64" "$out"
check_trace "$WORK/tras"
assert_eq "RLIMIT_AS: streams" 65 "$(streams "$WORK/tras")"
# Near the limit: with 64 MiB more than the program needs untraced, all
# its threads start traced too.  The label of a thread's name, malloc'd on
# a thread that never allocates, set up a malloc arena there (64 MiB kept,
# 128 MiB while it is aligned): 1 run in 3 failed to create a thread.
lo=20000 hi=4000000
while [ $((hi - lo)) -gt 1024 ]; do
	m=$(((lo + hi) / 2))
	if (ulimit -v $m && "$PROG/threads" join 10 >/dev/null 2>&1); then hi=$m; else lo=$m; fi
done
bad=0
for i in $(seq 20); do
	rm -rf "$WORK/av"
	(ulimit -v $((hi + 65536)) && "$OVNIRUN" -q -o "$WORK/av" "$PROG/threads" join 10 >"$WORK/av.out" 2>&1) ||
		bad=$((bad + 1))
done
assert_eq "ulimit -v, 64 MiB to spare: runs that failed (of 20)" 0 "$bad"
assert_eq "ulimit -v, 64 MiB to spare: output" "done join 10" "$(cat "$WORK/av.out")"
check_trace "$WORK/av"
# tmpfs's fallocate stops at a pending signal (EINTR; made here by
# strace): a thread whose first window's blocks it was reserving ran
# untraced, said so, and left 8 streams unfinished and empty (check
# failed) in a trace ovnirun called whole.  Retried now.
if command -v strace >/dev/null; then
	out=$(strace -f -qq -o /dev/null -e trace=fallocate -e inject=fallocate:error=EINTR:when=1 \
		"$OVNIRUN" -q -o "$WORK/eintr" "$PROG/threads" join 10 2>"$WORK/eintr.err")
	assert_eq "an EINTR from fallocate: output" "done join 10" "$out"
	assert_eq "an EINTR from fallocate: nothing said" "" "$(cat "$WORK/eintr.err")"
	check_trace "$WORK/eintr"
	assert_eq "an EINTR from fallocate: streams" 11 "$(streams "$WORK/eintr")"
	# Every pwrite64 failing with EINTR (no signal does that: a ptrace'd
	# process whose calls are made to fail): the retries are bounded, the
	# program runs to its end (a traced bash spun for ever in a stream's
	# pwrite loop).
	out=$(timeout -k 5 30 strace -f -qq -o /dev/null -e trace=pwrite64 -e inject=pwrite64:error=EINTR \
		"$OVNIRUN" -q -o "$WORK/pweintr" bash -c 'echo hi; /bin/true; exit 3' 2>/dev/null)
	assert_eq "pwrite64 always EINTR: status" 3 $?
	assert_eq "pwrite64 always EINTR: output" hi "$out"
else
	info "no strace: the EINTR cases skipped"
fi
