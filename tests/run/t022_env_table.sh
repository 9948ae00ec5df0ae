# Every OVNI_* variable the agent reads or sets is in one table
# (common/env.c), named nowhere else in the agent's code, and documented in
# its manual page, ovni-auto-env(7); the page names no variable the agent
# does not know (besides ovnirun's own).
. "$(dirname "$0")/../lib.sh"
cd "$OA_TOP" || fail "cd"
table=$(grep -o '"OVNI_[A-Z_]*"' common/env.c | tr -d '"' | sort -u)
assert_ge "variables in the table" 20 "$(echo "$table" | wc -l)"
# Named elsewhere: only as a prefix test (childenv.c passes every OVNI_*
# on) or inside a message.
bad=$(grep -rn 'getenv("OVNI_\|setenv("OVNI_\|env_int("OVNI_' common writer preload hooks | grep -v '^common/env\.c:')
[ -z "$bad" ] || fail "an OVNI_ variable read outside common/env.c's table: $bad"
# Copies of a name kept elsewhere on purpose (in .data, where a fork child
# reads them without touching .rodata: agent.c, config.c, handover.c) or
# named in a message must spell a variable of the table.
for v in $(grep -rhoE '"OVNI_[A-Z_]+' writer preload hooks | tr -d '"' | sort -u); do
	[ "$v" = OVNI_X ] && continue # "OVNI_X=": a comment's example
	echo "$table" | grep -qx "$v" || fail "$v is named in the agent's code but is not in common/env.c's table"
done
n=$(grep -rhoE 'OA_EARLY_DATA = "OVNI_[A-Z_]+' preload | wc -l)
assert_ge ".data copies of names checked" 4 "$n"
doc=docs/ovni-auto-env.7.md
for v in $table; do
	grep -q "\`$v\`" "$doc" || fail "$v is in the table but not in $doc"
done
# ovnirun reads a few of its own (OVNI_LIBOMP, OVNI_END_WAIT_MS): the page
# may name those too, and nothing else.
for v in $(grep -o '`OVNI_[A-Z_]*`' "$doc" | tr -d '`' | sort -u); do
	echo "$table" | grep -qx "$v" || grep -q "\"$v\"" tools/ovnirun/*.c ||
		fail "$doc documents $v, which neither the agent nor ovnirun reads"
done
