# ovni-auto export: the JSON parses, slices nest on every track, flows pair
# (thread creation -> start, task creation -> execution), names carry the
# labels; the time window and the thread filter; the Perfetto protobuf
# decodes with the same slices; a real program's trace exports too.
. "$(dirname "$0")/../lib.sh"
sample_trace "$WORK/t" || fail "mktrace"
check_trace "$WORK/t"
"$OA" export -o "$WORK/t.json" "$WORK/t" || fail "export"
"$PROG/jsoncheck" "$WORK/t.json" >"$WORK/c" || fail "the JSON is not a valid timeline"
has() { grep -qx -- "$1" "$WORK/c" || { cat "$WORK/c"; fail "$2: no '$1'"; }; }
has "s 2" "flows (thread + task)"
has "f 2" "flow ends"
for n in Running Paused flush "task mytask" mytask "barrier: plain" "task: running" one three; do
	has "name $n" "slice names"
done
b=$(awk '$1 == "B" {print $2}' "$WORK/c")
assert_ge "slices" 11 "$b"
assert_ge "running-thread counter values" 4 "$(awk '$1 == "C" {print $2}' "$WORK/c")"
grep -q '"process_name".*"loom node0 / proc 1"' "$WORK/t.json" || fail "process not named by loom and pid"

# Window 1.2..2.05 us: the slices open at its start begin at its edge.
"$OA" export --from 0.0002 --to 0.00105 -o "$WORK/w.json" "$WORK/t" || fail "export window"
"$PROG/jsoncheck" "$WORK/w.json" >"$WORK/c" || fail "window JSON invalid"
has "name three" "window"
grep -q "name mytask" "$WORK/c" && fail "the window holds a label that starts after it"
wb=$(awk '$1 == "B" {print $2}' "$WORK/c")
[ "$wb" -lt "$b" ] || fail "the window did not drop slices ($wb of $b)"

"$OA" export --thread 2 -o "$WORK/t2.json" "$WORK/t" || fail "thread filter"
"$PROG/jsoncheck" "$WORK/t2.json" >"$WORK/c" || fail "filtered JSON invalid"
grep -q "name flush" "$WORK/c" && fail "thread 1's slices in a thread-2 export"
has "name task: running" "thread 2"

"$OA" export -f perfetto -o "$WORK/t.pb" "$WORK/t" || fail "perfetto export"
"$PROG/pbdecode" "$WORK/t.pb" >"$WORK/p" || fail "the protobuf does not decode"
grep -qx "begin $b" "$WORK/p" || { cat "$WORK/p"; fail "perfetto: $b slices expected"; }
grep -qx "end $b" "$WORK/p" || fail "perfetto: slice ends"
grep -qx "instant 4" "$WORK/p" || fail "perfetto: flow instants"
grep -qx "name task mytask" "$WORK/p" || fail "perfetto: names"

"$OVNIRUN" -q -o "$WORK/r" "$PROG/threads" join 8 >/dev/null || fail "run"
"$OA" export -o "$WORK/r.json" "$WORK/r" || fail "export of a real trace"
"$PROG/jsoncheck" "$WORK/r.json" >"$WORK/c" || fail "real trace JSON invalid"
has "s 8" "thread creation flows"
has "name Running" "thread states"
"$OA" export -o - "$WORK/r" | head -c 40 | grep -q '"traceEvents"' || fail "export to stdout"
"$OA" export "$WORK/r" 2>/dev/null && fail "export without -o"
"$OA" export --help | grep -q "usage: ovni-auto export" || fail "--help"

# Values that are not a window or a thread of the trace are refused, said
# (each wrote a timeline of nothing, status 0).
for opt in "--to abc" "--from abc" "--from -1" "--from 5 --to 1" "-t abc" "-t 1,x" "-t 999999"; do
	"$OA" export $opt -o "$WORK/bad.json" "$WORK/t" 2>"$WORK/err" && fail "export $opt accepted"
	grep -q "ovni-auto export: " "$WORK/err" || fail "export $opt: $(cat "$WORK/err")"
done
# A window after the trace's end: an empty timeline, said.
"$OA" export --from 1e9 -o "$WORK/late.json" "$WORK/t" 2>"$WORK/err" || fail "export --from 1e9"
grep -q "before --from" "$WORK/err" || fail "export --from 1e9: $(cat "$WORK/err")"
