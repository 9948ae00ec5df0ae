# OpenMP worksharing and synchronisation (clang, libomp) with 2, 3 and 4
# threads: loops by schedule, sections, single, master/masked, critical and
# named critical, locks and nest locks, ordered, nested parallel regions.
# Every trace passes ovni-auto check (and ovniemu -l when OVNIEMU is set),
# every task segment leaves its thread's stacks as it found them, the
# worksharing labels are the functions holding the constructs.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/t3_omp.inc"
P="$PROG/clang_omp_ws"
[ -x "$P" ] || skip "no $P (clang missing?)"
for n in 2 3 4; do
	omp_run ws$n OMP_NUM_THREADS=$n -- "$P" $n
	d="$WORK/ws$n.d"
	assert_eq "output ($n threads)" "loops=1498606 ordered=1636 total=$((4030 + 6 * n))" "$(cat "$WORK/ws$n.out")"
	# The single written in main's parallel region: clang's outlined body,
	# named after the function that holds the region.
	for l in ws_static_loop ws_dynamic_loop ws_guided_loop ws_sections ws_single ws_ordered main/.omp_outlined.; do
		assert_eq "type $l declared once ($n threads)" 1 "$(grep -c "POc .*label=\"$l\"" "$d")"
	done
	# One state per construct and thread (no tasks here: no reopening):
	# the static loop; dynamic, guided and ordered (libomp dispatches
	# ordered loops) as dynamic chunks; sections; single.
	assert_eq "static loops" "$n" "$(count PWs "$d")"
	assert_eq "dynamic/guided/ordered loops" $((3 * n)) "$(count PWc "$d")"
	assert_eq "sections" "$n" "$(count PWe "$d")"
	assert_ge "single" $((2 * n)) "$(count PWi "$d")"
	assert_eq "PQx = PQe" "$(count PQx "$d")" "$(count PQe "$d")"
	# critical x2, lock, nest lock, test lock, ordered x8 per team: acquiring and held
	assert_ge "critical acquiring" $((5 * n)) "$(count PIa "$d")"
	assert_eq "critical acquired = released" "$(count 'PI[' "$d")" "$(count 'PI]' "$d")"
	marks() { awk -v v="value=$1" '$2 == "OM[" && $4 == v && $5 == "type=87"' "$d" | wc -l; }
	assert_ge "master/masked marks" 2 "$(marks 1)"
	assert_ge "lock marks" $((n + 1)) "$(marks 3)"
	assert_ge "nest lock marks" "$n" "$(marks 4)"
	assert_ge "ordered marks" 8 "$(marks 5)"
	# Barriers: plain for worksharing, join on the primary thread, fork on workers.
	assert_ge "plain barriers" $((8 * n)) "$(count PBb "$d")"
	assert_ge "join barriers" 3 "$(count PBj "$d")"
	assert_ge "fork barriers" $((n - 1 + 2)) "$(count PBf "$d")"
	assert_ge "fork calls" 3 "$(count PCf "$d")"
	# Nested parallel: 2 outer threads each lead an inner team of 2.
	assert_ge "streams ($n threads)" 3 "$(streams "$WORK/ws$n")"
	assert_eq "attached per thread" "$(streams "$WORK/ws$n")" "$(count 'PA[' "$d")"
	assert_eq "replay errors" 0 "$(rval errors "$WORK/ws$n.r")"
done
# The critical and tree reduction methods report reduction regions.
omp_run red OMP_NUM_THREADS=2 KMP_FORCE_REDUCTION=critical -- "$P" 2
assert_ge "reduction marks" 2 "$(awk '$2 == "OM[" && $4 == "value=2" && $5 == "type=87"' "$WORK/red.d" | wc -l)"
