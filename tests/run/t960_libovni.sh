# Programs instrumented with libovni (issue 14): tests/prog/libovni/lo_api
# is linked to a stand-in libovni.so.1 that says when it is called.  Alone,
# it runs on that library.  Under the agent, none of its calls reach it:
# they land in the agent (hooks/libovni.c), and the trace holds the
# program's events in the agent's streams, one per thread: its CPU (OHx ->
# OAs), its pauses (OHp/OHr, with the agent's own pause of a sleep left
# out), its marks (type 85, which the agent uses, written as 79), its
# required model and attributes in stream.json, its app id and rank, and
# the events of its forked child in the child's streams.
. "$(dirname "$0")/../lib.sh"
P="$PROG/libovni/lo_api"
[ -x "$P" ] || fail "no $P (make test builds it)"

"$P" >"$WORK/alone.out" 2>"$WORK/alone.err" || fail "alone: exit status"
grep -q "^stub libovni: ovni_version_check_str called" "$WORK/alone.err" || fail "alone: did not run on its libovni"
assert_eq "alone: the stub answers" "version (null)" "$(sed -n 1p "$WORK/alone.out")"

"$OVNIRUN" -o "$WORK/t" "$P" >"$WORK/t.out" 2>"$WORK/t.err" || { cat "$WORK/t.err"; fail "traced: exit status"; }
grep -q "stub libovni" "$WORK/t.err" && fail "traced: a call reached the program's libovni"
grep -q "^ovnirun: .* uses libovni: its libovni calls are served by the agent" "$WORK/t.err" ||
	fail "ovnirun did not say it merges: $(cat "$WORK/t.err")"
grep -q 'program.s "lotest clash" is written as type 79' "$WORK/t.err" || fail "no message on the moved mark type"
assert_eq "API answers" "version 1.14.0
ready before init 0
ready after init 1
attr ratio 2.5 flag 1 name abc has 1/0 obj {\"a\":[1,2]}
event clock 123 size 14 payload 2
ready after free 0
done" "$(cat "$WORK/t.out")"
check_trace "$WORK/t"
dump "$WORK/t" >"$WORK/t.d"
# The program's process: the one with 4 threads (the child has 1).
pid=$(for d in "$WORK/t"/loom.*/proc.*; do [ "$(ls -d "$d"/thread.* | wc -l)" = 4 ] && basename "$d"; done | sed 's/proc\.//')
main="proc.$pid/thread.$pid"
assert_eq "processes" 2 "$(ls -d "$WORK/t"/loom.*/proc.* | wc -l)"
assert_eq "threads of the program" 4 "$(ls -d "$WORK/t"/loom.*/proc."$pid"/thread.* | wc -l)"
# OHx on CPU 0 -> OAs 0 on the main thread; its final OHe -> OAs -1.
assert_eq "main: OAs" "cpu=0 cpu=-1" "$(awk -v s="$main" '$2 == "OAs" && index($3, s) { printf "%s%s", n++ ? " " : "", $4 }' "$WORK/t.d")"
assert_eq "one OHx and one OHe per thread" "5 5" "$(count OHx "$WORK/t.d") $(count OHe "$WORK/t.d")"
# Each worker: its own OHp/OHr around the sleep, no pause of the agent's
# (the main thread has the agent's, around its joins and waitpid).
assert_eq "workers' pauses" "3 3" "$(awk -v s="$main" -v p="proc.$pid/" '($2 == "OHp" || $2 == "OHr") && index($3, p) && !index($3, s) { n[$2]++ } END { print n["OHp"] + 0, n["OHr"] + 0 }' "$WORK/t.d")"
assert_eq "marks of type 5" 8 "$(grep -c 'type=5$' "$WORK/t.d")"
assert_eq "marks of type 85, moved" "1 10 11 12 99" "$(awk '$2 == "OM=" && $5 == "type=79" { sub("value=", "", $4); print $4 }' "$WORK/t.d" | sort -n | tr '\n' ' ' | sed 's/ $//')"
child=$(grep 'value=99 type=79' "$WORK/t.d" | awk '{ print $3 }')
case "$child" in */proc."$pid"/*) fail "the child's mark is in the parent's streams: $child" ;; esac
json="$WORK/t/loom.$(ls "$WORK/t" | sed -n 's/^loom\.//p' | head -1)/$main/stream.json"
jq_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$json" "$1"; }
assert_eq "app id" 7 "$(jq_get 'd["ovni"]["app_id"]')"
assert_eq "rank" "0 1" "$(jq_get 'str(d["ovni"]["rank"]) + " " + str(d["ovni"]["nranks"])')"
assert_eq "required model" 1.0.0 "$(jq_get 'd["ovni"]["require"]["lotest"]')"
assert_eq "attributes" "{'flag': True, 'name': 'abc', 'obj': {'a': [1, 2]}, 'ratio': 2.5}" "$(jq_get 'd["lotest"]')"
assert_eq "mark titles" "lotest phase/stack lotest clash/single" \
	"$(jq_get 'd["ovni"]["mark"]["5"]["title"] + "/" + d["ovni"]["mark"]["5"]["chan_type"] + " " + d["ovni"]["mark"]["79"]["title"] + "/" + d["ovni"]["mark"]["79"]["chan_type"]')"
grep -q '"loom": "mine"' "$json" && fail "the program changed the agent's ovni.loom"

# With OVNI_TMPDIR (libovni's staging directory; the agent stages there too)
# the trace is the same and nothing is left behind.
mkdir -p "$WORK/tmp"
OVNI_TMPDIR="$WORK/tmp" "$OVNIRUN" -q -o "$WORK/tt" "$P" >"$WORK/tt.out" 2>/dev/null || fail "tmpdir: exit status"
assert_eq "tmpdir: output" "$(cat "$WORK/t.out")" "$(cat "$WORK/tt.out")"
check_trace "$WORK/tt"
assert_eq "tmpdir: streams" 5 "$(streams "$WORK/tt")"
assert_eq "tmpdir: left behind" "" "$(find "$WORK/tmp" -type f)"
