# ovni-auto view and ovnirun --view, checked in a real browser (Debian's
# chromium, headless): the page loads with no script error, has one row per
# thread, shows the known state at known times (a hand-made trace, exact; a
# thread blocked in pthread_join for the known interval), zooms, and its
# screenshot has the state's colour where the page says the state is drawn.
# Then OpenMP states and task types, processes in tree order with their
# marks, and a generated trace of 10 million events (size and first paint).
. "$(dirname "$0")/../lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome) ||
	skip "no chromium to test the page in (scripts/deps.sh installs it)"

# browse URL OUT [BUDGET_MS]: the DOM after the page's scripts ran (OUT), and
# chromium's log (OUT.err) with the page's console messages.
browse() {
	timeout 300 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$WORK/chrome" \
		--window-size=1200,800 --virtual-time-budget="${3:-10000}" --enable-logging=stderr --v=0 \
		--dump-dom "$1" >"$2" 2>"$2.err" || fail "chromium could not load $1 (see $2.err)"
	if grep -E 'CONSOLE.*(Uncaught|Error)' "$2.err"; then fail "script errors in $1"; fi
	sed -n 's/.*<pre id="oa-selftest"[^>]*>\([^<]*\)<\/pre>.*/\1/p' "$2" | sed 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g' >"$2.json"
	[ -s "$2.json" ] || fail "the page wrote no self-test facts ($1)"
}
# fact FILE.json PYTHON-EXPRESSION: evaluate it on the facts (d)
fact() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

info "a hand-made trace: exact states at known times"
sample_trace "$WORK/s"
"$OA" view -o "$WORK/s.html" "$WORK/s" >"$WORK/view.out" || fail "view failed"
grep -q "s.html (2 threads" "$WORK/view.out" || fail "view said: $(cat "$WORK/view.out")"
# t0 is the first event (1000): thread 1 is in a barrier 700-800, flushing
# 850-860, paused 1000-1600; thread 2 runs task 1 (type mytask) from 1000,
# with the worksharing type inside 1100-1200.
browse "file://$WORK/s.html#selftest&probe=0:100,0:750,0:855,0:1300,0:1700,1:500,1:1050,1:1150,1:1350" "$WORK/s.dom"
assert_eq "errors" "[]" "$(fact "$WORK/s.dom.json" "d['errors']")"
assert_eq "rows" "[1, 2]" "$(fact "$WORK/s.dom.json" "[r['tid'] for r in d['rows']]")"
assert_eq "states at known times" \
	"['Running', 'OpenMP barrier: plain', 'agent: flush', 'Paused', 'Running', 'OpenMP task: running', 'task mytask', 'mytask', 'OpenMP task: running']" \
	"$(fact "$WORK/s.dom.json" "[p['state'] for p in d['probes']]")"
assert_eq "zoom" "True" "$(fact "$WORK/s.dom.json" "d['zoom']['drew'] and d['zoom']['after'] != d['zoom']['before'] and d['zoom']['after'][1] - d['zoom']['after'][0] < d['zoom']['before'][1] - d['zoom']['before'][0]")"

info "a program under ovnirun --view: a thread blocked in pthread_join"
SYNC_JOIN_NS=1 "$OVNIRUN" --view -o "$WORK/j" "$PROG/sync" join >"$WORK/j.out" 2>"$WORK/j.err" || fail "ovnirun failed: $(cat "$WORK/j.err")"
grep -q "ovnirun: timeline in $WORK/j/view.html" "$WORK/j.err" || fail "ovnirun said: $(cat "$WORK/j.err")"
check_trace "$WORK/j"
browse "file://$WORK/j/view.html#selftest" "$WORK/j.dom"
assert_eq "errors" "[]" "$(fact "$WORK/j.dom.json" "d['errors']")"
assert_eq "one row per thread stream" "$(streams "$WORK/j")" "$(fact "$WORK/j.dom.json" "len(d['rows'])")"
main=$(fact "$WORK/j.dom.json" "[i for i, r in enumerate(d['rows']) if r['tid'] == r['pid']][0]")
# The napper sleeps 50 ms (tests/prog/sync.c); the join lasts what the
# program measured around it (less when the main thread came late to it:
# 44 ms once, with two suites at once on 2 cores).
ms=$(fact "$WORK/j.dom.json" "round(max(b[3] - b[2] for b in d['blocked'] if b[0] == $main and b[1] == 'blocked: join') / 1e6)")
want=$(awk '$1 == "join_ns" { printf "%d", $2 / 1e6 }' "$WORK/j.err")
[ -n "$want" ] && [ "$want" -ge 1 ] || fail "the program measured no join: $(cat "$WORK/j.err")"
[ "$ms" -ge $((want - 3)) ] && [ "$ms" -le $((want + 3)) ] && [ "$ms" -le 2000 ] ||
	fail "the join lasted $ms ms on the timeline, $want ms in the program"
probe=$(fact "$WORK/j.dom.json" "d['probe']['state'] == d['probe']['at']")
assert_eq "the probe's state is drawn where the page says" True "$probe"

info "its screenshot has that state's colour there"
timeout 300 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$WORK/chrome" \
	--window-size=1200,800 --virtual-time-budget=10000 --screenshot="$WORK/j.png" "file://$WORK/j/view.html" \
	>/dev/null 2>&1 || fail "no screenshot"
