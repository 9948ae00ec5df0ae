/* collect.c: the agent's side of `ovni-auto collect` (see collect.h).
 * Connections are short (join; send at the end), so the program owns every
 * descriptor it sees, except with fail-stop: then one connection stays open
 * at a high descriptor number, watched by a thread of ours that takes no
 * signal, and is checked to still be ours (its two addresses) before every
 * use, since the program may close or reuse any number.
 * The end of a process may come from a fatal-signal handler: sending uses
 * only system calls, static buffers and no lock. */
#include "../common/compiler.h"
#include "../common/sys.h"
#include "collect.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../writer/clock.h"
#include "../common/collect_fmt.h"
#include "../common/fdroom.h"
#include "../common/log.h"
#include "../writer/sigblock.h"
#include "collect_io.h"
#include "config.h"
#include "real.h"
#include "../common/env.h"

#define CONNECT_MS 2000          /* a collector that does not answer in this time is unreachable */
#define IO_SECONDS 10            /* the whole start-up exchange, and a transfer's base time */
#define IO_BYTES_PER_S (1 << 20) /* a transfer's deadline grows with its size at this rate */

static int active;      /* OVNI_COLLECT in effect */
static int failstop;    /* the collector asked for a watch connection */
static int streams = 1; /* the collector takes the streams (else: clocks only) */
static int reachable;   /* joined */
static int denied;      /* the collector said no (a fail-stop run that is stopping): trace nothing */
/* Only a run with a collector touches these: in .lbss (compiler.h), away
 * from the small variables every traced process writes. */
static struct sockaddr_storage addr OA_LARGE_BSS;
static socklen_t addrlen;
static char where[300] OA_LARGE_BSS; /* "host:port", for messages */
static char run[OA_COL_RUN_HEX + 1] OA_LARGE_BSS, secret[OA_COL_SECRET_HEX + 1] OA_LARGE_BSS;
static char localdir[4096] OA_LARGE_BSS;
static _Atomic int send_state; /* 0 not sent, 1 sending, 2 done */
static _Atomic int said;

/* The watch connection (fail-stop). */
static int watch_fd = -1;
static struct sockaddr_storage watch_local OA_LARGE_BSS, watch_peer OA_LARGE_BSS;
static socklen_t watch_local_len, watch_peer_len;

static uint8_t iobuf[64 * 1024] OA_LARGE_BSS; /* one sender per process (send_state) */

OA_EARLY_TEXT int oa_col_active(void)
{
	return active;
}

/* strerror() is not async-signal-safe: the errors a connection meets. */
static const char *err_text(int e)
{
	switch (e) {
	case ECONNREFUSED: return "connection refused";
	case ETIMEDOUT: return "timed out";
	case ECONNRESET: return "connection reset";
	case EPIPE: return "connection closed";
	case EHOSTUNREACH: return "host unreachable";
	case ENETUNREACH: return "network unreachable";
	case EAGAIN: return "timed out";
	case EMFILE:
	case ENFILE: return "no descriptor free";
	case EPROTO: return "the collector broke off";
	case EACCES: return "it could not prove it knows the run's secret";
	default: return "error";
	}
}

/* One message per run and host: the first process to create the marker
 * in the local directory says it (open() is async-signal-safe). */
static void say_once(const char *what, const char *detail)
{
	if (atomic_exchange(&said, 1))
		return;
	static char marker[4200] OA_LARGE_BSS; /* once per process (said): not on a signal stack */
	oa_snprintf(marker, sizeof(marker), "%s/.said", localdir);
	int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST)
		return;
	if (fd >= 0)
		oa_nc_close(fd);
	oa_log("%s the collector at %s (%s): the trace stays in %s", what, where, detail, localdir);
}

/* A blocking connection with bounded waits, or -1 (errno set). */
static int dial(void)
{
	int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&addr, addrlen) != 0) {
		if (errno != EINPROGRESS)
			goto fail;
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int r;
		while ((r = poll(&p, 1, CONNECT_MS)) < 0 && errno == EINTR)
			;
		if (r == 0) {
			errno = ETIMEDOUT;
			goto fail;
		}
		int err = 0;
		socklen_t el = sizeof(err);
		if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
			goto fail;
		if (err) {
			errno = err;
			goto fail;
		}
	}
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	struct timeval tv = { .tv_sec = IO_SECONDS };
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
fail:;
	int e = errno;
	oa_nc_close(fd);
	errno = e;
	return -1;
}

