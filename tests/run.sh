#!/bin/sh
# run.sh: runs every unit test binary and every tests/run/t*.sh case, one line
# per case (OK / NG / SK), and ends with "N passed, N failed, N skipped".
# A case exits 0 to pass, 77 to skip (printing the reason), anything else fails.
# T="pattern..." runs only the cases whose name contains one of the patterns;
# V=1 shows output.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export OA_TOP="$top"
pass=0 fail=0 skip=0 failed=""
logdir=$(mktemp -d "${TMPDIR:-/tmp}/oa-tests.XXXXXX")
limit=${OA_TEST_TIMEOUT:-300}

runcase() { # name command...
	name=$1; shift
	if [ -n "${T:-}" ]; then
		hit=""
		for pat in $T; do case "$name" in *"$pat"*) hit=1 ;; esac; done
		[ -n "$hit" ] || return
	fi
	log="$logdir/$(echo "$name" | tr '/' '_').log"
	start=$(date +%s.%N)
	timeout -k 10 "$limit" "$@" >"$log" 2>&1
	rc=$?
	secs=$(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}')
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "OK  $name (${secs}s)"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); echo "SK  $name: $(tail -n 1 "$log")"
	else
		fail=$((fail + 1)); failed="$failed $name"
		[ $rc -eq 124 ] && echo "TM  $name (timed out after ${limit}s)" || echo "NG  $name (exit $rc, ${secs}s)"
		sed 's/^/    | /' "$log" | tail -n 40
		# kept for the end: CI shows only the last lines of a run
		cp "$log" "$logdir/failed.$fail.log"
	fi
	[ -n "${V:-}" ] && sed 's/^/    : /' "$log"
}

for t in build/tests/test_*; do
	[ -x "$t" ] && runcase "unit/$(basename "$t")" "$t"
done
for san in asan tsan; do
	for t in build-$san/tests/test_*; do
		[ -x "$t" ] && runcase "$san/$(basename "$t")" "$t"
	done
done
for t in tests/run/t*.sh; do
	[ -f "$t" ] && runcase "run/$(basename "$t" .sh)" sh "$t"
done
# The ground-truth tier (make test-truth): programs that measure themselves,
# compared with what stats reads from their traces.
for t in tests/truth/g*.sh; do
	[ -f "$t" ] && runcase "truth/$(basename "$t" .sh)" sh "$t"
done
# The real-software tier (make test-real): Debian programs under the agent.
for t in tests/real/r*.sh; do
	[ -f "$t" ] && runcase "real/$(basename "$t" .sh)" bash "$t"
done

# The failures' last lines again, last: a CI report that shows only the end
# of the output still says what failed and why.
n=1
for f in $failed; do
	echo "--- $f (last lines)"
	tail -n 8 "$logdir/failed.$n.log" | sed 's/^/    | /'
	n=$((n + 1))
done
rm -rf "$logdir"
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
