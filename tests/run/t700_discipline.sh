# Signal, fork, stack, loader and environment discipline: small adversarial
# programs (tests/prog/adv*.c), each run untraced and under ovnirun; exit
# status and output must be identical and every trace valid.  Racy cases run
# OA_REPEAT times (default 10; 50 in `make test-stress`), two at a time.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
REPEAT=${OA_REPEAT:-10}
# The cases of issue 31 that involve a race run at least 20 times.
REPEAT20=$((REPEAT > 20 ? REPEAT : 20))
export PROG OVNIRUN OA WORK

c01f()  { "$@" $PROG/adv01_fork_locks; }
c01e()  { "$@" $PROG/adv01_fork_locks exec; }
c02()   { "$@" $PROG/adv02_exit_sighandler; }
c03a()  { "$@" $PROG/adv03_signal_chain sigset; }
c03b()  { "$@" $PROG/adv03_signal_chain bsd_signal; }
c03c()  { "$@" $PROG/adv03_signal_chain sysv_signal; }
c03d()  { "$@" $PROG/adv03_signal_chain_c11 signal-c11; }
c04()   { "$@" $PROG/adv04_siginterrupt; }
c05()   { "$@" $PROG/adv05_sigaltstack; }
c06()   { "$@" $PROG/adv06_small_stacks | sort; }
c06b()  { "$@" $PROG/adv06_small_stacks exit; }
c07a()  { local f; f=$(mktemp $WORK/f07.XXXXXX); bash -c '"$@" 2>&-' _ "$@" $PROG/adv07_closed_stderr $f; local st=$?
	  echo "--- file:"; cat $f; rm -f $f; return $st; }
c07b()  { local f; f=$(mktemp $WORK/f07.XXXXXX); "$@" $PROG/adv07_spawn $PROG/adv07_closed_stderr $f; local st=$?
	  echo "--- file:"; cat $f; rm -f $f; return $st; }
