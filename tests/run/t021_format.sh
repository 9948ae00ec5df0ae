# The house style: every C file of the product and its headers are as
# .clang-format says (`make format` applies it).  clang-format 14, Debian
# 12's (scripts/deps.sh installs it); other versions format some constructs
# differently and are not asked.
. "$(dirname "$0")/../lib.sh"
cd "$OA_TOP" || fail "cd"
command -v clang-format >/dev/null || skip "no clang-format (scripts/deps.sh installs it)"
v=$(clang-format --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
[ "$v" = 14 ] || skip "clang-format $v: the style is checked with version 14"
make -s format-check >"$WORK/out" 2>&1 || fail "not formatted (make format): $(grep -c 'error:' "$WORK/out") places, first: $(grep -m1 'error:' "$WORK/out")"
assert_ge "files checked" 60 "$(make -s -n format-check | tr ' ' '\n' | grep -c '\.[ch]$')"
