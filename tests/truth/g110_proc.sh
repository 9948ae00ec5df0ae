# Ground truth, processes: forks, an exec that succeeds, execs that fail
# (missing file, not executable, PATH search: each recorded once), exit
# statuses, a death by SIGTERM, handled signals (no death recorded).
. "$(dirname "$0")/lib_truth.sh"
i=0
while [ $i -lt "$RUNS" ]; do
	truth_run q$i -- "$PROG/truth_proc"
	i=$((i + 1))
done
info "$RUNS runs agree"
