# MPI rank and size from the launcher's variables reach ovni.rank/nranks of
# every stream; the loom and app id options; `make install` installs a
# working ovnirun + agent + ovni-auto.
. "$(dirname "$0")/../lib.sh"
for launcher in "OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=4" "PMI_RANK=2 PMI_SIZE=4" "SLURM_PROCID=2 SLURM_NTASKS=4"; do
	env $launcher "$OVNIRUN" -q -o "$WORK/r" -l mynode.cluster -a 3 "$PROG/threads" join 1 >/dev/null || fail "$launcher"
	check_trace "$WORK/r"
	for j in $(find "$WORK/r" -name stream.json); do
		grep -q '"rank": 2' "$j" && grep -q '"nranks": 4' "$j" || fail "$launcher: no rank in $j"
		grep -q '"app_id": 3' "$j" || fail "app id not set in $j"
		grep -q '"loom": "mynode.cluster"' "$j" || fail "loom not set in $j"
	done
	[ -d "$WORK/r/loom.mynode.cluster" ] || fail "loom directory"
	rm -rf "$WORK/r"
done
make -s -C "$OA_TOP" install PREFIX="$WORK/inst" >/dev/null || fail "make install"
for f in bin/ovnirun bin/ovni-auto lib/libovni-auto.so; do
	[ -f "$WORK/inst/$f" ] || fail "$f not installed"
done
out=$("$WORK/inst/bin/ovnirun" -q -o "$WORK/i" "$PROG/threads" join 2) || fail "installed ovnirun"
assert_eq "installed run" "done join 2" "$out"
"$WORK/inst/bin/ovni-auto" check -q "$WORK/i" >/dev/null || fail "installed check"