python3 - "$WORK/j.png" "$WORK/j.dom.json" <<'EOF' || fail "the screenshot does not show the state"
import json, struct, sys, zlib
png = open(sys.argv[1], 'rb').read()
assert png[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat, w = 8, b'', 0
while pos < len(png):
    n, kind = struct.unpack('>I4s', png[pos:pos + 8])
    body = png[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line); prev = line
d = json.load(open(sys.argv[2]))
p = d['probe']
x, y = int(p['px']['x']), int(p['px']['y'])
want = tuple(int(p['colour'][k:k + 2], 16) for k in (1, 3, 5))
got = tuple(rows[y][x * bpp:x * bpp + 3])
print('pixel', x, y, 'is', got, 'want', want, p['state'])
assert all(abs(g - v) <= 6 for g, v in zip(got, want)), 'colour differs'
# and the label column is not that colour (the check can fail)
got = tuple(rows[y][5 * bpp:5 * bpp + 3])
assert any(abs(g - v) > 30 for g, v in zip(got, want)), 'the label column has the colour too'
EOF

info "OpenMP: runtime states and task types"
if [ -x "$PROG/clang_omp_tasks" ]; then
	OMP_NUM_THREADS=2 "$OVNIRUN" -q -o "$WORK/o" "$PROG/clang_omp_tasks" >/dev/null 2>&1 || fail "omp program failed"
	"$OA" view -q "$WORK/o" || fail "view of the OpenMP trace"
	browse "file://$WORK/o/view.html#selftest" "$WORK/o.dom"
	assert_eq "errors" "[]" "$(fact "$WORK/o.dom.json" "d['errors']")"
	assert_eq "rows" "$(streams "$WORK/o")" "$(fact "$WORK/o.dom.json" "len(d['rows'])")"
	assert_eq "task and OpenMP states" "True True" \
		"$(fact "$WORK/o.dom.json" "' '.join(str(any(s.startswith(k) for s in d['states'])) for k in ('task ', 'OpenMP '))")"
fi

info "MPI: the calls of each rank"
if command -v mpicc.openmpi >/dev/null 2>&1; then
	. "$OA_TOP/tests/mpi/lib_mpi.sh"
	mpi_impl openmpi
	mpi_build mpi_calls
	"$OVNIRUN" --view -q -o "$WORK/m" $MPIRUN -np 4 "$WORK/openmpi/mpi_calls" >/dev/null 2>&1 || fail "MPI run failed"
	browse "file://$WORK/m/view.html#selftest" "$WORK/m.dom"
	assert_eq "errors" "[]" "$(fact "$WORK/m.dom.json" "d['errors']")"
	# tests/mpi/mpi_calls.c: each rank sends 10 messages with MPI_Send
	assert_eq "MPI_Send calls per rank" "[(0, 10), (1, 10), (2, 10), (3, 10)]" \
		"$(fact "$WORK/m.dom.json" "sorted((m[0], m[2]) for m in d['mpi'] if m[1] == 'MPI_Send')")"
fi

info "processes: one header each, marks for fork, exec and exit"
"$OVNIRUN" -q -o "$WORK/p" sh -c '/bin/true; sleep 0.01 & wait' >/dev/null 2>&1 || fail "sh failed"
"$OA" view -q "$WORK/p" || fail "view of the processes"
browse "file://$WORK/p/view.html#selftest" "$WORK/p.dom"
assert_eq "processes" "$(find "$WORK/p" -maxdepth 2 -name 'proc.*' | wc -l)" "$(fact "$WORK/p.dom.json" "len(set(r['pid'] for r in d['rows']))")"
assert_eq "marks" "True True True" "$(fact "$WORK/p.dom.json" "' '.join(str(any(t.startswith(k) for m in d['marks'] for t in m)) for k in ('fork', 'exec /', 'exit status 0'))")"

info "errors: no trace, and the page to standard output"
"$OA" view "$WORK/none" 2>"$WORK/err" && fail "view of nothing succeeded"
grep -q "not a trace directory" "$WORK/err" || fail "unclear: $(cat "$WORK/err")"
"$OA" view -o - "$WORK/s" | grep -q '<title>s - ovni-auto view</title>' || fail "-o - wrote no page"

info "10 million events: the file stays small and the page opens"
make -s -C "$OA_TOP/bench" gentrace >/dev/null || fail "cannot build bench/gentrace"
"$OA_TOP/bench/gentrace" "$WORK/big" 10000000 4 || fail "gentrace"
"$OA" view -o "$WORK/big.html" "$WORK/big" >"$WORK/big.out" || fail "view of the big trace"
size=$(stat -c %s "$WORK/big.html")
info "$(cat "$WORK/big.out")"
[ "$size" -le 50000000 ] || fail "the page of 10 million events has $size bytes (at most 50 MB)"
rm -rf "$WORK/big"
browse "file://$WORK/big.html#selftest" "$WORK/big.dom" 60000
assert_eq "errors" "[]" "$(fact "$WORK/big.dom.json" "d['errors']")"
assert_eq "rows" 4 "$(fact "$WORK/big.dom.json" "len(d['rows'])")"
info "first paint after $(fact "$WORK/big.dom.json" "round(d['firstPaintMs'])") ms, detail after $(fact "$WORK/big.dom.json" "round(d['readyMs'])") ms (bench/view.sh measures it)"
exit 0
