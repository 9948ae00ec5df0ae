# Valgrind's race checkers under ovnirun: helgrind and DRD do not model the
# agent's atomics and fences, and reported ~200 races in the agent's own
# code for a clean two-thread program, so --error-exitcode turned its
# status into theirs.  ovnirun passes share/ovni-auto/valgrind.supp to
# valgrind (VALGRIND_OPTS): a clean program stays clean, and a race in the
# program's own code (a thread's start routine, called from the agent's
# trampoline) is still reported as untraced.
. "$(dirname "$0")/../lib.sh"
command -v valgrind >/dev/null || fail "valgrind is missing (scripts/deps.sh installs it)"
[ -r "$OA_TOP/build/share/ovni-auto/valgrind.supp" ] || fail "build/share/ovni-auto/valgrind.supp was not built"
races() { grep -c 'Possible data race\|Conflicting \(load\|store\)' "$1"; }
for tool in helgrind drd; do
	for m in "join 2" "race 200"; do
		valgrind -q --tool=$tool --error-exitcode=99 "$PROG/threads" $m >"$WORK/out0" 2>"$WORK/err0"
		st0=$?
		"$OVNIRUN" -q -o "$WORK/$tool${m% *}" valgrind -q --tool=$tool --error-exitcode=99 "$PROG/threads" $m \
			>"$WORK/out" 2>"$WORK/err"
		st=$?
		assert_eq "$tool $m: status" "$st0" "$st"
		assert_eq "$tool $m: output" "$(cat "$WORK/out0")" "$(cat "$WORK/out")"
		assert_eq "$tool $m: races reported" "$(races "$WORK/err0")" "$(races "$WORK/err")"
		check_trace "$WORK/$tool${m% *}"
	done
done
# A VALGRIND_OPTS of the user's own is kept, the file added once.
out=$(VALGRIND_OPTS="--error-exitcode=98" "$OVNIRUN" -q -o "$WORK/opts" sh -c 'echo "$VALGRIND_OPTS"')
case "$out" in
"--error-exitcode=98 --suppressions="*/share/ovni-auto/valgrind.supp) ;;
*) fail "VALGRIND_OPTS: $out" ;;
esac
# Memcheck and a program that dies of a signal: the agent's crash handler
# ran its end on a stack of its own, a switch memcheck does not follow
# (~130 invalid reads and writes reported in the agent's code, the
# program's one only untraced); under valgrind it stays on its signal
# stack.  The status and the program's own report are as untraced.
errs() { grep -cE '^==[0-9]+== (Invalid (read|write)|Use of uninitialised|Conditional jump|Syscall param)' "$1"; }
for m in abort segv; do
	valgrind -q "$PROG/crash" $m >"$WORK/mout0" 2>"$WORK/merr0"
	st0=$?
	"$OVNIRUN" -q -o "$WORK/mc$m" valgrind -q "$PROG/crash" $m >"$WORK/mout" 2>"$WORK/merr"
	st=$?
	assert_eq "memcheck $m: status" "$st0" "$st"
	assert_eq "memcheck $m: errors reported" "$(errs "$WORK/merr0")" "$(errs "$WORK/merr")"
	check_trace "$WORK/mc$m"
done
