# The run's spool (writer/spool.h): under ovnirun a process that starts
# afresh writes its first stream into a slot of TRACE/spool.run.oa, makes
# no directory or file of its own, and ovnirun writes it out.  Checked:
# a process sees no directory of its own while it runs, yet the trace has
# every stream, finished, and nothing is left behind; a stream that
# outgrows its slot, or whose image execs, goes on in files; a child killed
# in its slot is finished by its parent, one whose parent is untraced by
# ovnirun; a process that outlives ovnirun writes its own and the file
# goes with the last one; ovnirun killed leaves the file, which `check`
# names and `repair` empties; another run's file is not used.
. "$(dirname "$0")/../lib.sh"
# ovnirun's private directories, which a killed ovnirun leaves, go with $WORK.
export TMPDIR="$WORK"
spool_left() { find "$1" -name spool.run.oa | wc -l; }
# SIGKILL for a process and all below it at once (stopped first, so that
# none is reaped and finished by its parent meanwhile).
killtree() {
	all=$1 more=$1
	kill -STOP "$1"
	while [ -n "$more" ]; do
		next=""
		for p in $more; do
			for c in $(pgrep -P "$p"); do kill -STOP "$c" 2>/dev/null; next="$next $c"; done
		done
		all="$all $next" more=$next
	done
	kill -9 $all 2>/dev/null
	wait "$1" 2>/dev/null
}
unfinished() { grep -L '"finished": 1' $(find "$1" -name stream.json) | wc -l; }

# No directory of its own while it runs; the trace whole afterwards.
T="$WORK/a"
out=$("$OVNIRUN" -q -o "$T" sh -c '/bin/true; /bin/true; ls "$0"/loom.*/ | grep -c "^proc.$$\$"; true' "$T") ||
	fail "a: status $?"
assert_eq "a: the shell's directory while it runs" 0 "$out"
check_trace "$T"
assert_eq "a: streams (sh, 2 /bin/true, ls, grep)" 5 "$(streams "$T")"
assert_eq "a: unfinished" 0 "$(unfinished "$T")"
assert_eq "a: spool left" 0 "$(spool_left "$T")"

