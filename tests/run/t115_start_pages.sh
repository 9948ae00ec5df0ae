# What a short process touches of the agent's object, counted in page
# faults (tests/prog/pagewalk: the pages present when it ends, and the
# fewest 64 KiB fault-around windows that map them).  Each such fault costs
# 2-25 us on the project's VMs, a sizeable part of what a traced command
# costs (bench/README.md).  The object is one mapping of headers, symbol
# tables, text and read-only data (-z noseparate-code: each mapping more
# is two system calls and a fault-around window of its own), laid out so
# that a traced process runs its start and end in the first two windows
# and a disabled agent in the first (common/compiler.h: OA_EARLY_TEXT,
# OA_START_TEXT), and the read-only data starts on a 64 KiB boundary
# (preload/layout.ld): one window more.  A function the start path calls
# that is not in its section lands anywhere in 350 KiB of text, and this
# test fails.  The program's output and status and the trace are checked
# too.
. "$(dirname "$0")/../lib.sh"
[ -x "$PROG/pagewalk" ] || fail "tests/prog/pagewalk not built"

walk() { # LABEL ENV... -- CMD...: pagewalk's lines for the agent
	label=$1
	shift
	out=$("$PROG/pagewalk" libovni-auto.so env "$@" 2>"$WORK/err"); rc=$?
	case $out in
	*"none: no mapping"*|"") skip "pagewalk saw no mapping of the agent (ptrace refused?): $(cat "$WORK/err")" ;;
	esac
	echo "$out" | sed "s/^/$label: /" >&2
}
field() { # SEGMENT KEY: from $out; SEGMENT is text (the one executable mapping) or anon
	echo "$out" | awk -v seg="$1" -v key="$2" '
		$1 == "r-xp" && seg == "text" { hit = 1 }
		$1 == "anon" && seg == "anon" { hit = 1 }
		hit { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] }; exit }'
}
# The agent's read-only file mappings but the one page the loader protects
# after relocating (RELRO): none, its read-only data is in the text's.
rodata_apart() {
	echo "$out" | awk '$1 == "r--p" && $0 !~ / pages=1 / { n++ } END { print n + 0 }'
}
at_most() { # WHAT LIMIT VALUE
	[ -n "$3" ] || fail "$1: not in pagewalk's output"
	[ "$3" -le "$2" ] || fail "$1: $3, at most $2 expected"
}

# A traced /bin/true, started by an untraced parent: two windows of text
# (the first with the headers and symbol tables), one of read-only data;
# the agent's zero pages it writes (.lbss: the start block, the
# configuration, the symbol scope, the label table's header with its
# small buckets) at most four.
walk traced OVNI_TRACEDIR="$WORK/t1" LD_PRELOAD="$LIBAGENT" /bin/true
assert_eq "status of a traced /bin/true" 0 "$rc"
at_most "windows of text and read-only data of a traced /bin/true" 3 "$(field text windows)"
at_most "read-only mappings of the agent apart from its text" 0 "$(rodata_apart)"
at_most "pages of .lbss a traced /bin/true writes" 4 "$(field anon present)"
check_trace "$WORK/t1"

# The same, exec'd in place by a traced shell and by env (the image reads
# its predecessor's handover and labels at start: they once spread over
# six pages of the label table).
walk "from sh" OVNI_TRACEDIR="$WORK/t2" LD_PRELOAD="$LIBAGENT" sh -c '/bin/true; exec /bin/true'
assert_eq "status of a traced sh" 0 "$rc"
at_most "windows of text and read-only data of an exec'd /bin/true" 3 "$(field text windows)"
at_most "pages of .lbss an exec'd /bin/true writes" 4 "$(field anon present)"
check_trace "$WORK/t2"
walk "from env" OVNI_TRACEDIR="$WORK/t5" LD_PRELOAD="$LIBAGENT" env /bin/true
at_most "windows of text and read-only data of /bin/true exec'd by env" 3 "$(field text windows)"
at_most "pages of .lbss /bin/true exec'd by env writes" 4 "$(field anon present)"
check_trace "$WORK/t5"

# A shell that leaves with a status (dash: by longjmp) and writes its output.
walk "sh exit 3" OVNI_TRACEDIR="$WORK/t3" LD_PRELOAD="$LIBAGENT" sh -c 'echo out; exit 3'
assert_eq "status of a traced sh -c 'exit 3'" 3 "$rc"
at_most "windows of text and read-only data of a traced sh" 3 "$(field text windows)"
check_trace "$WORK/t3"

# A disabled agent: the first window of text only (with the headers and
# symbol tables the loader reads), nothing else of ours.
for cmd in /bin/true "sh -c 'echo out; exit 3'"; do
	eval walk disabled OVNI_DISABLE=1 OVNI_TRACEDIR="$WORK/off" LD_PRELOAD="$LIBAGENT" "$cmd"
	at_most "windows of text and read-only data of a disabled $cmd" 1 "$(field text windows)"
	at_most "read-only mappings of a disabled agent apart from its text" 0 "$(rodata_apart)"
	at_most "pages of .lbss a disabled $cmd writes" 0 "$(field anon present)"
