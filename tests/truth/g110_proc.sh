# Ground truth, processes: forks, an exec that succeeds, execs that fail
# (missing file, not executable, PATH search: each recorded once), exit
# statuses, a death by SIGTERM, handled signals (no death recorded).
. "$(dirname "$0")/lib_truth.sh"
truth_repeat q "$PROG/truth_proc"
