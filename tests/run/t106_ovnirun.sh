# ovnirun: exit status and signals of the program, trace directory naming,
# static programs run untraced with the reason (their children traced).
. "$(dirname "$0")/../lib.sh"
cd "$WORK" || exit 1
"$OVNIRUN" -q "$PROG/threads" exitcode 7 >/dev/null; assert_eq "exit status" 7 $?
"$OVNIRUN" -q "$PROG/threads" exitcode 0 >/dev/null; assert_eq "exit status" 0 $?
[ -d ovni ] && [ -d ovni.1 ] || fail "default trace directories ovni and ovni.1 not made"
"$OVNIRUN" -o ovni "$PROG/threads" join 1 >/dev/null 2>"$WORK/err"; assert_eq "existing -o dir" 2 $?
grep -q "exists" "$WORK/err" || fail "no reason for refusing an existing directory"
"$OVNIRUN" -f -o ovni "$PROG/threads" join 1 >/dev/null 2>&1 || fail "-f refused"
# The program's signal is ovnirun's signal.
sh -c "\"$OVNIRUN\" -q sh -c 'kill -TERM \$\$'"; assert_eq "killed by SIGTERM" $((128 + 15)) $?
sh -c "\"$OVNIRUN\" -q sh -c 'kill -SEGV \$\$'" 2>/dev/null; assert_eq "killed by SIGSEGV" $((128 + 11)) $?
"$OVNIRUN" -q /no/such/program 2>/dev/null; assert_eq "missing program" 127 $?
# Any signal whose default ends ovnirun is passed on to the program, and
# ovnirun ends as the program did, its trace finished (SIGALRM, SIGXCPU,
# SIGPWR and the real-time ones killed ovnirun itself: the program's
# stream was left in the run's spool, check failed, its private directory
# stayed in $TMPDIR).
mkdir -p "$WORK/tmp"
for s in ALRM VTALRM XCPU PWR IO RTMIN+3; do
	TMPDIR="$WORK/tmp" timeout -s $s 1 "$OVNIRUN" -q -o "sig$s" sleep 5
	assert_eq "timeout -s $s: status" 124 $?
	check_trace "sig$s"
	assert_eq "timeout -s $s: left in TMPDIR" "" "$(ls -A "$WORK/tmp")"
done
sleep 5 &
p=$!
sleep 0.2
/bin/kill -s RTMIN+3 $p
wait $p
want=$?
# Under a launcher every rank runs ovnirun (mpirun -np N ovnirun ./app, or
# any step of a Slurm job, where SLURM_PROCID is set): a rank killed by
# SIGKILL has its streams finished by its ovnirun, which says how (they
# were left unfinished: check failed).
for v in OMPI_COMM_WORLD_RANK SLURM_PROCID; do
	env $v=0 SLURM_JOB_ID=7 "$OVNIRUN" -q -o "rank$v" sh -c 'sleep 0.1; kill -9 $$' 2>/dev/null
	assert_eq "$v: killed rank's status" 137 $?
	check_trace "rank$v"
	grep -rq '"killed by signal SIGKILL; streams finished by ovnirun"' "rank$v" || fail "$v: how it ended is not said"
