/* cmd_collect.c: `ovni-auto collect`, a trace collector over TCP.  Traced
 * processes (OVNI_COLLECT, `ovnirun --collect`) join it at start, where it
 * measures their host's clock, and send their streams when they end; it
 * writes one trace with clock-offsets.txt.  One thread, one poll loop; the
 * parts are in tools/collect/ and the wire format in writer/collect_fmt.h. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/collect_fmt.h"
#include "../common/log.h"
#include "cmds.h"
#include "collect/collect.h"

static const char usage_text[] =
	"usage: ovni-auto collect -o DIR [options]\n"
	"       ovni-auto collect --status DIR\n"
	"\n"
	"Collect one ovni trace over TCP from traced processes on any number of hosts\n"
	"(no shared file system needed); give its contact to `ovnirun --collect`.\n"
	"\n"
	"  -o, --output DIR        the trace directory to write (new or empty)\n"
	"  -f, --force             write into DIR even if it holds files\n"
	"  -l, --listen ADDR:PORT  where to listen (default: every address, a free\n"
	"                          port; the contact names this host)\n"
	"  -c, --contact-file F    also write the contact string to F (mode 0600)\n"
	"      --fail-stop         when a traced process crashes (SIGSEGV, SIGBUS,\n"
	"                          SIGILL, SIGFPE, SIGABRT...) or vanishes (kill -9),\n"
	"                          tell every other one to finish and send its\n"
	"                          streams now\n"
	"      --clocks-only       the processes write their streams themselves\n"
	"                          (shared file system): only measure the clocks\n"
	"                          and write clock-offsets.txt in DIR\n"
	"      --grace SECS        after the run ends (every ovnirun has ended) or\n"
	"                          SIGTERM, wait this long for processes still\n"
	"                          running or sending (default 30, SIGTERM: 5)\n"
	"      --idle SECS         also end when every process has finished and\n"
	"                          none joined for SECS\n"
	"      --max-bytes SIZE    most a process may send (default 64G)\n"
	"  -q, --quiet             no progress lines\n"
	"      --status DIR        show the progress of the collector writing DIR\n"
	"\n"
	"The manual page has the details: man ovni-auto-collect\n";

/* ST_DRAIN: said its last word (WELC, BYE) after a clock measurement,
 * whose last PING may be unanswered still (a series cut short by its
 * deadline): what comes is dropped until the agent closes (closing first
 * would answer a late PONG with a reset, which can take the last word
 * with it). */
enum stage { ST_HELLO, ST_AUTH, ST_READY, ST_DATA, ST_WATCH, ST_DRAIN };
enum role { R_NONE, R_JOIN, R_WATCH, R_FINI, R_OVNIRUN };

#define IN_MAX (64 * 1024 + OA_COL_HDR + OA_COL_MAX_CTRL)
#define MAX_CLIENTS 4096    /* connections at once (fewer if the descriptor limit is lower) */
#define HELLO_MAX 256       /* of which not yet identified: the oldest goes first */
#define PROCS_MAX (1 << 20) /* processes in one run */

struct client {
	int fd;
	unsigned id;
	enum stage stage;
	enum role role;
	int staging;
	struct oa_col_proc *proc;
	char loom[COL_LOOM_MAX + 1]; /* who it said it is (fini: the process is made known at FINI) */
	int pid;
	int file_fd;
	uint64_t file_left;
	int file_json;
	uint64_t bytes, since, last_io;
	char helo[640]; /* its HELO, until it proved itself */
	char nonce[OA_COL_NONCE_HEX + 1], ours[OA_COL_NONCE_HEX + 1];
	size_t have;
	uint8_t buf[IN_MAX];
	struct client *next;
};

