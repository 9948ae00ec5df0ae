# chroot and sandboxes (issue 30, item 4), root only (CI is root):
# - a program that chroots into an empty directory and then starts a
#   thread: the trace stays outside (reached from a descriptor opened before
#   the chroot), the jail stays empty, every stream is finished; the same
#   then becoming user nobody before its threads and a fork child;
# - a sandbox with a /tmp of its own (a mount namespace with a tmpfs on
#   /tmp, as bubblewrap's --tmpfs /tmp and many CI sandboxes do) while the
#   trace is under /tmp: the processes started inside cannot reach the run's
#   trace directory, so they write nothing anywhere (the sandbox's /tmp stays
#   empty) and say so, once each (their children and the programs they
#   exec do not repeat it); the trace is valid.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "chroot and mount namespaces need root"
mkdir "$WORK/jail"
out=$("$OVNIRUN" -q -o "$WORK/j" "$PROG/jail" "$WORK/jail" 2>"$WORK/j.err"); st=$?
assert_eq "chroot: status" 0 "$st"
assert_eq "chroot: output" jailed "$out"
assert_eq "chroot: messages" "" "$(cat "$WORK/j.err")"
assert_eq "chroot: the jail stays empty" "" "$(ls -A "$WORK/jail")"
check_trace "$WORK/j"
assert_eq "chroot: streams" 2 "$(find "$WORK/j" -name stream.json | wc -l)"
assert_eq "chroot: unfinished" 0 "$(grep -L '"finished": 1' $(find "$WORK/j" -name stream.json) | wc -l)"

# chroot, then user nobody (vsftpd's or named's privilege separation), a
# thread, a fork child with a thread: the process's directories are handed
# to nobody through the descriptor opened at the chroot (by their absolute
# paths, which the jail hides, they kept their owner: "cannot write the
# trace ... Permission denied", 2 streams of 4).
mkdir "$WORK/jail2"
out=$("$OVNIRUN" -q -o "$WORK/j2" "$PROG/jail" "$WORK/jail2" nobody 2>"$WORK/j2.err"); st=$?
assert_eq "chroot then nobody: status" 0 "$st"
assert_eq "chroot then nobody: output" "uid 65534, child 3
jailed" "$out"
assert_eq "chroot then nobody: messages" "" "$(cat "$WORK/j2.err")"
assert_eq "chroot then nobody: the jail stays empty" "" "$(ls -A "$WORK/jail2")"
check_trace "$WORK/j2"
assert_eq "chroot then nobody: streams" 4 "$(find "$WORK/j2" -name stream.json | wc -l)"
assert_eq "chroot then nobody: owner" nobody "$(stat -c %U "$WORK"/j2/loom.*/proc.* | sort -u)"

unshare -m true 2>/dev/null || skip "unshare -m is not allowed here"
T=$(mktemp -d /tmp/oa-sandbox.XXXXXX) || fail mktemp
trap 'rm -rf "$T" "$WORK"' EXIT # replaces lib.sh's: $WORK too
# (The body uses only system programs: the tests may live under /tmp.)
script='unshare -m sh -c "mount -t tmpfs none /tmp && sh -c \"echo inside\" && ls -A /tmp | wc -l"'
want=$(sh -c "$script" 2>&1)
got=$("$OVNIRUN" -q -o "$T/trace" sh -c "$script" 2>"$T/err"); st=$?
assert_eq "sandbox: status" 0 "$st"
assert_eq "sandbox: output (the sandbox's /tmp stays empty)" "$want" "$got"
grep -q "is not the run's trace directory here" "$T/err" || fail "sandbox: the loss is not said: $(cat "$T/err")"
# Once per process that cannot reach it (mount, sh -c, ls), not again by
# the program a fork child execs (5 lines before), nor by the processes
# a process that said it starts (OVNI_TRACEDIR_UNREACHABLE).
assert_le "sandbox: lines saying it" 3 "$(grep -c "is not the run's trace directory here" "$T/err")"
check_trace "$T/trace"
# A traced process that mounts a file system of its own over the directory
# that holds the trace (in a mount namespace of its own), then starts
# threads: the agent makes nothing in the program's file system (it made
# the trace's directories and an 8 MiB spool file there, and a 64 KiB tmpfs
# the program sized for itself was full: its write failed), says so once,
# and the trace (what came before the mount) is valid.
if command -v python3 >/dev/null; then
	mkdir -p "$T/hid"
	cat >"$WORK/hide.py" <<EOF2
import os, subprocess, threading
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "none", "$T/hid"], check=True)
ts = [threading.Thread(target=lambda: sum(range(100000))) for _ in range(20)]
[t.start() for t in ts]; [t.join() for t in ts]
print("entries:", os.listdir("$T/hid"))
with open("$T/hid/data", "wb") as f:
    f.write(b"x" * 40000)
print("wrote 40000")
EOF2
	want=$(unshare -m python3 "$WORK/hide.py" 2>&1)
	got=$("$OVNIRUN" -q -o "$T/hid/trace" unshare -m python3 "$WORK/hide.py" 2>"$T/hide.err"); st=$?
	assert_eq "hidden by the program's tmpfs: status" 0 "$st"
	assert_eq "hidden by the program's tmpfs: output" "$want" "$got"
	assert_eq "hidden by the program's tmpfs: untraced output" "entries: []
wrote 40000" "$want"
	assert_eq "hidden by the program's tmpfs: lines" 1 "$(grep -c "ovni-auto:" "$T/hide.err")"
	grep -q "is not the run's trace directory here" "$T/hide.err" || fail "hidden: not said: $(cat "$T/hide.err")"
	check_trace "$T/hid/trace"
