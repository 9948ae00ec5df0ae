# MPI calls as the mpi model, under Open MPI and MPICH, C and Fortran, with
# threads: `ovnirun mpirun -np 4 ./app` gives one trace where every rank
# shows exactly the calls it made (enter and leave pairs of each function),
# ovni.rank/nranks come from MPI_COMM_WORLD, the output is that of an
# untraced run, and check accepts the trace.
. "$(dirname "$0")/../lib.sh"
. "$OA_TOP/tests/mpi/lib_mpi.sh"

# Calls per rank of tests/mpi/mpi_calls.c (4 ranks) beside the ones every rank
# makes exactly once: MCV count.
calls_per_rank="MS[ 10
MR[ 10
Ms[ 10
Mr[ 10
MWa 10
MRs 10
MRo 1
MCb 2
MDb 1
ME[ 1
MAr 2
MAg 1
MAa 1
MDg 1
MDs 1
MCs 1
MCe 1
MEb 1
Mar 1
Mcb 1
Mdb 1
MW[ 2
MUi 1
MUf 1"

for impl in openmpi mpich; do
	mpi_impl $impl
	mpi_build mpi_calls
	mpi_build mpi_threads -fopenmp
	mpi_build mpi_fortran
	mpi_build mpi_fortran -fno-underscoring mpi_fortran_nu
	T="$WORK/$impl/t"

	plain=$($MPIRUN -np 4 "$WORK/$impl/mpi_calls" 2>"$WORK/plain.err") || { cat "$WORK/plain.err"; fail "$impl: untraced run"; }
	traced=$("$OVNIRUN" -q -o "$T" $MPIRUN -np 4 "$WORK/$impl/mpi_calls" 2>"$WORK/traced.err") ||
		{ cat "$WORK/traced.err"; fail "$impl: traced run"; }
	assert_eq "$impl: last line" "mpi_calls ok 4" "$(echo "$traced" | tail -n 1)"
	assert_eq "$impl: output" "$(echo "$plain" | grep -v '^tests\|^barrier' | sort)" \
		"$(echo "$traced" | grep -v '^tests\|^barrier' | sort)"
	grep -q "ovni-auto:" "$WORK/traced.err" && { cat "$WORK/traced.err"; fail "$impl: the agent complained"; }
	check_trace "$T"
	for j in $(find "$T" -name stream.json); do
		grep -q '"nranks": 4' "$j" || fail "$impl: $j: nranks"
		grep -q '"mpi": "1.0.0"' "$j" || fail "$impl: $j does not require the mpi model"
	done
	echo "$calls_per_rank" | while read -r mcv n; do
		leave=$(echo "$mcv" | sed 's/\[$/]/; s/^\(..\)\(.\)$/\1\2/' | awk '{ v = substr($0, 3, 1); if (v == "]") print; else print substr($0, 1, 2) toupper(v) }')
		for ev in "$mcv" "$leave"; do
			got=$(per_rank "$T" "$ev" | tr '\n' ' ')
			assert_eq "$impl: $ev per rank" "0 $n 1 $n 2 $n 3 $n " "$got"
		done
	done || exit 1
	# MPI_Test: as many as each rank said it made.
	want=$(echo "$traced" | awk '$1 == "tests" { print $2, $3 }' | sort -n | tr '\n' ' ')
	assert_eq "$impl: MPI_Test calls per rank" "$want" "$(per_rank "$T" 'MT[' | tr '\n' ' ')"
	# stats: per rank, the calls of each function, and the time in MPI_Barrier
	# as the program measured it (within 2% or 50 us; a short wait may be
	# shorter by up to 1 ms, see below); ranks 1-3 wait for
	# rank 0, which sleeps 30 ms first: that shows in their time waiting (a
	# rank descheduled on a busy machine arrives late and waits less, so only
	# the longest wait is held to most of the 30 ms).
	"$OA" stats --json "$T" >"$WORK/stats.json" || fail "$impl: stats"
	echo "$traced" | awk '$1 == "barrier_ns" { print $2, $3 }' | sort -n >"$WORK/want"
	python3 - "$WORK/stats.json" "$WORK/want" <<'PY' || fail "$impl: stats per rank"
import json, sys
mpi = {r["rank"]: r for r in json.load(open(sys.argv[1]))["mpi"]}
assert sorted(mpi) == [0, 1, 2, 3], sorted(mpi)
longest = 0
for line in open(sys.argv[2]):
    rank, want = map(int, line.split())
    r = mpi[rank]
    f = r["functions"]
    assert f["MPI_Send"]["count"] == 10 and f["MPI_Waitall"]["count"] == 10, f
    got = f["MPI_Barrier"]["ns"]
    # The trace's window is inside the program's: never longer.  Shorter
    # by a descheduling between the program's clock and the call (rank 0,
    # last to arrive, waits ~50 us; once 48 us traced, 529 us measured on
    # a loaded machine): 1 ms for a short wait, 2% or 50 us for a long one.
    assert got <= want + max(50000, want * 0.02), (rank, got, want)
    assert want - got <= max(50000 if want >= 5000000 else 1000000, want * 0.02), (rank, got, want)
    assert r["wait_ns"] <= r["mpi_ns"] <= r["lifetime_ns"], r
    if rank > 0:
        assert r["wait_ns"] >= got, (rank, r)
        longest = max(longest, got)
    print("rank", rank, "barrier", got, "ns, program measured", want)
assert longest >= 20000000, longest
PY
	"$OA" export -o "$WORK/x.json" "$T" || fail "$impl: export"
	"$PROG/jsoncheck" "$WORK/x.json" >"$WORK/xc" || fail "$impl: export JSON"
	for f in MPI_Init MPI_Send MPI_Waitall MPI_Ibcast MPI_Finalize; do
		grep -qx "name $f" "$WORK/xc" || fail "$impl: export has no $f slice"
	done
	# No pthread waits or yields recorded inside MPI calls (its progress loops).
	"$OA" dump "$T" | awk '$2 ~ /^M/ { inside[$3] = ($2 ~ /^M.[a-z[]$/) } $2 == "OM[" && inside[$3] { bad++ } END { exit bad > 0 }' ||
		fail "$impl: waits recorded inside MPI calls"

	# MPI_THREAD_MULTIPLE: both threads of every rank exchange 8 messages.
	out=$("$OVNIRUN" -q -o "$WORK/$impl/th" $MPIRUN -np 2 "$WORK/$impl/mpi_threads" 2>"$WORK/th.err") ||
		{ cat "$WORK/th.err"; fail "$impl: threads run"; }
	assert_eq "$impl: threads output" "threads ok 2" "$out"
	check_trace "$WORK/$impl/th"
	got=$("$OA" dump "$WORK/$impl/th" | awk '$2 == "MRs" { n[$3]++ } END { for (t in n) print n[t] }' | sort | tr '\n' ' ')
	assert_eq "$impl: MPI_Sendrecv per thread (2 threads x 2 ranks)" "8 8 8 8 " "$got"

	# Fortran bindings (mpi_send_, and mpi_send with -fno-underscoring): 5
	# ring steps, one allreduce, one barrier per rank.
	for f in mpi_fortran mpi_fortran_nu; do
		out=$("$OVNIRUN" -q -o "$WORK/$impl/$f.t" $MPIRUN -np 3 "$WORK/$impl/$f" 2>"$WORK/f.err") ||
			{ cat "$WORK/f.err"; fail "$impl: $f run"; }
		assert_eq "$impl: $f output" "fortran ok 3" "$out"
		check_trace "$WORK/$impl/$f.t"
		for ev in "MS[ 5" "MR] 5" "MAr 1" "MCB 1" "MUi 1" "MUF 1"; do
			set -- $ev
			assert_eq "$impl: $f $1 per rank" "0 $2 1 $2 2 $2 " "$(per_rank "$WORK/$impl/$f.t" "$1" | tr '\n' ' ')"
		done
		grep -q '"rank": 2' $(find "$WORK/$impl/$f.t" -name stream.json) || fail "$impl: $f ranks"
	done

	# The other way round: the launcher starts ovnirun in every rank.
	out=$(cd "$WORK" && $MPIRUN -np 2 "$OVNIRUN" -q -o "$WORK/$impl/inner" "$WORK/$impl/mpi_calls" 2>"$WORK/in.err") ||
		{ cat "$WORK/in.err"; fail "$impl: mpirun ovnirun"; }
	assert_eq "$impl: mpirun ovnirun output" "mpi_calls ok 2" "$(echo "$out" | tail -n 1)"
	check_trace "$WORK/$impl/inner"
	assert_eq "$impl: mpirun ovnirun, MPI_Send per rank" "0 10 1 10 " "$(per_rank "$WORK/$impl/inner" 'MS[' | tr '\n' ' ')"
done