/* What came from the network, fit to print: printable ASCII only, short. */
static void tame(char *text)
{
	size_t i = 0;
	for (; text[i] && i < 160; i++)
		if ((unsigned char)text[i] < 0x20 || (unsigned char)text[i] > 0x7e)
			text[i] = '?';
	text[i] = '\0';
}

static void make_nonce(char *hex)
{
	uint8_t r[OA_COL_NONCE_HEX / 2];
	if (syscall(SYS_getrandom, r, sizeof(r), 0x1 /* GRND_NONBLOCK */) != (long)sizeof(r)) {
		uint64_t a = oa_clock_mono() ^ ((uint64_t)getpid() << 32), b = a * 0x9E3779B97F4A7C15ull;
		memcpy(r, &a, 8);
		memcpy(r + 8, &b, 8);
	}
	oa_col_hex(r, sizeof(r), hex);
}

/* HELO, the proofs both ways (the collector first: the secret's owner is
 * known before anything that depends on it leaves), then the collector's
 * clock pings (a bounded number) until WELC (0) or DENY (-2, its text in
 * reply, tamed). */
static int hello(int fd, const char *role, char *reply, uint32_t size)
{
	char msg[600], mine[OA_COL_NONCE_HEX + 1], theirs[OA_COL_NONCE_HEX + 1], proof[OA_COL_PROOF_HEX + 1];
	char want[OA_COL_PROOF_HEX + 1];
	make_nonce(mine);
	int n = oa_snprintf(msg, sizeof(msg), "run=%s\nnonce=%s\nrole=%s\nloom=%s\npid=%d\nppid=%d\nprog=%s\n", run,
			    mine, role, oa_cfg.loom, (int)getpid(), (int)getppid(), program_invocation_short_name);
	if (n < 0 || (size_t)n >= sizeof(msg) || oa_colio_send_frame(fd, OA_COL_HELO, msg, (uint32_t)n))
		return -1;
	uint32_t type, len;
	if (oa_colio_recv_frame(fd, &type, reply, size, &len))
		return -1;
	if (type == OA_COL_DENY) {
		tame(reply);
		return -2;
	}
	if (type != OA_COL_AUTH || !oa_col_kv(reply, "nonce", theirs, sizeof(theirs)) ||
	    strlen(theirs) != OA_COL_NONCE_HEX || !oa_col_kv(reply, "proof", proof, sizeof(proof))) {
		errno = EPROTO;
		return -1;
	}
	oa_col_proof(secret, "collector", mine, theirs, want);
	if (!oa_col_same(proof, want)) {
		errno = EACCES; /* not the run's collector */
		return -1;
	}
	oa_col_proof(secret, "agent", theirs, mine, want);
	n = oa_snprintf(msg, sizeof(msg), "proof=%s\n", want);
	if (oa_colio_send_frame(fd, OA_COL_PROV, msg, (uint32_t)n))
		return -1;
	for (int pings = 0;;) {
		if (oa_colio_recv_frame(fd, &type, reply, size, &len))
			return -1;
		if (type == OA_COL_PING) {
			if (++pings > OA_COL_MAX_PINGS) {
				errno = EPROTO;
				return -1;
			}
			uint8_t c[8];
			oa_col_put64(c, oa_clock_mono()); /* CLOCK_MONOTONIC itself, which the trace clock follows */
			if (oa_colio_send_frame(fd, OA_COL_PONG, c, 8))
				return -1;
		} else if (type == OA_COL_WELC) {
			return 0;
		} else if (type == OA_COL_DENY) {
			tame(reply);
			return -2;
		} else {
			errno = EPROTO;
			return -1;
		}
	}
}

static int flag_of(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p && p[strlen(key)] == '1';
}

/* ---- fail-stop: the watch connection and its thread ---- */

static int watch_is_ours(void)
{
	struct sockaddr_storage a, b;
	socklen_t al = sizeof(a), bl = sizeof(b);
	if (watch_fd < 0 || getsockname(watch_fd, (struct sockaddr *)&a, &al) != 0 ||
	    getpeername(watch_fd, (struct sockaddr *)&b, &bl) != 0)
		return 0;
	return al == watch_local_len && bl == watch_peer_len && !memcmp(&a, &watch_local, al) &&
	       !memcmp(&b, &watch_peer, bl);
}

