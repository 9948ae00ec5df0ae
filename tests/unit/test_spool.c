/* test_spool.c: thread streams that start in the process's spool
 * (writer/spool.h): no file until the spool is unpacked, then the same
 * thread.T/stream.{obs,json} as a stream of its own; more than a file's
 * slots (a second file); a stream that outgrows its slot goes on in files
 * of its own; a recycled tid appends; the streams of a dead process (LIVE
 * slots) are written from the slot's bytes with another thread's
 * stream.json, not finished; a full unpack removes the spool files. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "../../writer/spool.h"
#include "../../writer/stream.h"
#include "test.h"

static struct oa_meta meta = { .pid = 1, .app_id = 1, .rank = -1, .nranks = -1, .loom = "L" };
static int meta_phy[1] = { 0 };

static int count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return n;
}

/* Events of stream.obs in dir/thread.tid (an end adds OF[ OF] OHe): their number, the MCVs of the
 * first and last, and whether the clocks never go back. */
static int read_stream(const char *dir, int tid, char *first, char *last, int *ordered)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/thread.%d/stream.obs", dir, tid);
	size_t len = 0;
	uint8_t *buf = test_read_file(path, &len);
	if (!buf || len < 8 || memcmp(buf, "ovni", 4)) {
		free(buf);
		return -1;
	}
	size_t off = 8;
	struct test_ev ev;
	int n = 0, r;
	uint64_t prev = 0;
	*ordered = 1;
	while ((r = test_next_ev(buf, len, &off, &ev)) == 1) {
		if (!n)
			memcpy(first, ev.mcv, 4);
		memcpy(last, ev.mcv, 4);
		*ordered &= ev.clock >= prev;
		prev = ev.clock;
		n++;
	}
	free(buf);
	return r == 0 ? n : -1;
}

static char *read_json(const char *dir, int tid)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/thread.%d/stream.json", dir, tid);
	size_t len = 0;
	char *s = (char *)test_read_file(path, &len);
	if (s)
		s[len] = '\0';
	return s;
}

static void open_in(struct oa_stream *s, struct oa_spool *sp, const char *dir, int tid)
{
	char sdir[600];
	snprintf(sdir, sizeof(sdir), "%s/thread.%d", dir, tid);
	struct oa_stream_cfg cfg = { .dir = sdir, .tid = tid, .meta = &meta, .spool = sp, .append = 1 };
	memset(s, 0, sizeof(*s));
	CHECK(oa_stream_open(s, &cfg) == 0, "open %d", tid);
}

static void emit_n(struct oa_stream *s, int n)
{
	uint8_t p[16] = { 0 };
	oa_emit(s, "OHx", p, 16);
	for (int i = 1; i < n; i++)
		oa_emit(s, "OB.", p, (unsigned)(i % 2) * 8);
}

