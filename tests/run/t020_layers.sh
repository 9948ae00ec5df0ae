# The architecture as the includes show it: common <- writer <- preload <-
# hooks, and tools read only common/ (logging, descriptors, the collector's
# wire format), the trace format of writer/, and its finisher of streams
# left open and of the threads its agent left in a spool (repair writes
# what the agent's parent-side finisher writes).
# Each folder includes only folders to its left; nothing includes upward.
. "$(dirname "$0")/../lib.sh"
cd "$OA_TOP" || fail "cd"
incs() { grep -Hn '#include "' "$@" 2>/dev/null; }
bad=$(incs common/*.c common/*.h | grep '#include "\.\./')
[ -z "$bad" ] || fail "common/ includes another folder: $bad"
bad=$(incs writer/*.c writer/*.h | grep '#include "\.\./' | grep -v '#include "\.\./common/')
[ -z "$bad" ] || fail "writer/ includes beyond common/: $bad"
bad=$(incs preload/*.c preload/*.h | grep '#include "\.\./' | grep -v '#include "\.\./\(common\|writer\)/')
[ -z "$bad" ] || fail "preload/ includes beyond common/ and writer/: $bad"
bad=$(incs hooks/*.c hooks/*.h | grep '#include "\.\./' | grep -v '#include "\.\./\(common\|writer\|preload\)/')
[ -z "$bad" ] || fail "hooks/ includes beyond common/, writer/ and preload/: $bad"
# writer/ is for writing traces: the helpers every part shares live in common/.
for f in log.c log.h compiler.h collect_fmt.h fdroom.c fdroom.h; do
	[ -e "writer/$f" ] && fail "writer/$f: a shared helper, its place is common/"
done
# hooks/ shows its kinds: the libc interposers at the top, the OpenMP tool,
# the MPI interposer and the libovni API in folders of their own.  A kind
# includes the top's shared headers (hooks.h, names.h, sync.h), never
# another kind, and the top never includes a kind.
bad=$(incs hooks/*/*.c hooks/*/*.h | grep '#include "\.\./' |
	grep -v '#include "\.\./\.\./\(common\|writer\|preload\)/\|#include "\.\./\(hooks\|names\|sync\)\.h"')
[ -z "$bad" ] || fail "a hooks/ kind includes beyond writer/, preload/ and the shared hook headers: $bad"
bad=$(incs hooks/*.c hooks/*.h | grep '#include "\(ompt\|mpi\|libovni\)/')
[ -z "$bad" ] || fail "the libc interposers include a hooks/ kind: $bad"
for kind in ompt mpi libovni; do
	[ -d hooks/$kind ] || fail "no hooks/$kind"
done
bad=$(incs tools/*.c tools/*.h tools/*/*.c tools/*/*.h | grep '#include "\.\./' |
	grep -v '#include "\(\.\./\)\{1,2\}common/[a-z_]*\.h"' | grep -v '#include "\.\./trace/[a-z_]*\.h"' |
	grep -v '#include "\(\.\./\)\{1,2\}writer/\(ovni_fmt\|mpi_fmt\|finish\|spool\)\.h"' |
	grep -v '^tools/view/[a-z_]*\.[ch]:[0-9]*:#include "\.\./export/export\.h"')
[ -z "$bad" ] || fail "tools/ includes more of writer/ than the format headers, or includes upward: $bad"
# The families under tools/ stand alone: trace/ needs no back-end and not
# the checker; the checker (check/) reads the trace through trace/ only.
bad=$(incs tools/trace/* | grep '#include "\(\.\./\)\?\(export\|linktest\|ovnirun\|check\|collect\)/')
[ -z "$bad" ] || fail "tools/trace/ includes a back-end or the checker: $bad"
bad=$(incs tools/check/* | grep '#include "\.\./' | grep -v '#include "\.\./trace/\|#include "\.\./\.\./\(common\|writer\)/')
[ -z "$bad" ] || fail "tools/check/ includes beyond trace/, common/ and writer's format: $bad"
# The viewer (view/) is a back-end of the export model, never the reverse.
bad=$(incs tools/export/* tools/trace/* | grep '#include "\(\.\./\)\?view/')
[ -z "$bad" ] || fail "the export model or the reader includes the viewer: $bad"
# The checker's rules report through report.c, never through the command.
bad=$(grep -ln 'ck_problem\|ck_note' tools/*.c | grep -v '^tools/cmd_check\.c$')
[ -z "$bad" ] || fail "a command other than check reports problems: $bad"
grep -q '^void ck_problem' tools/check/report.c || fail "ck_problem is not in tools/check/report.c"
grep -q 'ck_problem\|ck_note' tools/cmd_check.c && fail "cmd_check.c reports problems itself: the checker's walk does"
# The OMPT tool in layers: the helpers (ompt_debug.c, ompt_types.c) <-
# ompt_state.c (task and region stacks, the
# tool's settings) <- ompt_task.c (creation, switches, the owner of a
# callback) <- ompt_sync.c (waits, locks, worksharing) <- ompt.c (the tool:
# start, callbacks' registration).  No file calls a function defined in a
# layer above it.
layers="ompt_debug ompt_types ompt_state ompt_task ompt_sync ompt"
defs() { grep -oE '^[a-z][a-z_ *]*\boa_omp_[a-z_0-9]+\(' "hooks/ompt/$1.c" | grep -oE 'oa_omp_[a-z_0-9]+' | sort -u; }
lower=""
for l in $layers; do
	for below in $lower; do
		for f in $(defs "$l"); do
			grep -qw "$f" "hooks/ompt/$below.c" && fail "hooks/ompt/$below.c calls $f, of the layer above it ($l.c)"
		done
	done
	lower="$lower $l"
done
# One shape for every hook: real functions through HOOK_REALS/REAL or
# oa_real (the MPI and OpenMP runtimes, which may be loaded later, are
# looked up when they are), errno kept with the HOOK_ERRNO_* helpers.
bad=$( { grep -n 'dlsym(RTLD_NEXT' hooks/*.c hooks/libovni/*.c; grep -n 'int saved[a-z_]* = errno\|errno = saved' hooks/*.c hooks/*/*.c; } | grep -v 'hook_errno_')
[ -z "$bad" ] || fail "a libc hook resolves or keeps errno by hand: $bad"
# The suite leaves nothing behind: a case that sets an EXIT trap of its own
# replaces lib.sh's, so its trap removes $WORK too.
bad=$(grep -n "^[[:space:]]*trap .* EXIT" tests/run/*.sh tests/real/*.sh tests/truth/*.sh | grep -v 'WORK\|cleanup EXIT')
[ -z "$bad" ] || fail "a test's EXIT trap leaves \$WORK behind: $bad"
bad=$(grep -n "^cleanup()" -A8 tests/run/*.sh tests/real/*.sh | grep -c 'rm -rf "\$WORK"')
assert_eq "cleanup() functions remove \$WORK" "$(grep -c "^cleanup()" tests/run/*.sh tests/real/*.sh | awk -F: '{ s += $2 } END { print s }')" "$bad"
assert_ge "files checked" 60 "$(ls common/*.[ch] writer/*.[ch] preload/*.[ch] hooks/*.[ch] hooks/*/*.[ch] tools/*.[ch] tools/*/*.[ch] | wc -l)"
