#!/bin/sh
# cost.sh: what a process, a thread and a contended lock cost under the agent
# (issue 32's table), every row in one run, interleaved, median of REPS (7):
#   - a shell loop of PROCS (300) `/bin/true`: untraced, an empty preloaded
#     library (the floor of any LD_PRELOAD tool), the agent disabled
#     (OVNI_DISABLE=1), traced with the trace on /dev/shm, traced on disk
#     ($TMPDIR or /tmp); `sh` (dash: vfork, then exec) and, where there
#     is one, bash (fork, then exec in the child: issue 32's loop),
#     untraced and traced on /dev/shm and on disk, and (last, apart) on
#     disk right after the previous run's trace was deleted (traces on disk
#     are otherwise kept until the end: see `keep` below);
#   - `seq XARGS | xargs -P NPROC -n1 /bin/true` (XARGS 1000), untraced and
#     traced on /dev/shm;
#   - SHORT (2000) threads created and joined one at a time (bench/threads
#     short), untraced and traced on disk and on /dev/shm;
#   - LIVE (1000) threads started, all alive at once, then ended (bench/threads
#     live), untraced and traced on /dev/shm;
#   - bench/sync_lock (20M uncontended lock/unlock pairs, then 2 threads
#     on one mutex), untraced and traced;
#   - LOCKT (16) threads x 200000 lock/inc/unlock on one mutex
#     (bench/sync_lock 0 16), untraced and traced;
#   - the process loop and the short threads traced on /dev/shm as on a
#     machine of MANYCPUS (128) CPUs: loom "many", OVNI_CPUS=many:0-127
#     (the loom's CPUs are ~30 bytes each of every main stream.json);
#   - the format's floor (bench/floor): the directories and files the
#     trace of the process loop (one process directory and one thread
#     directory per command, on /dev/shm and on disk) and of the live
#     threads (one thread directory each) are made of, written by one
#     program in a loop with no tracer.  Its row is (untraced + floor) /
#     untraced: the lowest ratio any tracer writing this format could reach
#     here (it includes floor's own start, ~1-2 ms).
# Each traced row prints its ratio to the untraced one, for the wall time,
# the CPU time of the command and all its children, and their page faults
# (bench/runt): on a small or shared machine the wall time of a short run
# follows the scheduler as much as the work; the CPU column is steadier,
# and the page faults do not move from run to run (on a VM a new page
# costs 10-20 us: they are much of the agent's cost there).  The
# machine is named on the first line: record many-core numbers apart.  It needs only
# sh, seq, xargs and the built tree, so a machine without a package
# registry runs it as it is (carry build/ and bench/).
# With VS=DIR (another built tree of ovni-auto, an older commit), the
# agent's rows run with that tree too, in the same run: before and after.
# Usage: sh bench/cost.sh      (builds what it needs in bench/)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
lib="$top/build/lib/libovni-auto.so"
run="$top/build/bin/ovnirun"
reps=${REPS:-7}
procs=${PROCS:-300}
xn=${XARGS:-1000}
short=${SHORT:-2000}
live=${LIVE:-1000}
lockt=${LOCKT:-16}
manycpus=${MANYCPUS:-128}
disk=${TMPDIR:-/tmp}
np=$(nproc)
[ -x "$lib" ] && [ -x "$run" ] || { echo "build first: make" >&2; exit 1; }
cc=${CC:-cc}
[ -f "$here/libempty.so" ] || printf 'void oa_bench_empty(void) {}\n' | $cc -shared -fPIC -O2 -x c -o "$here/libempty.so" - || exit 1
[ -x "$here/threads" ] || $cc -O2 -D_GNU_SOURCE -o "$here/threads" "$here/threads.c" -lpthread || exit 1
[ "$here/runt" -nt "$here/runt.c" ] || $cc -O2 -o "$here/runt" "$here/runt.c" || exit 1
[ -x "$here/floor" ] || $cc -O2 -o "$here/floor" "$here/floor.c" || exit 1
[ -x "$here/sync_lock" ] || $cc -O2 -D_GNU_SOURCE -o "$here/sync_lock" "$here/sync_lock.c" -lpthread || exit 1
bash=$(command -v bash || true)
res=$(mktemp -d)
# Traces on disk are removed only at the end: on ext4 without a journal
# (this project's VMs) every new inode scans past the inodes deleted in
# the last dirty_expire interval (30 s; recently_deleted() in the
# kernel), so each run would pay for the deletion of the one before.  The
# row "after deleting ..." shows what that costs.
keep="$disk/.oa-cost-kept.$$"
trap 'rm -rf "$res" "$keep"' EXIT
loop="for i in \$(seq $procs); do /bin/true; done"
# t NAME CMD...: one timed run, appended to NAME's results
# (Its own variable: the callers' $name is still theirs after the call.
# Sharing it sent, in every other round, this tree's traced run into the
# other tree's results when VS was given: both trees' rows were mixed.)
t() {
	t_name=$1
	shift
	"$here/runt" "$@" 2>/dev/null | tail -n 1 >>"$res/$t_name"
}
traced() { # NAME DIR CMD...: under ovnirun, trace in a fresh directory under DIR
	name=$1 dir=$2
	shift 2
	w=$(mktemp -d "$dir/.oa-cost.XXXXXX")
	# With VS, the two trees take turns going first: on a disk file
	# system the run right after a large deletion pays for it.
	if [ -n "${VS:-}" ] && [ $((i % 2)) = 0 ]; then
		t "$name.vs" "$VS/build/bin/ovnirun" -q -o "$w/vs" "$@"
	fi
	t "$name" "$run" -q -o "$w/trace" "$@"
	if [ -n "${VS:-}" ] && [ $((i % 2)) = 1 ]; then
		t "$name.vs" "$VS/build/bin/ovnirun" -q -o "$w/vs" "$@"
	fi
	if [ "$dir" = /dev/shm ]; then
		rm -rf "$w"
	else
		mkdir -p "$keep" && mv "$w" "$keep/"
	fi
}
# traced_after_delete NAME DIR CMD...: the same, each timed run right
# after an untimed one whose trace was deleted (as when a trace is
# replaced by the next one).
traced_after_delete() {
	name=$1 dir=$2
	shift 2
	w=$(mktemp -d "$dir/.oa-cost.XXXXXX")
	"$run" -q -o "$w/old" "$@" >/dev/null 2>&1
	rm -rf "$w/old"
	t "$name" "$run" -q -o "$w/trace" "$@"
	if [ -n "${VS:-}" ]; then
		"$VS/build/bin/ovnirun" -q -o "$w/old" "$@" >/dev/null 2>&1
		rm -rf "$w/old"
		t "$name.vs" "$VS/build/bin/ovnirun" -q -o "$w/vs" "$@"
	fi
	mkdir -p "$keep" && mv "$w" "$keep/"
}
many() { # NAME CMD...: traced on /dev/shm, a loom of $manycpus CPUs as told by OVNI_CPUS
	OVNI_CPUS="many:0-$((manycpus - 1))"
	export OVNI_CPUS
	traced "$@"
	unset OVNI_CPUS
}
floor() { # NAME DIR procs|threads N: the format's files alone, in a fresh directory under DIR
	name=$1 dir=$2
	shift 2
	w=$(mktemp -d "$dir/.oa-cost.XXXXXX")
	t "$name" "$here/floor" "$w/trace" "$@"
	if [ "$dir" = /dev/shm ]; then
		rm -rf "$w"
	else
		mkdir -p "$keep" && mv "$w" "$keep/"
	fi
}
for i in $(seq "$reps"); do
	t loop.none sh -c "$loop"
	t loop.empty env LD_PRELOAD="$here/libempty.so" sh -c "$loop"
	t loop.disabled env LD_PRELOAD="$lib" OVNI_DISABLE=1 sh -c "$loop"
	[ -n "${VS:-}" ] && t loop.disabled.vs env LD_PRELOAD="$VS/build/lib/libovni-auto.so" OVNI_DISABLE=1 sh -c "$loop"
	traced loop.shm /dev/shm sh -c "$loop"
	traced loop.disk "$disk" sh -c "$loop"
	if [ -n "$bash" ]; then
		t bash.none "$bash" -c "$loop"
		traced bash.shm /dev/shm "$bash" -c "$loop"
		traced bash.disk "$disk" "$bash" -c "$loop"
	fi
	t xargs.none sh -c "seq $xn | xargs -P $np -n1 /bin/true"
	traced xargs.shm /dev/shm sh -c "seq $xn | xargs -P $np -n1 /bin/true"
	t thr.none "$here/threads" short "$short"
	traced thr.disk "$disk" "$here/threads" short "$short"
	traced thr.shm /dev/shm "$here/threads" short "$short"
	many loop.many /dev/shm -l many sh -c "$loop"
	many thr.many /dev/shm -l many "$here/threads" short "$short"
	t live.none "$here/threads" live "$live"
	traced live.shm /dev/shm "$here/threads" live "$live"
	t lock.none "$here/sync_lock"
	traced lock.shm /dev/shm "$here/sync_lock"
	t lockt.none "$here/sync_lock" 0 "$lockt"
	traced lockt.shm /dev/shm "$here/sync_lock" 0 "$lockt"
	floor loop.floor.shm /dev/shm procs "$procs"
	floor loop.floor.disk "$disk" procs "$procs"
	floor live.floor /dev/shm threads "$live"