int main(void)
{
	char dir[] = "/tmp/oa-spool.XXXXXX";
	CHECK(mkdtemp(dir) != NULL, "temp dir");
	meta.ncpus = 1;
	meta.phyids = meta_phy;
	static struct oa_spool sp;
	oa_spool_init(&sp, dir, 1);

	/* More threads than a file has slots, each ended. */
	enum { N = OA_SPOOL_SLOTS + 76 };
	static struct oa_stream s[N];
	for (int i = 0; i < N; i++) {
		open_in(&s[i], &sp, dir, 100 + i);
		CHECK(s[i].slot != NULL, "thread %d in a slot", i);
		emit_n(&s[i], 5 + i % 7);
		CHECK(oa_stream_end(&s[i]) == 0, "end %d", i);
	}
	CHECK(count_entries(dir, "thread.") == 0, "no thread file before the unpack");
	CHECK(count_entries(dir, "spool.") == 2, "two spool files (%d)", count_entries(dir, "spool."));

	/* One that outgrows its slot: files of its own at once, and goes on. */
	struct oa_stream big;
	open_in(&big, &sp, dir, 7);
	emit_n(&big, 2000);
	CHECK(big.slot == NULL, "left its slot");
	CHECK(count_entries(dir, "thread.") == 1, "its files exist now");
	CHECK(oa_stream_end(&big) == 0, "end big");

	/* A tid used twice (recycled): the second stream appends. */
	struct oa_stream again;
	open_in(&again, &sp, dir, 100);
	emit_n(&again, 3);
	CHECK(oa_stream_end(&again) == 0, "end again");

	CHECK(oa_spool_unpack(&sp, 0, NULL, 0) == N + 1, "unpacked %d streams", N + 1);
	CHECK(count_entries(dir, "spool.") == 0, "spool files removed");
	CHECK(count_entries(dir, "thread.") == N + 1, "%d thread directories", count_entries(dir, "thread."));
	char first[4], last[4];
	int ordered, bad = 0;
	for (int i = 1; i < N; i++) {
		int n = read_stream(dir, 100 + i, first, last, &ordered);
		bad += n != 5 + i % 7 + 3 || strcmp(first, "OHx") || strcmp(last, "OHe") || !ordered;
		char *j = read_json(dir, 100 + i);
		char want[64];
		snprintf(want, sizeof(want), "\"tid\": %d,", 100 + i);
		bad += !j || !strstr(j, "\"finished\": 1") || !strstr(j, want);
		free(j);
	}
	CHECK(bad == 0, "%d streams wrong", bad);
	int n = read_stream(dir, 100, first, last, &ordered);
	CHECK(n == 8 + 6, "recycled tid: both streams, one after the other (%d events)", n);
	n = read_stream(dir, 7, first, last, &ordered);
	CHECK(n >= 2001 && !strcmp(last, "OHe") && ordered, "the big one whole (with its flushes) (%d events, last %s)", n, last);
	char *j = read_json(dir, 7);
	CHECK(j && strstr(j, "\"finished\": 1"), "big one finished");
	free(j);

	/* A process killed with threads running: LIVE slots. */
	char dead[600];
	snprintf(dead, sizeof(dead), "%s/dead", dir);
	mkdir(dead, 0755);
	oa_spool_init(&sp, dead, 2);
	struct oa_stream l[3];
	for (int i = 0; i < 3; i++) {
		open_in(&l[i], &sp, dead, 200 + i);
		emit_n(&l[i], 4 + i);
	}
	/* Each LIVE slot holds its stream.json as at its start; one without
	 * (an older agent's) gets the other thread's. */
	l[2].slot->json_len = 0;
	/* what a fork child does with its parent's spool: nothing written */
	struct oa_spool copy = sp;
	oa_spool_forget(&copy);
	const char like[] = "{\n \"version\": 3,\n \"ovni\": {\n  \"part\": \"thread\",\n  \"finished\": 1,\n"
			    "  \"tid\": 2,\n  \"pid\": 2\n }\n}\n";
	CHECK(count_entries(dead, "spool.") == 1, "one spool file");
	DIR *d = opendir(dead);
	int got = -1;
	for (struct dirent *e; d && (e = readdir(d));)
		if (oa_spool_name(e->d_name))
			got = oa_spool_unpack_file(dead, e->d_name, like, sizeof(like) - 1);
	closedir(d);
	CHECK(got == 3, "3 live streams written (%d)", got);
	CHECK(count_entries(dead, "spool.") == 0, "dead spool removed");
	for (int i = 0; i < 3; i++) {
		n = read_stream(dead, 200 + i, first, last, &ordered);
		CHECK(n == 4 + i && !strcmp(last, "OB."), "live stream %d: %d events, cut at the last (%s)", i, n, last);
		j = read_json(dead, 200 + i);
		char want[64];
		snprintf(want, sizeof(want), "\"tid\": %d,", 200 + i);
		CHECK(j && strstr(j, want) && !strstr(j, "finished") && strstr(j, i == 2 ? "\"pid\": 2" : "\"pid\": 1"),
		      "live stream %d: %s stream.json, its tid, not finished: %s", i, i == 2 ? "the other's" : "its own",
		      j ? j : "(none)");
		free(j);
	}
	/* A process killed while it made a spool file: empty, or sized with
	 * no header yet.  Nothing in it; the finisher removes it. */
	char half[700];
	snprintf(half, sizeof(half), "%s/spool.5.oa", dead);
	int hf = open(half, O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(hf >= 0, "an empty spool file");
	if (hf >= 0)
		close(hf);
	CHECK(oa_spool_unpack_file(dead, "spool.5.oa", like, sizeof(like) - 1) == 0 && access(half, F_OK) != 0,
	      "an empty spool file of a dead process is removed");
	hf = open(half, O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(hf >= 0 && ftruncate(hf, 1 << 20) == 0, "a sized spool file without its header");
	if (hf >= 0)
		close(hf);
	CHECK(oa_spool_unpack_file(dead, "spool.5.oa", like, sizeof(like) - 1) == 0 && access(half, F_OK) != 0,
	      "a spool file without its header is removed");
	/* Someone else's file of that name is not ours to remove. */
	hf = open(half, O_RDWR | O_CREAT | O_EXCL, 0644);
	static const char foreign[] = "not a spool file, but longer than a spool file's header";
	CHECK(hf >= 0 && write(hf, foreign, sizeof(foreign)) == (ssize_t)sizeof(foreign), "a foreign file");
	if (hf >= 0)
		close(hf);
	CHECK(oa_spool_unpack_file(dead, "spool.5.oa", like, sizeof(like) - 1) < 0 && access(half, F_OK) == 0,
	      "a foreign file is left, with an error");
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "cleanup");
	TEST_DONE();
}
