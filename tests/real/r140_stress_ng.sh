# stress-ng stressors that hammer process, thread and signal paths: fork,
# clone, vfork, exec, pthread, sigsegv, 2 s each. The run must succeed as
# untraced and leave a valid trace.
. "$(dirname "$0")/lib_real.sh"
need stress-ng
for s in fork clone vfork exec pthread sigsegv; do
	stress-ng --$s 2 --timeout 2 -q >/dev/null 2>&1; rc1=$?
	"$OVNIRUN" -q -o "$WORK/$s" stress-ng --$s 2 --timeout 2 -q >"$WORK/$s.out" 2>&1; rc2=$?
	assert_eq "stress-ng --$s status" "$rc1" "$rc2"
	grep -q "ovni-auto:" "$WORK/$s.out" && { cat "$WORK/$s.out"; fail "--$s: the agent complained"; }
	check_trace "$WORK/$s"
	rm -rf "$WORK/$s"
done
