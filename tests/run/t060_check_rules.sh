# ovni-auto check: a valid hand-made trace passes; each mutation that breaks
# one rule of the emulator is reported with its wording, and check exits 1.
. "$(dirname "$0")/../lib.sh"
MK="$PROG/mktrace"

meta() { trace_meta "$1" ''; }

spec() {
	cat <<EOS
stream loom.node0/proc.1/thread.1 $(meta 1)
ev OHx 1000 i32:0 i32:-1 u64:0
ev OHC 1100 i32:0 u64:7
ev OM[ 1200 i64:1 i32:5
ev OM] 1300 i64:1 i32:5
ev OM= 1310 i64:3 i32:6
ev jumbo POc 1400 u32:1 str:mytask
ev PPc 1500 u32:1 u32:1
ev PBb 1700
ev PBB 1800
ev OF[ 1850
ev OF] 1860
ev OHe 3000
stream loom.node0/proc.1/thread.2 $(meta 2)
ev OHx 1150 i32:1 i32:1 u64:7
ev PT[ 1450
ev PPx 2000 u32:1
ev PQx 2100 u32:1
ev PQe 2200 u32:1
ev PPe 2300 u32:1
ev PT] 2400
ev OHe 2500
EOS
}

n=0
# expect NAME SED-SCRIPT REGEX: the mutated trace fails check with REGEX.
expect() {
	n=$((n + 1))
	d="$WORK/case$n"
	spec | sed "$2" | "$MK" "$d" || fail "$1: mktrace"
	"$OA" check "$d" >"$WORK/out" 2>&1 && { cat "$WORK/out"; fail "$1: check accepted a broken trace"; }
	grep -q -- "$3" "$WORK/out" || { cat "$WORK/out"; fail "$1: no '$3' in the report"; }
	grep -q "offset\|trace:\|thread\." "$WORK/out" || fail "$1: the report names no stream"
}

spec | "$MK" "$WORK/valid" || fail "mktrace"
"$OA" check "$WORK/valid" >"$WORK/out" || { cat "$WORK/out"; fail "the valid trace was rejected"; }
grep -q "ok: 2 streams, 20 events" "$WORK/out" || fail "summary: $(cat "$WORK/out")"
check_trace "$WORK/valid"

