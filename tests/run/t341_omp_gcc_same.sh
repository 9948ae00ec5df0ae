# A gcc-compiled OpenMP program moved to LLVM libomp by ovnirun behaves as
# untraced where the two runtimes would not agree:
# - OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY: libgomp, still loaded,
#   binds the initial thread to its first place in its constructor, and
#   libomp then took that one CPU for the machine (one thread where the
#   program has one per CPU).  The agent does not make that binding.
# - host teams (GOMP_teams_reg), an import libomp 14 does not define
#   (omp_fulfill_event@OMP_5.0.1, t340), an OMP_NUM_THREADS libgomp ignores
#   (libomp aborts on "abc"), OMP_DISPLAY_AFFINITY (libomp prints its own
#   lines on stdout), doacross loops (libomp faults in a team of one
#   thread), a KMP_ variable (read by libomp only), OMP_NESTED (libomp
#   prints a notice): ovnirun keeps libgomp and says why.
. "$(dirname "$0")/../lib.sh"
P="$PROG/omp_gcc_bind"
[ -x "$P" ] || skip "no $P"
ls /usr/lib/x86_64-linux-gnu/libomp.so.5 /usr/lib/llvm-*/lib/libomp.so.5 >/dev/null 2>&1 || skip "LLVM libomp not installed"
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "one CPU: a narrowed binding looks the same"

i=0
for e in OMP_PROC_BIND=true OMP_PROC_BIND=close OMP_PROC_BIND=spread OMP_PLACES=cores OMP_PLACES=threads \
	GOMP_CPU_AFFINITY=0-$((ncpu - 1)); do
	i=$((i + 1))
	want=$(env "$e" "$P" | head -n 1)
	assert_eq "$e untraced" "threads $ncpu procs $ncpu" "$want"
	env "$e" "$OVNIRUN" -o "$WORK/b$i" "$P" >"$WORK/b$i.out" 2>"$WORK/b$i.err" ||
		{ rc=$?; cat "$WORK/b$i.err"; fail "$e: exit status $rc"; }
	grep -q "running it on LLVM libomp" "$WORK/b$i.err" || { cat "$WORK/b$i.err"; fail "$e: no swap"; }
	assert_eq "$e traced" "$want" "$(head -n 1 "$WORK/b$i.out")"
	check_trace "$WORK/b$i"
	# The team is traced: every thread of it began an implicit task.
	assert_eq "$e implicit tasks" "$ncpu" "$(dump "$WORK/b$i" | awk '$2 == "PMu" { n++ } END { print n + 0 }')"
done

# Kept on libgomp, each with its reason; output as untraced.
# keep NAME REASON VAR=VALUE PROG
keep() {
	name=$1 why=$2 e=$3 p=$4
	want=$(env "$e" "$p" 2>/dev/null)
	env "$e" "$OVNIRUN" -o "$WORK/$name" "$p" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
		{ rc=$?; cat "$WORK/$name.err"; fail "$name: exit status $rc"; }
	grep -q "uses GCC's libgomp.*$why.*keeping libgomp" "$WORK/$name.err" || { cat "$WORK/$name.err"; fail "$name: no reason"; }
	assert_eq "$name output" "$want" "$(cat "$WORK/$name.out")"
	check_trace "$WORK/$name"
}
keep teams "host teams (GOMP_teams_reg)" OA_T341=1 "$PROG/omp_gcc_teams"
keep badnum 'OMP_NUM_THREADS="abc", which libgomp ignores' OMP_NUM_THREADS=abc "$P"
keep display "OMP_DISPLAY_AFFINITY=true" OMP_DISPLAY_AFFINITY=true "$P"
keep doacross "doacross loops (GOMP_doacross_wait)" OA_T341=1 "$PROG/omp_gcc_doacross"
keep kmp "KMP_AFFINITY set, which LLVM libomp reads and libgomp ignores" KMP_AFFINITY=compact "$P"
keep nested "OMP_NESTED set" OMP_NESTED=true "$P"
