# The architecture as the includes show it: writer <- preload <- hooks, and
# tools read only the trace format (and the collector's wire format), the
# log helpers of writer/, and its finisher of streams left open (repair writes
# what the agent's parent-side finisher writes).  Each
# folder includes only folders to its left; nothing includes upward.
. "$(dirname "$0")/../lib.sh"
cd "$OA_TOP" || fail "cd"
incs() { grep -Hn '#include "' "$@" 2>/dev/null; }
bad=$(incs writer/*.c writer/*.h | grep '#include "\.\./')
[ -z "$bad" ] || fail "writer/ includes another folder: $bad"
bad=$(incs preload/*.c preload/*.h | grep '#include "\.\./' | grep -v '#include "\.\./writer/')
[ -z "$bad" ] || fail "preload/ includes beyond writer/: $bad"
bad=$(incs hooks/*.c hooks/*.h | grep '#include "\.\./' | grep -v '#include "\.\./\(writer\|preload\)/')
[ -z "$bad" ] || fail "hooks/ includes beyond writer/ and preload/: $bad"
# hooks/ shows its kinds: the libc interposers at the top, the OpenMP tool,
# the MPI interposer and the libovni API in folders of their own.  A kind
# includes the top's shared headers (hooks.h, names.h, sync.h), never
# another kind, and the top never includes a kind.
bad=$(incs hooks/*/*.c hooks/*/*.h | grep '#include "\.\./' |
	grep -v '#include "\.\./\.\./\(writer\|preload\)/\|#include "\.\./\(hooks\|names\|sync\)\.h"')
[ -z "$bad" ] || fail "a hooks/ kind includes beyond writer/, preload/ and the shared hook headers: $bad"
bad=$(incs hooks/*.c hooks/*.h | grep '#include "\(ompt\|mpi\|libovni\)/')
[ -z "$bad" ] || fail "the libc interposers include a hooks/ kind: $bad"
for kind in ompt mpi libovni; do
	[ -d hooks/$kind ] || fail "no hooks/$kind"
done
bad=$(incs tools/*.c tools/*.h tools/*/*.c tools/*/*.h | grep '#include "\.\./' |
	grep -v '#include "\(\.\./\)\{1,2\}writer/\(log\|ovni_fmt\|mpi_fmt\|collect_fmt\|compiler\|finish\)\.h"')
[ -z "$bad" ] || fail "tools/ includes more of writer/ than the format and log headers, or includes upward: $bad"
# The families under tools/ stand alone: trace/ needs no back-end.
bad=$(incs tools/trace/* | grep '#include "\(\.\./\)\?\(export\|linktest\|ovnirun\)/')
[ -z "$bad" ] || fail "tools/trace/ includes a back-end: $bad"
assert_ge "files checked" 60 "$(ls writer/*.[ch] preload/*.[ch] hooks/*.[ch] hooks/*/*.[ch] tools/*.[ch] tools/*/*.[ch] | wc -l)"