done
# Last, so that its deletions slow no other row down.
if [ -n "$bash" ]; then
	for i in $(seq "$reps"); do
		traced_after_delete bash.disk.del "$disk" "$bash" -c "$loop"
	done
fi
med() { # NAME [COLUMN]: 1 wall, 2 CPU, 3 page faults
	sort -n -k"${2:-1}" "$res/$1" | awk -v c="${2:-1}" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
ratio() { echo "$1 $2" | awk '{ print $1 / $2 }'; }
sumratio() { echo "$1 $2" | awk '{ print ($1 + $2) / $2 }'; }
floorrow() { # LABEL NAME BASE: NAME's cost added to BASE's
	m=$(med "$2") b=$(med "$3") mc=$(med "$2" 2) bc=$(med "$3" 2) mf=$(med "$2" 3) bf=$(med "$3" 3)
	printf '%-58s %8.3f s %6.2fx   cpu %8.3f s %6.2fx   faults %8d %6.2fx\n' "$1" "$m" "$(sumratio "$m" "$b")" \
		"$mc" "$(sumratio "$mc" "$bc")" "$mf" "$(sumratio "$mf" "$bf")"
}
row() { # LABEL NAME BASE
	m=$(med "$2") b=$(med "$3") mc=$(med "$2" 2) bc=$(med "$3" 2) mf=$(med "$2" 3) bf=$(med "$3" 3)
	printf '%-58s %8.3f s %6.2fx   cpu %8.3f s %6.2fx   faults %8d %6.2fx\n' "$1" "$m" "$(ratio "$m" "$b")" \
		"$mc" "$(ratio "$mc" "$bc")" "$mf" "$(ratio "$mf" "$bf")"
	if [ -f "$res/$2.vs" ]; then
		m=$(med "$2.vs") mc=$(med "$2.vs" 2) mf=$(med "$2.vs" 3)
		printf '%-58s %8.3f s %6.2fx   cpu %8.3f s %6.2fx   faults %8d %6.2fx\n' "    the same with $VS" "$m" \
			"$(ratio "$m" "$b")" "$mc" "$(ratio "$mc" "$bc")" "$mf" "$(ratio "$mf" "$bf")"
		paired "$2" "$b" "$bc"
	fi
}
# paired NAME BASE_WALL BASE_CPU: this tree against VS round by round (line
# i of each file is round i): the median of the differences, in units of
# the untraced row.  Separate medians of a few runs move with the VM's
# drift from one batch of runs to the next; the difference within a
# round does not (bench/ab.sh does the same for the loop alone).
paired() {
	paste -d ' ' "$res/$1" "$res/$1.vs" | awk -v bw="$2" -v bc="$3" '
	function med(v, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t } return v[int((k + 1) / 2)] }
	NF == 6 { n++; w[n] = $1 - $4; c[n] = $2 - $5 }
	END { if (n) printf "%-58s %+8.3fx wall, %+8.3fx cpu (median of %d rounds)\n", "      this tree - the other, paired by round", med(w, n) / bw, med(c, n) / bc, n }'
}
echo "== cost.sh on $(uname -n), $np cores, $(date +%F), median of $reps"
row "loop of $procs /bin/true, untraced" loop.none loop.none
row "  empty preloaded library" loop.empty loop.none
row "  agent disabled (OVNI_DISABLE=1)" loop.disabled loop.none
# The disabled agent against the empty library, round by round (both ran
# in each round): what the agent adds to the floor of any preloaded one.
paste -d ' ' "$res/loop.disabled" "$res/loop.empty" | awk -v n="$procs" -v b="$(med loop.none)" '
	function med(v, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t } return v[int((k + 1) / 2)] }
	NF == 6 { k++; w[k] = $1 - $4; c[k] = $2 - $5 }
	END { if (k) printf "%-58s %+8.1f us wall, %+8.1f us cpu a command (%+.3fx; median of %d rounds)\n", "      disabled - empty library, paired by round", med(w, k) / n * 1e6, med(c, k) / n * 1e6, med(w, k) / b, k }'
