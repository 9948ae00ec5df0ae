/* test_stream.c: the stream writer across window boundaries: every event
 * size (0, 2..16, jumbo up to 300 KB), OF[/OF] after each flush, clocks
 * that never decrease, exact file length, appending (exec), and a stream
 * that cannot grow (file size limit) still ends with OHe; stream.json
 * rewritten in place or through a temporary; "finished" set only once
 * stream.obs is cut (a process killed in between is finished by others). */
#include <dirent.h>
#include <jansson.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>

#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "../../writer/stream.h"
#include "../../writer/ev_omp.h"
#include "../../writer/finish.h"
#include "test.h"

/* The writer's calls that cut a file (this program's own definitions come
 * before the C library's): with die_at_cut set, the process dies there,
 * as a SIGKILL at that point would leave it. */
static volatile int die_at_cut;

int ftruncate(int fd, off_t len)
{
	if (die_at_cut)
		_exit(77);
	return (int)syscall(SYS_ftruncate, fd, len);
}

int truncate(const char *path, off_t len)
{
	if (die_at_cut)
		_exit(77);
	return (int)syscall(SYS_truncate, path, len);
}

static struct oa_meta meta = { .pid = 1, .app_id = 1, .rank = -1, .nranks = -1, .loom = "L" };
static int meta_phy[1] = { 0 };

/* Descriptors this process has open (from /proc/self/fd). */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n - 1; /* the directory's own */
}

static uint8_t pattern(uint64_t i, unsigned j)
{
	return (uint8_t)(i * 31u + j * 7u + 1u);
}

/* Emit nev events of cycling sizes; return how many flush pairs we expect. */
static void emit_many(struct oa_stream *s, uint64_t nev, uint64_t *bytes)
{
	uint8_t payload[16];
	static uint8_t big[300000];
	for (uint64_t i = 0; i < nev; i++) {
		unsigned kind = (unsigned)(i % 17);
		if (i % 1000 == 999) {
			uint32_t n = (uint32_t)(i * 97 % sizeof(big));
			for (uint32_t j = 0; j < n; j += 4093)
				big[j] = pattern(i, j);
			oa_emit_jumbo(s, "POc", big, n);
			*bytes += 16 + n;
			continue;
		}
		unsigned n = kind == 1 ? 0 : kind; /* 0, 2..16 */
		for (unsigned j = 0; j < n; j++)
			payload[j] = pattern(i, j);
		oa_emit(s, kind & 1 ? "OB." : "OM=", payload, n);
		*bytes += 12 + n;
	}
}

static void verify(const char *obs, uint64_t nev, uint64_t *nflush_pairs)
{
	size_t len = 0;
	uint8_t *buf = test_read_file(obs, &len);
	CHECK(buf != NULL, "read %s", obs);
	if (!buf)
		return;
	CHECK(len >= 8 && !memcmp(buf, "ovni", 4), "header");
	size_t off = 8;
	struct test_ev ev;
	uint64_t i = 0, last = 0, flushes = 0, bad = 0;
	int r;
	while ((r = test_next_ev(buf, len, &off, &ev)) == 1) {
		if (ev.clock < last)
			bad++;
		last = ev.clock;
		if (!strcmp(ev.mcv, "OF[")) {
			struct test_ev e2;
			CHECK(test_next_ev(buf, len, &off, &e2) == 1 && !strcmp(e2.mcv, "OF]"), "OF] follows OF[");
			flushes++;
			continue;
		}
		if (i % 1000 == 999) {
			CHECK(!strcmp(ev.mcv, "POc") && ovni_flags_is_jumbo(ev.flags), "jumbo %llu", (unsigned long long)i);
			CHECK(ev.size == (uint32_t)(i * 97 % 300000), "jumbo size %u", ev.size);
			for (uint32_t j = 0; j < ev.size; j += 4093)
				if (ev.payload[j] != pattern(i, j))
					bad++;
		} else {
			unsigned kind = (unsigned)(i % 17), n = kind == 1 ? 0 : kind;
			if (ev.size != n || strcmp(ev.mcv, kind & 1 ? "OB." : "OM="))
				bad++;
			for (unsigned j = 0; j < ev.size && j < n; j++)
				if (ev.payload[j] != pattern(i, j))
					bad++;
		}
		i++;
	}
	CHECK(r == 0, "stream ends at an event boundary (offset %zu of %zu)", off, len);
	CHECK(i == nev, "%llu events, expected %llu", (unsigned long long)i, (unsigned long long)nev);
	CHECK(bad == 0, "%llu bad events or clocks", (unsigned long long)bad);
	*nflush_pairs = flushes;
	free(buf);
}