# The program closes its stderr itself and opens a file, which takes
# number 2, then starts threads near its descriptor limit (which the agent
# says): the agent's line goes to ovnirun's report, not into the file.
c07c()  { local d st; d=$(mktemp -d $WORK/f07c.XXXXXX); (cd $d && "$@" python3 -c '
import os, resource, threading
os.close(2)
f = open("data.txt", "w")
resource.setrlimit(resource.RLIMIT_NOFILE, (10, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
ts = [threading.Thread(target=lambda: None) for _ in range(3)]
[t.start() for t in ts]; [t.join() for t in ts]
f.write("data\n"); f.close()'); st=$?
	  echo "--- file:"; cat $d/data.txt; rm -rf $d; return $st; }
c08()   { bash -c 'trap "" HUP INT QUIT TERM USR1; "$@"' _ "$@" $PROG/adv08_trap_ignored; }
c09a()  { "$@" $PROG/adv09_sigwait_sample; }
c09b()  { "$@" $PROG/adv09_sigwait_sample signalfd; }
c10()   { local lp="" i o; for i in $(seq 300); do lp="$lp${lp:+:}/lib/x86_64-linux-gnu/libm.so.6"; done
	  o=$(LONG_PRELOAD=$lp "$@" $PROG/adv10_long_preload | grep '^LD_PRELOAD='); local st=$?
	  local n; n=$(grep -o libm.so.6 <<<"$o" | wc -l)
	  local has=no; grep -q libovni-auto.so <<<"$o" && has=yes
	  local want=no; [ $# -gt 0 ] && want=yes
	  echo "libm entries=$n agent=$([ $has = $want ] && echo as-expected || echo "$has, wanted $want")"
	  return $st; }
c11()   { "$@" $PROG/adv11_sigaction_query; }
# Under valgrind's memcheck, whose errors change the status: the agent
# read the sa_restorer the program leaves unset (status 9, an error per call).
c11v()  { "$@" valgrind -q --error-exitcode=9 $PROG/adv11_sigaction_query; }
c12a()  { sh -c "$* yes | head -n 1"; }
c12b()  { bash -c 'set -m; "$@" sleep 5 & p=$!; sleep 0.3; kill -INT -$p; wait $p' _ "$@" 2>/dev/null; }
c12c()  { "$@" $PROG/adv12_abort; }
c13()   { "$@" $PROG/adv13_segv_resethand; }
c14()   { "$@" $PROG/adv14_exit_threads; }
c15a()  { "$@" $PROG/adv15_vfork; }
c15b()  { "$@" $PROG/adv15_vfork exec; }
c16()   { "$@" $PROG/adv16_siglongjmp; }
# 17: a plugin whose constructor and destructor start and join threads,
# opened from three threads at once (one copy, then a copy each).
c17a()  { "$@" $PROG/adv17_ctor_threads $PROG/so_ctor_pool.so; }
c17b()  { "$@" $PROG/adv17_ctor_threads $WORK/plugin.so copies; }
# 18: the program takes the sampling signal (run with -S).
c18a()  { "$@" $PROG/adv18_sample_signal own; }
c18b()  { "$@" $PROG/adv18_sample_signal reset; }
c18c()  { "$@" $PROG/adv18_sample_signal wait; }
# 19: threads cancelled in every recorded wait.
c19()   { "$@" $PROG/adv19_cancel; }
# 20: one free descriptor slot under RLIMIT_NOFILE 64 (and 8) while threads
# start: no open of the program may fail (the output counts EMFILE).
c20a()  { "$@" $PROG/adv20_fd_limit; }
c20b()  { "$@" $PROG/adv20_fd_limit tiny; }
export -f c01f c01e c02 c03a c03b c03c c03d c04 c05 c06 c06b c07a c07b c07c c08 c09a c09b c10 c11 c11v c12a c12b c12c c13 c14 c15a c15b c16
export -f c17a c17b c18a c18b c18c c19 c20a c20b
for i in 0 1 2; do cp $PROG/so_ctor_pool.so $WORK/plugin.so.$i; done

# trial FN EXPECTED_STATUS EXTRA_OVNIRUN_OPTS TRACE: prints nothing when fine, else why.
trial() {
	local fn=$1 exp=$2 extra=$3 T=$4 uo to us ts r
	uo=$(timeout -k 2 30 bash -c "$fn" 2>/dev/null); us=$?
	to=$(timeout -k 2 30 bash -c "$fn \"\$@\"" _ "$OVNIRUN" -q -o "$T" $extra -- 2>/dev/null); ts=$?
	{ [ $ts = 124 ] || [ $ts = 137 ]; } && { echo "$fn: timeout (traced)"; return; }
	[ $us = 124 ] && { echo "$fn: timeout (untraced!)"; return; }
	[ $us != $ts ] && { echo "$fn: status differs untraced=$us traced=$ts"; return; }
	[ -n "$exp" ] && [ $ts != "$exp" ] && { echo "$fn: status $ts, expected $exp"; return; }
	[ "$uo" != "$to" ] && { echo "$fn: output differs: untraced=[$(tr '\n' ';' <<<"$uo")] traced=[$(tr '\n' ';' <<<"$to")]"; return; }
	[ -d "$T" ] || { echo "$fn: no trace directory"; return; }
	r=$("$OA" check "$T" 2>&1) || { echo "$fn: check failed: $(grep -m1 -iv '^ok' <<<"$r")"; return; }
	if [ -n "${OVNIEMU:-}" ] && [ -x "$OVNIEMU" ]; then
		"$OVNIEMU" -l "$T" >"$T.emu" 2>&1 || { echo "$fn: ovniemu -l: $(tail -n 1 "$T.emu")"; return; }
	fi
}
export -f trial

nfail=0
# item NAME REPS PAR VARIANT...  (variant: fn|expected-status|extra ovnirun options)
item() {
	local name=$1 reps=$2 par=$3 v fn exp extra i j bad=0
	shift 3
	for v in "$@"; do
		IFS='|' read -r fn exp extra <<<"$v"
		for ((i = 0; i < reps; i += par)); do
			for ((j = 0; j < par && i + j < reps; j++)); do
				trial "$fn" "$exp" "$extra" "$WORK/$fn.$((i + j))" >"$WORK/$fn.r$j" &
			done
			wait
			for ((j = 0; j < par && i + j < reps; j++)); do
				[ -s "$WORK/$fn.r$j" ] && { bad=$((bad + 1)); [ $bad -le 3 ] && sed 's/^/   /' "$WORK/$fn.r$j" | head -c 600; }
				[ "$fn" = c16 ] || [[ "$fn" = c15* ]] || [[ "$fn" = c1[789]* ]] || rm -rf "$WORK/$fn.$((i + j))" "$WORK/$fn.$((i + j)).emu"
			done
		done
	done
	if [ $bad -eq 0 ]; then echo "-- ok   $name"; else echo "-- FAIL $name ($bad failed runs)"; nfail=$((nfail + 1)); fi
}

item "1 fork while agent locks are held"   "$REPEAT" 2 "c01f|0|" "c01e|0|"
item "2 _exit() in a signal handler"        "$REPEAT" 2 "c02|3|"
item "3 sigset/bsd_signal/sysv_signal/c11"  1 1 "c03a|0|" "c03b|0|" "c03c|0|" "c03d|0|"
item "4 siginterrupt"                       1 1 "c04|0|"
item "5 fatal handler on an 8 KiB altstack" 1 1 "c05|134|"
item "6 PTHREAD_STACK_MIN threads"          1 1 "c06|0|"
item "6b exit() on a 16 KiB stack, 50 spooled" 1 1 "c06b|7|"
item "7 started with stderr closed"         1 1 "c07a|0|" "c07b|0|"
item "7 stderr closed, its number a file's"  1 1 "c07c|0|"
item "8 inherited SIG_IGN"                  1 1 "c08|0|"
item "9 sampling signal vs sigwait"         1 1 "c09a|0|-S 1000" "c09b|0|-S 1000"
item "10 LD_PRELOAD longer than 8 KiB"      1 1 "c10|0|"
item "11 sigaction queries of SIG_DFL"      1 1 "c11|0|"
if command -v valgrind >/dev/null; then
	item "11 the same under valgrind's memcheck" 1 1 "c11v|0|"
else
	echo "-- skip 11 under valgrind: not installed"
fi
item "12 one thread killed by a signal"     1 1 "c12a|0|" "c12b|130|" "c12c|134|"
item "13 SA_RESETHAND crash handler"        1 1 "c13|139|"
item "14 exit() from three threads"         "$REPEAT20" 2 "c14|0|"
item "15 vfork child"                       1 1 "c15a|0|" "c15b|0|"
item "16 siglongjmp out of a wait"          1 1 "c16|0|"
item "17 constructors that join threads"    "$REPEAT20" 2 "c17a|0|" "c17b|0|-s"
item "18 the program takes the sample signal" 1 1 "c18a|0|-S 500" "c18b|0|-S 500" "c18c|0|-S 500"
item "19 cancelled waits"                   "$REPEAT20" 2 "c19|0|"
item "20 the last free descriptor"          "$REPEAT20" 2 "c20a|0|" "c20b|0|"

# 20: a program that ends with its descriptor table full (soft limit under
# the hard one) finishes its own stream, labels and all: at its end the
# agent raises the soft limit for its files (it could not, and ovnirun
# finished the stream without its labels).
"$OVNIRUN" -q -o "$WORK/c20f" $PROG/adv20_fd_limit full >"$WORK/c20f.out" 2>"$WORK/c20f.err" ||
	{ echo "-- FAIL 20 full: status"; nfail=$((nfail + 1)); }
grep -q "could not finish" "$WORK/c20f.err" && { echo "-- FAIL 20 full: $(cat "$WORK/c20f.err")"; nfail=$((nfail + 1)); }
j=$(cat "$WORK"/c20f/loom.*/proc.*/thread.*/stream.json | tr -d '\n ')
{ grep -q '"adv20_fd_limit"' <<<"$j" && grep -q '"exitstatus0"' <<<"$j" && ! grep -q 'finishedbyovnirun' <<<"$j"; } ||
	{ echo "-- FAIL 20 full: the program's own end not written: $j" | head -c 600; nfail=$((nfail + 1)); }

# 15: the vfork child's _exit/exec is not on the parent's stream.
for fn in c15a c15b; do
	T="$WORK/$fn.0"
	grep -lE '"(exit status 7|exec /bin/true)"' $(find "$T" -name stream.json) 2>/dev/null |
		grep -q . && { echo "-- FAIL 15 $fn: the vfork child's event is recorded on the parent"; nfail=$((nfail + 1)); }
done
# 16: paused for the 1 s sleep only, running during the 0.5 s after the jump.
dump "$WORK/c16.0" >"$WORK/d16"
awk '$2 == "OHp" { p = $1 } $2 == "OHr" { r = $1 } $2 == "OHe" { e = $1 }
     END { exit !(r - p < 1.2e9 && e - r > 0.3e9) }' "$WORK/d16" ||
	{ echo "-- FAIL 16: still paused after the jump"; grep -E 'OH[prxe]' "$WORK/d16"; nfail=$((nfail + 1)); }
# 17: with a copy each, every constructor and destructor ran (3 x 2 pools of
# 4 threads per opener): every pool thread is in the trace, named after its
# start routine.
n=$(find "$WORK/c17b.0" -name stream.json | wc -l)
[ "$n" -eq 76 ] || { echo "-- FAIL 17: $n streams, expected 76 (main, 3 openers, 72 pool threads)"; nfail=$((nfail + 1)); }
grep -qh '"work_b"' $(find "$WORK/c17b.0" -name stream.json) ||
	{ echo "-- FAIL 17: no thread named work_b"; nfail=$((nfail + 1)); }
# 18: the program's own handler got its 3 signals and no sample (the
# output says so); the trace says sampling stopped and samples came before.
for fn in c18a c18b; do
	dump "$WORK/$fn.0" >"$WORK/d18"
	[ "$(awk '$2 == "OM=" && /type=80/ && /value=99 / { n++ } END { print n + 0 }' "$WORK/d18")" = 1 ] ||
		{ echo "-- FAIL 18 $fn: no 'sampling stopped' mark"; nfail=$((nfail + 1)); }
	[ "$(awk '$2 == "OM=" && /type=83/ { n++ } END { print n + 0 }' "$WORK/d18")" -ge 1 ] ||
		{ echo "-- FAIL 18 $fn: no sample before the program took the signal"; nfail=$((nfail + 1)); }
done
# 19: every "Blocked in" mark pushed is popped on each thread, and before
# its cleanup handlers' own waits (the mutex they unlock is not a wait).
dump "$WORK/c19.0" | awk '/type=81/ && $2 == "OM[" { p[$3]++ } /type=81/ && $2 == "OM]" { q[$3]++ }
	END { bad = 0; for (t in p) if (p[t] != q[t]) { print "   " t ": " p[t] " pushed, " q[t] + 0 " popped"; bad = 1 }
	      exit bad }' || { echo "-- FAIL 19: blocked marks left pushed by cancellation"; nfail=$((nfail + 1)); }
[ $nfail -eq 0 ] || fail "$nfail items failed"
