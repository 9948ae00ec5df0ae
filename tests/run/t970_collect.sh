# The TCP collector on one host (the three-host case is t975):
#  1. a shell script with pipelines, forks and execs, and Python, under
#     `ovnirun --collect`: the same output and exit status as untraced, one
#     valid trace in the collector's directory, nothing left in the local
#     staging directory, and the collector ends by itself;
#  2. clients that send garbage, a wrong proof of the secret, path tricks in the loom or
#     stream names, an oversized frame, or hang up in the middle of a file:
#     each is dropped, nothing is written outside the trace directory, and a
#     traced run afterwards is collected whole;
#  3. SIGTERM to the collector in the middle of a run: a valid trace of what
#     had arrived, the running process marked as not finished, the program
#     unaffected, one message from the agents, and the streams kept locally;
#  4. a collector nobody listens for: the program runs as untraced with one
#     message, and its trace stays in the local directory;
#  5. --clocks-only: the streams go to the shared directory, the collector
#     writes clock-offsets.txt there; --status reports the progress;
#  6. --fail-stop with a program that closes every descriptor (Python's
#     os.closerange, as daemons do) and sleeps: its agent's watch connection
#     is made again, so the collector does not take it for a process that
#     vanished (which would stop the run); it also ends a child with
#     SIGTERM, which is reported but is not a crash (no stop);
#  7. a traced process that execs a program the agent does not trace: the
#     streams of the image before the exec are sent, not left behind.
#  8. a "collector" that never finishes the handshake (one byte every 0.5 s)
#     and one that knows the secret but sends clock PINGs for ever: the
#     traced program ends on time with its output, one message each; and a
#     listener that does not know the secret never sees it.
#  9. an output directory that holds files is refused without -f; with -f a
#     hard link planted at the summary's temporary name is not written through.
#  Case 2 also has a size that would wrap the byte count and a process that
#  never answers the clock pings (it must not hold the others up).
. "$(dirname "$0")/../lib.sh"
# From a directory of its own: a process that would write the default
# trace directory (./ovni) writes it here, afresh every run (the job's
# bash root did until its environment was read past bash's own getenv).
cd "$WORK" || fail "cd"

collector() { # TRACE [OPTIONS]: sets COLPID and the contact file
	rm -f "$WORK/contact"
	t=$1; shift
	"$OA" collect -o "$t" -l 127.0.0.1:0 -c "$WORK/contact" --grace 20 "$@" >"$WORK/col.out" 2>"$WORK/col.err" &
	COLPID=$!
	for i in $(seq 100); do [ -s "$WORK/contact" ] && break; sleep 0.05; done
	[ -s "$WORK/contact" ] || { cat "$WORK/col.err"; fail "collector did not start"; }
	assert_eq "contact file mode" 600 "$(stat -c %a "$WORK/contact")"
	assert_eq "contact printed" "$(cat "$WORK/contact")" "$(cat "$WORK/col.out")"
}
wait_collector() {
	for i in $(seq 300); do kill -0 $COLPID 2>/dev/null || break; sleep 0.1; done
	kill -0 $COLPID 2>/dev/null && { cat "$WORK/col.err"; fail "collector did not end by itself"; }
	wait $COLPID || fail "collector exit status"
}
export TMPDIR="$WORK/stage"
mkdir -p "$TMPDIR"