T1='/thread\.1 /'
T2='/thread\.2 /'
expect "finished 0" "${T1}s/\"finished\":1/\"finished\":0/" "missing ovni.finished"
expect "no version" "${T1}s/\"version\":3,//" 'missing attribute "version"'
expect "version 2" "${T1}s/\"version\":3/\"version\":2/" "metadata version mismatch 2"
expect "no require" 's/"require":{"ovni":"1.1.0","openmp":"1.2.1"},//' "missing 'ovni.require'"
expect "no lib" "${T2}s/\"lib\":{\"version\":\"t\",\"commit\":\"t\"},//" "missing ovni.lib.version"
expect "no tid" "${T2}s/\"tid\":2,//" "ovni.tid"
expect "app id conflict" "${T2}s/\"app_id\":1/\"app_id\":2/" "mismatch previous appid"
expect "app id 0" 's/"app_id":1/"app_id":0/' "appid must be >0"
expect "cpu index gap" 's/{"index":1,"phyid":1}/{"index":2,"phyid":1}/' "index 1 missing"
expect "cpu index mismatch" "${T2}s/{\"index\":0,\"phyid\":0},{\"index\":1,\"phyid\":1}/{\"index\":0,\"phyid\":1}/" "mismatch index in existing cpu"
expect "empty cpus" "${T2}s/\"loom_cpus\":\[[^]]*\]/\"loom_cpus\":[]/" "empty 'cpus' array"
expect "no cpus at all" 's/"loom_cpus":\[[^]]*\],//' "has no physical CPUs"
expect "bad magic" '/^ev OHx 1000/i header 6f766e5801000000' "wrong stream magic"
expect "stream version" '/^ev OHx 1000/i header 6f766e6902000000' "stream version mismatch 2"
expect "torn tail" '/^ev OHe 3000/a raw 0011223344' "incomplete event"
expect "clock backwards" 's/^ev OHe 3000/ev OHe 1855/' "clock goes backwards"
expect "OHx twice" '/^ev OF\] 1860/a ev OHx 1900 i32:-1 i32:-1 u64:0' "already Running"
expect "event before OHx" '/^ev OHx 1150/i ev PT[ 1140' "not running"
expect "not dead" '/^ev OHe 2500/d' "is not dead"
expect "two threads on one CPU" 's/^ev OHx 1150 i32:1/ev OHx 1150 i32:0/' "2 threads running"
expect "cpu out of range" 's/^ev OHx 1150 i32:1/ev OHx 1150 i32:5/' "cannot find CPU with index 5"
expect "remote move to the CPU it is on" '/^ev OF\] 1860/a ev OAr 1870 i32:1 i32:2' "thread 2 is already on CPU 1"
expect "OAs on a dead thread" '/^ev OHe 3000/a ev OAs 3100 i32:1' "is Dead"
expect "undeclared mark type" 's/^ev OM\[ 1200 i64:1 i32:5/ev OM[ 1200 i64:1 i32:9/' "cannot find mark with type 9"
expect "mark pop mismatch" 's/^ev OM\] 1300 i64:1/ev OM] 1300 i64:2/' "does not match the top"
expect "push on a single channel" 's/^ev OM\[ 1200 i64:1 i32:5/ev OM[ 1200 i64:1 i32:6/' "non-stack channel"
expect "mark value 0" 's/^ev OM= 1310 i64:3/ev OM= 1310 i64:0/' "value 0"
expect "mark title conflict" "${T2}s/\"title\":\"Phase\"/\"title\":\"Other\"/" "already registered"
expect "mark label conflict" "${T2}s/\"labels\":{\"1\":\"one\"}/\"labels\":{\"1\":\"uno\"}/" "already defined with label"
expect "mark type 100" "${T2}s/\"6\":{\"title\"/\"100\":{\"title\"/" "\[0, 100) range"
expect "rank without nranks" "${T2}s/\"app_id\":1,/\"app_id\":1,\"rank\":0,/" "missing ovni.nranks"
expect "openmp not required" 's/,"openmp":"1.2.1"//' "model openmp not enabled"
expect "openmp too new" 's/"openmp":"1.2.1"/"openmp":"1.3.0"/' "unsupported openmp model version"
expect "POc not jumbo" 's/^ev jumbo POc 1400 u32:1 str:mytask/ev POc 1400 u32:1 u32:0/' "expecting a jumbo event"
expect "type twice" '/^ev PPc 1500/i ev jumbo POc 1450 u32:1 str:again' "a task type with id 1 already exists"
expect "unknown type" 's/^ev PPc 1500 u32:1 u32:1/ev PPc 1500 u32:1 u32:9/' "unknown type id 9"
expect "task twice" '/^ev PPc 1500/a ev PPc 1510 u32:1 u32:1' "task_id 1 already exists"
expect "unknown task" 's/^ev PPx 2000 u32:1/ev PPx 2000 u32:4/' "cannot find task with id 4"
expect "PPe on another thread" '/^ev OF\] 1860/a ev PPe 2250 u32:1' "another stack"
expect "PPe not on top" '/^ev PPc 1500/a ev PPc 1510 u32:2 u32:1
/^ev PPx 2000/a ev PPx 2050 u32:2' "not on top of the stack"
expect "subsystem open at the end" '/^ev PT\] 2400/d' "ended with 1 stacked openmp functions"
expect "subsystem mismatch" 's/^ev PT\] 2400/ev PBB 2400/' "does not close the top"
expect "unknown ws type" 's/^ev PQx 2100 u32:1/ev PQx 2100 u32:2/' "cannot find ws with type 2"
expect "PPx tie with PPc" 's/^ev PPx 2000/ev PPx 1500/' "same clock as its PPc"
expect "OHx tie with OHC" 's/^ev OHx 1150/ev OHx 1100/' "same clock as the OHC"
expect "flush twice" '/^ev OF\[ 1850/a ev OF[ 1855' "while flushing"
expect "unknown ovni event" '/^ev OF\] 1860/a ev OZz 1870' "unknown ovni event OZz"
expect "unknown model" '/^ev OF\] 1860/a ev Zab 1870' "unknown model"
expect "duplicate tid" "${T2}s/\"tid\":2,/\"tid\":1,/" "thread with tid 1 already exists"
expect "clock gate" '$a stream loom.node0/proc.1/thread.3 '"$(meta 3)"'\
ev OHx 7300000001000 i32:-1 i32:-1 u64:0\
ev OHe 7300000002000' "starting clock too far"
expect "zero events" '$a stream loom.node0/proc.1/thread.3 '"$(meta 3)" "zero events"
expect "event of an unknown part" '$a stream loom.node0/proc.1/thread.3 {"version":3,"ovni":{"part":"other"}}\
ev OHx 1000 i32:-1 i32:-1 u64:0' "unknown stream"
# Several processes and looms: valid, then a loom without CPUs.
other() { meta "$1" | sed "s/\"pid\":1/\"pid\":$2/; s/\"loom\":\"node0\"/\"loom\":\"$3\"/"; }
spec_more() {
	spec
	echo "stream loom.node0/proc.2/thread.20 $(other 20 2 node0)"
	echo "ev OHx 1600 i32:-1 i32:-1 u64:0"
	echo "ev OHe 1700"
	echo "stream loom.node1/proc.3/thread.30 $(other 30 3 node1)"
	echo "ev OHx 1600 i32:0 i32:-1 u64:0"
	echo "ev OHe 1700"
}
spec_more | "$MK" "$WORK/more" || fail "mktrace"
"$OA" check "$WORK/more" >"$WORK/out" || { cat "$WORK/out"; fail "several processes and looms rejected"; }
grep -q "ok: 4 streams" "$WORK/out" || fail "summary with 4 streams"
check_trace "$WORK/more"
n=$((n + 1))
spec_more | sed '/thread\.30 /s/"loom_cpus":\[[^]]*\],//' | "$MK" "$WORK/more2"
"$OA" check "$WORK/more2" >"$WORK/out" 2>&1 && fail "a loom without CPUs was accepted"
grep -q "loom node1 has no physical CPUs" "$WORK/out" || fail "loom without CPUs: $(cat "$WORK/out")"
info "$n broken traces, each reported"
assert_ge "cases" 45 $n
