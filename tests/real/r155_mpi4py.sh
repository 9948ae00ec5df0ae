# Python with mpi4py (Debian's, on Open MPI): Python loads libmpi in a
# private namespace (an extension module), so the agent calls its PMPI_*
# entry points.  The output is the untraced one, every rank's calls are in
# the trace with its rank, and check accepts it.
. "$(dirname "$0")/lib_real.sh"
. "$OA_TOP/tests/mpi/lib_mpi.sh"
PY=/usr/bin/python3
[ -x $PY ] && $PY -c "import mpi4py" 2>/dev/null || skip "python3-mpi4py is not installed (scripts/deps.sh installs it)"
cat >"$WORK/m.py" <<'PY'
from mpi4py import MPI
c = MPI.COMM_WORLD
r = c.Get_rank()
c.Barrier()
t = c.allreduce(r + 1)
got = c.sendrecv(r, dest=(r + 1) % c.size, source=(r - 1) % c.size)
c.Barrier()
if r == 0:
    print("mpi4py ok", t, got)
PY
MPIRUN="mpirun.openmpi --allow-run-as-root --oversubscribe -np 2"
plain=$($MPIRUN $PY "$WORK/m.py" 2>&1) || { echo "$plain"; fail "untraced run"; }
assert_eq "untraced" "mpi4py ok 3 1" "$plain"
got=$("$OVNIRUN" -q -o "$WORK/t" $MPIRUN $PY "$WORK/m.py" 2>"$WORK/err") || { cat "$WORK/err"; fail "traced run"; }
assert_eq "traced output" "$plain" "$got"
check_trace "$WORK/t"
assert_eq "MPI_Barrier per rank" "0 2 1 2 " "$(per_rank "$WORK/t" MCb | tr '\n' ' ')"
assert_eq "MPI_Init_thread per rank" "0 1 1 1 " "$(per_rank "$WORK/t" MUt | tr '\n' ' ')"
assert_eq "MPI_Finalize ends per rank" "0 1 1 1 " "$(per_rank "$WORK/t" MUF | tr '\n' ' ')"