# ---- 1 ----
cat >"$WORK/job.sh" <<'EOF'
#!/bin/bash
seq 1 2000 | sort -r | head -n 3
for i in 1 2 3; do (echo "sub $i"; /bin/true) | cat; done
x=$(python3 -c 'import os, sys; print(sum(range(1000))); sys.stdout.flush(); os.system("echo from-system")')
echo "python said $x"
printf 'abc\n' | gzip | gunzip
exit 3
EOF
chmod +x "$WORK/job.sh"
plain=$("$WORK/job.sh" 2>&1); prc=$?
collector "$WORK/t1"
traced=$("$OVNIRUN" -q --collect "@$WORK/contact" "$WORK/job.sh" 2>&1); trc=$?
assert_eq "exit status" "$prc" "$trc"
assert_eq "output" "$plain" "$traced"
wait_collector
cat "$WORK/col.err"
check_trace "$WORK/t1"
assert_ge "processes" 8 "$(ls -d "$WORK"/t1/loom.*/proc.* | wc -l)"
# The job's root is a bash script: it is in the collector's trace too (bash
# defines getenv and setenv; the agent's reads once went through them).
grep -rq '"exit status 3"' "$WORK"/t1/loom.*/proc.*/thread.*/stream.json || fail "the job's bash root is not in the collector's trace"
[ -e "$WORK/ovni" ] && fail "a process wrote ./ovni instead of the collector's run"
grep -q "did not finish" "$WORK/t1/collect.txt" && { cat "$WORK/t1/collect.txt"; fail "a process did not finish"; }
assert_eq "offsets file lines" 2 "$(wc -l <"$WORK/t1/clock-offsets.txt")"
assert_eq "streams left locally" 0 "$(find "$TMPDIR" -name 'stream.*' | wc -l)"
[ -e "$WORK/t1/.incoming" ] && fail ".incoming left"
"$OA" collect --status "$WORK/t1" | grep -q "state done" || fail "--status after the end"

# ---- 2 ----
collector "$WORK/t2"
python3 - "$(cat "$WORK/contact")" "$WORK" <<'EOF' || fail "abuse client"
import os, socket, struct, sys, time
host, port, run, secret = sys.argv[1].rsplit(":", 3)
def conn():
    s = socket.create_connection((host, int(port)))
    s.settimeout(5)
    return s
def frame(t, p):
    return t.encode() + struct.pack("<I", len(p)) + p
def closed(s):
    try:
        while True:
            d = s.recv(4096)
            if not d:
                return True
    except (ConnectionResetError, socket.timeout):
        return False
import hashlib, hmac
def recv_frame(s):
    h = s.recv(8, socket.MSG_WAITALL)
    n = struct.unpack("<I", h[4:])[0]
    return h[:4], (s.recv(n, socket.MSG_WAITALL) if n else b"")
def kv(text, key):
    for line in text.decode().split("\n"):
        if line.startswith(key + "="):
            return line[len(key) + 1:]
def proof(who, n1, n2, sec=secret):
    return hmac.new(sec.encode(), f"{who}|{n1}|{n2}".encode(), hashlib.sha256).hexdigest()
# The handshake: HELO with our nonce, the collector's AUTH checked, our PROV.
def hs(s, role, loom="evil", pid=4242, sec=secret):
    mine = os.urandom(16).hex()
    s.sendall(frame("HELO", f"run={run}\nnonce={mine}\nrole={role}\nloom={loom}\npid={pid}\nprog=x\n".encode()))
    t, body = recv_frame(s)
    assert t == b"AUTH", t
    theirs = kv(body, "nonce")
    assert kv(body, "proof") == proof("collector", mine, theirs), "the collector's proof"
    s.sendall(frame("PROV", f"proof={proof('agent', theirs, mine, sec)}\n".encode()))
def conn_hs(role, **kw):
    s = conn(); hs(s, role, **kw); return s
# A client that never proves anything learns nothing: AUTH carries no secret,
# and a HELO with the old "secret=" line and a wrong run is dropped.
s = conn(); s.sendall(frame("HELO", f"secret={secret}\nrun=00000000\nrole=fini\nnonce={'0' * 32}\n".encode()))
if not closed(s): sys.exit("wrong run: not dropped")
for name, (role, kw) in {"wrong secret": ("fini", {"sec": "0" * 32}), "loom ..": ("fini", {"loom": "../../outside"}),
                         "loom with slash": ("fini", {"loom": "a/b"})}.items():
    s = conn_hs(role, **kw)
    if not closed(s): sys.exit(f"{name}: not dropped")
cases = {
  "garbage": os.urandom(5000),
  "huge frame": b"HELO" + struct.pack("<I", 0xffffffff) + b"x" * 100,
}
for name, data in cases.items():
    s = conn(); s.sendall(data)
    if not closed(s): sys.exit(f"{name}: not dropped")