done
# SIGINT sent to ovnirun alone (a supervisor's Popen.send_signal, `kill
# -INT $!`) reaches the program: it was ignored, like the terminal's, and
# the program ran on to its end.
# (A shell's background job ignores SIGINT: Python's Popen starts them.)
cat >sigint.py <<'EOF2'
import signal, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:] + ["sh", "-c", 'trap "echo interrupted; exit 3" INT; i=0; while [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done; echo ran'], stdout=subprocess.PIPE)
time.sleep(0.5)
p.send_signal(signal.SIGINT)
out = p.communicate()[0].decode().strip()
print(p.returncode, out)
EOF2
assert_eq "SIGINT to the program" "3 interrupted" "$(python3 sigint.py)"
assert_eq "SIGINT to ovnirun" "3 interrupted" "$(python3 sigint.py "$OVNIRUN" -q -o sigint)"
check_trace sigint
# SIGTSTP for ovnirun stops the program (it stopped ovnirun alone, the
# program ran on), ovnirun stops too (the job is stopped), and the SIGCONT
# that continues ovnirun continues the program.
for how in plain traced; do
	rm -f ticks
	if [ $how = plain ]; then
		sh -c 'i=0; while [ $i -lt 30 ]; do echo $i >>ticks; i=$((i + 1)); sleep 0.05; done' &
	else
		"$OVNIRUN" -q -o stopped sh -c 'i=0; while [ $i -lt 30 ]; do echo $i >>ticks; i=$((i + 1)); sleep 0.05; done' &
	fi
	p=$!
	sleep 0.3
	kill -TSTP $p
	sleep 0.2
	n1=$(wc -l <ticks)
	sleep 0.5
	n2=$(wc -l <ticks)
	[ $how = traced ] && assert_eq "SIGTSTP: ovnirun stopped" T "$(ps -o stat= -p $p | cut -c1)"
	kill -CONT $p
	wait $p
	assert_eq "SIGTSTP ($how): status" 0 $?
	assert_eq "SIGTSTP ($how): no tick while stopped" "$n1" "$n2"
	assert_eq "SIGTSTP ($how): every tick at the end" 30 "$(wc -l <ticks)"
done
check_trace stopped
"$OVNIRUN" -q -o sigrt sleep 5 &
p=$!
sleep 0.5
/bin/kill -s RTMIN+3 $p
wait $p
assert_eq "killed by SIGRTMIN+3" "$want" $?
assert_ge "killed by SIGRTMIN+3: a signal's status" 129 "$want"
check_trace sigrt
# A static program cannot load the agent: it runs untraced, saying so, and
# the dynamically linked programs it starts are traced.
printf '#include <stdlib.h>\nint main(void){return system("sh -c \\"echo from child\\"") ? 3 : 5;}\n' >s.c
if cc -static -o static s.c 2>/dev/null; then
	out=$("$OVNIRUN" -o st ./static 2>"$WORK/err"); assert_eq "static program runs" 5 $?
	assert_eq "static program's output" "from child" "$out"
	grep -q "static runs untraced: it is statically linked.*programs it starts are traced" "$WORK/err" ||
		fail "no reason for a static program: $(cat "$WORK/err")"
	check_trace st
	assert_ge "its children traced" 1 "$(ls -d st/loom.*/proc.* | wc -l)"
	# One that starts nothing: no trace, said as that (it said the
	# directory "was moved or removed", which ovnirun had removed, empty).
	printf 'int main(void){return 4;}\n' >s0.c
	cc -static -o static0 s0.c
	"$OVNIRUN" -o st0 ./static0 2>"$WORK/err"; assert_eq "static program alone" 4 $?
	grep -q "^ovnirun: no trace was written in st0" "$WORK/err" || fail "static alone: $(cat "$WORK/err")"
	grep -q "moved" "$WORK/err" && fail "static alone: $(cat "$WORK/err")"
	[ -e st0 ] && fail "static alone: an empty trace directory left"
fi
# The dynamic loader run as a program (`ld.so ./app`): it has no
# interpreter either, but loads the program with LD_PRELOAD: traced, and
# no line saying it is not (before: "runs untraced: it is statically
# linked", the program's streams in the trace all the same).
ldso=$(ls /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 2>/dev/null | head -1)
if [ -n "$ldso" ]; then
	out=$("$OVNIRUN" -q -o ldso "$ldso" "$PROG/threads" join 3 2>"$WORK/err") || fail "ld.so ./app: status $?"
	assert_eq "ld.so ./app: output" "done join 3" "$out"
	assert_eq "ld.so ./app: stderr" "" "$(cat "$WORK/err")"
	check_trace ldso
	assert_eq "ld.so ./app: its streams" 4 "$(streams ldso)"
