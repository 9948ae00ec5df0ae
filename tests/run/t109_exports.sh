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
# Linked lazily (a disabled agent binds none of its libc imports: ~20 us per
# process), and a traced process binds every one of them in its constructor,
# so no agent path meets the loader's resolver later.
readelf -d "$LIBAGENT" | grep -q 'BIND_NOW\|Flags:.* NOW' && fail "the agent is linked with -z now"
nimports=$(nm -D --undefined-only "$LIBAGENT" | awk '$1 == "U"' | wc -l)
msg=$(cd "$WORK" && LD_PRELOAD="$LIBAGENT" OVNI_DEBUG=1 OVNI_TRACEDIR="$WORK/tr" /bin/true 2>&1 | grep "bound [0-9]* imports")
bound=$(echo "$msg" | sed -n 's/.*bound \([0-9]*\) imports ([0-9]* as OVNI_BIND says), \([0-9]*\) left.*/\1 \2/p')
assert_ge "imports bound by a traced process (of $nimports)" $((nimports - 10)) "${bound% *}"
assert_eq "imports left to the loader" 0 "${bound#* }"
exit 0