static void test_boundaries(const char *dir)
{
	char sdir[512], obs[600];
	snprintf(sdir, sizeof(sdir), "%s/thread.2", dir);
	snprintf(obs, sizeof(obs), "%s/stream.obs", sdir);
	struct oa_stream s = { 0 };
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 2, .max_window = 128 * 1024, .meta = &meta };
	int fds = count_fds();
	CHECK(oa_stream_open(&s, &cfg) == 0, "open");
	CHECK(count_fds() == fds, "no descriptor kept open (%d before, %d after)", fds, count_fds());
	uint64_t bytes = 8, nev = 200000;
	emit_many(&s, nev, &bytes);
	uint64_t flushes_seen = s.nflush;
	uint64_t size = oa_stream_size(&s);
	CHECK(size == bytes + 24 * flushes_seen, "size %llu, expected %llu + 24 * %llu", (unsigned long long)size,
	      (unsigned long long)bytes, (unsigned long long)flushes_seen);
	CHECK(flushes_seen > 50, "the windows were crossed (%llu flushes)", (unsigned long long)flushes_seen);
	CHECK(count_fds() == fds, "no descriptor kept across flushes");
	CHECK(oa_stream_close(&s) == 0, "close");
	struct stat st;
	CHECK(stat(obs, &st) == 0 && (uint64_t)st.st_size == size, "file cut at the last event");
	uint64_t pairs = 0;
	verify(obs, nev, &pairs);
	CHECK(pairs == flushes_seen, "%llu OF pairs, %llu flushes", (unsigned long long)pairs,
	      (unsigned long long)flushes_seen);
	char json[600];
	snprintf(json, sizeof(json), "%s/stream.json", sdir);
	size_t jl = 0;
	char *j = (char *)test_read_file(json, &jl);
	CHECK(j && strstr(j, "\"finished\": 1") && strstr(j, "\"tid\": 2,"), "final metadata written");
	free(j);
	snprintf(json, sizeof(json), "%s/stream.json.tmp", sdir);
	CHECK(access(json, F_OK) != 0, "no temporary left");

	/* Append (what exec does): the old events stay, new ones follow. */
	cfg.append = 1;
	CHECK(oa_stream_open(&s, &cfg) == 0, "reopen");
	CHECK(oa_stream_size(&s) == size, "appends at the old end");
	oa_emit(&s, "OHx", "\xff\xff\xff\xff", 4);
	CHECK(oa_stream_end(&s) == 0, "end");
	CHECK(stat(obs, &st) == 0 && (uint64_t)st.st_size == size + 16 + 3 * 12,
	      "appended OHx + OF[ OF] (the final metadata) + OHe");
}

/* The program closes and replaces every low descriptor while the stream is
 * open (what shells and daemons do): the stream still grows and ends
 * correctly, and the program's files are never touched. */
static void test_foreign_fds(const char *dir)
{
	char sdir[512], obs[600], user[600];
	snprintf(sdir, sizeof(sdir), "%s/thread.5", dir);
	snprintf(obs, sizeof(obs), "%s/stream.obs", sdir);
	snprintf(user, sizeof(user), "%s/user.txt", dir);
	struct oa_stream s = { 0 };
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 5, .max_window = 64 * 1024, .meta = &meta };
	CHECK(oa_stream_open(&s, &cfg) == 0, "open");
	/* Close 3..63, then put the user's file on each of them. */
	for (int fd = 3; fd < 64; fd++)
		close(fd);
	int ufd = open(user, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(ufd >= 0, "user file");
	CHECK(write(ufd, "user data\n", 10) == 10, "user write");
	for (int fd = 3; fd < 64; fd++)
		if (fd != ufd)
			dup2(ufd, fd);
	uint64_t bytes = 8;
	emit_many(&s, 50000, &bytes);
	CHECK(s.nflush > 5, "windows crossed with foreign descriptors");
	CHECK(oa_stream_close(&s) == 0, "close");
	for (int fd = 3; fd < 64; fd++)
		close(fd);
	size_t len = 0;
	char *u = (char *)test_read_file(user, &len);
	CHECK(u && len == 10 && !memcmp(u, "user data\n", 10), "the program's file is untouched (%zu bytes)", len);
	free(u);
	uint64_t pairs;
	verify(obs, 50000, &pairs);
}

