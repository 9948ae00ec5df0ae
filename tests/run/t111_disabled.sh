# OVNI_DISABLE=1: the agent stays loaded but does nothing: its constructor
# returns at once and every hook passes straight through.  The programs
# print and exit as without it (threads, waits, fork, exec, vfork, clone,
# system, posix_spawn, signal chains, abort, errno of failing calls), their
# children stay disabled, and no trace directory appears.
. "$(dirname "$0")/../lib.sh"
same() { # DESCRIPTION CMD...: stdout and status with and without the agent
	what=$1
	shift
	a=$("$@" 2>&1); ra=$?
	b=$(cd "$WORK" && LD_PRELOAD="$LIBAGENT" OVNI_DISABLE=1 OVNI_TRACEDIR="$WORK/off" "$@" 2>&1); rb=$?
	assert_eq "output of $what" "$a" "$b"
	assert_eq "status of $what" "$ra" "$rb"
	[ -e "$WORK/off" ] && fail "$what: a disabled agent wrote a trace"
	[ -e "$WORK/ovni" ] && fail "$what: a disabled agent wrote ./ovni"
	return 0
}
for args in "join 3" "exit 2" "cancel 2" "detach 2" "mainexit 2" "exitcode 9" "nested 2"; do
	same "threads $args" "$PROG/threads" $args
done
for m in mutex cond barrier rwlock sem join sleep once errors; do
	same "sync $m" "$PROG/sync" "$m"
done
for m in fork chain execfail execrefused system popen spawn vfork clone; do
	same "procs $m" "$PROG/procs" "$m"
done
same "signal chain" "$PROG/adv03_signal_chain"
same "siglongjmp" "$PROG/adv16_siglongjmp"
same "abort" "$PROG/adv12_abort"
# A shell: children, a pipe, a trap, a wait, exit statuses.
same "sh" sh -c 'trap "echo got USR1" USR1; kill -USR1 $$; (exit 3); echo "sub $?"; /bin/true & wait $!; echo "bg $?"; seq 3 | tr 1 x; sh -c "exit 7"; echo "child $?"; ls /nonexistent 2>/dev/null; echo "ls $?"'
# The children of a disabled process load the agent disabled too (no trace
# from a grandchild exec'd with a clean environment but for LD_PRELOAD).
LD_PRELOAD="$LIBAGENT" OVNI_DISABLE=1 OVNI_TRACEDIR="$WORK/off" sh -c 'sh -c "/bin/true"' || fail "nested shells"
[ -e "$WORK/off" ] && fail "a disabled agent's child wrote a trace"
# Threads started and joined by a library's constructor inside dlopen (the
# loader's lock held): the hooks never wait for that lock.
same "constructor threads" "$PROG/adv17_ctor_threads" "$PROG/so_ctor_pool.so"
out=$(cd "$WORK" && LD_PRELOAD="$LIBAGENT" OVNI_DISABLE=1 "$PROG/threads" join 3)
assert_eq "threads join 3 prints" "done join 3" "$out"
exit 0