fi
# A set-uid program of one's own user is no secure exec: traced.
cp "$PROG/threads" ./suid && chmod u+s ./suid
"$OVNIRUN" -o su ./suid join 1 2>"$WORK/err" >/dev/null; assert_eq "own set-uid program" 0 $?
grep -q "untraced" "$WORK/err" && fail "own set-uid program said untraced: $(cat "$WORK/err")"
assert_eq "own set-uid program traced" 2 "$(ls -d su/loom.*/proc.*/thread.* | wc -l)"
# The trace location is said on stderr.
"$OVNIRUN" -o said "$PROG/threads" join 2 2>"$WORK/err" >/dev/null
grep -q "ovnirun: trace in said (3 threads in 1 processes)" "$WORK/err" || fail "location: $(cat "$WORK/err")"
# Its usage text.
"$OVNIRUN" --help | grep -q "usage: ovnirun" || fail "--help"
# Options are checked before the program runs: a missing -t directory.
"$OVNIRUN" -o never -t "$WORK/no/such/dir" sh -c 'echo ran' >"$WORK/out" 2>"$WORK/err"; assert_eq "missing -t" 2 $?
[ -s "$WORK/out" ] && fail "the program ran with a missing -t directory"
grep -q -- "-t $WORK/no/such/dir: No such file or directory" "$WORK/err" || fail "-t: $(cat "$WORK/err")"
# Values the agent would ignore (each process saying so on the program's
# stderr naming OVNI_BUFSIZE, or a run without sampling and no word): refused.
for opt in "-b abc" "-b 0" "-b -1" "-b 4X" "-S abc" "-S 0" "-S -5" "-S 100x"; do
	"$OVNIRUN" -o never $opt sh -c 'echo ran' >"$WORK/out" 2>"$WORK/err"; assert_eq "$opt: status" 2 $?
	[ -s "$WORK/out" ] && fail "the program ran with $opt"
	grep -q -- "^ovnirun: ${opt% *} ${opt#* }: not a" "$WORK/err" || fail "$opt: $(cat "$WORK/err")"
done
[ -e never ] && fail "a refused option made the trace directory"
for opt in "-b 64k" "-b 1" "-b 8MB" "-S 100"; do
	out=$("$OVNIRUN" -q -o "$WORK/ok${opt#* }" $opt sh -c 'echo ran' 2>"$WORK/err"); assert_eq "$opt: status" 0 $?
	assert_eq "$opt: output" ran "$out"
	assert_eq "$opt: stderr" "" "$(cat "$WORK/err")"
done
# The last line is true: processes that ran untraced are named, with why
# (the trace directory's parent is a file: even root cannot write there).
mkdir tmpd && : >afile
TMPDIR="$PWD/tmpd" "$OVNIRUN" -o afile/trace sh -c 'echo out; sh -c true' >"$WORK/out" 2>"$WORK/err"
assert_eq "untraced run" 0 $?
assert_eq "output untouched" out "$(cat "$WORK/out")"
tail -n 1 "$WORK/err" | grep -q "no trace was written in afile/trace; 2 processes reported a problem (above)" ||
	fail "final line: $(tail -n 1 "$WORK/err")"
[ "$(grep -c "ovnirun:   pid [0-9]* cannot write the trace in" "$WORK/err")" = 2 ] ||
	fail "each untraced process named: $(cat "$WORK/err")"
# The report file is gone afterwards.
assert_eq "report left behind" "" "$(ls tmpd)"
# ovnirun's stderr a pipe whose reader has gone (`ovnirun ./app 2>&1 |
# head -1`): its last lines fail, ovnirun goes on and its status is the
# program's (it was killed by SIGPIPE: 141), and the program keeps the
# SIGPIPE disposition it had.
( "$OVNIRUN" -o "$WORK/pipe" sh -c 'sleep 0.3; exit 3' 2>&1; echo $? >"$WORK/pipe.st" ) | true
assert_eq "ovnirun with its stderr a closed pipe: status" 3 "$(cat "$WORK/pipe.st")"
check_trace "$WORK/pipe"
for pipe in "" "trap '' PIPE;"; do
	want=$(sh -c "$pipe grep SigIgn /proc/self/status")
	got=$(sh -c "$pipe \"\$0\" -q -o \"\$1\" grep SigIgn /proc/self/status" "$OVNIRUN" "$WORK/pipe2")
	assert_eq "the program's ignored signals ($pipe)" "$want" "$got"
	rm -rf "$WORK/pipe2"
