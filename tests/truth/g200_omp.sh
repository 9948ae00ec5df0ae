# Ground truth, OpenMP (clang, libomp) on 2 and 4 threads: untied tasks
# (segments = parts of user code, migrations = changes of thread between
# them, first thread of each task), tasks of 1 ms (time per type), critical
# sections of 5 ms (acquiring and holding per thread), a barrier reached
# 50 ms late by one thread, taskwait / taskgroup / taskwait-depend waits.
. "$(dirname "$0")/lib_truth.sh"
P="$PROG/clang_omp_truth"
[ -x "$P" ] || skip "no $P (clang missing?)"
for n in 2 4; do
	i=0
	while [ $i -lt "$RUNS" ]; do
		for m in untied tasks critical barrier waits; do
			truth_run $m$n.$i OMP_NUM_THREADS=$n -- "$P" $m
		done
		truth_first untied$n.$i
		i=$((i + 1))
	done
done
info "$RUNS runs on 2 and 4 threads agree"
