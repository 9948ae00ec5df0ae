# Damaged, truncated and random inputs give error messages and exit 1 (or
# 0), never a crash: every tool on (1) the inputs the fuzzer once crashed on
# (tests/data/fuzz-regress, replayed through the harness's file layout),
# (2) a real trace cut at many offsets, (3) random bytes, (4) bad metadata.
. "$(dirname "$0")/../lib.sh"
tools() { # DIR: every reading tool; any exit status >= 128 is a crash
	for cmd in "check" "dump" "stats" "stats --json" "repair -n" "export -o $WORK/x.json" "export -f perfetto -o $WORK/x.pb"; do
		# shellcheck disable=SC2086
		"$OA" $cmd "$1" >/dev/null 2>&1
		rc=$?
		[ $rc -lt 128 ] || fail "ovni-auto $cmd crashed (status $rc) on $2"
	done
}
layout() { # FILE DIR: the fuzz harness's layout for one input
	d="$2/loom.n/proc.1/thread.1"
	mkdir -p "$d"
	first=$(head -c 1 "$1" | od -An -tu1 | tr -d ' ')
	if [ $((first % 2)) -eq 1 ]; then
		tail -c +2 "$1" >"$d/stream.json"
		cp "$WORK/good/stream.obs" "$d/stream.obs"
	else
		cp "$WORK/good/stream.json" "$d/stream.json"
		tail -c +2 "$1" >"$d/stream.obs"
	fi
}
"$OVNIRUN" -q -o "$WORK/tr" "$PROG/threads" join 2 >/dev/null || fail "run"
main=$(ls -d "$WORK/tr"/loom.*/proc.*/thread.* | head -1)
mkdir -p "$WORK/good" && cp "$main"/stream.* "$WORK/good/"
n=0
for f in "$OA_TOP"/tests/data/fuzz-regress/*; do
	[ -f "$f" ] || continue
	rm -rf "$WORK/f"; layout "$f" "$WORK/f"; tools "$WORK/f" "$(basename "$f")"; n=$((n + 1))
done
assert_ge "fuzz regression inputs replayed" 2 $n
size=$(wc -c <"$main/stream.obs")
for cut in 0 1 4 7 8 9 12 13 20 27 28 $((size / 2)) $((size - 1)); do
	rm -rf "$WORK/c" && cp -r "$WORK/tr" "$WORK/c"
	target=$(ls -d "$WORK/c"/loom.*/proc.*/thread.* | head -1)/stream.obs
	head -c "$cut" "$main/stream.obs" >"$target"
	tools "$WORK/c" "a stream cut at $cut bytes"
	if [ "$cut" -gt 8 ] && [ "$cut" -lt "$size" ]; then
		"$OA" check "$WORK/c" >"$WORK/out" 2>&1 && fail "check accepted a stream cut at $cut"
	fi
done
for i in 1 2 3 4 5 6 7 8; do
	rm -rf "$WORK/r" && cp -r "$WORK/tr" "$WORK/r"
	target=$(ls -d "$WORK/r"/loom.*/proc.*/thread.* | tail -1)
	{ head -c 8 "$main/stream.obs"; head -c $((i * 37)) /dev/urandom; } >"$target/stream.obs"
	tools "$WORK/r" "random events ($i)"
	head -c $((i * 50)) /dev/urandom >"$target/stream.json"
	tools "$WORK/r" "random metadata ($i)"
	printf '{"version":3,"ovni":{"part":"thread","tid":"x","loom_cpus":[{"index":-5,"phyid":"y"}],"mark":{"7":{"labels":{"a":1}}}}}' >"$target/stream.json"
	tools "$WORK/r" "metadata of the wrong types"
done
"$OA" check /nonexistent >/dev/null 2>&1; assert_eq "check of a missing directory" 1 $?
"$OA" dump "$WORK/good/stream.json" >/dev/null 2>&1; assert_eq "dump of a file" 1 $?