done
# ovnirun that cannot fork (a user at its process limit): it says so, and
# its private directory (report, spool list) goes too (it was left behind).
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && command -v bash >/dev/null; then
	# A directory nobody reaches ($WORK is root's alone).
	T=$(mktemp -d /tmp/oa-t106.XXXXXX) && chmod 1777 "$T" || fail mktemp
	trap 'rm -rf "$T" "$WORK"' EXIT
	runuser -u nobody -- env TMPDIR="$T" bash -c 'ulimit -u 1; exec "$0" -q -o "$1" true' \
		"$OVNIRUN" "$T/t" >"$WORK/out" 2>"$WORK/err"
	assert_eq "fork refused: status" 1 $?
	grep -q "ovnirun: fork: Resource temporarily unavailable" "$WORK/err" || fail "fork refused: $(cat "$WORK/err")"
	assert_eq "fork refused: left behind" "" "$(ls "$T")"
fi

# A small stack limit, set by the shell that starts ovnirun (as a user's
# `ulimit -s`): ovnirun itself kept ~26 KiB of buffers on its stack and
# its look at the program's libraries recursed with 12 KiB a level: it
# died of SIGSEGV under `ulimit -s 48` and below, the program never run.
# (A small environment: the kernel puts it on that stack too.)
out=$(env -i PATH=/usr/bin:/bin bash -c 'ulimit -s 32; exec "$0" -q -o "$1" "$2" join 2' "$OVNIRUN" "$WORK/smallstack" \
	"$PROG/threads") || fail "ulimit -s 32: status $?"
assert_eq "ulimit -s 32: output" "done join 2" "$out"
check_trace "$WORK/smallstack"

# The program stops itself (or is stopped alone: a supervisor's SIGSTOP):
# ovnirun stops the same way, so that its parent (a shell's job control)
# sees it stop; continued, both go on.  Before, ovnirun ran on: an
# interactive shell's terminal hung.  Then, with `stty tostop`, ovnirun's
# last line no longer stops it (SIGTTOU ignored once the program ended).
for sig in STOP TSTP; do
	got=$(python3 - "$OVNIRUN" "$WORK/stop$sig" "$sig" <<'PY'
import os, signal, subprocess, sys, time
run, out, sig = sys.argv[1:4]
p = subprocess.Popen([run, "-q", "-o", out, "sh", "-c", "kill -%s $$; echo resumed; exit 5" % sig],
                     stdout=subprocess.PIPE)
stopped = None
end = time.time() + 10
while time.time() < end:
    pid, st = os.waitpid(p.pid, os.WUNTRACED | os.WNOHANG)
    if pid and os.WIFSTOPPED(st):
        stopped = os.WSTOPSIG(st)
        break
    if pid:
        break
    time.sleep(0.01)
os.kill(p.pid, signal.SIGCONT)
print("stopped" if stopped else "not stopped", p.stdout.read().decode().strip(), p.wait())
PY
)
	assert_eq "self $sig: ovnirun stops, continues, status" "stopped resumed 5" "$got"
	check_trace "$WORK/stop$sig"
done

# The scheduling policy ovnirun was started with is the program's: under
# SCHED_RESET_ON_FORK (`chrt -R -f 5 ovnirun`) ovnirun's fork gave the
# program SCHED_OTHER; under SCHED_DEADLINE the kernel refused the fork
# (status 1, the program never ran).  Where this machine allows them.
pol() { sed 's/^pid [0-9]*.s //'; }
if chrt -R -f 5 true 2>/dev/null; then
	want=$(chrt -R -f 5 sh -c 'chrt -p $$' | pol)
	got=$(chrt -R -f 5 "$OVNIRUN" -q -o "$WORK/rt" sh -c 'chrt -p $$' | pol)
	assert_eq "chrt -R -f 5: the program's policy" "$want" "$got"
	check_trace "$WORK/rt"
else
	info "no real-time policy here: the chrt -R case skipped"
