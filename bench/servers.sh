#!/bin/sh
# servers.sh: servers started under ovnirun against the same servers
# untraced, interleaved, median of REPS (3): what a server's users see.
#   - pgbench: PostgreSQL (a cluster made here by initdb, fsync off), the
#     server traced with its trace on /dev/shm, pgbench untraced:
#       select: `pgbench -S` over NP steady connections for SECS (5) s
#               (the backends' work: queries, latches, shared buffers);
#       connect: the same with `-C`, a new connection per transaction
#               (the postmaster forks a backend for each: a process's
#               start and end, per transaction);
#   - nginx: `worker_processes NP`, a `return 200` location, REQS (3000)
#     requests over one keep-alive connection of curl, then the same over
#     REQS/10 connections of 10 requests each (nginx's workers accept).
# Each row prints the medians of the untraced and traced throughputs and
# the median (and range) of each round's traced/untraced ratio: a round's
# two runs are seconds apart, where this VM's speed drifts by 2x over
# minutes (below 1: slower traced; within the range's noise of 1: the
# agent costs the server nothing measurable).  The traced server's trace
# must pass `ovni-auto check`.  A server whose tools are missing is
# skipped, with the reason.
# Run as root, PostgreSQL runs as user postgres (runuser).
# Usage: sh bench/servers.sh      (REPS=N, SECS=S, REQS=N, ONLY="pgbench nginx")
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
run="$top/build/bin/ovnirun"
oa="$top/build/bin/ovni-auto"
reps=${REPS:-3}
secs=${SECS:-5}
reqs=${REQS:-3000}
np=$(nproc)
[ -x "$run" ] || { echo "build first: make" >&2; exit 1; }
work=$(mktemp -d /tmp/oa-servers.XXXXXX)
chmod 755 "$work"
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	sleep 1
	rm -rf "$work" /dev/shm/.oa-servers.$$
}
trap cleanup EXIT
trap 'exit 130' INT TERM
has() { command -v "$1" >/dev/null 2>&1; }
want() { case " ${ONLY:-$1} " in *" $1 "*) return 0 ;; esac; return 1; }
# Medians of the values a run gave (a failed run wrote 0: left out).
med() { awk '$1 > 0' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] + 0 }'; }
traces=/dev/shm/.oa-servers.$$
mkdir -p "$traces" && chmod 777 "$traces"
checked=""

# A free TCP port of localhost (the script's pid folded into 20000-29999,
# then the next free one).
port=$((20000 + $$ % 10000))
free_port() {
	while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || ss -ltn 2>/dev/null | grep -q ":$port "; do
		port=$((port + 1))
	done
	echo "$port"
}