static struct client *clients;
static int nclients;
static char secret[OA_COL_SECRET_HEX + 1], run[OA_COL_RUN_HEX + 1];
static int failstop, clocks_only, quiet;
static uint64_t max_bytes = 64ull << 30;
static int stopping; /* fail-stop triggered */
static volatile sig_atomic_t terminate;
static long sessions_begun, sessions_done; /* ovnirun --collect: started, ended */
static uint64_t end_deadline;
static double grace_s = 30, idle_s;
static uint64_t last_join, total_bytes;
static long nfini, ngarbage;
static const char *outdir;

static void on_signal(int sig)
{
	(void)sig;
	terminate++;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "collect: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int send_frame(int fd, uint32_t type, const char *text)
{
	uint8_t m[OA_COL_HDR + 256];
	size_t n = text ? strlen(text) : 0;
	if (n > 256)
		n = 256;
	oa_col_put32(m, type);
	oa_col_put32(m + 4, (uint32_t)n);
	memcpy(m + OA_COL_HDR, text ? text : "", n);
	/* Small and rare: a full socket buffer means a client that does not
	 * read, which loses the message. */
	return send(fd, m, OA_COL_HDR + n, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)(OA_COL_HDR + n) ? 0 : -1;
}

static const char *kv(const char *text, const char *key, char *out, size_t size)
{
	return oa_col_kv(text, key, out, size);
}

/* A crash, not an ending: SIGTERM, SIGINT, SIGHUP, SIGKILL, SIGPIPE... are
 * how programs end their own children (a Python pool's terminate()), and
 * must not stop the run. */
static int is_crash(int sig)
{
	switch (sig) {
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGABRT:
	case SIGSYS:
	case SIGTRAP:
	case SIGXCPU:
	case SIGXFSZ: return 1;
	default: return 0;
	}
}

static void stop_all(const char *why)
{
	if (stopping || !failstop)
		return;
	stopping = 1;
	note("fail-stop: %s; telling every process to finish", why);
	for (struct client *c = clients; c; c = c->next)
		if (c->role == R_WATCH)
			send_frame(c->fd, OA_COL_STOP, NULL);
}

/* The end of a connection, orderly or not. */
static void drop(struct client *c, const char *why)
{
	if (why) {
		ngarbage++;
		fprintf(stderr, "collect: dropped a connection: %s\n", why);
	}
	if (c->file_fd >= 0)
		close(c->file_fd);
	c->file_fd = -1;
	if (c->staging)
		oa_col_store_abort(c->id);
	c->staging = 0;
	if (c->role == R_WATCH && c->proc && --c->proc->watch == 0 && c->proc->state == PROC_RUNNING)
		c->proc->watch_lost_at = oa_col_clock();
	close(c->fd);
	c->fd = -1;
}

/* A host's clock through one of its processes; its first offset is told.
 * oa_col_host_measure's answer: -1 the process did not answer as an agent
 * does, -2 too slowly (a busy host: not measured), else measured.  A PING
 * may still be out whatever the answer: the connection is drained after
 * the last word (ST_DRAIN). */
static int measure(struct oa_col_host *h, struct client *c, int again)
{
	int r = oa_col_host_measure(h, c->fd, again);
	if (r == 1)
		note("host %s: clock offset %+.0f ns (best round trip %.0f us)", h->loom, h->first,
		     h->first_rtt / 1000);
	if (r == -2)
		note("host %s: proc.%d answered the clock measurement too slowly; not measured", h->loom, c->pid);
	return r;
}

/* HELO: a client of this run says who it is and gives its nonce; we prove
 * that we know the secret (AUTH) and wait for its proof (PROV). */
static int helo(struct client *c, const char *text, uint32_t len)
{
	char v[COL_LOOM_MAX + 1];
	if (len >= sizeof(c->helo) || !kv(text, "run", v, sizeof(v)) || strcmp(v, run) ||
	    !kv(text, "nonce", c->nonce, sizeof(c->nonce)) || strlen(c->nonce) != OA_COL_NONCE_HEX)
		return -1;
	memcpy(c->helo, text, len + 1);
	uint8_t r[OA_COL_NONCE_HEX / 2];
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		return -1;
	oa_col_hex(r, sizeof(r), c->ours);
	char proof[OA_COL_PROOF_HEX + 1], m[160];
	oa_col_proof(secret, "collector", c->nonce, c->ours, proof);
	snprintf(m, sizeof(m), "nonce=%s\nproof=%s\n", c->ours, proof);
	c->stage = ST_AUTH;
	return send_frame(c->fd, OA_COL_AUTH, m);
}

static int hello(struct client *c, const char *text);

/* PROV: the client's proof; then its HELO is taken. */
static int prov(struct client *c, const char *text)
{
	char got[OA_COL_PROOF_HEX + 1], want[OA_COL_PROOF_HEX + 1];
	oa_col_proof(secret, "agent", c->ours, c->nonce, want);
	if (!kv(text, "proof", got, sizeof(got)) || !oa_col_same(got, want))
		return send_frame(c->fd, OA_COL_DENY, "wrong secret"), -1;
	c->stage = ST_READY;
	return hello(c, c->helo);
}

static int hello(struct client *c, const char *text)
{
	char v[COL_LOOM_MAX + 1], loom[COL_LOOM_MAX + 1], role[16];
	if (!kv(text, "role", role, sizeof(role)))
		return -1;
	c->role = !strcmp(role, "join")      ? R_JOIN
		  : !strcmp(role, "watch")   ? R_WATCH
		  : !strcmp(role, "fini")    ? R_FINI
		  : !strcmp(role, "ovnirun") ? R_OVNIRUN
					     : R_NONE;
	if (c->role == R_NONE)
		return -1;
	if (c->role == R_OVNIRUN) {
		c->stage = ST_READY;
		return send_frame(c->fd, OA_COL_WELC, "");
	}
	char *end;
	long pid = kv(text, "pid", v, sizeof(v)) ? strtol(v, &end, 10) : 0;
	if (!kv(text, "loom", loom, sizeof(loom)) || !oa_col_valid_loom(loom) || pid <= 0 || pid > 1 << 30 || *end)
		return -1;
	snprintf(c->loom, sizeof(c->loom), "%s", loom);
	c->pid = (int)pid;
	if (c->role == R_FINI) {
		/* Known only once its streams are in (FINI) or it says it crashed. */
		if (oa_col_store_begin(c->id) != 0)
			return send_frame(c->fd, OA_COL_DENY, "cannot write the trace"), -1;
		c->staging = 1;
		c->stage = ST_READY;
		return send_frame(c->fd, OA_COL_WELC, "");
	}
	if (c->role == R_JOIN && stopping) /* it will run untraced: not one of ours */
		return send_frame(c->fd, OA_COL_DENY, "the run is stopping (fail-stop)"), -1;
	if (oa_col_nprocs >= PROCS_MAX)
		return send_frame(c->fd, OA_COL_DENY, "too many processes in this run"), -1;
	struct oa_col_host *h = oa_col_host_get(loom);
	if (!h)
		return -1;
	/* The clock first: a process that does not answer is not one; one
	 * that answers too slowly (a loaded host) is, unmeasured. */
	int measured = c->role == R_JOIN && h->joins_measured < 3;
	if (measured && measure(h, c, 0) == -1)
		return -1;
	struct oa_col_proc *p = oa_col_proc_get(h, (int)pid);
	if (!p)
		return -1;
	c->proc = p;
	if (kv(text, "prog", v, sizeof(v)))
		snprintf(p->prog, sizeof(p->prog), "%s", v);
	if (c->role == R_JOIN) {
		last_join = oa_col_clock();
		if (p->state == PROC_LOST)
			note("%s/proc.%d is back", h->loom, p->pid);
		if (p->state != PROC_FINISHED)
			p->state = PROC_RUNNING;
		p->watch_lost_at = 0;
		char w[64];
		snprintf(w, sizeof(w), "failstop=%d\nstreams=%d\n", failstop, !clocks_only);
		send_frame(c->fd, OA_COL_WELC, w);
		if (measured) {
			c->stage = ST_DRAIN;
			return 0;
		}
		return 1; /* done with this connection */
	}
	if (c->role == R_WATCH) {
		p->watch++;
		p->watch_lost_at = 0;
		c->stage = ST_WATCH;
		int r = send_frame(c->fd, OA_COL_WELC, "");
		if (!r && stopping)
			r = send_frame(c->fd, OA_COL_STOP, NULL);
		return r;
	}
	return -1;
}

/* The process a fini connection speaks for. */
static struct oa_col_proc *proc_of(struct client *c)
{
	if (!c->proc && oa_col_nprocs >= PROCS_MAX)
		return NULL;
	if (!c->proc) {
		struct oa_col_host *h = oa_col_host_get(c->loom);
		c->proc = h ? oa_col_proc_get(h, c->pid) : NULL;
	}
	return c->proc;
}

static int fini(struct client *c, const char *text)
{
	struct oa_col_proc *p = proc_of(c);
	int n = 0;
	if (!p)
		return -1;
	int r = clocks_only ? 0 : oa_col_store_commit(c->id, p->host->loom, p->pid, &n);
	c->staging = 0;
	if (r) {
		/* Not stored: the process keeps its streams (no BYE). */
		fprintf(stderr, "collect: cannot store the streams of %s/proc.%d: %s\n", p->host->loom, p->pid,
			strerror(-r));
		send_frame(c->fd, OA_COL_DENY, "cannot store the streams");
		return 1;
	}
	p->nstreams += n;
	p->bytes += c->bytes;
	p->state = PROC_FINISHED;
	p->stopped |= strstr(text, "how=stopped") != NULL;
	nfini++;
	/* The clock again, for drift: once per host and second at most; or,
	 * sooner, a better series where the join's was poor. */
	struct oa_col_host *h = p->host;
	int measured = 1;
	if (h->measured && oa_col_clock() - (h->measured == 2 ? h->t_last : h->t_first) > 1000000000ull)
		measure(h, c, 1);
	else if (h->measured == 1 && oa_col_host_poor(h))
		measure(h, c, 0);
	else
		measured = 0;
	send_frame(c->fd, OA_COL_BYE, NULL);
	if (measured) {
		c->stage = ST_DRAIN;
		return 0;
	}
	return 1;
}

/* One frame; 0 go on, 1 done (close quietly), -1 protocol error. */
static int frame(struct client *c, uint32_t type, uint8_t *payload, uint32_t len)
{
	char *text = (char *)payload;
	if (c->stage == ST_HELLO)
		return type == OA_COL_HELO ? helo(c, text, len) : -1;
	if (c->stage == ST_AUTH)
		return type == OA_COL_PROV ? prov(c, text) : -1;
	if (c->stage == ST_WATCH)
		return -1;
	if (c->role == R_OVNIRUN) {
		if (type == OA_COL_BEGN)
			sessions_begun++;
		else if (type == OA_COL_DONE)
			sessions_done++;
		else
			return -1;
		last_join = oa_col_clock();
		return 1;
	}
	switch (type) {
	case OA_COL_CRSH:
		if (!proc_of(c))
			return -1;
		c->proc->crashed = atoi(text + (strncmp(text, "sig=", 4) ? 0 : 4));
		note("%s/proc.%d (%s) died of signal %d", c->proc->host->loom, c->proc->pid, c->proc->prog,
		     c->proc->crashed);
		if (is_crash(c->proc->crashed))
			stop_all("a process crashed");
		return 0;
	case OA_COL_FILE: {
		if (len < 9 || len > 8 + OA_COL_NAME_MAX || clocks_only)
			return -1;
		uint64_t size = oa_col_get64(payload);
		text[len] = '\0';
		if (size > max_bytes - c->bytes) /* c->bytes <= max_bytes: no overflow */
			return -1;
		int r = oa_col_store_file(c->id, text + 8, &c->file_fd);
		if (r == -EINVAL)
			return -1;
		if (r != 0) {
			fprintf(stderr, "collect: cannot write %s: %s\n", text + 8, strerror(-r));
			return -1;
		}
		c->file_left = size;
		c->bytes += size;
		total_bytes += size;
		c->stage = ST_DATA;
		if (!size) {
			close(c->file_fd);
			c->file_fd = -1;
			c->stage = ST_READY;
		}
		return 0;
	}
	case OA_COL_FINI: return fini(c, text);
	default: return -1;
	}
}

/* Everything complete in the input buffer; the rest waits for more. */
static int consume(struct client *c)
{
	size_t off = 0;
	int r = 0;
	if (c->stage == ST_DRAIN) {
		c->have = 0;
		return 0;
	}
	while (!r && off < c->have) {
		if (c->stage == ST_DATA) {
			size_t n = c->have - off;
			if (n > c->file_left)
				n = (size_t)c->file_left;
			if (write(c->file_fd, c->buf + off, n) != (ssize_t)n) {
				fprintf(stderr, "collect: cannot write the trace: %s\n", strerror(errno));
				return -2;
			}
			off += n;
			c->file_left -= n;
			if (!c->file_left) {
				close(c->file_fd);
				c->file_fd = -1;
				c->stage = ST_READY;
			}
			continue;
		}
		if (c->have - off < OA_COL_HDR)
			break;
		uint32_t type = oa_col_get32(c->buf + off), len = oa_col_get32(c->buf + off + 4);
		if (len > OA_COL_MAX_CTRL)
			return -1;
		if (c->have - off < OA_COL_HDR + (size_t)len + 1 && c->have - off < OA_COL_HDR + (size_t)len)
			break;
		/* NUL-terminate the payload in place (the next byte is read again below). */
		uint8_t keep = off + OA_COL_HDR + len < IN_MAX ? c->buf[off + OA_COL_HDR + len] : 0;
		c->buf[off + OA_COL_HDR + len] = 0;
		r = frame(c, type, c->buf + off + OA_COL_HDR, len);
		if (off + OA_COL_HDR + len < IN_MAX)
			c->buf[off + OA_COL_HDR + len] = keep;
		off += OA_COL_HDR + len;
	}
	memmove(c->buf, c->buf + off, c->have - off);
	c->have -= off;
	return r;
}

static void serve(struct client *c)
{
	ssize_t n = recv(c->fd, c->buf + c->have, IN_MAX - 1 - c->have, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		drop(c, c->stage == ST_DATA || (c->role == R_FINI && c->stage == ST_READY)
				? "the process went away in the middle of sending"
				: NULL);
		return;
	}
	c->have += (size_t)n;
	c->last_io = oa_col_clock();
	int r = consume(c);
	if (r == 1)
		drop(c, NULL);
	else if (r < 0)
		drop(c, c->stage <= ST_AUTH ? "not a traced process of this run" : "protocol error");
}

static int max_clients = MAX_CLIENTS;
static uint64_t accept_pause_until; /* out of descriptors: accept again after this */

static void accept_one(int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
			accept_pause_until = oa_col_clock() + 100000000ull; /* not a busy loop */
		return;
	}
	/* Not yet identified: at most HELLO_MAX; the oldest makes room (a
	 * flood without the secret cannot keep the real processes out). */
	int hello = 0;
	struct client *oldest = NULL;
	for (struct client *k = clients; k; k = k->next) {
		if (k->fd >= 0 && k->stage <= ST_AUTH) {
			hello++;
			if (!oldest || k->since < oldest->since)
				oldest = k;
		}
	}
	if (hello >= HELLO_MAX && oldest)
		drop(oldest, "too many connections that did not say who they are");
	struct client *c = nclients < max_clients ? malloc(sizeof(*c)) : NULL;
	if (!c) {
		close(fd);
		return;
	}
	static unsigned next_id;
	memset(c, 0, offsetof(struct client, buf));
	c->fd = fd;
	c->id = ++next_id;
	c->file_fd = -1;
	c->since = c->last_io = oa_col_clock();
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->next = clients;
	clients = c;
	nclients++;
}

