# The agent exports exactly the symbols listed in hooks/*.exports and
# hooks/*/*.exports: nothing
# of its internals (writer, jansson users, helpers) leaks into the program.
. "$(dirname "$0")/../lib.sh"
nm -D --defined-only "$LIBAGENT" | awk '{print $3}' | sort >"$WORK/got"
cat "$OA_TOP"/hooks/*.exports "$OA_TOP"/hooks/*/*.exports | sed '/^$/d' | sort >"$WORK/want"
diff "$WORK/want" "$WORK/got" || fail "exported symbols differ from the hooks' .exports files"
assert_ge "exported symbols" 10 "$(wc -l <"$WORK/got")"
# Everything the agent needs comes from libc (jansson is opened, not linked): a symbol from a
# library a program may not load (libm, libmpi) would fail every program at
# start ("undefined symbol: sqrt").
nm -D --undefined-only "$LIBAGENT" | awk '$1 == "U" && $2 !~ /@GLIBC_/ && $2 !~ /@libjansson/ { print; bad = 1 } END { exit bad }' ||
	fail "the agent needs symbols from outside libc and jansson"
