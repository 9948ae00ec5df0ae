# Ground truth, pthread waits: a mutex held 10 ms 20 times while another
# thread waits, a barrier with a thread 50 ms late (which does not wait), a
# condition wait, a join, sleeps: counts exact, times within tolerance.
. "$(dirname "$0")/lib_truth.sh"
i=0
while [ $i -lt "$RUNS" ]; do
	truth_run p$i -- "$PROG/truth_pthread"
	i=$((i + 1))
done
info "$RUNS runs agree"