/* With a file size limit the window cannot be reserved: the stream must end
 * cleanly with OHe instead of crashing the program with SIGBUS. */
static void test_full(const char *dir)
{
	char sdir[512], obs[600];
	snprintf(sdir, sizeof(sdir), "%s/thread.3", dir);
	snprintf(obs, sizeof(obs), "%s/stream.obs", sdir);
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit old, lim = { 200 * 1024, 200 * 1024 };
	getrlimit(RLIMIT_FSIZE, &old);
	lim.rlim_max = old.rlim_max;
	setrlimit(RLIMIT_FSIZE, &lim);
	struct oa_stream s = { 0 };
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 3, .max_window = 64 * 1024 };
	CHECK(oa_stream_open(&s, &cfg) == 0, "open");
	uint8_t p[16] = { 0 };
	for (int i = 0; i < 100000; i++)
		oa_emit(&s, "OB.", p, 16);
	CHECK(s.failed == 1 && atomic_load(&s.closed) == 1, "stream stopped");
	CHECK(oa_stream_end(&s) == 0, "end after failure");
	setrlimit(RLIMIT_FSIZE, &old);
	size_t len = 0;
	uint8_t *buf = test_read_file(obs, &len);
	size_t off = 8;
	struct test_ev ev, last = { 0 };
	int r, n = 0;
	while ((r = test_next_ev(buf, len, &off, &ev)) == 1) {
		last = ev;
		n++;
	}
	CHECK(r == 0 && !strcmp(last.mcv, "OHe"), "ends with OHe after %d events (%s)", n, last.mcv);
	CHECK(len < 200 * 1024 && n > 1000, "kept what fit: %zu bytes", len);
	free(buf);
}

static void state(struct oa_stream *s, const char *mcv)
{
	oa_emit(s, mcv, NULL, 0);
	char v = mcv[2];
	if ((v >= 'a' && v <= 'z') || v == '[') {
		char close[3] = { mcv[0], mcv[1], v == '[' ? ']' : (char)(v - 'a' + 'A') };
		oa_stream_opened(s, mcv, close, 0, 0);
	} else {
		oa_stream_closed(s, mcv);
	}
}

static void task(struct oa_stream *s, const char *mcv, uint32_t id)
{
	oa_emit(s, mcv, &id, 4);
	if (mcv[2] == 'x')
		oa_stream_opened(s, mcv, "PPe", 1, id);
	else
		oa_stream_closed(s, mcv);
}

/* The MCVs of the last n events of a stream file, joined by spaces. */
static void tail_mcvs(const char *obs, int n, char *out, size_t size)
{
	size_t len = 0;
	uint8_t *buf = test_read_file(obs, &len);
	size_t off = 8;
	struct test_ev ev;
	char ring[128][4];
	int k = 0;
	while (buf && test_next_ev(buf, len, &off, &ev) == 1)
		memcpy(ring[k++ % 128], ev.mcv, 4);
	out[0] = '\0';
	for (int i = k - n < 0 ? 0 : k - n; i < k; i++) {
		strncat(out, ring[i % 128], size - strlen(out) - 1);
		if (i + 1 < k)
			strncat(out, " ", size - strlen(out) - 1);
	}
	free(buf);
}

/* Paired states still open when a stream is ended (exit, crash, exec) are
 * closed before OHe, innermost first, even when the stream is full; a
 * reopened stream (failed exec) opens them again after its OHx. */