for bad in ["../../x/stream.obs", "thread.1/../../x", "thread.1/stream.obs/../x", "/etc/passwd", "thread.01/stream.obs", "thread.1/evil"]:
    s = conn_hs("fini"); assert recv_frame(s)[0] == b"WELC"
    s.sendall(frame("FILE", struct.pack("<Q", 4) + bad.encode()) + b"abcd")
    if not closed(s): sys.exit(f"file name {bad}: not dropped")
# a file announced bigger than sent, then hang up
s = conn_hs("fini", pid=4343)
s.sendall(frame("FILE", struct.pack("<Q", 100000) + b"thread.4343/stream.obs") + b"x" * 10)
time.sleep(0.2); s.close()
# a size that would wrap the byte count around: dropped at once
s = conn_hs("fini", pid=4444)
s.sendall(frame("FILE", struct.pack("<Q", 1) + b"thread.1/stream.obs") + b"x")
s.sendall(frame("FILE", struct.pack("<Q", 2**64 - 1) + b"thread.1/stream.json"))
try:
    for i in range(64):
        s.sendall(b"y" * 65536)
except (BrokenPipeError, ConnectionResetError):
    pass
if not closed(s): sys.exit("wrapped size: not dropped")
# a process that joins and never answers the clock pings holds nobody up
slow = conn_hs("join", loom="slowpoke", pid=4545)
t0 = time.time()
q = conn_hs("join", loom="quick", pid=4646)
while True:
    h = q.recv(8, socket.MSG_WAITALL)
    t, n = h[:4], struct.unpack("<I", h[4:])[0]
    body = q.recv(n, socket.MSG_WAITALL) if n else b""
    if t == b"PING":
        q.sendall(frame("PONG", struct.pack("<Q", time.monotonic_ns())))
    elif t == b"WELC":
        break
    else:
        sys.exit(f"quick join: {t}")
if time.time() - t0 > 1.5: sys.exit(f"a silent join held the collector {time.time() - t0:.1f} s")
slow.close(); q.close()
# "quick" was a process of the run: it ends (with no streams)
s = conn_hs("fini", loom="quick", pid=4646)
assert s.recv(8, socket.MSG_WAITALL)[:4] == b"WELC"
s.sendall(frame("FINI", b"how=exit\n"))
while s.recv(4096): pass
EOF
traced=$("$OVNIRUN" -q --collect "@$WORK/contact" "$WORK/job.sh" 2>&1); trc=$?
assert_eq "output after the abuse" "$plain" "$traced"
wait_collector
cat "$WORK/t2/collect.txt"
check_trace "$WORK/t2"
assert_ge "connections dropped" 12 "$(sed -n 's/.* \([0-9]*\) connections dropped.*/\1/p' "$WORK/t2/collect.txt")"
[ -e "$WORK/outside" ] || [ -e "$WORK/x" ] || [ -e "$WORK/t2/loom.evil" ] && fail "a client wrote outside its place"
grep -q "evil\|slowpoke\|quick" "$WORK/t2/collect.txt" && fail "abusive clients listed as processes of the run"
# (the fake client is loom "evil": a process of the run may have pid 4343
# too, where pids wrap at 32768)
find "$WORK/t2" -name 'evil*' -o -path '*/loom.evil*/proc.4343' | grep -q . && fail "a partial transfer was kept"
assert_ge "processes after the abuse" 8 "$(ls -d "$WORK"/t2/loom.*/proc.* | wc -l)"

# ---- 3 ----
collector "$WORK/t3"
"$OVNIRUN" -q --collect "@$WORK/contact" sh -c "$PROG/netpair sleep 100; $PROG/netpair sleep 2500" >"$WORK/s3.out" 2>"$WORK/s3.err" &
p=$!
sleep 1
kill -TERM $COLPID
wait $COLPID || fail "collector status after SIGTERM"
"$OA" collect --status "$WORK/t3" >"$WORK/st3"
cat "$WORK/st3"
assert_ge "--status: processes still running" 1 "$(sed -n 's/^processes running \([0-9]*\).*/\1/p' "$WORK/st3")"
wait $p || fail "program status after the collector's end"
assert_eq "program output" "slept
slept" "$(cat "$WORK/s3.out")"
cat "$WORK/s3.err"
assert_eq "messages from the agent" 1 "$(grep -c 'could not send the streams' "$WORK/s3.err")"
grep -q "did not finish" "$WORK/t3/collect.txt" || fail "the unfinished process is not marked"
check_trace "$WORK/t3"
assert_ge "streams kept locally" 1 "$(find "$TMPDIR" -name stream.obs | wc -l)"