# The slots reserved by ovnirun while the program runs (allocated in the
# file ahead of the processes that take them: ~20 us less in each), all
# 256 of them; not on a file system with little room (a 16 MiB tmpfs: its
# space is left to the program), where the processes take theirs as before.
T="$WORK/r"
out=$("$OVNIRUN" -q -o "$T" sh -c 'sleep 0.5; echo $(( $(stat -c "%b * %B" "$0/spool.run.oa") ))' "$T") || fail "r: status $?"
assert_ge "r: bytes of the run's spool allocated while it runs" $((256 * 8192)) "$out"
check_trace "$T"
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir -p "$WORK/small"
	out=$(unshare -m sh -c 'mount -t tmpfs -o size=16m none "$1" && "$2" -q -o "$1/t" sh -c '\''sleep 0.5; echo $(( $(stat -c "%b * %B" "$0/spool.run.oa") ))'\'' "$1/t"' sh "$WORK/small" "$OVNIRUN") ||
		fail "r small: status $?"
	assert_le "r small: bytes of the run's spool allocated (no reservation)" $((16 * 8192)) "$out"
fi

# A fork child that ends without an exec (a subshell of builtins: its
# whole stream written at its end) does so in the slot too: with ovnirun
# stopped, which would write it out, it has no directory after its end
# (it made two directories and two files of its own before).
T="$WORK/sub"
out=$("$OVNIRUN" -q -o "$T" sh -c 'kill -STOP $PPID; (echo in; exit 4) & p=$!; wait $p; echo "status $?"
	ls "$0"/loom.*/ | grep -c "^proc.$p\$"; kill -CONT $PPID' "$T") || fail "sub: status $?"
assert_eq "sub: output, the subshell's directory after its end" "in
status 4
0" "$out"
check_trace "$T"
assert_eq "sub: streams (sh, the subshell, ls, grep)" 4 "$(streams "$T")"
assert_eq "sub: the subshell's exit" 1 "$(dump "$T" | grep -c 'OM=.*value=260 type=80')"

# Outgrown (the shell's 400 forks), exec'd (bash execs /bin/true after its
# own events), threads (their spool in the process's directory).
T="$WORK/b"
"$OVNIRUN" -q -o "$T" sh -c 'i=0; while [ $i -lt 400 ]; do i=$((i+1)); (:); done; bash -c "(:); exec /bin/true"; "$0" join 4' \
	"$PROG/threads" >"$WORK/b.out" || fail "b: status $?"
assert_eq "b: output" "done join 4" "$(cat "$WORK/b.out")"
check_trace "$T"
dump "$T" >"$WORK/b.d"
# bash and the /bin/true it became: one stream, two images.
# bash's stream (its fork child's fork label) goes on with /bin/true's
# exec: one stream with both.
pe=$(grep -l '"exec /bin/true"' $(find "$T" -name stream.json) | xargs grep -l '"fork: child' | wc -l)
assert_eq "b: bash's stream and its exec'd image's: one" 1 "$pe"
assert_eq "b: unfinished" 0 "$(unfinished "$T")"
assert_eq "b: spool left" 0 "$(spool_left "$T")"
# The threads program: its own stream and its 4 threads', in its directory
# (made when its first thread needed the process's spool).
assert_eq "b: a process with 5 streams" 1 "$(for d in "$T"/loom.*/proc.*; do ls -d "$d"/thread.* | wc -l; done | grep -c '^5$')"

# A child killed in its slot: its traced parent finishes it, saying how.
T="$WORK/c"
"$OVNIRUN" -q -o "$T" sh -c 'sleep 10 & sleep 0.3; kill -9 $!; wait; echo done' >"$WORK/c.out" || fail "c: status $?"
assert_eq "c: output" done "$(cat "$WORK/c.out")"
check_trace "$T"
grep -q '"killed by signal SIGKILL; streams finished by its parent"' $(find "$T" -name stream.json) ||
	fail "c: the parent's finish not in the trace"
# The program itself killed (ovnirun reaps it): ovnirun finishes it.
T="$WORK/c2"
"$OVNIRUN" -q -o "$T" sh -c 'kill -9 $$'
assert_eq "c2: status" 137 "$?"
check_trace "$T"
grep -q '"killed by signal SIGKILL; streams finished by ovnirun"' $(find "$T" -name stream.json) ||
	fail "c2: ovnirun's finish not in the trace"
assert_eq "c2: spool left" 0 "$(spool_left "$T")"

# A process that outlives ovnirun: named, then it writes its own stream,
# and the last one out removes the file.
T="$WORK/d"
OVNI_END_WAIT_MS=100 "$OVNIRUN" -q -o "$T" sh -c 'sleep 1 & exit 0' 2>"$WORK/d.err" || fail "d: status $?"
grep -q "still running" "$WORK/d.err" || fail "d: not named: $(cat "$WORK/d.err")"
for i in $(seq 50); do [ "$(spool_left "$T")" = 0 ] && break; sleep 0.1; done
assert_eq "d: spool left after the last process" 0 "$(spool_left "$T")"
check_trace "$T"
assert_eq "d: streams" 2 "$(streams "$T")"
# The same, its trace deleted while it runs: not made again at its end.
T="$WORK/d2"
OVNI_END_WAIT_MS=100 "$OVNIRUN" -q -o "$T" sh -c 'sleep 1 & exit 0' 2>/dev/null || fail "d2: status $?"
rm -rf "$T"
sleep 1.5
[ -e "$T" ] && fail "d2: the deleted trace was made again: $(find "$T")"

# ovnirun killed with its program: the file stays, check names it, repair
# writes it out.
T="$WORK/e"
"$OVNIRUN" -q -o "$T" sh -c 'sleep 0.2; /bin/true; sleep 5' &
pid=$!
sleep 1
killtree "$pid"
assert_eq "e: spool left by a killed ovnirun" 1 "$(spool_left "$T")"
"$OA" check "$T" >"$WORK/e.check" 2>&1 && fail "e: check accepted a trace with streams in the spool"
grep -q "spool.run.oa" "$WORK/e.check" || fail "e: check did not name the spool: $(cat "$WORK/e.check")"
"$OA" repair "$T" >"$WORK/e.repair" 2>&1 || fail "e: repair: $(cat "$WORK/e.repair")"
grep -q "streams of $T/spool.run.oa" "$WORK/e.repair" || fail "e: repair said: $(cat "$WORK/e.repair")"
assert_eq "e: spool left after repair" 0 "$(spool_left "$T")"
check_trace "$T"
assert_ge "e: streams" 3 "$(streams "$T")"

# The same with a process whose threads are in its own spool file: their
# streams take their stream.json from the main stream, which is in the
# run's spool; repair writes that one first (it left the threads, an
# error, and a trace check failed).  And `repair --pid`, as ovnirun's end
# runs it for a process that ended as it looked, writes the process's
# main stream out of the run's spool too.
for how in all pid; do
	T="$WORK/e2$how"
	"$OVNIRUN" -q -o "$T" "$PROG/threads" nap 2 &
	pid=$!
	sleep 0.3
	kp=$(pgrep -P "$pid")
	killtree "$pid"
	[ -n "$kp" ] || fail "e2 $how: no program under ovnirun"
	assert_eq "e2 $how: the threads' spool file" 1 "$(find "$T" -name spool.0.oa | wc -l)"
	if [ $how = all ]; then
		"$OA" repair "$T" >"$WORK/e2.repair" 2>&1 || fail "e2 $how: repair: $(cat "$WORK/e2.repair")"
	else
		"$OA" repair --pid "$kp" "$T" >"$WORK/e2.repair" 2>&1 || fail "e2 $how: repair: $(cat "$WORK/e2.repair")"
		"$OA" repair "$T" >/dev/null 2>&1 # the killed ovnirun's stream-less file
	fi
	check_trace "$T"
	assert_eq "e2 $how: streams (main and 2 threads)" 3 "$(streams "$T")"
done

# Every stream still in the run's spool (ovnirun and its program killed by
# `timeout -k`): check says so and names repair (it said "no stream").
T="$WORK/e3"
timeout -k 1 1 "$OVNIRUN" -q -o "$T" sh -c 'trap "" TERM; sleep 5'
assert_eq "e3: status" 137 "$?"
"$OA" check "$T" >"$WORK/e3.check" 2>&1 && fail "e3: check accepted it"
grep -q "ovni-auto repair $T" "$WORK/e3.check" || fail "e3: check said: $(cat "$WORK/e3.check")"
"$OA" repair "$T" >/dev/null 2>&1 || fail "e3: repair"
check_trace "$T"

# Another run's file (-f into a trace with a spool that is not ours): not
# used, not touched.
T="$WORK/f"
"$OVNIRUN" -q -o "$T" sleep 5 &
pid=$!
sleep 0.5
killtree "$pid"
before=$(md5sum <"$T/spool.run.oa")
"$OVNIRUN" -q -f -o "$T" sh -c '/bin/true; /bin/true' || fail "f: status $?"
assert_eq "f: the other run's file untouched" "$before" "$(md5sum <"$T/spool.run.oa")"
assert_eq "f: this run's streams, in files" 3 "$(streams "$T")"
"$OA" repair "$T" >/dev/null 2>&1
check_trace "$T"
assert_eq "f: both runs' streams after repair" 4 "$(streams "$T")"