static void test_closers(const char *dir)
{
	char sdir[512], obs[600], got[600];
	snprintf(sdir, sizeof(sdir), "%s/thread.4", dir);
	snprintf(obs, sizeof(obs), "%s/stream.obs", sdir);
	struct oa_stream s = { 0 };
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 4, .max_window = 64 * 1024 };
	CHECK(oa_stream_open(&s, &cfg) == 0, "open");
	state(&s, "PA[");
	state(&s, "PCf");
	state(&s, "PTt");
	state(&s, "PTT");
	task(&s, "PPx", 7);
	task(&s, "PPx", 8);
	state(&s, "PT[");
	task(&s, "PPe", 8);
	CHECK(s.nclosers == 4, "4 open states (%u)", s.nclosers);
	/* A full stream still has room for the closings. */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit old, lim = { 100 * 1024, 100 * 1024 };
	getrlimit(RLIMIT_FSIZE, &old);
	lim.rlim_max = old.rlim_max;
	setrlimit(RLIMIT_FSIZE, &lim);
	uint8_t p[16] = { 0 };
	for (int i = 0; i < 20000; i++)
		oa_emit(&s, "OB.", p, 16);
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK(s.failed == 1, "stream filled up");
	CHECK(oa_stream_end(&s) == 0, "end");
	tail_mcvs(obs, 4, got, sizeof(got));
	tail_mcvs(obs, 5, got, sizeof(got));
	CHECK(!strcmp(got, "PT] PPe PCF PA] OHe"), "closed innermost first: %s", got);

	/* Failed exec: the owner reopens the stream and the states come back. */
	atomic_store(&s.reopen, 1);
	CHECK(oa_stream_reopen(&s) == 0, "reopen");
	CHECK(s.nclosers == 4, "4 states open again (%u)", s.nclosers);
	state(&s, "PT]");
	CHECK(oa_stream_end(&s) == 0, "end again");
	tail_mcvs(obs, 10, got, sizeof(got));
	CHECK(!strcmp(got, "OHx PA[ PCf PPx PT[ PT] PPe PCF PA] OHe"), "reopened then closed: %s", got);

	/* A jumbo event (a task type's label) as the first after a failed
	 * exec reopens the stream like any other (it was dropped before). */
	atomic_store(&s.closed, 1); /* as the agent's exec left it */
	atomic_store(&s.reopen, 1);
	CHECK(oa_emit_jumbo(&s, "POc", "label", 5) != 0 && !s.reopen && s.live, "a jumbo reopens");
	CHECK(oa_stream_end(&s) == 0, "end after the jumbo");
	tail_mcvs(obs, 9, got, sizeof(got));
	CHECK(!strcmp(got, "OHx PA[ PCf PPx POc PPe PCF PA] OHe"), "reopened by a jumbo: %s", got);

	/* Deeper than remembered: only the innermost-but-bounded are closed,
	 * never more than the reserve holds. */
	cfg.append = 1;
	CHECK(oa_stream_open(&s, &cfg) == 0, "append");
	for (unsigned i = 0; i < OA_STREAM_MAX_CLOSERS + 6; i++)
		state(&s, "PBb");
	CHECK(s.nclosers == OA_STREAM_MAX_CLOSERS + 6, "depth counted past the array");
	CHECK(oa_stream_end(&s) == 0, "end deep");
	tail_mcvs(obs, 2, got, sizeof(got));
	CHECK(!strcmp(got, "PBB OHe"), "deep closings: %s", got);
}

/* A deferred wait end (oa_stream_defer) is written, at its own clock,
 * before the owner's next event, or before OHe when the stream is ended
 * first; it resumes only a paused thread; a reopen forgets it. */
