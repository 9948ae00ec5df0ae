# ovni-auto linktest: the three emulated LinkTest files (2.1.16, 2.1.17,
# all-to-all with 3 retests) decode to exactly the LinkTest section of their
# .expected.txt; the summary, CSV and JSON follow from the decoded matrix;
# a container that is not LinkTest, or a cut payload, is refused clearly.
. "$(dirname "$0")/../lib.sh"
D="$OA_TOP/tests/data/linktest"
for f in emulated_lktst-2.1.16_np4.sion emulated_lktst-2.1.17_np4.sion emulated_lktst-2.1.16_np6_a2a.sion; do
	"$OA" linktest --raw "$D/$f" >"$WORK/got" || fail "$f: decode"
	sed -n '/^# LinkTest-layout/,$p' "$D/$f.expected.txt" | tail -n +2 >"$WORK/want"
	diff "$WORK/want" "$WORK/got" || fail "$f: decoded fields differ from the expected values"
done
f="$D/emulated_lktst-2.1.16_np6_a2a.sion"
"$OA" linktest -n 3 "$f" >"$WORK/sum" || fail "summary"
grep -q "^LinkTest 2.1.16 (mpi): 6 ranks on 3 hosts, 10 messages of 4096 bytes, 2 warm-up, 3 serial retests$" "$WORK/sum" ||
	fail "summary header: $(head -1 "$WORK/sum")"
assert_eq "slowest links listed" 3 "$(grep -c ' -> .*x the median$' "$WORK/sum")"
# The slowest link is rank 0 against partner 5 (7.6997 us, its first step).
grep -A1 '^slowest links' "$WORK/sum" | grep -q '0 (emu-node-00) ->    5 (emu-node-02): 7.700 us' || fail "slowest link"
assert_eq "host pairs (3 hosts)" 9 "$(grep -c '^  emu-node-0. -> emu-node-0.:' "$WORK/sum")"
grep -q "^  0 -> 5: 7.700 us, retested 3.062 us$" "$WORK/sum" || fail "retests"
"$OA" linktest --csv "$f" >"$WORK/m.csv" || fail "csv"
assert_eq "CSV rows" 7 "$(wc -l <"$WORK/m.csv")"
assert_eq "CSV columns" 7 "$(head -1 "$WORK/m.csv" | awk -F, '{print NF}')"
# Row 5, column 0 holds rank 0's time with partner 5.
assert_eq "matrix entry (col 0, row 5)" "7.6997000000000035e-06" "$(awk -F, 'NR == 7 { print $2 }' "$WORK/m.csv")"
"$OA" linktest --json "$f" >"$WORK/j" || fail "json"
grep -q '"ranks": 6' "$WORK/j" && grep -q '"hosts": 3' "$WORK/j" && grep -q '"matrix_s"' "$WORK/j" || fail "json keys"
"$OA" linktest "$D/sionlib_np4_collective.sion" 2>"$WORK/err"; assert_eq "not LinkTest status" 1 $?
grep -q 'not a LinkTest file' "$WORK/err" || fail "not LinkTest: $(cat "$WORK/err")"
# A payload cut short (the footer still says the old size): unknown layout.
cp "$D/emulated_lktst-2.1.16_np4.sion" "$WORK/cut.sion"
printf 'XXXXXXXXX' | dd of="$WORK/cut.sion" bs=1 seek=$((4096 + 371)) conv=notrunc 2>/dev/null
"$OA" linktest "$WORK/cut.sion" 2>"$WORK/err"; assert_eq "broken END_BLOCK status" 1 $?
grep -q 'unknown layout' "$WORK/err" || fail "broken END_BLOCK: $(cat "$WORK/err")"
"$OA" linktest --help | grep -q "usage: ovni-auto linktest" || fail "--help"
