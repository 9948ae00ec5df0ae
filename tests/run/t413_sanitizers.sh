# Programs built with a sanitizer:
# - gcc's AddressSanitizer (libasan.so) stops a program at its start when
#   an object is loaded before its runtime, as the agent is ("ASan runtime
#   does not come first"): ovnirun turns that check off in ASAN_OPTIONS and
#   the agent keeps it off in the programs started, also those given an
#   ASAN_OPTIONS of their own or none.  Output, status and ASan's report as
#   untraced; traced.
# - clang's MemorySanitizer stops at the first byte written by code it did
#   not build (the agent's): the agent stays out of such a program and says
#   so; output and status as untraced.
. "$(dirname "$0")/../lib.sh"
SRC="$(dirname "$0")/../prog/sanitized.c"
cc -g -O1 -fsanitize=address -o "$WORK/asan" "$SRC" -lpthread 2>"$WORK/cc.err" || skip "no AddressSanitizer: $(head -n 3 "$WORK/cc.err")"
"$WORK/asan" >/dev/null 2>&1 || skip "AddressSanitizer programs do not run here"

want=$("$WORK/asan" 2>&1)
assert_eq "untraced" "threads 394
child
child status 0" "$want"
got=$("$OVNIRUN" -q -o "$WORK/a" "$WORK/asan" 2>&1); st=$?
assert_eq "asan: status" 0 "$st"
assert_eq "asan: output" "$want" "$got"
check_trace "$WORK/a"
# The program's five threads and the sh its child became.
assert_eq "asan: streams" 6 "$(streams "$WORK/a")"

# Started by a traced shell with an ASAN_OPTIONS of its own, without one,
# with an empty environment: each runs, traced.
script="ASAN_OPTIONS=detect_leaks=0 $WORK/asan; env -u ASAN_OPTIONS $WORK/asan; env -i $WORK/asan"
want=$(sh -c "$script" 2>&1)
got=$("$OVNIRUN" -q -o "$WORK/s" sh -c "$script" 2>&1); st=$?
assert_eq "asan from sh: status" 0 "$st"
assert_eq "asan from sh: output" "$want" "$got"
check_trace "$WORK/s"
assert_ge "asan from sh: streams" 19 "$(streams "$WORK/s")"
# A user's own setting of the check is theirs.
got=$(ASAN_OPTIONS=verify_asan_link_order=1 "$OVNIRUN" -q -o "$WORK/u" "$WORK/asan" 2>&1); st=$?
assert_eq "asan, check asked for: status" 1 "$st"
case "$got" in *"ASan runtime does not come first"*) ;; *) fail "asan, check asked for: $got" ;; esac

# An error ASan finds: its report and status, traced.
"$WORK/asan" overflow >"$WORK/o.want" 2>"$WORK/o.wanterr"; wst=$?
"$OVNIRUN" -q -o "$WORK/o" "$WORK/asan" overflow >"$WORK/o.out" 2>"$WORK/o.err"; st=$?
assert_eq "asan overflow: status" "$wst" "$st"
assert_eq "asan overflow: output" "$(cat "$WORK/o.want")" "$(cat "$WORK/o.out")"
grep -q "ERROR: AddressSanitizer: heap-buffer-overflow" "$WORK/o.err" || fail "asan overflow: no report: $(head -n 5 "$WORK/o.err")"
check_trace "$WORK/o"

command -v clang >/dev/null || exit 0
clang -g -O1 -fsanitize=memory -o "$WORK/msan" "$SRC" -lpthread 2>/dev/null || exit 0
want=$("$WORK/msan" 2>&1)
"$OVNIRUN" -o "$WORK/m" "$WORK/msan" >"$WORK/m.out" 2>"$WORK/m.err"; st=$?
assert_eq "msan: status" 0 "$st"
assert_eq "msan: output" "$want" "$(cat "$WORK/m.out")"
grep -q "is built with MemorySanitizer.*not traced" "$WORK/m.err" || fail "msan: not said: $(cat "$WORK/m.err")"
grep -q "WARNING: MemorySanitizer" "$WORK/m.err" && fail "msan: reports: $(cat "$WORK/m.err")"
exit 0