int cmd_collect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, 0, 'o' },
		{ "listen", required_argument, 0, 'l' },
		{ "contact-file", required_argument, 0, 'c' },
		{ "fail-stop", no_argument, 0, 1 },
		{ "clocks-only", no_argument, 0, 2 },
		{ "grace", required_argument, 0, 3 },
		{ "idle", required_argument, 0, 4 },
		{ "max-bytes", required_argument, 0, 5 },
		{ "status", required_argument, 0, 6 },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ "force", no_argument, 0, 'f' },
		{ 0, 0, 0, 0 },
	};
	const char *listen_spec = NULL, *contact_file = NULL;
	int c, grace_set = 0, force = 0;
	while ((c = getopt_long(argc, argv, "o:l:c:fqh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': outdir = optarg; break;
		case 'l': listen_spec = optarg; break;
		case 'c': contact_file = optarg; break;
		case 1: failstop = 1; break;
		case 2: clocks_only = 1; break;
		case 3:
			grace_s = atof(optarg);
			grace_set = 1;
			break;
		case 4: idle_s = atof(optarg); break;
		case 5: {
			char *end;
			double v = strtod(optarg, &end);
			int sh = *end == 'K' || *end == 'k' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
			max_bytes = (uint64_t)(v * (double)(1ull << sh));
			break;
		}
		case 6: return oa_col_show_status(optarg);
		case 'f': force = 1; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (!outdir || optind != argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	/* Another run's trace is not mixed into this one without a word. */
	DIR *existing = opendir(outdir);
	if (existing) {
		struct dirent *e;
		int used = 0;
		while (!used && (e = readdir(existing)))
			used = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
		closedir(existing);
		if (used && !force) {
			fprintf(stderr,
				"ovni-auto collect: %s holds files; choose a new directory, or -f to write "
				"into it\n",
				outdir);
			return 2;
		}
	}
	/* As many descriptors as allowed: a connection and a file each. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur != RLIM_INFINITY && (rlim_t)max_clients > rl.rlim_cur / 2)
			max_clients = (int)(rl.rlim_cur / 2) > 16 ? (int)(rl.rlim_cur / 2) : 16;
	}
	int r = oa_col_store_open_root(outdir);
	if (r)
		die("cannot write in %s: %s", outdir, strerror(-r));
	oa_col_make_secret(secret, run);
	char host[300];
	int port;
	int lfd = oa_col_listen(listen_spec, host, sizeof(host), &port);
	char contact[512];
	snprintf(contact, sizeof(contact), "%s:%d:%s:%s", host, port, run, secret);
	if (contact_file) {
		unlink(contact_file);
		int fd = open(contact_file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || dprintf(fd, "%s\n", contact) < 0 || close(fd) != 0)
			die("cannot write %s:", contact_file);
	}
	printf("%s\n", contact);
	fflush(stdout);
	note("listening on port %d; trace in %s%s%s", port, outdir, failstop ? "; fail-stop" : "",
	     clocks_only ? "; clocks only" : "");

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	uint64_t last_status = 0;
	long shown = -1;
	int seen_terminate = 0;
	struct pollfd *pfd = calloc(MAX_CLIENTS + 1, sizeof(*pfd));
	struct client **who = calloc(MAX_CLIENTS + 1, sizeof(*who));
	if (!pfd || !who)
		die("out of memory");
	for (;;) {
		/* Read what came first, then judge silences and ends. */
		int n = 0;
		if (lfd >= 0 && oa_col_clock() >= accept_pause_until) {
			pfd[n].fd = lfd;
			pfd[n].events = POLLIN;
			who[n++] = NULL;
		}
		for (struct client *k = clients; k; k = k->next) {
			pfd[n].fd = k->fd;
			pfd[n].events = POLLIN;
			who[n++] = k;
		}
		if (poll(pfd, (nfds_t)n, 200) > 0) {
			for (int i = 0; i < n; i++) {
				if (!pfd[i].revents)
					continue;
				if (!who[i])
					accept_one(lfd);
				else if (who[i]->fd >= 0)
					serve(who[i]);
			}
		}
		uint64_t now = oa_col_clock();
		if (terminate > seen_terminate) {
			if (seen_terminate || terminate > 1)
				break; /* a second signal: now */
			seen_terminate = 1;
			note("interrupted: gathering what is being sent");
			stop_all("the collector was interrupted");
			if (lfd >= 0)
				close(lfd);
			lfd = -1;
			end_deadline = now + (uint64_t)((grace_set ? grace_s : 5) * 1e9);
		}
		/* Watch connections gone without a FINI within 2 s (an exec, or
		 * a program that closed the descriptor, reconnects sooner): the
		 * process vanished. */
		for (struct oa_col_proc *p = oa_col_procs; p; p = p->next) {
			if (p->state == PROC_RUNNING && !p->watch && p->watch_lost_at &&
			    now - p->watch_lost_at > 2000000000ull) {
				p->state = PROC_LOST;
				note("%s/proc.%d (%s) vanished", p->host->loom, p->pid, p->prog);
				stop_all("a process vanished");
			}
		}
		/* Connections that say nothing: 5 s to say who they are, 60 s
		 * between two reads, 10 s to close after the last word. */
		for (struct client *k = clients; k; k = k->next) {
			if (k->fd >= 0 && k->stage == ST_DRAIN && now - k->last_io > 10000000000ull)
				drop(k, NULL); /* the agent's own deadline has passed */
			else if (k->fd >= 0 && ((k->stage <= ST_AUTH && now - k->since > 5000000000ull) ||
						(k->stage != ST_WATCH && now - k->last_io > 60000000000ull)))
				drop(k, "silent for too long");
		}
		for (struct client **pp = &clients; *pp;) {
			if ((*pp)->fd < 0) {
				struct client *dead = *pp;
				*pp = dead->next;
				free(dead);
				nclients--;
			} else {
				pp = &(*pp)->next;
			}
		}
		long running, finished, lost, streams;
		oa_col_counts(&running, &finished, &lost, &streams);
		int sending = 0;
		for (struct client *k = clients; k; k = k->next)
			sending += k->fd >= 0 && (k->role == R_FINI || k->stage <= ST_AUTH);
		/* Every ovnirun of the run has ended: the others get `grace` to send. */
		int all_done = sessions_begun && sessions_done >= sessions_begun;
		if (all_done && !end_deadline) {
			note("every ovnirun of the run has ended; waiting for the processes still sending");
			end_deadline = now + (uint64_t)(grace_s * 1e9);
		}
		if (!all_done && !seen_terminate)
			end_deadline = 0; /* another ovnirun began */
		if (seen_terminate && !sending && (!failstop || !running))
			break;
		if (all_done && !running && !sending && now - last_join > 1000000000ull)
			break;
		if (idle_s > 0 && (finished || lost) && !running && !sending && now - last_join > idle_s * 1e9)
			break;
		if (end_deadline && now > end_deadline)
			break;
		if (now - last_status > 1000000000ull) {
			last_status = now;
			oa_col_status(total_bytes, stopping ? "stopping" : "running");
			if (nfini != shown && nfini) {
				shown = nfini;
				note("%ld processes finished, %ld running, %.1f KiB received", finished, running,
				     (double)total_bytes / 1024);
			}
		}
	}
	for (struct client *k = clients; k; k = k->next)
		if (k->fd >= 0)
			drop(k, NULL);
	oa_col_summary(outdir, total_bytes, ngarbage, quiet);
	free(pfd);
	free(who);
	return 0;
}