fi
DL="chrt -d --sched-runtime 5000000 --sched-deadline 10000000 --sched-period 16666666 0"
if $DL true 2>/dev/null; then
	# (No fork in the program: a deadline task cannot, traced or not.)
	want=$($DL sh -c 'echo ran; exec chrt -p $$' | pol)
	got=$($DL "$OVNIRUN" -q -o "$WORK/dl" sh -c 'echo ran; exec chrt -p $$' | pol)
	assert_eq "SCHED_DEADLINE: output" "$want" "$got"
	assert_eq "SCHED_DEADLINE: status" 0 "$($DL "$OVNIRUN" -q -o "$WORK/dl2" sh -c 'exit 3' >/dev/null; echo $(($? - 3)))"
	check_trace "$WORK/dl"
else
	info "no SCHED_DEADLINE here: its case skipped"
fi

# No /proc (a chroot, a container without it): ovnirun found its library
# through /proc/self/exe only, and ran nothing ("cannot find my own path",
# status 1).  Its path as it was executed serves.
if unshare -m --propagation private true 2>/dev/null; then
	out=$(unshare -m --propagation private sh -c 'mount -t tmpfs none /proc && "$0" -q -o "$1" sh -c "echo hi; exit 3"' \
		"$OVNIRUN" "$WORK/noproc") 2>"$WORK/noproc.err"
	st=$?
	assert_eq "no /proc: output" hi "$out"
	assert_eq "no /proc: status" 3 "$st"
	assert_eq "no /proc: nothing said" "" "$(cat "$WORK/noproc.err")"
	check_trace "$WORK/noproc"
else
	info "no mount namespace here: the no-/proc case skipped"
fi
# An environment a few hundred bytes under the kernel's limit (ARG_MAX):
# the program ran untraced, but not with the agent's variables beside it
# ("cannot run: Argument list too long", 127).  As untraced now, said.
cat >"$WORK/bigenv.sh" <<'EOF'
n=$1; shift; c=$(head -c 128000 /dev/zero | tr '\0' a)
for i in $(seq 1 16); do export BIGV$i=$c; done
export BIGLAST=$(head -c $n /dev/zero | tr '\0' b); exec "$@"
EOF
lo=1000 hi=128000
while [ $((hi - lo)) -gt 16 ]; do
	m=$(((lo + hi) / 2))
	if sh "$WORK/bigenv.sh" $m /bin/true 2>/dev/null; then lo=$m; else hi=$m; fi
done
out=$(sh "$WORK/bigenv.sh" $((lo - 300)) "$OVNIRUN" -q -o "$WORK/big" sh -c 'echo hi; exit 3' 2>"$WORK/big.err")
st=$?
assert_eq "near ARG_MAX: output" hi "$out"
assert_eq "near ARG_MAX: status" 3 "$st"
assert_eq "near ARG_MAX: said once" 1 "$(grep -c 'E2BIG): it runs untraced' "$WORK/big.err")"
# The trace directory moved while the program ran: ovnirun said "no trace
# was written", with the run's spool still full.  It says what happened and
# how to finish it.
out=$("$OVNIRUN" -o "$WORK/mv" sh -c 'mv "$0" "$0.moved"; /bin/true; echo ran' "$WORK/mv" 2>"$WORK/mv.err")
assert_eq "moved: output" ran "$out"
grep -q "the trace directory $WORK/mv was moved or removed while the program ran.*ovni-auto repair" "$WORK/mv.err" ||
	fail "moved: what ovnirun said: $(cat "$WORK/mv.err")"
"$OA" repair "$WORK/mv.moved" >/dev/null 2>&1 || fail "moved: repair failed"
check_trace "$WORK/mv.moved"
# An ovnirun without its library (copied alone): it says so once and runs
# the program as if it were not there (before: status 1, nothing ran).
cp "$OVNIRUN" "$WORK/ovnirun-alone"
out=$("$WORK/ovnirun-alone" -o "$WORK/alone" sh -c 'echo hi; exit 3' 2>"$WORK/alone.err")
st=$?
assert_eq "no library: output" hi "$out"
assert_eq "no library: status" 3 "$st"
assert_eq "no library: said once" 1 "$(grep -c 'cannot find the agent library.*runs untraced' "$WORK/alone.err")"
assert_eq "no library: nothing else said" 1 "$(wc -l <"$WORK/alone.err")"
exit 0
