# A shell loop of 300 processes, and pipelines: ovnirun's summary counts any
# number of processes (it crashed past 64), every process is traced.
. "$(dirname "$0")/lib_real.sh"
same_run loop bash -c 'for i in $(seq 300); do /bin/true; done; seq 100 | sort -r | head -n 3 | tr 1 x > out'
n=$(find "$WORK/loop.trace" -maxdepth 2 -name 'proc.*' | wc -l)
assert_ge "processes traced" 304 "$n"
msg=$("$OVNIRUN" -o "$WORK/loop2" bash -c 'for i in $(seq 100); do /bin/true; done' 2>&1); rc=$?
assert_eq "ovnirun status" 0 "$rc"
n=$(find "$WORK/loop2" -maxdepth 2 -name 'proc.*' | wc -l)
assert_ge "processes in the second trace" 101 "$n"
echo "$msg" | grep -q "threads in $n processes" || fail "summary: $msg (expected $n processes)"
