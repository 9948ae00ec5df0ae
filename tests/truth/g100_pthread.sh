# Ground truth, pthread waits: a mutex held 10 ms 20 times while another
# thread waits, a barrier with a thread 50 ms late (which does not wait), a
# condition wait, a join, sleeps: counts exact, times within tolerance.
. "$(dirname "$0")/lib_truth.sh"
truth_repeat p "$PROG/truth_pthread"
