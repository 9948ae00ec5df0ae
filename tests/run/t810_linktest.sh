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

# Heatmap: PNG (own encoder) with the documented geometry, SVG with one cell
# per pair. Geometry: cell = min(24, 480/N); width = 160 + N*cell,
# height = 230 + N*cell.
for n in 4:emulated_lktst-2.1.16_np4.sion 6:emulated_lktst-2.1.16_np6_a2a.sion; do
	N=${n%%:*}; file=${n#*:}
	"$OA" linktest --heatmap "$WORK/h.png" "$D/$file" >/dev/null || fail "heatmap png"
	assert_eq "PNG signature" "89504e470d0a1a0a" "$(head -c 8 "$WORK/h.png" | od -An -tx1 | tr -d ' \n')"
	assert_eq "PNG IHDR" "$(printf '%08x%08x' $((160 + N * 24)) $((230 + N * 24)))" \
		"$(dd if="$WORK/h.png" bs=1 skip=16 count=8 2>/dev/null | od -An -tx1 | tr -d ' \n')"
	tail -c 12 "$WORK/h.png" | od -An -c | grep -q 'I   E   N   D' || fail "PNG ends with IEND"
	"$OA" linktest --heatmap "$WORK/h.svg" "$D/$file" >/dev/null || fail "heatmap svg"
	assert_eq "SVG matrix cells" $((N * N)) "$(grep -c 'class="cell"' "$WORK/h.svg")"
	assert_eq "SVG histogram bars" 20 "$(grep -c 'class="bar"' "$WORK/h.svg")"
	grep -q "^<svg .*width=\"$((160 + N * 24))\" height=\"$((230 + N * 24))\"" "$WORK/h.svg" || fail "SVG size"
	tail -n 1 "$WORK/h.svg" | grep -q '</svg>' || fail "SVG not closed"
done
