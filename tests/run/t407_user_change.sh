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
