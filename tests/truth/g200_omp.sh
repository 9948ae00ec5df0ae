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
# An untied task's next part can start on another thread while its previous
# part is still returning; libomp then reports neither the end of that last
# part nor the completion on the thread that ran it.  Rare by itself (one
# run in ~50 on a busy machine): a preload sleeps after every continuation
# is queued, so that it happens to many tasks in every run.
D="$PROG/so_kmp_delay.so"
[ -f "$D" ] || fail "no $D (make test builds it)"
for n in 2 4; do
	for i in 0 1 2; do
		truth_run delay$n.$i LD_PRELOAD="$D" OMP_NUM_THREADS=$n -- "$P" untied
		truth_first delay$n.$i
	done
done
info "$RUNS runs on 2 and 4 threads agree, and 3 with continuations delayed"
