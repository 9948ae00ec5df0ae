# Python: subprocess with close_fds=True (closes every descriptor in the
# child before exec), and multiprocessing fork pools ended by terminate()
# (SIGTERM to the workers while they finish their streams), 20 times.
. "$(dirname "$0")/lib_real.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "python3 is not installed (scripts/deps.sh installs it)"
cat >"$WORK/sub.py" <<'PYEOF'
import subprocess
with open("out.txt", "w") as f:
    for i in range(20):
        r = subprocess.run(["sh", "-c", "echo hello $0; ls /nonexistent 2>/dev/null; echo done", str(i)],
                           stdout=f, close_fds=True)
        f.flush()
print(open("out.txt").read().count("hello"))
PYEOF
same_run subprocess "$PY" "$WORK/sub.py"
cat >"$WORK/pool.py" <<'PYEOF'
import multiprocessing as mp
def sq(x):
    return x * x
if __name__ == "__main__":
    mp.set_start_method("fork")
    with mp.Pool(2) as p:
        print(sum(p.map(sq, range(200))))
PYEOF
i=0
while [ $i -lt 20 ]; do
	same_run "pool$i" "$PY" "$WORK/pool.py"
	rm -rf "$WORK/pool$i".*
	i=$((i + 1))
done