static void test_defer(const char *dir)
{
	char sdir[512], obs[600], got[600];
	snprintf(sdir, sizeof(sdir), "%s/thread.5", dir);
	snprintf(obs, sizeof(obs), "%s/stream.obs", sdir);
	struct oa_stream s = { 0 };
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 5 };
	CHECK(oa_stream_open(&s, &cfg) == 0, "open");
	int32_t type[2] = { 81, 82 };
	int64_t value[2] = { 1, 12345 };
	uint8_t p[12];
	memcpy(p, &value[0], 8);
	memcpy(p + 8, &type[0], 4);
	oa_emit(&s, "OM[", p, 12);
	oa_emit_state(&s, "OHp", 1);
	uint64_t t1 = oa_clock_now();
	oa_stream_defer(&s, t1, 1, 2, type, value);
	uint64_t size = oa_stream_size(&s);
	CHECK(s.paused == 1 && s.pend_clock == t1, "nothing written by the defer");
	usleep(2000);
	oa_emit(&s, "OB.", NULL, 0);
	CHECK(s.paused == 0 && s.pend_clock == 0, "written by the next event");
	CHECK(oa_stream_size(&s) == size + 12 + 2 * 24 + 12, "OHr, 2 OM], OB. (%llu bytes more)",
	      (unsigned long long)(oa_stream_size(&s) - size));
	/* not paused: no OHr; then ended with it pending */
	oa_stream_defer(&s, oa_clock_now(), 1, 1, type, value);
	CHECK(oa_stream_end(&s) == 0, "end");
	tail_mcvs(obs, 7, got, sizeof(got));
	CHECK(!strcmp(got, "OHp OHr OM] OM] OB. OM] OHe"), "order: %s", got);
	size_t len = 0;
	uint8_t *buf = test_read_file(obs, &len);
	size_t off = 8;
	struct test_ev ev;
	int seen = 0;
	uint64_t last = 0;
	while (test_next_ev(buf, len, &off, &ev) == 1) {
		CHECK(ev.clock >= last, "clocks do not go back (%s)", ev.mcv);
		last = ev.clock;
		int now = 0;
		if (!strcmp(ev.mcv, "OHr") || (!strcmp(ev.mcv, "OM]") && seen < 3)) {
			CHECK(ev.clock == t1, "%s stamped when the wait ended", ev.mcv);
			now = ++seen;
		}
		if (now == 3) {
			int64_t v;
			int32_t ty;
			memcpy(&v, ev.payload, 8);
			memcpy(&ty, ev.payload + 8, 4);
			CHECK(v == 12345 && ty == 82, "pops in order, payload kept");
		}
		if (!strcmp(ev.mcv, "OB."))
			CHECK(ev.clock >= t1 + 1000000, "the next event keeps its own clock");
	}
	CHECK(seen == 3, "3 deferred events at the wait's end (%d)", seen);
	free(buf);
	/* The OpenMP events of an OMPT callback (one batch) also come after
	 * it: without, a thread leaving a contended lock inside libomp showed
	 * OpenMP events while Paused, which ovniemu refuses (t390). */
	cfg.append = 1;
	CHECK(oa_stream_open(&s, &cfg) == 0, "append");
	oa_emit_state(&s, "OHp", 1);
	uint64_t t2 = oa_clock_now();
	oa_stream_defer(&s, t2, 1, 1, type, value);
	struct ev_batch b;
	CHECK(ev_batch_begin(&b, &s, t2 - 1) != 0, "batch");
	ev_omp_state(&b, "PBb");
	ev_omp_state(&b, "PBB");
	uint64_t bclock = ev_batch_end(&b);
	CHECK(s.pend_clock == 0 && s.paused == 0, "written before the batch");
	CHECK(bclock >= t2, "the batch is not before the wait's end");
	CHECK(oa_stream_end(&s) == 0, "end the batch's stream");
	tail_mcvs(obs, 6, got, sizeof(got));
	CHECK(!strcmp(got, "OHp OHr OM] PBb PBB OHe"), "batch after the wait's end: %s", got);
	/* a reopened stream has nothing pending */
	oa_stream_defer(&s, oa_clock_now(), 0, 1, type, value);
	CHECK(oa_stream_open(&s, &cfg) == 0 && s.pend_clock == 0, "reopen forgets");
	CHECK(oa_stream_end(&s) == 0, "end again");
	/* A fork child may get a slot whose last user (a thread of the
	 * parent) was inside a flush: the new stream is not. */
	s.remapping = 1;
	CHECK(oa_stream_open(&s, &cfg) == 0 && !s.remapping, "open clears remapping");
	oa_emit(&s, "OB.", NULL, 0);
	CHECK(oa_stream_end(&s) == 0, "end after a stale flush");
	tail_mcvs(obs, 2, got, sizeof(got));
	CHECK(!strcmp(got, "OB. OHe"), "the event is kept: %s", got);
}

/* A wait's start written at one clock (oa_emit_wait_begin), and its end
 * deferred at a stamp (oa_stream_defer_at): the events of both at the
 * clocks of their moments, OHp only when asked. */
