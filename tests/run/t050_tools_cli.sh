# ovni-auto dump and check on a small hand-made trace (written by the unit
# test binary, so no agent is involved): the dump lines and their fields, -x,
# --no-sort, one stream, check's summary and exit status, then damaged
# copies (a torn tail, a cut stream, an unknown MCV).
. "$(dirname "$0")/../lib.sh"
GEN="$B/tests/test_check"
[ -x "$GEN" ] || skip "$GEN is not built (make build/tests/test_check)"
"$GEN" --write-valid "$WORK/tr" || fail "writing the trace"
T1=loom.node0/proc.1/thread.1
T2=loom.node0/proc.1/thread.2

# dump: every event, in clock order, with its fields
"$OA" dump "$WORK/tr" >"$WORK/d" 2>"$WORK/e"
assert_eq "dump status" 0 $?
[ -s "$WORK/e" ] && fail "dump wrote to stderr: $(cat "$WORK/e")"
assert_eq "dump lines" 21 "$(wc -l <"$WORK/d")"
for line in \
	"1000  OHx  $T1  cpu=0 tid=-1 tag=0" \
	"1100  OHC  $T1  cpu=0 tag=7" \
	"1150  OHx  $T2  cpu=1 tid=1 tag=7" \
	"1200  OM[  $T1  value=1 type=5" \
	"1310  OM=  $T1  value=3 type=6" \
	"1400  POc  $T1  type=1 label=\"mytask\"" \
	"1500  PPc  $T1  task=1 type=1" \
	"1700  PBb  $T1" \
	"2000  PPx  $T2  task=1" \
	"2100  PQx  $T2  type=2" \
	"3000  OHe  $T1"; do
	grep -qxF "$line" "$WORK/d" || fail "no dump line '$line' in: $(cat "$WORK/d")"
done
assert_eq "first line" "1000  OHx  $T1  cpu=0 tid=-1 tag=0" "$(head -n 1 "$WORK/d")"
assert_eq "last line" "3000  OHe  $T1" "$(tail -n 1 "$WORK/d")"
awk '$1 < prev { print "out of order: " $0; bad = 1 } { prev = $1 } END { exit bad }' "$WORK/d" || fail "dump not in clock order"
grep -q ' $' "$WORK/d" && fail "trailing spaces in dump lines"
assert_eq "OHx count" 2 "$(count OHx "$WORK/d")"

# -x appends the payload in hex; events without payload are unchanged
"$OA" dump -x "$WORK/tr" >"$WORK/dx" || fail "dump -x status"
grep -qxF "1500  PPc  $T1  task=1 type=1 hex=0100000001000000" "$WORK/dx" || fail "dump -x PPc: $(grep PPc "$WORK/dx")"
grep -qxF "1700  PBb  $T1" "$WORK/dx" || fail "dump -x PBb"

# --no-sort: stream after stream
"$OA" dump --no-sort "$WORK/tr" >"$WORK/dn" || fail "dump --no-sort status"
assert_eq "no-sort line 14" "1150  OHx  $T2  cpu=1 tid=1 tag=7" "$(sed -n 14p "$WORK/dn")"
assert_eq "no-sort same lines" "$(sort "$WORK/d")" "$(sort "$WORK/dn")"

# one stream directory: only its events, named "."
"$OA" dump "$WORK/tr/$T2" >"$WORK/d2" || fail "dump of one stream"
assert_eq "one stream lines" 8 "$(wc -l <"$WORK/d2")"
assert_eq "one stream first" "1150  OHx  .  cpu=1 tid=1 tag=7" "$(head -n 1 "$WORK/d2")"

# check: valid
"$OA" check "$WORK/tr" >"$WORK/c"
assert_eq "check status" 0 $?
assert_eq "check summary" "ok: 2 streams, 21 events" "$(tail -n 1 "$WORK/c")"
assert_eq "check -q output" "ok: 2 streams, 21 events" "$("$OA" check -q "$WORK/tr")"
check_trace "$WORK/tr"

# a torn tail: check names the stream and the offset; dump prints it all and fails
cp -r "$WORK/tr" "$WORK/torn"
size=$(wc -c <"$WORK/torn/$T1/stream.obs")
printf '\001\002\003\004\005' >>"$WORK/torn/$T1/stream.obs"
"$OA" check "$WORK/torn" >"$WORK/c" 2>&1
assert_eq "check of a torn stream" 1 $?
grep -qxF "$T1 offset $size: stream ends with incomplete event (5 bytes left)" "$WORK/c" || fail "torn report: $(cat "$WORK/c")"
grep -q "^1 problem in 1 stream" "$WORK/c" || fail "torn summary: $(cat "$WORK/c")"
"$OA" dump "$WORK/torn" >"$WORK/d" 2>"$WORK/e"
assert_eq "dump of a torn stream" 1 $?
assert_eq "torn dump lines" 21 "$(wc -l <"$WORK/d")"
grep -qF "$T1: offset $size: stream ends with incomplete event" "$WORK/e" || fail "torn dump error: $(cat "$WORK/e")"

# a stream cut inside its PQx event (offset 64, 16 bytes): what precedes is printed
cp -r "$WORK/tr" "$WORK/cut"
head -c 70 "$WORK/tr/$T2/stream.obs" >"$WORK/cut/$T2/stream.obs"
"$OA" dump "$WORK/cut" >"$WORK/d" 2>"$WORK/e"
assert_eq "dump of a cut stream" 1 $?
assert_eq "cut dump lines" 16 "$(wc -l <"$WORK/d")"
assert_eq "cut stream's last event" "2000  PPx  $T2  task=1" "$(grep "$T2" "$WORK/d" | tail -n 1)"
grep -qF "$T2: offset 64: stream ends with incomplete event (6 bytes left)" "$WORK/e" || fail "cut dump error: $(cat "$WORK/e")"
"$OA" check "$WORK/cut" >"$WORK/c" 2>&1
assert_eq "check of a cut stream" 1 $?
grep -qxF "$T2 offset 64 PQx: stream ends with incomplete event (6 bytes left)" "$WORK/c" || fail "cut report: $(cat "$WORK/c")"

# an unknown MCV (flags 1: 2 payload bytes, clock 5000): dump prints it, check rejects it
cp -r "$WORK/tr" "$WORK/unk"
off=$(wc -c <"$WORK/unk/$T1/stream.obs")
printf '\001Xyz\210\023\000\000\000\000\000\000\253\315' >>"$WORK/unk/$T1/stream.obs"
"$OA" dump "$WORK/unk" >"$WORK/d" || fail "dump of an unknown MCV failed"
assert_eq "unknown MCV line" "5000  Xyz  $T1  payload=abcd" "$(tail -n 1 "$WORK/d")"
"$OA" check -q "$WORK/unk" >"$WORK/c"
assert_eq "check of an unknown MCV" 1 $?
grep -qxF "$T1 offset $off Xyz: event Xyz of an unknown model" "$WORK/c" || fail "unknown MCV report: $(cat "$WORK/c")"

# usage errors and missing traces
"$OA" check "$WORK/nothing" >/dev/null 2>&1
assert_eq "check of a missing directory" 1 $?
"$OA" dump >/dev/null 2>&1
assert_eq "dump without a path" 2 $?
exit 0
