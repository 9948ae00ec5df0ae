# A process that drops root (issue 30, item 3): a thread as root, then
# setgid/setuid(65534), new threads, a fork whose child starts threads.
# Before, the new threads ran untraced ("Permission denied") and the main
# stream could not be finished. Now every stream is there and finished, the
# process's files belong to the new user, and only that user was granted
# write access to the loom directory (an ACL entry; nothing else changed).
# Root only (CI is root).
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "changing user needs root"
want=$("$PROG/dropuser" 2>&1); wst=$?
got=$("$OVNIRUN" -q -o "$WORK/u" "$PROG/dropuser" 2>&1); gst=$?
assert_eq "status" "$wst" "$gst"
assert_eq "output (no message from the agent)" "$want" "$got"
check_trace "$WORK/u"
assert_eq "streams" 7 "$(find "$WORK/u" -name stream.json | wc -l)"
unfinished=$(grep -L '"finished": 1' $(find "$WORK/u" -name stream.json) | wc -l)
assert_eq "unfinished streams" 0 "$unfinished"
for p in "$WORK"/u/loom.*/proc.*; do
	assert_eq "$p owner" 65534 "$(stat -c %u "$p")"
done
loom=$(ls -d "$WORK"/u/loom.*)
assert_eq "loom mode unchanged" 755 "$(stat -c %a "$loom" | sed 's/^775$/755/')"
if command -v getfacl >/dev/null; then
	getfacl -p "$loom" 2>/dev/null | grep -q "^user:nobody:rwx" || fail "no ACL entry for the new user: $(getfacl -p "$loom")"
	getfacl -p "$loom" 2>/dev/null | grep -q "^other::r-x" || fail "others gained rights: $(getfacl -p "$loom")"
fi

# A rootless container started by a process that became another user
# (runuser -u nobody -- unshare -U -r -p -f): its processes are in a PID
# namespace of their own, whose loom (LOOM.pidns<inode>) is made next to
# the run's.  Before, the trace directory was root's alone, and they ran
# untraced ("Permission denied"); now the user was granted the trace
# directory too, and they are traced.
T=$(mktemp -d /tmp/oa-userns.XXXXXX) && chmod 755 "$T" || fail mktemp
trap 'rm -rf "$T" "$WORK"' EXIT # replaces lib.sh's: $WORK too
job='echo $$; (sleep 0.1; echo child) & wait'
if runuser -u nobody -- unshare -U -r -p -f true 2>/dev/null; then
	want=$(runuser -u nobody -- unshare -U -r -p -f sh -c "$job" 2>&1)
	got=$("$OVNIRUN" -q -o "$T/c" runuser -u nobody -- unshare -U -r -p -f sh -c "$job" 2>"$T/c.err"); st=$?
	assert_eq "rootless: status" 0 "$st"
	assert_eq "rootless: output" "$want" "$got"
	assert_eq "rootless: messages" "" "$(cat "$T/c.err")"
	check_trace "$T/c"
	assert_eq "rootless: processes in the namespace's loom" 3 "$(ls -d "$T"/c/loom.*.pidns*/proc.* | wc -l)"
	if command -v getfacl >/dev/null; then
		getfacl -p "$T/c" 2>/dev/null | grep -q "^user:nobody:rwx" || fail "no ACL entry on the trace directory"
		getfacl -p "$T/c" 2>/dev/null | grep -q "^other::r-x" || fail "others gained rights: $(getfacl -p "$T/c")"
	fi
else
	info "user namespaces are not allowed here: the rootless case skipped"
fi

# A user that may not search a directory on the way to the trace (the run's
# trace inside root's private directory): its processes run untraced, the
# program unchanged, and the run says so once, with that reason (before:
# one line per process and per exec, blaming a chroot or a namespace).
mkdir -m 700 "$T/priv" || fail mkdir
job='echo hi; /bin/true; exec /bin/echo bye'
got=$("$OVNIRUN" -q -o "$T/priv/t" runuser -u nobody -- sh -c "$job" 2>"$T/p.err"); st=$?
cat "$T/p.err" >&2
assert_eq "unreachable: status" 0 "$st"
assert_eq "unreachable: output" "hi
bye" "$got"
assert_eq "unreachable: messages" 1 "$(grep -c 'ovni-auto:' "$T/p.err")"
grep -q "cannot reach the trace directory $T/priv/t as user 65534" "$T/p.err" || fail "not the reason: $(cat "$T/p.err")"
check_trace "$T/priv/t"