# ---- 4 ----
rm -rf "$TMPDIR"/*
out=$("$OVNIRUN" -q --collect 127.0.0.1:9:0123abcd:0123456789abcdef0123456789abcdef "$WORK/job.sh" 2>"$WORK/s4.err")
assert_eq "output without a collector" "$plain" "$out"
cat "$WORK/s4.err"
assert_eq "messages" 1 "$(grep -c 'cannot reach the collector' "$WORK/s4.err")"
assert_ge "streams kept locally" 8 "$(find "$TMPDIR"/ovni-collect.*.0123abcd -name stream.obs | wc -l)"

# ---- 5 ----
collector "$WORK/shared" --clocks-only
out=$("$OVNIRUN" -q -o "$WORK/shared" -f --collect "@$WORK/contact" "$WORK/job.sh" 2>&1)
assert_eq "clocks-only output" "$plain" "$out"
wait_collector
check_trace "$WORK/shared"
[ -f "$WORK/shared/clock-offsets.txt" ] || fail "clocks-only: no offsets"
assert_ge "clocks-only processes" 8 "$(ls -d "$WORK"/shared/loom.*/proc.* | wc -l)"

# ---- 7: an exec into a program the agent does not trace ----
# bash (traced: it matches the pattern) execs echo (excluded): the streams
# bash wrote are sent when echo starts, not left behind.
rm -rf "$TMPDIR"/*
collector "$WORK/t7"
out=$("$OVNIRUN" -q -c 'bash' --collect "@$WORK/contact" sh -c 'bash -c "echo in-bash; exec /bin/echo done"' 2>&1)
assert_eq "output with an untraced exec" "in-bash
done" "$out"
wait_collector
cat "$WORK/t7/collect.txt"
grep -q "did not finish" "$WORK/t7/collect.txt" && fail "the image before the exec was not sent"
assert_eq "processes (sh, bash)" 2 "$(ls -d "$WORK"/t7/loom.*/proc.* | wc -l)"
assert_eq "streams left locally" 0 "$(find "$TMPDIR" -name 'stream.*' | wc -l)"
check_trace "$WORK/t7"

