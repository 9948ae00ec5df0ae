/* test_collect_slow.c: the collector (`ovni-auto collect`, forked here) and
 * agents that answer its clock pings slowly, played by this test:
 *   - however poor the round trips, one exchange never asks for more PINGs
 *     than an agent answers (OA_COL_MAX_PINGS; the agent breaks off after
 *     that, and its process ran with its streams kept locally);
 *   - an agent too slow for the measurement's deadline is still welcomed
 *     (its join is not dropped as a protocol error);
 *   - the same at a FINI measured again for drift: BYE, not a broken
 *     connection.
 * The fast agent first sets the best round trip the collector has seen;
 * a round trip far from it makes the collector measure again (on a loaded
 * machine the deadline may come first: fewer PINGs, never more). */
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include "../../common/collect_fmt.h"
#include "../../tools/cmds.h"
#include "test.h"

static char host[300], port[16], run[OA_COL_RUN_HEX + 1], secret[OA_COL_SECRET_HEX + 1];

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int recv_n(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t r = recv(fd, p, n, 0);
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int send_frame(int fd, uint32_t type, const void *payload, uint32_t len)
{
	uint8_t m[OA_COL_HDR + 600];
	oa_col_put32(m, type);
	oa_col_put32(m + 4, len);
	memcpy(m + OA_COL_HDR, payload, len);
	return send(fd, m, OA_COL_HDR + len, MSG_NOSIGNAL) == (ssize_t)(OA_COL_HDR + len) ? 0 : -1;
}

static int recv_frame(int fd, uint32_t *type, char *text, size_t size)
{
	uint8_t h[OA_COL_HDR];
	if (recv_n(fd, h, sizeof(h)))
		return -1;
	*type = oa_col_get32(h);
	uint32_t len = oa_col_get32(h + 4);
	if (len >= size || (len && recv_n(fd, text, len)))
		return -1;
	text[len] = '\0';
	return 0;
}

/* Answer PINGs (each after delay_us) until `until` arrives: the number of
 * PINGs, or -1 (the connection ended or something else came). */
static int answer(int fd, int delay_us, uint32_t until)
{
	char text[600];
	uint32_t type;
	for (int pings = 0;;) {
		if (recv_frame(fd, &type, text, sizeof(text)))
			return -1;
		if (type == until)
			return pings;
		if (type != OA_COL_PING)
			return -1;
		pings++;
		if (delay_us) {
			struct timespec d = { 0, delay_us * 1000L };
			nanosleep(&d, NULL);
		}
		uint8_t c[8];
		oa_col_put64(c, mono());
		if (send_frame(fd, OA_COL_PONG, c, 8))
			return -1;
	}
}

/* A connection that proved itself as `role` of loom/pid: its descriptor,
 * or -1. */
static int agent(const char *role, const char *loom, int pid)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	if (getaddrinfo(host, port, &hints, &ai))
		return -1;
	int fd = socket(ai->ai_family, SOCK_STREAM, 0);
	int ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
	freeaddrinfo(ai);
	if (!ok)
		return -1;
	struct timeval tv = { .tv_sec = 10 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	char mine[OA_COL_NONCE_HEX + 1], theirs[OA_COL_NONCE_HEX + 1], proof[OA_COL_PROOF_HEX + 1];
	char want[OA_COL_PROOF_HEX + 1], m[600];
	snprintf(mine, sizeof(mine), "%08x%08x%016llx", (unsigned)pid, (unsigned)getpid(), (unsigned long long)mono());
	int n = snprintf(m, sizeof(m), "run=%s\nnonce=%s\nrole=%s\nloom=%s\npid=%d\nppid=1\nprog=slow\n", run, mine,
			 role, loom, pid);
	uint32_t type;
	if (send_frame(fd, OA_COL_HELO, m, (uint32_t)n) || recv_frame(fd, &type, m, sizeof(m)) ||
	    type != OA_COL_AUTH || !oa_col_kv(m, "nonce", theirs, sizeof(theirs)) ||
	    !oa_col_kv(m, "proof", proof, sizeof(proof)))
		goto fail;
	oa_col_proof(secret, "collector", mine, theirs, want);
	if (!oa_col_same(proof, want))
		goto fail;
	oa_col_proof(secret, "agent", theirs, mine, want);
	n = snprintf(m, sizeof(m), "proof=%s\n", want);
	if (send_frame(fd, OA_COL_PROV, m, (uint32_t)n))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* A join answering each PING after delay_us: its PINGs before WELC, or -1. */
static int join(const char *loom, int pid, int delay_us)
{
	int fd = agent("join", loom, pid);
	if (fd < 0)
		return -1;
	int pings = answer(fd, delay_us, OA_COL_WELC);
	close(fd);
	return pings;
}

/* A process's end with no stream: its PINGs before BYE, or -1. */
static int fini(const char *loom, int pid, int delay_us)
{
	int fd = agent("fini", loom, pid);
	if (fd < 0)
		return -1;
	const char *how = "how=exit\n";
	int pings = answer(fd, 0, OA_COL_WELC) == 0 && !send_frame(fd, OA_COL_FINI, how, (uint32_t)strlen(how))
			    ? answer(fd, delay_us, OA_COL_BYE)
			    : -1;
	close(fd);
	return pings;
}

int main(void)
{
	char *dir = test_tmpdir("collect-slow");
	char trace[400], contact[400], err[400];
	snprintf(trace, sizeof(trace), "%s/trace", dir);
	snprintf(contact, sizeof(contact), "%s/contact", dir);
	snprintf(err, sizeof(err), "%s/collect.err", dir);
	pid_t col = fork();
	if (col == 0) {
		freopen("/dev/null", "w", stdout);
		freopen(err, "w", stderr);
		setvbuf(stderr, NULL, _IONBF, 0);
		char *argv[] = { "collect", "-o", trace, "-l", "127.0.0.1:0", "-c", contact, "--grace", "1", NULL };
		_exit(cmd_collect(9, argv));
	}
	char text[600] = "";
	for (int i = 0; i < 200 && !text[0]; i++) {
		FILE *f = fopen(contact, "r");
		if (f && fgets(text, sizeof(text), f))
			text[strcspn(text, "\n")] = '\0';
		if (f)
			fclose(f);
		if (!text[0])
			usleep(20000);
	}
	char *h = NULL, *p = NULL, *r = NULL, *s = NULL;
	CHECK(text[0] && oa_col_parse_contact(text, &h, &p, &r, &s) == 0, "the collector's contact");
	if (test_failures) {
		kill(col, SIGKILL);
		TEST_DONE();
	}
	snprintf(host, sizeof(host), "%s", h);
	snprintf(port, sizeof(port), "%s", p);
	memcpy(run, r, sizeof(run));
	memcpy(secret, s, sizeof(secret));

	/* Fast: the best round trip; one series. */
	int n = join("fast", 100, 0);
	CHECK(n >= 1 && n <= OA_COL_MAX_PINGS, "fast join: %d pings", n);
	/* Poor round trips within the deadline: series again, but never more
	 * than an agent answers (5 series were 320 PINGs: the agent broke off). */
	n = join("poor", 200, 150);
	CHECK(n >= 1 && n <= OA_COL_MAX_PINGS, "poor join: %d pings (most %d)", n,
	      OA_COL_MAX_PINGS);
	/* Too slow for the deadline (64 x 5 ms): welcomed all the same. */
	n = join("slow", 300, 5000);
	CHECK(n >= 1 && n < OA_COL_SYNC_ROUNDS, "slow join welcomed: %d pings", n);
	/* Its host again, at an end a second later: measured again (drift),
	 * poor, then slow; BYE each time. */
	sleep(1);
	n = fini("poor", 200, 150);
	CHECK(n >= 0 && n <= OA_COL_MAX_PINGS, "poor fini: %d pings", n); /* 0: its join went unmeasured (loaded machine) */
	n = join("slow2", 400, 0);
	CHECK(n >= 1 && n <= OA_COL_MAX_PINGS, "another fast join: %d pings", n);
	sleep(1);
	n = fini("slow2", 400, 5000);
	CHECK(n >= 0 && n < OA_COL_SYNC_ROUNDS, "slow fini: BYE after %d pings", n);

	kill(col, SIGTERM);
	kill(col, SIGTERM);
	int st = 0;
	waitpid(col, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "collector status %#x", st);
	FILE *f = fopen(err, "r");
	char line[400];
	while (f && fgets(line, sizeof(line), f))
		CHECK(!strstr(line, "dropped"), "collector: %s", line);
	if (f)
		fclose(f);
	char cmd[500];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (!test_failures)
		CHECK(system(cmd) == 0, "cleanup");
	TEST_DONE();
}