fi
# The same hidden trace, five processes started after the mount: said once
# on stderr in the run (each said it: ovnirun's report, which they reach,
# has it), and all the lines in ovnirun's report at the end.  One before
# them said it with its stderr on /dev/null: that does not count (the
# user would have seen nothing with -q).
mkdir -p "$T/hid2"
script='unshare -m sh -c "mount -t tmpfs none '"$T"'/hid2; /bin/true 2>/dev/null; for i in 1 2 3 4 5; do /bin/true; done; echo done"'
got=$("$OVNIRUN" -o "$T/hid2/trace" sh -c "$script" 2>"$T/hid2.err"); st=$?
assert_eq "hidden, five processes: status" 0 "$st"
assert_eq "hidden, five processes: output" done "$got"
assert_eq "hidden, five processes: lines on stderr" 1 "$(grep -c "^ovni-auto: .*is not the run's trace directory here" "$T/hid2.err")"
assert_ge "hidden, five processes: in the report" 5 "$(grep -c "^ovnirun:   pid .*is not the run's trace directory here\|more lines from the agent" "$T/hid2.err")"
check_trace "$T/hid2/trace"
# The same with bubblewrap itself (--tmpfs /tmp, as Flatpak and CI sandboxes).
if command -v bwrap >/dev/null && bwrap --ro-bind / / --dev /dev true 2>/dev/null; then
	script='bwrap --ro-bind / / --tmpfs /tmp --dev /dev --proc /proc --unshare-pid sh -c "sh -c \"echo inside\"; ls -A /tmp | wc -l"'
	want=$(sh -c "$script" 2>&1)
	got=$("$OVNIRUN" -q -o "$T/bw" sh -c "$script" 2>"$T/bw.err"); st=$?
	assert_eq "bwrap: status" 0 "$st"
	assert_eq "bwrap: output (the sandbox's /tmp stays empty)" "$want" "$got"
	grep -q "is not the run's trace directory here" "$T/bw.err" || fail "bwrap: the loss is not said: $(cat "$T/bw.err")"
	check_trace "$T/bw"
	# The agent itself out of the sandbox's reach (it lies under /tmp too):
	# the programs started inside get an LD_PRELOAD without it, so the
	# loader prints no "cannot be preloaded" error for each of them (it
	# did, one line per program), and the agent says it once.
	mkdir -p "$T/b" && cp -r "$OA_TOP/build/bin" "$OA_TOP/build/lib" "$T/b/" || fail "copy"
	script='bwrap --ro-bind / / --tmpfs /tmp --dev /dev --proc /proc --unshare-pid sh -c "env | grep -c LD_PRELOAD; sh -c \"echo inside\"; id -u"'
	want=$(sh -c "$script" 2>&1)
	got=$("$T/b/bin/ovnirun" -q -o "$T/bw2" sh -c "$script" 2>"$T/bw2.err"); st=$?
	assert_eq "bwrap, agent hidden: status" 0 "$st"
	assert_eq "bwrap, agent hidden: output" "$want" "$got"
	grep -q "ld.so" "$T/bw2.err" && fail "bwrap, agent hidden: the loader complained: $(cat "$T/bw2.err")"
	assert_eq "bwrap, agent hidden: said" 1 "$(grep -c "cannot be reached from here" "$T/bw2.err")"
	check_trace "$T/bw2"
	# Its PID namespace's init (pid 1 there) with --die-with-parent: it
	# took the run's spool slot of "pid 1" of the run's loom, and died
	# after ovnirun's last look (3 runs of 15 under load): its stream
	# stayed in spool.run.oa. A process in another namespace now writes
	# files of its own (t406 too).
	for i in 1 2 3; do
		"$OVNIRUN" -q -o "$T/bwd$i" bwrap --unshare-pid --die-with-parent --ro-bind / / --dev /dev --proc /proc \
			--bind /tmp /tmp sh -c 'exit 4' 2>/dev/null
		assert_eq "bwrap --die-with-parent $i: status" 4 $?
		check_trace "$T/bwd$i"
		assert_eq "bwrap --die-with-parent $i: the run's spool left" 0 "$(find "$T/bwd$i" -name spool.run.oa | wc -l)"
	done
else
	info "bubblewrap not installed or not allowed: its case skipped (scripts/deps.sh installs it)"
fi

# fakechroot: another LD_PRELOAD library whose dl_iterate_phdr wrapper is
# not ready before its own constructor: the agent's constructor called it
# (looking for libovni) and the program died of SIGSEGV (139), traced and
# with LD_PRELOAD alone, every time.  The agent reads the loader's list
# itself now.
if command -v fakechroot >/dev/null && fakechroot chroot / /bin/echo fc >/dev/null 2>&1; then
	out=$("$OVNIRUN" -q -o "$T/fc" fakechroot chroot / /bin/echo inside 2>"$T/fc.err")
	assert_eq "fakechroot under ovnirun: status" 0 $?
	assert_eq "fakechroot under ovnirun: output" "inside" "$out"
	check_trace "$T/fc"
	out=$(LD_PRELOAD="$LIBAGENT" OVNI_TRACEDIR="$T/fc2" fakechroot chroot / /bin/echo inside 2>"$T/fc2.err")
	assert_eq "fakechroot with LD_PRELOAD: status" 0 $?
	assert_eq "fakechroot with LD_PRELOAD: output" "inside" "$out"
else
	info "fakechroot not installed: its case skipped (scripts/deps.sh installs it)"
fi