/* A watch connection at a high number, its addresses noted: 0 or -1. */
static int watch_connect(void)
{
	oa_colio_begin(IO_SECONDS);
	int fd = dial();
	if (fd < 0)
		return -1;
	char reply[256];
	if (hello(fd, "watch", reply, sizeof(reply)) != 0) {
		oa_nc_close(fd);
		return -1;
	}
	fd = oa_fd_move_high(fd);
	watch_local_len = sizeof(watch_local);
	watch_peer_len = sizeof(watch_peer);
	getsockname(fd, (struct sockaddr *)&watch_local, &watch_local_len);
	getpeername(fd, (struct sockaddr *)&watch_peer, &watch_peer_len);
	watch_fd = fd;
	return 0;
}

static void *watch_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p = { .fd = watch_fd, .events = POLLIN };
		int r = poll(&p, 1, 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (!watch_is_ours()) {
			/* The program closed the number (closefrom, close_range):
			 * a new connection, before the collector takes the end of
			 * the old one for the end of the process (2 s). */
			watch_fd = -1;
			if (atomic_load(&send_state) || watch_connect() != 0)
				return NULL;
			continue;
		}
		if (r == 0)
			continue;
		uint32_t type, len;
		char buf[256];
		if (oa_colio_recv_frame(watch_fd, &type, buf, sizeof(buf), &len) || type != OA_COL_STOP) {
			oa_nc_close(watch_fd); /* the collector went away */
			watch_fd = -1;
			return NULL;
		}
		agent_collect_stop();
		oa_col_process_done(OA_COLLECT_STOPPED, 0);
		return NULL;
	}
}