done
assert_eq "status of a disabled sh -c 'exit 3'" 3 "$rc"
[ -e "$WORK/off" ] && fail "a disabled agent wrote a trace"

# ... and the loader looks up few names for it (each a walk of the scope,
# ~0.5-1 us cold; a lazy binding more, through the trampoline that saves
# the vector registers): its load-time references (_r_debug, environ,
# program_invocation_short_name, crt's __cxa_finalize), none lazily.
# setenv, unsetenv, stderr (the tools' die()), its own pthread_create, and
# strchr, strcmp and getauxval on the hook of __libc_start_main's way to
# the real one were 7 more.
LD_DEBUG=bindings OVNI_DISABLE=1 LD_PRELOAD="$LIBAGENT" /bin/true 2>"$WORK/bind" || fail "disabled /bin/true under LD_DEBUG"
grep "binding file [^ ]*libovni-auto.so " "$WORK/bind" | sed 's/.*normal symbol/symbol/' >&2
at_most "names the loader binds for a disabled agent" 4 "$(grep -c "binding file [^ ]*libovni-auto.so " "$WORK/bind")"

# A fork child of bash, stopped as it enters execve (pagewalk -f): the
# agent's first text window only, and no window of libc that an untraced
# bash's child does not fault in too (libc's string functions, its stat
# calls, the vDSO: a fault each, per command, had crept back).
child_windows() { # SEGMENT-TAG: the most windows of any child's line
	echo "$out" | awk -v tag="$1" 'index($0, tag " ") == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^windows=/) { split($i, kv, "="); if (kv[2] > m) m = kv[2] } } END { print m + 0 }'
}
# Where libc's text starts within a 64 KiB window moves with ASLR, and
# with it whether two of its functions share one (an untraced child counts
# 3 to 5 windows from run to run for the same functions): both runs
# without ASLR (setarch -R), and one window of slack for the agent's
# mapping moving libc's start (the agent's functions were two windows more
# before this test).
# Where setarch cannot turn ASLR off (a container's seccomp filter), the
# most of three untraced runs against the fewest of three traced ones.
norand=""
runs=3
setarch "$(uname -m)" -R true 2>/dev/null && norand="setarch $(uname -m) -R" && runs=1
plain=0
for run in $(seq $runs); do
	out=$($norand "$PROG/pagewalk" -f libovni-auto.so bash -c '/bin/true; /bin/true; :' 2>&1) ||
		fail "untraced bash under pagewalk -f"
	echo "$out" | grep -q '^child libc r-xp' || skip "pagewalk -f saw no fork child at its exec"
	n=$(child_windows "child libc r-xp")
	[ "$n" -gt "$plain" ] && plain=$n
done
plain=$((plain + 1))
traced=99
for run in $(seq $runs); do
	rm -rf "$WORK/t6"
	out=$($norand "$PROG/pagewalk" -f libovni-auto.so env OVNI_TRACEDIR="$WORK/t6" LD_PRELOAD="$LIBAGENT" \
		bash -c '/bin/true; /bin/true; :' 2>&1) || fail "traced bash under pagewalk -f"
	echo "$out" | sed 's/^/bash child: /' >&2
	n=$(child_windows "child libc r-xp")
	[ "$n" -lt "$traced" ] && traced=$n
	at_most "the agent's text windows of a traced bash's fork child" 1 "$(child_windows "child r-xp")"
done
at_most "libc's text windows of a traced bash's fork child (untraced, plus one: $plain)" "$plain" "$traced"
check_trace "$WORK/t6"
assert_eq "processes of the traced bash" 3 "$(ls -d "$WORK"/t6/loom.*/proc.* | wc -l)"

# Under ovnirun, of the run's spool (one shared mapping of the whole
# file) a traced /bin/true maps its header page and its slot's two pages,
# not the pages in memory around them: a read is what faults those in
# (fault-around, as for the text), each one more to unmap at exit, and
# the slots of the pids just before, which the processes before wrote,
# are in memory (writer/spool.c: the first touches are writes).
out=$("$OVNIRUN" -q -o "$WORK/t7" sh -c 'for i in 1 2 3 4 5 6 7 8; do /bin/true; done; "$0" spool.run.oa /bin/true' \
	"$PROG/pagewalk" 2>"$WORK/err")
assert_eq "status of pagewalk under ovnirun" 0 "$?"
case $out in
*"none: no mapping"*|"") skip "pagewalk saw no mapping of the run's spool: $(cat "$WORK/err")" ;;
esac
echo "$out" | sed 's/^/spool: /' >&2
at_most "pages of the run's spool a traced /bin/true maps" 3 \
	"$(echo "$out" | awk '$1 == "rw-s" { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "present") print kv[2] }; exit }')"
check_trace "$WORK/t7"

# What the program prints is its own.
out=$(OVNI_TRACEDIR="$WORK/t4" LD_PRELOAD="$LIBAGENT" "$PROG/pagewalk" libovni-auto.so sh -c 'echo out; exit 3' | head -n 1)
assert_eq "the program's output under pagewalk" out "$out"
exit 0