# ---- PostgreSQL ----
pgbin=""
for d in /usr/lib/postgresql/*/bin; do [ -x "$d/postgres" ] && pgbin=$d; done
[ -z "$pgbin" ] && has postgres && pgbin=$(dirname "$(command -v postgres)")
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_ok=0
if ! want pgbench; then
	:
elif [ -z "$pgbin" ] || ! has pgbench; then
	echo "pgbench: skipped (no PostgreSQL server or pgbench)"
elif [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
	echo "pgbench: skipped (root, and no user postgres to run the server as)"
else
	mkdir "$work/pg" && { [ "$(id -u)" != 0 ] || chown postgres "$work/pg"; }
	if as_pg "$pgbin/initdb" -D "$work/pg/data" -A trust >"$work/pg/initdb.log" 2>&1; then
		pg_ok=1
	else
		echo "pgbench: skipped (initdb failed: $(tail -n 1 "$work/pg/initdb.log"))"
	fi
fi
pg_port=$(free_port)
pg_start() { # traced|untraced
	how=$1
	set -- "$pgbin/postgres" -D "$work/pg/data" -p "$pg_port" -k "$work/pg" -c listen_addresses= \
		-c fsync=off -c shared_buffers=64MB -c max_connections=40
	if [ "$how" = traced ]; then
		rm -rf "$traces/pg"
		as_pg "$run" -q -o "$traces/pg" "$@" >"$work/pg/log" 2>&1 &
	else
		as_pg "$@" >"$work/pg/log" 2>&1 &
	fi
	pids="$pids $!"
	for _ in $(seq 100); do
		"$pgbin/pg_isready" -q -h "$work/pg" -p "$pg_port" && return 0
		sleep 0.1
	done
	echo "pgbench: the server did not start: $(tail -n 2 "$work/pg/log")" >&2
	return 1
}
pg_stop() {
	as_pg "$pgbin/pg_ctl" -D "$work/pg/data" stop -m fast >/dev/null 2>&1
	wait 2>/dev/null
}
pgb() { # ARGS: the transactions per second of one pgbench run
	as_pg pgbench -h "$work/pg" -p "$pg_port" "$@" postgres 2>/dev/null |
		awk '/^tps =/ { print $3; exit }'
}
if [ $pg_ok = 1 ]; then
	pg_start untraced && as_pg pgbench -h "$work/pg" -p "$pg_port" -i -s 5 postgres >/dev/null 2>&1
	pg_stop
fi

# ---- nginx ----
ng_ok=0
if ! want nginx; then
	:
elif ! has nginx || ! has curl; then
	echo "nginx: skipped (no nginx or no curl)"
else
	ng_ok=1
	ng_port=$(free_port)
	mkdir -p "$work/ng/logs"
	cat >"$work/ng/nginx.conf" <<EOF
daemon off;
worker_processes $np;
pid $work/ng/nginx.pid;
error_log $work/ng/logs/error.log;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $work/ng/body;
	proxy_temp_path $work/ng/proxy;
	fastcgi_temp_path $work/ng/fcgi;
	uwsgi_temp_path $work/ng/uwsgi;
	scgi_temp_path $work/ng/scgi;
	server { listen 127.0.0.1:$ng_port; location / { return 200 "ok\n"; } }
}
EOF
fi
ng_start() { # traced|untraced
	rm -f "$work/ng/nginx.pid"
	if [ "$1" = traced ]; then
		rm -rf "$traces/ng"
		"$run" -q -o "$traces/ng" nginx -p "$work/ng" -c "$work/ng/nginx.conf" 2>>"$work/ng/log" &
	else
		nginx -p "$work/ng" -c "$work/ng/nginx.conf" 2>>"$work/ng/log" &
	fi
	pids="$pids $!"
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:$ng_port/" && return 0
		sleep 0.1
	done
	echo "nginx: the server did not start: $(tail -n 2 "$work/ng/log")" >&2
	return 1
}
ng_stop() {
	[ -f "$work/ng/nginx.pid" ] && kill -QUIT "$(cat "$work/ng/nginx.pid")"
	wait 2>/dev/null
}
# Requests a second: $1 requests, $2 a connection.
ngb() {
	s=$(date +%s%N)
	i=0
	while [ $i -lt "$1" ]; do
		curl -s -o /dev/null "http://127.0.0.1:$ng_port/[1-$2]" || return 1
		i=$((i + $2))
	done
	e=$(date +%s%N)
	echo "$1 $s $e" | awk '{ printf "%.1f\n", $1 / (($3 - $2) / 1e9) }'
}

# A traced server's trace is checked once it ended.
check() { # NAME DIR
	case " $checked " in *" $1 "*) return ;; esac
	if "$oa" check -q "$2" >/dev/null 2>&1; then
		checked="$checked $1"
	else
		echo "$1: the trace does not check: $("$oa" check "$2" 2>&1 | head -n 2)" >&2
	fi
}

# One round of a server: its rows get a value each (0 when it failed).
pg_round() { # traced|untraced
	s1=0 s2=0
	if pg_start "$1"; then
		s1=$(pgb -S -c "$np" -j "$np" -T "$secs")
		s2=$(pgb -S -C -c "$np" -j "$np" -T "$secs")
	fi
	pg_stop
	echo "${s1:-0}" >>"$work/select.$1"
	echo "${s2:-0}" >>"$work/connect.$1"
	[ "$1" = traced ] && check pgbench "$traces/pg"
}
ng_round() { # traced|untraced
	s1=0 s2=0
	if ng_start "$1"; then
		s1=$(ngb "$reqs" "$reqs") || s1=0
		s2=$(ngb "$((reqs / 10))" 10) || s2=0
	fi
	ng_stop
	echo "$s1" >>"$work/keepalive.$1"
	echo "$s2" >>"$work/conns.$1"
	[ "$1" = traced ] && check nginx "$traces/ng"
}
for r in $(seq "$reps"); do
	for kind in untraced traced; do
		[ $pg_ok = 1 ] && pg_round $kind
		[ $ng_ok = 1 ] && ng_round $kind
	done
done
echo "== servers.sh on $(uname -n), $np cores, $(date +%F), median of $reps, server traced with its trace on /dev/shm"
printf '%-40s %-12s %-12s %s\n' row untraced traced "traced/untraced: median of the rounds' ratios (min-max)"
row() { # FILE LABEL UNIT
	[ -s "$work/$1.untraced" ] && [ -s "$work/$1.traced" ] || return
	u=$(med "$work/$1.untraced") t=$(med "$work/$1.traced")
	# Paired by round (the same round's untraced and traced runs are
	# seconds apart; this VM's speed drifts by 2x over minutes).
	paste "$work/$1.traced" "$work/$1.untraced" | awk '$2 > 0 { print $1 / $2 }' >"$work/$1.ratio"
	printf '%-40s %-12s %-12s %s (%s)\n' "$2" "$(printf '%.0f %s' "$u" "$3")" "$(printf '%.0f %s' "$t" "$3")" \
		"$(med "$work/$1.ratio" | awk '{ printf "%.2fx", $1 }')" \
		"$(sort -n "$work/$1.ratio" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }')"
}
row select "pgbench -S, $np connections" tps
row connect "pgbench -S -C (a connection each)" tps
row keepalive "nginx, 1 keep-alive connection" rq/s
row conns "nginx, a connection per 10 requests" rq/s
echo "traces checked:${checked:- none}"
