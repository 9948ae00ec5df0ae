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
assert_le() { [ "$3" -le "$2" ] 2>/dev/null || fail "$1: expected <= $2, got '$3'"; }

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
# procs_by_start DIR: DIR's process ids, the one whose main stream starts
# first first.  Pid order is not process order: pids wrap (at 32768 here).
procs_by_start() {
	for d in "$1"/loom.*/proc.*; do
		p=${d##*proc.}
		echo "$("$OA" dump "$d/thread.$p" | awk 'NR == 1 { print $1 }') $p"
	done | sort -n | awk '{ print $2 }'
}
# fork_children DIR PID: the children that process PID forked, in the order
# of its "fork: child N" marks.
fork_children() {
	for v in $("$OA" dump "$1"/loom.*/proc.$2/thread.$2 | awk '$2 == "OM=" { v = $4; sub("value=", "", v); print v }'); do
		grep -ho "\"$v\": \"fork: child [0-9]*\"" "$1"/loom.*/proc.$2/thread.$2/stream.json
	done | sed 's/.*child //; s/"$//'
}
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

# sample_trace DIR: a small hand-made trace (2 threads of process 1): thread
# creation (tag 7), a stack and a single mark, an OpenMP type, task and
# barrier, a flush, a pause; thread 2 runs the task inside a task state and
# a worksharing label. Used by the stats and export cases.
sample_trace() {
	"$PROG/mktrace" "$1" <<EOS
stream loom.node0/proc.1/thread.1 $(trace_meta 1 ',"labels":{"3":"three"}')
ev OHx 1000 i32:0 i32:-1 u64:0
ev OHC 1100 i32:0 u64:7
ev OM[ 1200 i64:1 i32:5
ev OM] 1300 i64:1 i32:5
ev OM= 1310 i64:3 i32:6
ev jumbo POc 1400 u32:1 str:mytask
ev PPc 1500 u32:1 u32:1
ev PBb 1700
ev PBB 1800
ev OF[ 1850
ev OF] 1860
ev OHp 2000
ev OHr 2600
ev OHe 3000
stream loom.node0/proc.1/thread.2 $(trace_meta 2 ',"labels":{"3":"three"}')
ev OHx 1150 i32:1 i32:1 u64:7
ev PT[ 1450
ev PPx 2000 u32:1
ev PQx 2100 u32:1
ev PQe 2200 u32:1
ev PPe 2300 u32:1
ev PT] 2400
ev OHe 2500
EOS
}