static void start_watch(void)
{
	if (watch_connect() != 0)
		return;
	/* The watcher takes no signal of the program's. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	pthread_t th;
	/* The real one (resolved at start): the name would be our own hook. */
	oa_fdlock_threads_made();
	if (!oa_real.pthread_create || oa_real.pthread_create(&th, &attr, watch_main, NULL) != 0) {
		oa_nc_close(watch_fd);
		watch_fd = -1;
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- join ---- */

static int local_dir(void)
{
	const char *base = oa_cfg.staging ? oa_cfg.tmpdir : oa_getenv("TMPDIR");
	if (!base || base[0] != '/')
		base = "/tmp";
	int n = oa_snprintf(localdir, sizeof(localdir), "%s/ovni-collect.%d.%s", base, (int)getuid(), run);
	if (n < 0 || (size_t)n >= sizeof(localdir) - 600)
		return -1;
	mkdir(localdir, 0700);
	struct stat st;
	/* Not a link someone else planted, not someone else's directory. */
	if (lstat(localdir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
		return -1;
	return 0;
}

static void join(int may_setenv)
{
	if (oa_env(OA_ENV_COLLECT_UNREACHABLE)) {
		atomic_store(&said, 1); /* an earlier process of the run said it */
		return;
	}
	oa_colio_begin(IO_SECONDS);
	int fd = dial();
	char reply[OA_COL_MAX_CTRL];
	int r = fd < 0 ? -1 : hello(fd, "join", reply, sizeof(reply));
	int err = errno;
	if (fd >= 0)
		oa_nc_close(fd);
	if (r == 0) {
		reachable = 1;
		failstop = flag_of(reply, "failstop=");
		streams = !strstr(reply, "streams=0");
		return;
	}
	if (r == -2) {
		denied = 1;
		say_once("refused by", reply);
	} else {
		say_once("cannot reach", err_text(fd < 0 ? err : (err ? err : EPROTO)));
		/* Children would wait again: they keep their streams locally at
		 * once.  Not in a fork child: the environment's lock may be held
		 * by a thread of the parent that did not come along. */
		if (may_setenv)
			oa_env_set(OA_ENV_COLLECT_UNREACHABLE, "1");
	}
}

/* OVNI_COLLECT read: contact and local directory. 0, or -1 (said). */
static int setup(void)
{
	const char *v = oa_env(OA_ENV_COLLECT);
	char text[600];
	if (v[0] == '@') {
		int fd = open(v + 1, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
		if (fd >= 0)
			oa_nc_close(fd);
		if (n <= 0) {
			oa_log("cannot read the collector's contact file %s: the program runs untraced", v + 1);
			return -1;
		}
		text[n] = '\0';
		text[strcspn(text, "\r\n")] = '\0';
	} else {
		oa_snprintf(text, sizeof(text), "%s", v);
	}
	char *host, *port, *r, *s;
	if (oa_col_parse_contact(text, &host, &port, &r, &s) != 0) {
		oa_log("OVNI_COLLECT is not a contact string (HOST:PORT:RUN:SECRET, as `ovni-auto collect` "
		       "prints it): the program runs untraced");
		return -1;
	}
	oa_snprintf(where, sizeof(where), "%s:%s", host, port);
	memcpy(run, r, sizeof(run));
	memcpy(secret, s, sizeof(secret));
	if (local_dir() != 0) {
		oa_log("cannot use %s for the streams of the collector's run: the program runs untraced", localdir);
		return -1;
	}
	active = 1;
	return 0;
}

/* The collector's address, once: 0, or 1 when it cannot be found (said). */
static int resolve(void)
{
	char text[300], *port;
	oa_snprintf(text, sizeof(text), "%s", where);
	port = strrchr(text, ':');
	*port++ = '\0';
	const char *host = text;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int g = getaddrinfo(host, port, &hints, &ai);
	if (g != 0 || !ai || ai->ai_addrlen > sizeof(addr)) {
		say_once("cannot find", g ? gai_strerror(g) : "no address");
		if (ai)
			freeaddrinfo(ai);
		return 1;
	}
	memcpy(&addr, ai->ai_addr, ai->ai_addrlen);
	addrlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

OA_START_TEXT int oa_col_init(void)
{
	const char *v = oa_env(OA_ENV_COLLECT);
	if (!v || !*v)
		return 0;
	if (setup() != 0)
		return -1;
	if (resolve() == 0)
		join(1);
	if (streams || !reachable) {
		oa_snprintf(oa_cfg.tracedir, sizeof(oa_cfg.tracedir), "%s", localdir);
		oa_cfg.tmpdir[0] = '\0';
		oa_cfg.staging = 0;
	}
	if (denied)
		return -1;
	if (reachable && failstop)
		start_watch();
	return 0;
}

void oa_col_untraced_image(void)
{
	const char *v = oa_env(OA_ENV_COLLECT);
	if (!v || !*v || oa_env(OA_ENV_COLLECT_UNREACHABLE) || setup() != 0)
		return;
	char procdir[4400];
	struct stat st;
	oa_snprintf(procdir, sizeof(procdir), "%s/loom.%s/proc.%d", localdir, oa_cfg.loom, (int)getpid());
	if (stat(procdir, &st) == 0 && resolve() == 0) {
		/* An earlier image of this process (before its exec) was traced
		 * and left its streams: they are sent now, as at its end. */
		reachable = 1;
		streams = 1;
		oa_snprintf(oa_cfg.tracedir, sizeof(oa_cfg.tracedir), "%s", localdir);
		oa_col_process_done(OA_COLLECT_EXIT, 0);
	}
	active = 0;
}

int oa_col_after_fork(int traced)
{
	if (!active)
		return 0;
	/* The parent's watch connection and its state stay the parent's. */
	if (watch_fd >= 0 && watch_is_ours())
		oa_nc_close(watch_fd);
	watch_fd = -1;
	int was_sent = atomic_load(&send_state) != 0; /* the parent was stopped (fail-stop) */
	atomic_store(&send_state, 0);
	if (!traced || was_sent) {
		active = 0;
		return -1;
	}
	if (reachable) {
		reachable = 0;
		join(0);
		if (denied) {
			active = 0;
			return -1;
		}
		if (reachable && failstop)
			start_watch();
	}
	return 0;
}

/* ---- sending the streams ---- */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* For each thread.* directory of the process directory: fn(dfd, name). */
static int each_thread(int dfd, int (*fn)(int fd, int dfd, const char *name), int fd)
{
	static char buf[4096] __attribute__((aligned(8))) OA_LARGE_BSS; /* one sender per process */
	lseek(dfd, 0, SEEK_SET);
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(void *)(buf + off);
			off += d->d_reclen;
			if (!strncmp(d->d_name, "thread.", 7) && fn(fd, dfd, d->d_name))
				return -1;
		}
	}
}

static const char *const files[] = { "stream.obs", "stream.json" };

static int send_thread(int fd, int dfd, const char *name)
{
	int tdfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tdfd < 0)
		return 0;
	int r = 0;
	for (int i = 0; i < 2 && !r; i++) {
		int f = openat(tdfd, files[i], O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (f < 0 || fstat(f, &st) != 0) {
			if (f >= 0)
				oa_nc_close(f);
			continue;
		}
		uint8_t hdr[8 + OA_COL_NAME_MAX];
		oa_col_put64(hdr, (uint64_t)st.st_size);
		int n = oa_snprintf((char *)hdr + 8, OA_COL_NAME_MAX, "%s/%s", name, files[i]);
		if (n < 0 || n >= OA_COL_NAME_MAX) {
			oa_nc_close(f);
			continue;
		}
		/* The transfer's deadline grows with what it has to send. */
		oa_colio_extend((uint64_t)st.st_size / IO_BYTES_PER_S * 1000000000ull);
		r = oa_colio_send_frame(fd, OA_COL_FILE, hdr, (uint32_t)(8 + n));
		for (uint64_t left = (uint64_t)st.st_size; !r && left;) {
			ssize_t got = read(f, iobuf, left < sizeof(iobuf) ? left : sizeof(iobuf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				r = -1; /* shorter than it was: the collector sees the connection end */
				break;
			}
			r = oa_colio_send_all(fd, iobuf, (size_t)got);
			left -= (uint64_t)got;
		}
		oa_nc_close(f);
	}
	oa_nc_close(tdfd);
	return r;
}

static int remove_thread(int fd, int dfd, const char *name)
{
	(void)fd;
	int tdfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tdfd < 0)
		return 0;
	for (int i = 0; i < 2; i++)
		unlinkat(tdfd, files[i], 0);
	oa_nc_close(tdfd);
	unlinkat(dfd, name, AT_REMOVEDIR);
	return 0;
}

static void wait_sent(void)
{
	/* Another thread is sending (the watcher, or an exit racing it): the
	 * process must not end under it.  Raw sleeps: not the program's waits. */
	/* The sender's every step is bounded (IO_SECONDS): it ends. */
	for (int i = 0; i < 120 * 100 && atomic_load(&send_state) == 1; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		syscall(SYS_nanosleep, &ts, NULL);
	}
}

static void process_done(enum oa_col_how how, int sig);

/* Every process's end asks: only the question in the start's text (the
 * sending, ~2.5 KiB, moved the hooks after it into another 64 KiB window
 * of text, a page fault more in every traced process). */
OA_START_TEXT void oa_col_process_done(enum oa_col_how how, int sig)
{
	if (active)
		process_done(how, sig);
}

__attribute__((noinline)) static void process_done(enum oa_col_how how, int sig)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&send_state, &expect, 1)) {
		wait_sent();
		return;
	}
	int saved = errno;
	sigset_t old;
	oa_sigblock(&old);
	if (!reachable)
		goto out;
	static char procdir[4400] OA_LARGE_BSS; /* one sender per process (send_state): not on a signal stack */
	oa_snprintf(procdir, sizeof(procdir), "%s/loom.%s/proc.%d", oa_cfg.tracedir, oa_cfg.loom, (int)getpid());
	int dfd = streams ? open(procdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (streams && dfd < 0)
		goto out; /* nothing was written */
	oa_colio_begin(IO_SECONDS);
	int fd = dial();
	char reply[256];
	int r = fd < 0 ? -1 : hello(fd, "fini", reply, sizeof(reply));
	if (!r && how == OA_COLLECT_SIGNAL) {
		char m[32];
		int n = oa_snprintf(m, sizeof(m), "sig=%d\n", sig);
		r = oa_colio_send_frame(fd, OA_COL_CRSH, m, (uint32_t)n);
	}
	if (!r && dfd >= 0)
		r = each_thread(dfd, send_thread, fd);
	if (!r) {
		static const char *const hows[] = { "how=exit\n", "how=signal\n", "how=stopped\n" };
		r = oa_colio_send_frame(fd, OA_COL_FINI, hows[how], (uint32_t)strlen(hows[how]));
	}
	/* The collector may measure the clock again before it says goodbye. */
	for (uint32_t type = 0, len, pings = 0; !r && type != OA_COL_BYE;) {
		if (oa_colio_recv_frame(fd, &type, reply, sizeof(reply), &len)) {
			r = -1;
		} else if (type == OA_COL_PING && ++pings > OA_COL_MAX_PINGS) {
			r = -1;
			errno = EPROTO;
		} else if (type == OA_COL_PING) {
			uint8_t c[8];
			oa_col_put64(c, oa_clock_mono()); /* CLOCK_MONOTONIC itself, which the trace clock follows */
			r = oa_colio_send_frame(fd, OA_COL_PONG, c, 8);
		} else if (type != OA_COL_BYE) {
			r = -1;
		}
	}
	int err = errno;
	if (fd >= 0)
		oa_nc_close(fd);
	if (r) {
		say_once("could not send the streams to", err_text(err ? err : EPROTO));
	} else if (dfd >= 0) {
		each_thread(dfd, remove_thread, -1);
		rmdir(procdir);
	}
	if (dfd >= 0)
		oa_nc_close(dfd);
out:
	atomic_store(&send_state, 2);
	oa_sigrestore(&old);
	errno = saved;
}