static void test_wait_stamps(const char *dir)
{
	char sdir[512], obs[600], got[600];
	snprintf(sdir, sizeof(sdir), "%s/thread.6", dir);
	snprintf(obs, sizeof(obs), "%s/stream.obs", sdir);
	struct oa_stream s = { 0 };
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 6 };
	oa_clock_init();
	for (uint64_t t0 = oa_clock_mono(); oa_clock_mono() - t0 < 30000000;)
		oa_clock_now(); /* calibrated: stamps are TSC readings where it is usable */
	CHECK(oa_stream_open(&s, &cfg) == 0, "open");
	int32_t type[2] = { 81, 82 };
	int64_t value[2] = { 1, 777 };
	uint64_t b0 = oa_clock_now();
	uint64_t begin = oa_emit_wait_begin(&s, 2, type, value, 1);
	CHECK(begin >= b0 && s.paused == 1, "begin written, paused");
	usleep(1000);
	uint64_t e0 = oa_clock_mono();
	struct oa_stamp at = oa_clock_stamp();
	uint64_t e1 = oa_clock_mono();
	oa_stream_defer_at(&s, at, 1, 2, type, value);
	CHECK(s.pend_clock == at.v && s.pend_tsc == at.tsc, "only stored");
	usleep(1000);
	oa_emit(&s, "OB.", NULL, 0);
	CHECK(s.paused == 0, "resumed");
	CHECK(oa_emit_wait_begin(&s, 1, type, value, 0) != 0 && s.paused == 0, "a begin without a pause");
	CHECK(oa_stream_end(&s) == 0, "end");
	tail_mcvs(obs, 9, got, sizeof(got));
	CHECK(!strcmp(got, "OM[ OM[ OHp OHr OM] OM] OB. OM[ OHe"), "order: %s", got);
	size_t len = 0;
	uint8_t *buf = test_read_file(obs, &len);
	size_t off = 8;
	struct test_ev ev;
	int n = 0;
	while (test_next_ev(buf, len, &off, &ev) == 1) {
		n++;
		if (n <= 3)
			CHECK(ev.clock == begin, "%s at the begin's one clock", ev.mcv);
		if (n == 2) {
			int64_t v;
			memcpy(&v, ev.payload, 8);
			CHECK(v == 777, "the second mark's value");
		}
		if (n >= 4 && n <= 6)
			CHECK(ev.clock + 5000 >= e0 && ev.clock <= e1 + 5000, "%s at the stamp's moment (%llu, [%llu, %llu])",
			      ev.mcv, (unsigned long long)ev.clock, (unsigned long long)e0, (unsigned long long)e1);
		if (n == 7)
			CHECK(ev.clock >= e1 + 900000, "the next event keeps its own clock");
	}
	CHECK(n == 9, "9 events (%d)", n);
	free(buf);
}

/* stream.json is rewritten in place when it fits in a page (one write,
 * padded with blanks to the old length), else through a temporary; it is
 * valid JSON after every step, and the first window is one page. */
static void test_meta_inplace(const char *dir)
{
	char sdir[512], obs[600], json[600], tmp[600];
	snprintf(sdir, sizeof(sdir), "%s/thread.7", dir);
	snprintf(obs, sizeof(obs), "%s/stream.obs", sdir);
	snprintf(json, sizeof(json), "%s/stream.json", sdir);
	snprintf(tmp, sizeof(tmp), "%s/stream.json.tmp", sdir);
	/* An older, longer text (what an earlier image may leave): the new
	 * one is padded to its length, at the open and at the end (which
	 * knows the length it wrote), and nothing of the old one remains. */
	CHECK(mkdir(sdir, 0755) == 0, "mkdir");
	FILE *f = fopen(json, "w");
	fprintf(f, "{\"old\": \"");
	for (int i = 0; i < 3000; i++)
		fputc('x', f);
	fprintf(f, "\"}\n");
	fclose(f);
	struct oa_stream s = { 0 };
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 7, .meta = &meta };
	CHECK(oa_stream_open(&s, &cfg) == 0, "open");
	struct stat st;
	long ps = sysconf(_SC_PAGESIZE);
	CHECK(stat(obs, &st) == 0 && st.st_size == ps, "first window is one page (%lld bytes)", (long long)st.st_size);
	json_error_t err;
	json_t *root = json_load_file(json, 0, &err);
	CHECK(root && !json_object_get(json_object_get(root, "ovni"), "finished"), "metadata at open: %s",
	      root ? "ok" : err.text);
	json_decref(root);
	CHECK(oa_stream_end(&s) == 0, "end");
	CHECK(stat(obs, &st) == 0 && st.st_size == 8 + 3 * 12, "cut at the OHe");
	char got[64];
	tail_mcvs(obs, 3, got, sizeof(got));
	CHECK(!strcmp(got, "OF[ OF] OHe"), "the final metadata is written inside a flush before the OHe: %s", got);
	CHECK(stat(json, &st) == 0 && st.st_size == 3000 + 12, "padded to the old length (%lld)", (long long)st.st_size);
	root = json_load_file(json, 0, &err);
	json_t *ovni = json_object_get(root, "ovni");
	CHECK(root && json_integer_value(json_object_get(ovni, "finished")) == 1 && !json_object_get(root, "old") &&
		      json_integer_value(json_object_get(ovni, "tid")) == 7,
	      "in-place rewrite is the new text only: %s", root ? "ok" : err.text);
	json_decref(root);
	CHECK(access(tmp, F_OK) != 0, "no temporary");

	/* More than a page of labels: written through the temporary. */
	cfg.append = 1;
	CHECK(oa_stream_open(&s, &cfg) == 0, "reopen");
	oa_meta_mark_type(&meta, 77, 0, "many labels");
	char text[64];
	for (int v = 1; v <= 200; v++) {
		snprintf(text, sizeof(text), "a label long enough to fill pages %d", v);
		oa_meta_mark_label(&meta, &s.labels, 77, v, text);
	}
	CHECK(oa_stream_end(&s) == 0, "end with labels");
	CHECK(stat(json, &st) == 0 && st.st_size > 2 * ps, "large metadata (%lld bytes)", (long long)st.st_size);
	root = json_load_file(json, 0, &err);
	json_t *labels = json_object_get(json_object_get(json_object_get(json_object_get(root, "ovni"), "mark"), "77"),
					 "labels");
	CHECK(json_object_size(labels) == 200, "all 200 labels: %s", root ? "ok" : err.text);
	json_decref(root);
	CHECK(access(tmp, F_OK) != 0, "no temporary");
}

