#!/bin/sh
# ab.sh: two built trees of ovni-auto, paired: each round runs a loop of N
# `/bin/true` (from SHELL, traced by each tree's ovnirun into a fresh
# directory under DIR, deleted after) once with each tree, the order
# alternating, and the result is the median of the per-round differences
# (B - A, per command) next to each tree's median.  On a shared VM whose
# speed drifts from one batch of runs to the next, differences taken
# inside a round resolve what separate medians (cost.sh) do not: an A/A
# run (the same tree twice) shows the method's own noise.
# Usage: sh bench/ab.sh TREE_A TREE_B      (each a built checkout)
# Environment: ROUNDS (41), N (200), SHELL_CMD (sh; bash for fork + exec),
# DIR (/dev/shm), MODE (ovnirun; preload: LD_PRELOAD and OVNI_TRACEDIR
# alone; disabled: LD_PRELOAD with OVNI_DISABLE=1).
here=$(cd "$(dirname "$0")" && pwd)
[ $# = 2 ] || { echo "usage: sh bench/ab.sh TREE_A TREE_B" >&2; exit 2; }
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd)
for t in "$a" "$b"; do
	[ -x "$t/build/bin/ovnirun" ] && [ -f "$t/build/lib/libovni-auto.so" ] || { echo "$t: not built" >&2; exit 1; }
done
rounds=${ROUNDS:-41} n=${N:-200} sh_cmd=${SHELL_CMD:-sh} dir=${DIR:-/dev/shm} mode=${MODE:-ovnirun}
[ "$here/runt" -nt "$here/runt.c" ] || ${CC:-cc} -O2 -o "$here/runt" "$here/runt.c" || exit 1
loop="for i in \$(seq $n); do /bin/true; done"
res=$(mktemp)
trap 'rm -f "$res"' EXIT
one() { # TREE: wall cpu faults of one run
	w=$(mktemp -d "$dir/.oa-ab.XXXXXX")
	case $mode in
	preload) OVNI_TRACEDIR="$w/t" LD_PRELOAD="$1/build/lib/libovni-auto.so" "$here/runt" "$sh_cmd" -c "$loop" ;;
	disabled) OVNI_DISABLE=1 LD_PRELOAD="$1/build/lib/libovni-auto.so" "$here/runt" "$sh_cmd" -c "$loop" ;;
	*) "$here/runt" "$1/build/bin/ovnirun" -q -o "$w/t" "$sh_cmd" -c "$loop" ;;
	esac 2>/dev/null | tail -n 1
	rm -rf "$w"
}
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 0 ]; then x=$(one "$a"); y=$(one "$b"); else y=$(one "$b"); x=$(one "$a"); fi
	echo "$x $y" >>"$res"
done
echo "== ab.sh on $(uname -n), $(nproc) cores, $(date +%F): $sh_cmd loop of $n /bin/true, $mode, $dir, $rounds rounds"
echo "A = $a ($(git -C "$a" log -1 --format=%h 2>/dev/null))"
echo "B = $b ($(git -C "$b" log -1 --format=%h 2>/dev/null))"
awk -v n="$n" '
function med(v, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t } return v[int((k + 1) / 2)] }
{ wa[NR] = $1; ca[NR] = $2; fa[NR] = $3; wb[NR] = $4; cb[NR] = $5; fb[NR] = $6; dw[NR] = $4 - $1; dc[NR] = $5 - $2 }
END {
	k = NR
	printf "A: wall %.4f s  cpu %.4f s  faults %d\n", med(wa, k), med(ca, k), med(fa, k)
	printf "B: wall %.4f s  cpu %.4f s  faults %d\n", med(wb, k), med(cb, k), med(fb, k)
	printf "B - A per command (median of the rounds): wall %+.1f us, cpu %+.1f us\n", med(dw, k) * 1e6 / n, med(dc, k) * 1e6 / n
}' "$res"
