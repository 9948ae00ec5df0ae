# Programs instrumented with libovni (issue 14): tests/prog/libovni/lo_api
# is linked to a stand-in libovni.so.1 that says when it is called.  Alone,
# it runs on that library.  Under the agent, none of its calls reach it:
# they land in the agent (hooks/libovni/libovni.c), and the trace holds the
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
ovni attrs lotest phase/stack lotest clash note kept pid 1 has 1/0
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
# Worker 0 pinned itself to CPU 1 (the agent wrote OAs 1), then the main
# thread said so with OAr: a remote move to where the thread is, which the
# emulator refuses, is left out (check would say "already on CPU").
if [ "$(nproc)" -gt 1 ]; then
	assert_eq "OAs 1 of the pinned worker" 1 "$(awk -v p="proc.$pid/" '$2 == "OAs" && $4 == "cpu=1" && index($3, p)' "$WORK/t.d" | wc -l)"
	assert_eq "the program's OAr to the same CPU" 0 "$(count OAr "$WORK/t.d")"
fi
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
assert_eq "its own ovni. attribute, in the ovni object" kept "$(jq_get 'd["ovni"]["lotest_note"]')"
assert_eq "ovni.loom as the program reads it" "loom attr $(ls "$WORK/t" | sed -n 's/^loom\.//p' | head -1)" "$(grep '^loom attr' "$WORK/t.err")"

# The version check: libovni aborts on a program built for another major
# (or a newer minor than it has), so under the agent the program ends the
# same way, with its trace finished.  Built for 1.15 and running on a
# libovni 1.15, it runs on (the agent serves the 1.14 API).
LO_MODE=version0 "$OVNIRUN" -q -o "$WORK/v0" "$P" >/dev/null 2>"$WORK/v0.err"
assert_eq "version 0.0.0: SIGABRT as libovni" 134 $?
grep -q "incompatible ovni major version: wants 0.0.0, got 1.14.0" "$WORK/v0.err" || fail "version 0.0.0: $(cat "$WORK/v0.err")"
check_trace "$WORK/v0"
LO_MODE=version15 "$OVNIRUN" -q -o "$WORK/v15" "$P" >/dev/null 2>"$WORK/v15.err"
assert_eq "version 1.15 on an older libovni: SIGABRT as libovni" 134 $?
grep -q "incompatible ovni minor version: wants 1.15.0" "$WORK/v15.err" || fail "version 1.15: $(cat "$WORK/v15.err")"
STUB_VERSION=1.15.0 LO_MODE=version15 "$OVNIRUN" -q -o "$WORK/v15b" "$P" >"$WORK/v15b.out" 2>"$WORK/v15b.err" ||
	fail "version 1.15 on libovni 1.15: exit status"
assert_eq "version 1.15 on libovni 1.15: runs" done "$(tail -n 1 "$WORK/v15b.out")"
grep -q "built for libovni 1.15.0 (its libovni is 1.15.0)" "$WORK/v15b.err" || fail "version 1.15: no message"
check_trace "$WORK/v15b"

# The program's clocks are written as given, even going back inside an
# unsorted region (ovnisort's job, as with libovni), and a newer version
# of the ovni model it requires wins over the agent's: check, like the
# emulator, says both.
LO_MODE=odd "$OVNIRUN" -q -o "$WORK/odd" "$P" >"$WORK/odd.out" 2>/dev/null || fail "odd: exit status"
want=$(sed -n 's/^unsorted //p' "$WORK/odd.out")
dump "$WORK/odd" >"$WORK/odd.d"
assert_eq "the unsorted event keeps its clock" 1 "$(awk -v c="$want" '$2 == "OB." && $1 == c' "$WORK/odd.d" | wc -l)"
"$OA" check "$WORK/odd" >"$WORK/odd.check" 2>&1 && fail "check accepted a trace with an unsorted region"
grep -q "OB.: clock goes backwards" "$WORK/odd.check" || fail "odd: $(cat "$WORK/odd.check")"
grep -q "unsupported ovni model version (want 1.9.0, have 1.1.0)" "$WORK/odd.check" || fail "odd: $(cat "$WORK/odd.check")"

# With OVNI_TMPDIR (libovni's staging directory; the agent stages there too)
# the trace is the same and nothing is left behind.
mkdir -p "$WORK/tmp"
OVNI_TMPDIR="$WORK/tmp" "$OVNIRUN" -q -o "$WORK/tt" "$P" >"$WORK/tt.out" 2>/dev/null || fail "tmpdir: exit status"
assert_eq "tmpdir: output" "$(cat "$WORK/t.out")" "$(cat "$WORK/tt.out")"
check_trace "$WORK/tt"
assert_eq "tmpdir: streams" 5 "$(streams "$WORK/tt")"
assert_eq "tmpdir: left behind" "" "$(find "$WORK/tmp" -type f)"
