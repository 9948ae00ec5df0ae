# lib.sh: helpers for the tests/run/t*.sh cases.  Source it first.
# Each case runs programs from build/prog under the agent, then asserts on the
# trace with `ovni-auto check` and `ovni-auto dump`.
set -u
: "${OA_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
B="$OA_TOP/build"
PROG="$B/prog"
OVNIRUN="$B/bin/ovnirun"
OA="$B/bin/ovni-auto"
LIBAGENT="$B/lib/libovni-auto.so"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/oa-case.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skip: $*"; exit 77; }
info() { echo "-- $*"; }

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; }
# assert_ge WHAT MIN ACTUAL
assert_ge() { [ "$3" -ge "$2" ] 2>/dev/null || fail "$1: expected >= $2, got '$3'"; }

# check_trace DIR: our own validator must accept it; upstream ovniemu -l too
# when OVNIEMU names it (it is never required: CI has no upstream build).
check_trace() {
	"$OA" check "$1" >"$WORK/check.out" 2>&1 || { cat "$WORK/check.out"; fail "ovni-auto check rejected $1"; }
	if [ -n "${OVNIEMU:-}" ] && [ -x "$OVNIEMU" ]; then
		rm -rf "$WORK/emu" && cp -r "$1" "$WORK/emu"
		"$OVNIEMU" -l "$WORK/emu" >"$WORK/emu.out" 2>&1 || { tail -n 20 "$WORK/emu.out"; fail "ovniemu -l rejected $1"; }
	fi
}

# dump DIR > file: one event per line: clock MCV stream description
dump() { "$OA" dump "$1"; }
# count MCV FILE: how many events of that MCV a dump file holds
count() { awk -v m="$1" '$2 == m { n++ } END { print n + 0 }' "$2"; }
# streams DIR: how many thread streams
streams() { find "$1" -name stream.json | wc -l; }

# trace_meta TID [EXTRA-LABELS]: the stream.json of a hand-made thread stream
# (process 1 of loom node0, 2 CPUs, ovni + openmp, marks 5 "Phase" stack and
# 6 "Single" single) for tests/prog/mktrace specs.
trace_meta() {
	printf '{"version":3,"ovni":{"part":"thread","tid":%s,"pid":1,"loom":"node0","app_id":1,' "$1"
	printf '"loom_cpus":[{"index":0,"phyid":0},{"index":1,"phyid":1}],"require":{"ovni":"1.1.0","openmp":"1.2.1"},'
	printf '"lib":{"version":"t","commit":"t"},"finished":1,'
	printf '"mark":{"5":{"title":"Phase","chan_type":"stack","labels":{"1":"one"}},"6":{"title":"Single","chan_type":"single"%s}}}}' "${2:-}"
}