row "  traced, trace on /dev/shm" loop.shm loop.none
row "  traced, trace on $disk ($(stat -f -c %T "$disk"))" loop.disk loop.none
row "  traced on /dev/shm, a loom of $manycpus CPUs" loop.many loop.none
floorrow "  the format's floor: its files alone, on /dev/shm" loop.floor.shm loop.none
floorrow "  the format's floor, on $disk" loop.floor.disk loop.none
if [ -n "$bash" ]; then
	row "the same loop in bash (fork + exec), untraced" bash.none bash.none
	row "  traced, trace on /dev/shm" bash.shm bash.none
	row "  traced, trace on $disk ($(stat -f -c %T "$disk"))" bash.disk bash.none
	row "    right after deleting the previous run's trace" bash.disk.del bash.none
fi
row "seq $xn | xargs -P $np -n1 /bin/true, untraced" xargs.none xargs.none
row "  traced, trace on /dev/shm" xargs.shm xargs.none
row "$short short threads one at a time, untraced" thr.none thr.none
row "  traced, trace on $disk" thr.disk thr.none
row "  traced, trace on /dev/shm" thr.shm thr.none
row "  the same, a loom of $manycpus CPUs" thr.many thr.none
row "$live threads started (all alive at once), then ended, untraced" live.none live.none
row "  traced, trace on /dev/shm" live.shm live.none
floorrow "  the format's floor: its files alone, on /dev/shm" live.floor live.none
row "sync_lock (mutex, uncontended and 2 threads), untraced" lock.none lock.none
row "  traced, trace on /dev/shm" lock.shm lock.none
row "$lockt threads x 200000 lock/inc/unlock, one mutex, untraced" lockt.none lockt.none
row "  traced, trace on /dev/shm" lockt.shm lockt.none