static int64_t how_value(long pid)
{
	(void)pid;
	return 7;
}

/* A process killed as it ends a stream, after the final stream.json and
 * before stream.obs is cut to its last event: the stream must not say
 * finished (a finisher would skip it and leave the zeroed window after its
 * events); the finisher then cuts it and marks it finished. */
static void test_killed_at_end(const char *dir)
{
	char pdir[512], sdir[600], obs[700], json[700];
	snprintf(pdir, sizeof(pdir), "%s/proc.9", dir);
	snprintf(sdir, sizeof(sdir), "%s/thread.9", pdir);
	snprintf(obs, sizeof(obs), "%s/stream.obs", sdir);
	snprintf(json, sizeof(json), "%s/stream.json", sdir);
	CHECK(mkdir(pdir, 0755) == 0, "mkdir");
	pid_t pid = fork();
	if (pid == 0) {
		struct oa_stream s = { 0 };
		struct oa_stream_cfg cfg = { .dir = sdir, .tid = 9, .meta = &meta };
		if (oa_stream_open(&s, &cfg) != 0)
			_exit(1);
		oa_emit(&s, "OHx", "\xff\xff\xff\xff", 4);
		die_at_cut = 1;
		oa_stream_end(&s);
		_exit(2);
	}
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 77, "died at the cut (status %#x)",
	      st);
	struct stat sb;
	CHECK(stat(obs, &sb) == 0 && sb.st_size > 8 + 16 + 3 * 12, "not cut (%lld bytes)", (long long)sb.st_size);
	json_error_t err;
	json_t *root = json_load_file(json, 0, &err);
	json_t *f = json_object_get(json_object_get(root, "ovni"), "finished");
	CHECK(root && json_is_integer(f) && json_integer_value(f) == 0, "\"finished\": 0 until the cut: %s",
	      root ? "ok" : err.text);
	json_decref(root);
	CHECK(oa_finish_process(pdir, 9, "x", how_value) == 1, "finished by whoever sees it dead");
	CHECK(stat(obs, &sb) == 0 && sb.st_size == 8 + 16 + 3 * 12, "cut after the OHe (%lld bytes)",
	      (long long)sb.st_size);
	char got[64];
	tail_mcvs(obs, 4, got, sizeof(got));
	CHECK(!strcmp(got, "OHx OF[ OF] OHe"), "events kept: %s", got);
	root = json_load_file(json, 0, &err);
	f = json_object_get(json_object_get(root, "ovni"), "finished");
	CHECK(root && json_integer_value(f) == 1, "then finished: %s", root ? "ok" : err.text);
	json_decref(root);

	/* Not killed: "finished": 1, and no descriptor left open. */
	int fds = count_fds();
	struct oa_stream s = { 0 };
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 9, .meta = &meta, .append = 1 };
	CHECK(oa_stream_open(&s, &cfg) == 0, "reopen");
	CHECK(oa_stream_end(&s) == 0, "end");
	CHECK(count_fds() == fds, "no descriptor kept (%d before, %d after)", fds, count_fds());
	root = json_load_file(json, 0, &err);
	f = json_object_get(json_object_get(root, "ovni"), "finished");
	CHECK(root && json_integer_value(f) == 1, "finished at the end: %s", root ? "ok" : err.text);
	json_decref(root);
}

/* A process killed in the middle of an event (SIGKILL lands between two
 * stores) must not leave what reads as a whole event: the MCV, which
 * readers take for "an event starts here", is stored last.  A timer's
 * signal lands inside emits many times; its handler looks at the event
 * being written, after the last whole one: either its MCV is still zero,
 * or its clock and payload are there. */
