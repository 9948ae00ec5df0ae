# The agent exports exactly the symbols listed in hooks/*.exports: nothing
# of its internals (writer, jansson users, helpers) leaks into the program.
. "$(dirname "$0")/../lib.sh"
nm -D --defined-only "$LIBAGENT" | awk '{print $3}' | sort >"$WORK/got"
cat "$OA_TOP"/hooks/*.exports | sed '/^$/d' | sort >"$WORK/want"
diff "$WORK/want" "$WORK/got" || fail "exported symbols differ from hooks/*.exports"
assert_ge "exported symbols" 10 "$(wc -l <"$WORK/got")"