# ---- 6 ----
collector "$WORK/t6" --fail-stop
out=$("$OVNIRUN" -q --collect "@$WORK/contact" /usr/bin/python3 -c '
import os, time, subprocess
os.closerange(3, 1 << 16)
p = subprocess.Popen(["/bin/sleep", "5"])
time.sleep(0.3)
p.terminate()
p.wait()
time.sleep(3.2)
print(subprocess.run(["echo", "child"], capture_output=True, text=True, close_fds=True).stdout.strip())
' 2>"$WORK/s6.err")
assert_eq "output after closerange" child "$out"
wait_collector
cat "$WORK/t6/collect.txt" "$WORK/s6.err"
grep -q "vanished" "$WORK/col.err" && fail "the closed watch connection was taken for a vanished process"
grep -q "stopped\|did not finish" "$WORK/t6/collect.txt" && fail "processes stopped or unfinished"
check_trace "$WORK/t6"
assert_eq "processes" 3 "$(ls -d "$WORK"/t6/loom.*/proc.* | wc -l)"
grep -q "sleep): died of a signal.*signal 15" "$WORK/t6/collect.txt" || fail "the SIGTERM of the child is not reported"
# ---- 8: collectors that do not answer ----
fake() { # MODE: a fake collector on a free port; sets FAKEPID and the contact file
	rm -f "$WORK/contact" "$WORK/fake.seen"
	python3 - "$1" "$WORK" <<'PY' &
import hashlib, hmac, os, socket, struct, sys, threading, time
mode, work = sys.argv[1], sys.argv[2]
run, secret = "0badc0de", "00112233445566778899aabbccddeeff"
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(64)
open(work + "/contact.tmp", "w").write(f"127.0.0.1:{srv.getsockname()[1]}:{run}:{secret}\n")
os.rename(work + "/contact.tmp", work + "/contact")
def frame(t, p): return t.encode() + struct.pack("<I", len(p)) + p
def serve(c):
    try:
        h = c.recv(8, socket.MSG_WAITALL); body = c.recv(struct.unpack("<I", h[4:])[0], socket.MSG_WAITALL)
        with open(work + "/fake.seen", "ab") as f: f.write(body)
        if mode == "trickle":
            for b in frame("AUTH", b"x" * 200):
                c.send(bytes([b])); time.sleep(0.5)
            return
        nonce = [l[6:] for l in body.decode().split("\n") if l.startswith("nonce=")][0]
        ours = os.urandom(16).hex()
        mac = hmac.new(secret.encode(), f"collector|{nonce}|{ours}".encode(), hashlib.sha256).hexdigest()
        c.sendall(frame("AUTH", f"nonce={ours}\nproof={mac}\n".encode()))
        h = c.recv(8, socket.MSG_WAITALL); c.recv(struct.unpack("<I", h[4:])[0], socket.MSG_WAITALL)
        while True:
            c.sendall(frame("PING", b"")); c.recv(16, socket.MSG_WAITALL)
    except OSError:
        pass
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
	FAKEPID=$!
	for i in $(seq 100); do [ -s "$WORK/contact" ] && break; sleep 0.05; done
	[ -s "$WORK/contact" ] || fail "the fake collector did not start"
}
for mode in trickle pings; do
	fake $mode
	rm -rf "$TMPDIR"/*
	t0=$(date +%s)
	# The agent alone (ovnirun would find the collector unreachable first
	# and tell the agents not to try).
	out=$(OVNI_COLLECT="@$WORK/contact" LD_PRELOAD="$LIBAGENT" timeout 60 sh -c 'echo one; sh -c "echo two"' \
		2>"$WORK/s8.err"); st=$?
	t1=$(date +%s)
	kill $FAKEPID 2>/dev/null; wait $FAKEPID 2>/dev/null
	cat "$WORK/s8.err"
	assert_eq "$mode: status" 0 "$st"
	assert_eq "$mode: output" "one
two" "$out"
	[ $((t1 - t0)) -le 25 ] || fail "$mode: the program took $((t1 - t0)) s (the exchange is bounded by 10 s)"
	[ $mode = pings ] && { grep -q "broke off" "$WORK/s8.err" || fail "pings: not stopped by their number"; }
	assert_eq "$mode: messages" 1 "$(grep -c 'cannot reach the collector at' "$WORK/s8.err")"
	grep -q "$(cut -d: -f4 "$WORK/contact")" "$WORK/fake.seen" && fail "$mode: the secret was sent to the listener"
done
# ---- 9: the output directory ----
# A directory that holds files is refused without -f; with -f, a hard link
# planted at the summary's temporary name is replaced, never written through.
mkdir "$WORK/t9" && echo keep >"$WORK/victim" && ln "$WORK/victim" "$WORK/t9/.collect.txt.tmp"
"$OA" collect -o "$WORK/t9" -l 127.0.0.1:0 >/dev/null 2>"$WORK/s9.err"; assert_eq "non-empty output refused" 2 $?
grep -q "holds files" "$WORK/s9.err" || fail "no reason given: $(cat "$WORK/s9.err")"
collector "$WORK/t9" -f
out=$("$OVNIRUN" -q --collect "@$WORK/contact" sh -c 'echo nine' 2>&1)
assert_eq "output with -f" nine "$out"
wait_collector
assert_eq "the planted link's target" keep "$(cat "$WORK/victim")"
grep -q "1 processes" "$WORK/t9/collect.txt" || fail "summary: $(cat "$WORK/t9/collect.txt")"
info ok

