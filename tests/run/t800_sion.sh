# ovni-auto sion: every sample container (real SIONlib 1.7.6 output and the
# emulated LinkTest files) decodes to exactly the values of its
# .expected.txt: header, chunk offsets, footer, task sizes and contents; the
# same with the metadata byte-swapped; multi-file sets through the mapping;
# damaged files give errors with the offset, never a crash.
. "$(dirname "$0")/../lib.sh"
D="$OA_TOP/tests/data/linktest"
norm() { sed 's/  */ /g; s/ *$//'; }
n=0
for exp in "$D"/*.expected.txt; do
	f=${exp%.expected.txt}
	name=$(basename "$f")
	"$OA" sion "$f" >"$WORK/got" || fail "$name: sion failed"
	grep '^sion\.' "$exp" | norm >"$WORK/want.meta"
	grep '^sion\.' "$WORK/got" | norm >"$WORK/got.meta"
	diff "$WORK/want.meta" "$WORK/got.meta" || fail "$name: metadata differs"
	# Task sizes ("task T SIZE ..."; contents are compared below).
	grep '^task ' "$exp" >"$WORK/tasks"
	while read -r _ t size rest; do
		grep -qx "task $t $size" "$WORK/got" || fail "$name: task $t size $size"
	done <"$WORK/tasks"
	n=$((n + 1))
	# Byte-swapped metadata decodes to the same values.
	"$PROG/sionswap" "$f" "$WORK/swapped.sion" || fail "$name: sionswap"
	"$OA" sion "$WORK/swapped.sion" >"$WORK/got.sw" || fail "$name: swapped copy rejected"
	grep '^sion\.' "$WORK/got.sw" | norm | grep -v '^sion\.endian_raw\|^sion\.trailing' >"$WORK/sw.meta"
	grep -v '^sion\.endian_raw\|^sion\.trailing' "$WORK/want.meta" >"$WORK/want.nosw"
	diff "$WORK/want.nosw" "$WORK/sw.meta" || fail "$name: byte-swapped metadata decodes differently"
	grep -q '^sion.endian_raw  *01010101$' "$WORK/got.sw" || fail "$name: endianness of the swapped copy"
done
assert_ge "sample containers checked" 8 "$n"

checked=0
# Contents: first and last bytes of every task of the real SIONlib samples,
# through --extract (global task numbers; multi-file sets via the mapping).
for f in sionlib_np4_independent_2blocks.sion sionlib_np4_collective.sion sionlib_serial_globalranks.sion; do
	grep '^task ' "$D/$f.expected.txt" >"$WORK/tasks"
	while read -r _ t size rest; do
		first=$(echo "$rest" | sed "s/^b'\(.*\)' \.\.\. b'.*'$/\1/")
		last=$(echo "$rest" | sed "s/^b'.*' \.\.\. b'\(.*\)'$/\1/")
		"$OA" sion --extract "$t" -o "$WORK/task" "$D/$f" || fail "$f: extract $t"
		assert_eq "$f task $t bytes" "$size" "$(wc -c <"$WORK/task")"
		assert_eq "$f task $t first bytes" "$first" "$(head -c 48 "$WORK/task")"
		assert_eq "$f task $t last bytes" "$last" "$(tail -c 24 "$WORK/task")"
		"$PROG/sionswap" "$D/$f" "$WORK/sw.sion"
		"$OA" sion --extract "$t" "$WORK/sw.sion" | cmp -s - "$WORK/task" || fail "$f task $t: swapped copy"
		checked=$((checked + 1))
	done <"$WORK/tasks"
done
assert_eq "task contents checked" 12 "$checked"
cp "$D"/sionlib_np4_2files.sion* "$WORK/"
for t in 0 1 2 3; do
	"$OA" sion --extract $t "$WORK/sionlib_np4_2files.sion" >"$WORK/task" || fail "2files: task $t"
	file=$([ $t -lt 2 ] && echo "sionlib_np4_2files.sion" || echo "sionlib_np4_2files.sion.000001")
	assert_eq "2files task $t" "task $t in physical file $file" "$(head -c $((28 + ${#file})) "$WORK/task")"
done

# Damage: errors with offsets, exit 1, no crash.
printf 'sion' >"$WORK/cut.sion"
"$OA" sion "$WORK/cut.sion" 2>"$WORK/err"; assert_eq "cut header status" 1 $?
grep -q "offset" "$WORK/err" || fail "cut header: $(cat "$WORK/err")"
printf 'nope' >"$WORK/foreign"
"$OA" sion "$WORK/foreign" 2>"$WORK/err"; assert_eq "foreign file status" 1 $?
grep -q 'not a SIONlib file' "$WORK/err" || fail "foreign: $(cat "$WORK/err")"
cp "$D/sionlib_np4_collective.sion" "$WORK/big.sion"
printf '\377\377\377\177' | dd of="$WORK/big.sion" bs=1 seek=24 conv=notrunc 2>/dev/null
"$OA" sion "$WORK/big.sion" 2>"$WORK/err"; assert_eq "huge ntasks status" 1 $?
grep -q 'offset 0x18: ntasks' "$WORK/err" || fail "huge ntasks: $(cat "$WORK/err")"
for cut in 100 1100 4000 16400; do
	head -c $cut "$D/sionlib_np4_collective.sion" >"$WORK/c.sion"
	"$OA" sion "$WORK/c.sion" >/dev/null 2>&1; rc=$?
	[ $rc -eq 1 ] || fail "a file cut at $cut: status $rc"
done
for i in 1 2 3 4 5 6; do
	{ printf 'sion'; head -c $((i * 700)) /dev/urandom; } >"$WORK/r.sion"
	"$OA" sion "$WORK/r.sion" >/dev/null 2>&1; [ $? -lt 128 ] || fail "random file crashed"
done
"$OA" sion --help | grep -q "usage: ovni-auto sion" || fail "--help"
