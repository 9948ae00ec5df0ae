# Servers that change user (issue 30, items 1-2), as root (CI is root):
# nginx (master as root, 4 workers that become www-data after fork; 200
# requests; nginx -s quit) and PostgreSQL (initdb, pg_ctl start, pgbench -c 4
# -j 2, pg_ctl stop, each through runuser -u postgres, which becomes
# postgres and execs).  Output and status as untraced where they are
# deterministic, no message from the agent anywhere (nginx's error.log
# included), every stream finished, the trace valid; the workers' and the
# postgres processes' files belong to their users.
# OpenSSH's sshd (its pre-authentication child sets its descriptor and file
# size limits to 0 and installs a seccomp filter): a login with a key runs
# a command, as untraced, and the trace is valid.  Before, the agent's own
# system calls after the filter killed that child (SIGSYS) and no login
# could succeed.
. "$(dirname "$0")/lib_real.sh"
[ "$(id -u)" = 0 ] || skip "the servers change user: root only"
need python3
# A trace directory every user of the run can walk to (an exec'd image of
# another user reaches it by its path; see the README).
TR=$(mktemp -d /tmp/oa-servers.XXXXXX) && chmod 755 "$TR" || fail "mktemp"
trap 'rm -rf "$TR" "$WORK"' EXIT # replaces lib.sh's: $WORK too
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

if command -v nginx >/dev/null && id www-data >/dev/null 2>&1; then
	mkdir -p "$TR/www" && echo hello >"$TR/www/index.html" && chmod -R a+rX "$TR/www"
	P=$(port)
	cat >"$TR/nginx.conf" <<NGX
user www-data;
worker_processes 4;
daemon off;
pid $TR/nginx.pid;
error_log $TR/error.log;
events { worker_connections 64; }
http {
	access_log $TR/access.log;
	client_body_temp_path $TR/body; proxy_temp_path $TR/proxy; fastcgi_temp_path $TR/fcgi;
	uwsgi_temp_path $TR/uwsgi; scgi_temp_path $TR/scgi;
	server { listen 127.0.0.1:$P; root $TR/www; }
}
NGX
	"$OVNIRUN" -q -o "$TR/nginx.trace" nginx -c "$TR/nginx.conf" 2>"$TR/nginx.err" &
	run=$!
	for i in $(seq 100); do python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$P/')" 2>/dev/null && break; sleep 0.1; done
	got=$(python3 -c "
import urllib.request as u
print(sum(u.urlopen('http://127.0.0.1:$P/').read() == b'hello\n' for i in range(200)))")
	assert_eq "nginx: answers" 200 "$got"
	nginx -c "$TR/nginx.conf" -s quit
	wait $run; st=$?
	assert_eq "nginx: status" 0 "$st"
	cat "$TR/nginx.err"
	grep -q "ovni-auto" "$TR/error.log" "$TR/nginx.err" && fail "nginx: the agent complained: $(grep ovni-auto "$TR/error.log" "$TR/nginx.err")"
	check_trace "$TR/nginx.trace"
	unfinished=$(grep -L '"finished": 1' $(find "$TR/nginx.trace" -name stream.json) | wc -l)
	assert_eq "nginx: unfinished streams" 0 "$unfinished"
	assert_eq "nginx: processes owned by www-data (workers)" 4 \
		"$(find "$TR/nginx.trace" -maxdepth 2 -name 'proc.*' -user www-data | wc -l)"
else
	info "nginx not installed: skipped (scripts/deps.sh installs nginx-light)"
fi

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -n 1)
if [ -n "$PGBIN" ] && id postgres >/dev/null 2>&1; then
	mkdir -p "$TR/pg" && chown postgres "$TR/pg"
	P=$(port)
	job="runuser -u postgres -- $PGBIN/initdb -D $TR/pg/data >/dev/null &&
runuser -u postgres -- $PGBIN/pg_ctl -D $TR/pg/data -l $TR/pg/log -o '-p $P -k $TR/pg' -w start >/dev/null &&
runuser -u postgres -- $PGBIN/pgbench -i -q -h $TR/pg -p $P postgres >/dev/null 2>&1 &&
runuser -u postgres -- $PGBIN/pgbench -c 4 -j 2 -T 2 -h $TR/pg -p $P postgres | grep -c 'number of failed transactions: 0';
runuser -u postgres -- $PGBIN/pg_ctl -D $TR/pg/data -w stop >/dev/null; echo stopped \$?"
	got=$("$OVNIRUN" -q -o "$TR/pg.trace" sh -c "$job" 2>"$TR/pg.err"); st=$?
	cat "$TR/pg.err"
	assert_eq "postgres: status" 0 "$st"
	assert_eq "postgres: output" "1
stopped 0" "$got"
	grep -q "ovni-auto" "$TR/pg.err" "$TR/pg/log" && fail "postgres: the agent complained"
	check_trace "$TR/pg.trace"
	unfinished=$(grep -L '"finished": 1' $(find "$TR/pg.trace" -name stream.json) | wc -l)
	assert_eq "postgres: unfinished streams" 0 "$unfinished"
	assert_ge "postgres: processes of user postgres" 10 \
		"$(find "$TR/pg.trace" -maxdepth 2 -name 'proc.*' -user postgres | wc -l)"
else
	info "PostgreSQL not installed: skipped (scripts/deps.sh installs postgresql)"
fi
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
if [ -x "$SSHD" ] && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null; then
	S="$TR/ssh" && mkdir -p "$S" /run/sshd || fail "mkdir"
	ssh-keygen -q -t ed25519 -N '' -f "$S/host" && ssh-keygen -q -t ed25519 -N '' -f "$S/user" || fail "ssh-keygen"
	login() { # PORT: run a command over ssh, print its output and status
		ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
			-i "$S/user" -p "$1" root@127.0.0.1 'echo hello from $(id -un); exit 3'
		echo "status $?"
	}
	sshd_run() { # NAME [LAUNCHER...]: sshd under the launcher, one login, stopped
		name=$1
		shift
		P=$(port)
		cat >"$S/$name.conf" <<SSH
Port $P
ListenAddress 127.0.0.1
HostKey $S/host
AuthorizedKeysFile $S/user.pub
PidFile $S/$name.pid
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
SSH
		"$@" "$SSHD" -D -e -f "$S/$name.conf" 2>"$S/$name.log" &
		run=$!
		for i in $(seq 100); do
			python3 -c "import socket; socket.create_connection(('127.0.0.1', $P))" 2>/dev/null && break
			sleep 0.1
		done
		login "$P" >"$S/$name.out" 2>&1
		kill "$(cat "$S/$name.pid")"
		wait $run
		echo $? >"$S/$name.status"
	}
	sshd_run plain
	want=$(cat "$S/plain.out")
	if [ "$want" = "hello from root
status 3" ]; then
		sshd_run traced "$OVNIRUN" -q -o "$TR/sshd.trace"
		assert_eq "sshd: the login's output and status" "$want" "$(cat "$S/traced.out")"
		assert_eq "sshd: status" "$(cat "$S/plain.status")" "$(cat "$S/traced.status")"
		grep -q "terminated by signal" "$S/traced.log" && fail "sshd: $(grep "terminated by signal" "$S/traced.log")"
		check_trace "$TR/sshd.trace"
	else
		info "sshd: no login untraced here ($want): skipped"
	fi
else
	info "OpenSSH not installed: skipped (scripts/deps.sh installs openssh-server)"
fi
true
