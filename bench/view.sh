#!/bin/sh
# view.sh: what `ovni-auto view` costs on a large trace (issue 34): a
# generated trace of EVENTS (10 million) events on 4 threads (bench/gentrace),
# the time and peak memory of `ovni-auto view`, the size of the page, and in
# headless Chromium the time to its first paint (the overview) and to the
# full detail, and the time of one frame at three zoom levels, median of
# REPS (5) page loads.  The goal: a page of at most
# ~50 MB, first paint within 2 s.
# Usage: sh bench/view.sh      (after make; needs chromium)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
oa="$top/build/bin/ovni-auto"
events=${EVENTS:-10000000}
reps=${REPS:-5}
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome) || {
	echo "view.sh: no chromium" >&2
	exit 1
}
[ -x "$oa" ] || { echo "build first: make" >&2; exit 1; }
make -s -C "$here" gentrace >/dev/null || exit 1
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
echo "== view.sh on $(uname -n), $(nproc) cores, $(date +%F), $events events, median of $reps loads"
/usr/bin/time -f "%e" -o "$w/gen.t" "$here/gentrace" "$w/t" "$events" 4 || exit 1
echo "gentrace: $(cat "$w/gen.t") s, $(du -sm "$w/t" | cut -f1) MB of trace"
/usr/bin/time -f "%e s, %M KB peak" -o "$w/view.t" "$oa" view -o "$w/v.html" "$w/t" || exit 1
echo "ovni-auto view: $(cat "$w/view.t"); $(stat -c %s "$w/v.html" | awk '{ printf "%.1f MB", $1 / 1e6 }') page"
for i in $(seq "$reps"); do
	"$chrome" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$w/chrome" \
		--window-size=1200,800 --virtual-time-budget=60000 --dump-dom "file://$w/v.html#selftest" 2>/dev/null |
		sed -n 's/.*<pre id="oa-selftest"[^>]*>\([^<]*\)<\/pre>.*/\1/p' |
		python3 -c 'import json,sys; d=json.load(sys.stdin); z=d["zoom"]; print(round(d["firstPaintMs"]), round(d["readyMs"]), len(d["errors"]), round(z["fullMs"], 1), round(z["halfMs"], 1), round(z["deepMs"], 1))' >>"$w/loads"
done
sort -n "$w/loads" | awk '{ p[NR] = $1; r[NR] = $2; e += $3; f[NR] = $4; h[NR] = $5; d[NR] = $6 } END { m = int((NR + 1) / 2); printf "first paint: %d ms (median; %d-%d), full detail: %d ms; script errors: %d\n", p[m], p[1], p[NR], r[m], e; printf "one frame (the load of median first paint): whole trace %.1f ms, half of it %.1f ms, 1/10000 of it %.1f ms\n", f[m], h[m], d[m] }'