static struct oa_stream *torn_s;
static volatile long torn_inside, torn_seen;
static void torn_check(int sig)
{
	(void)sig;
	struct oa_stream *s = torn_s;
	if (!(atomic_load_explicit(&s->emit_seq, memory_order_relaxed) & 1))
		return;
	torn_inside++;
	const uint8_t *p = s->pos; /* the event being written starts here */
	if (!p[1] && !p[2] && !p[3])
		return;
	uint64_t clock;
	int32_t type;
	memcpy(&clock, p + 4, 8);
	memcpy(&type, p + 12 + 8, 4);
	if (clock == 0 || (p[1] == 'O' && p[2] == 'M' && type == 0))
		torn_seen++;
}

static void test_torn(const char *dir)
{
	char sdir[512];
	snprintf(sdir, sizeof(sdir), "%s/thread.11", dir);
	static struct oa_stream s;
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 11, .meta = &meta, .max_window = 1 << 20 };
	CHECK(oa_stream_open(&s, &cfg) == 0, "open");
	torn_s = &s;
	struct sigaction sa = { 0 };
	sa.sa_handler = torn_check;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 20 }, { 0, 20 } };
	setitimer(ITIMER_REAL, &it, NULL);
	int32_t type[1] = { 81 };
	int64_t value[1] = { 6 };
	for (long i = 0; i < 3000000 && torn_inside < 20000; i++) {
		oa_emit_wait_begin(&s, 1, type, value, 0);
		oa_stream_closed(&s, "OM]");
		uint8_t pl[12];
		memcpy(pl, value, 8);
		memcpy(pl + 8, type, 4);
		oa_emit(&s, "OM]", pl, 12);
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	CHECK(torn_inside > 100, "the signal landed inside emits (%ld times)", torn_inside);
	CHECK(torn_seen == 0, "no event with its MCV but not its clock or payload (%ld seen)", torn_seen);
	CHECK(oa_stream_end(&s) == 0, "end");
}

/* An OF[ of the agent's own (its setup as a flush, a slow name lookup)
 * whose emit finds the window full: the window's own OF[ OF] comes before
 * it, not inside its bracket (two nested flushes, which ovniemu rejects:
 * a process given a pid again started near the end of a page of the
 * stream.obs it appends to). */
static void test_flush_bracket(const char *dir)
{
	char sdir[512], obs[600];
	snprintf(sdir, sizeof(sdir), "%s/thread.9", dir);
	snprintf(obs, sizeof(obs), "%s/stream.obs", sdir);
	struct oa_stream s = { 0 };
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = 9, .meta = &meta };
	CHECK(oa_stream_open(&s, &cfg) == 0, "open");
	while (s.pos + OVNI_EV_HEADER_SIZE <= s.soft_end)
		oa_emit(&s, "OM=", NULL, 0);
	uint64_t before = oa_clock_now() - 1000;
	oa_emit_bracket(&s, before, oa_clock_now());
	CHECK(oa_stream_end(&s) == 0, "end");
	size_t len = 0, off = 8;
	uint8_t *buf = test_read_file(obs, &len);
	CHECK(buf != NULL, "read %s", obs);
	struct test_ev ev;
	int open = 0, nested = 0, pairs = 0;
	uint64_t last = 0, back = 0;
	while (buf && test_next_ev(buf, len, &off, &ev) == 1) {
		back += ev.clock < last;
		last = ev.clock;
		if (!strcmp(ev.mcv, "OF[")) {
			nested += open;
			open = 1;
		} else if (!strcmp(ev.mcv, "OF]")) {
			pairs += open;
			open = 0;
		}
	}
	CHECK(nested == 0, "%d OF[ inside a flush", nested);
	CHECK(pairs >= 3, "the window's flush, ours and the end's: %d", pairs);
	CHECK(back == 0, "clocks in order");
	free(buf);
}

int main(void)
{
	char *dir = test_tmpdir("stream");
	CHECK(oa_meta_init(&meta) == 0, "meta");
	meta.ncpus = 1;
	meta.phyids = meta_phy;
	test_boundaries(dir);
	test_foreign_fds(dir);
	test_full(dir);
	test_closers(dir);
	test_defer(dir);
	test_wait_stamps(dir);
	test_meta_inplace(dir);
	test_killed_at_end(dir);
	test_torn(dir);
	test_flush_bracket(dir);
	test_rmrf(dir);
	free(dir);
	TEST_DONE();
}
