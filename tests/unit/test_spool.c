/* test_spool.c: thread streams that start in the process's spool
 * (writer/spool.h): no file until the spool is unpacked, then the same
 * thread.T/stream.{obs,json} as a stream of its own; more than a file's
 * slots (a second file); a stream that outgrows its slot goes on in files
 * of its own; a recycled tid appends; the streams of a dead process (LIVE
 * slots) are written from the slot's bytes with another thread's
 * stream.json, not finished; a full unpack removes the spool files; a
 * watcher (ovnirun) learns of each spool file and writes its DONE slots
 * out while the process runs, and the agent and the finishers wait for a
 * slot it is writing; a recycled tid's earlier stream goes before the
 * files of the later one, and a process with no watcher keeps its spool
 * small by writing ended threads out itself; the run's spool leaves a
 * loom's CPUs out of its slots and puts them back. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

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

/* As the agent opens a thread's stream: its directory made only if it
 * needs files. */
static void open_in(struct oa_stream *s, struct oa_spool *sp, const char *dir, int tid)
{
	struct oa_stream_cfg cfg = { .base = dir, .tid = tid, .meta = &meta, .spool = sp, .append = 1 };
	memset(s, 0, sizeof(*s));
	CHECK(oa_stream_open(s, &cfg) == 0, "open %d", tid);
}

/* With the directory given whole. */
static void open_dir_in(struct oa_stream *s, struct oa_spool *sp, const char *dir, int tid)
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

static double ms_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A directory of its own for a test, under top. */
static void subdir(char *w, size_t cap, const char *top, const char *name)
{
	snprintf(w, cap, "%s/%s", top, name);
	mkdir(w, 0755);
}

/* The watcher, zeroing a slot it wrote out, 5 ms later. */
static atomic_int released;
static void *release_later(void *slot)
{
	struct timespec ts = { 0, 5000000 };
	nanosleep(&ts, NULL);
	oa_spool_release(slot, OA_SPOOL_OBS);
	atomic_store(&released, 1);
	return NULL;
}

static struct oa_spool_header *header_of_test(uint8_t *map)
{
	return (struct oa_spool_header *)map;
}

static struct oa_spool_slot *slot_in(uint8_t *map, unsigned i)
{
	return (struct oa_spool_slot *)(map + OA_SPOOL_HEADER + (size_t)i * OA_SPOOL_SLOT);
}

static void test_watcher(const char *top)
{
	char w[600], list[600], line[700];
	subdir(w, sizeof(w), top, "watched");
	snprintf(list, sizeof(list), "%s/spools", top);
	int lf = open(list, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(lf >= 0, "the watcher's list");
	close(lf);
	static struct oa_spool sp;
	oa_spool_init(&sp, w, 3, list);
	struct oa_stream t[5];
	for (int i = 0; i < 5; i++) {
		open_in(&t[i], &sp, w, 300 + i);
		emit_n(&t[i], 4 + i);
	}
	for (int i = 0; i < 3; i++)
		CHECK(oa_stream_end(&t[i]) == 0, "end %d", i);
	/* The list names the file, as the agent made it. */
	size_t len = 0;
	char *got = (char *)test_read_file(list, &len);
	snprintf(line, sizeof(line), "%s/spool.0.oa\n", w);
	CHECK(got && len == strlen(line) && !memcmp(got, line, len), "the list: %.*s", (int)len, got ? got : "");
	free(got);
	line[strlen(line) - 1] = '\0';
	int fd = open(line, O_RDWR);
	struct stat st;
	CHECK(fd >= 0 && fstat(fd, &st) == 0, "open the spool file");
	uint8_t *map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	CHECK(map != MAP_FAILED, "map it");
	unsigned left = 9;
	int closed = 9;
	int r = oa_spool_unpack_done(map, (size_t)st.st_size, w, &left, &closed, NULL, UINT64_MAX);
	CHECK(r == 3 && left == 2 && !closed, "3 written while 2 run (r %d, left %u, closed %d)", r, left, closed);
	char first[4], last[4];
	int ordered;
	for (int i = 0; i < 3; i++) {
		int n = read_stream(w, 300 + i, first, last, &ordered);
		char *j = read_json(w, 300 + i);
		CHECK(n == 4 + i + 3 && !strcmp(last, "OHe") && ordered && j && strstr(j, "\"finished\": 1"),
		      "thread %d written whole (%d events)", 300 + i, n);
		free(j);
	}
	CHECK(count_entries(w, "thread.") == 3, "only the ended threads");
	CHECK(oa_spool_unpack_done(map, (size_t)st.st_size, w, &left, &closed, NULL, UINT64_MAX) == 0 && left == 2,
	      "nothing more to write");
	/* A slot the watcher is writing out when the process ends: the agent
	 * writes the others, waits for it (50 ms at most), then leaves it to
	 * the watcher, which writes it from its mapping: the file goes. */
	CHECK(oa_stream_end(&t[3]) == 0 && oa_stream_end(&t[4]) == 0, "end 3 and 4");
	struct oa_spool_slot *s3 = slot_in(map, 3);
	CHECK(atomic_load(&s3->state) == OA_SPOOL_DONE, "slot 3 DONE");
	atomic_store(&s3->state, OA_SPOOL_WATCHED);
	double t0 = ms_now();
	r = oa_spool_unpack(&sp, 0, NULL, 0);
	double waited = ms_now() - t0;
	CHECK(r == 1 && waited >= 40 && count_entries(w, "spool.") == 0 && count_entries(w, "thread.") == 4 &&
		      atomic_load(&sp.nfiles) == 0,
	      "the agent wrote 1 (%d), waited (%.1f ms), left the slot to the watcher, removed the file", r, waited);
	CHECK(oa_spool_unpack_done(map, (size_t)st.st_size, w, &left, &closed, NULL, UINT64_MAX) == 0 && closed && left == 1,
	      "closed by its agent (left %u, closed %d)", left, closed);
	atomic_store(&s3->state, OA_SPOOL_DONE); /* what the watcher holds, from its mapping */
	CHECK(oa_spool_unpack_done(map, (size_t)st.st_size, w, &left, &closed, NULL, UINT64_MAX) == 1 && left == 0 && closed,
	      "then written by the watcher: done with (left %u)", left);
	CHECK(read_stream(w, 303, first, last, &ordered) == 4 + 3 + 3 && !strcmp(last, "OHe"), "thread 303 whole");
	CHECK(count_entries(w, "thread.") == 5, "5 streams");
	munmap(map, (size_t)st.st_size);

	/* A dead process's file: a parent's finisher waits for a WATCHED
	 * slot, leaves it to the watcher (its mapping) and removes the file;
	 * repair (no watcher left) writes it itself. */
	char d2[600];
	snprintf(d2, sizeof(d2), "%s/dead2", top);
	mkdir(d2, 0755);
	for (int take = 0; take < 2; take++) {
		oa_spool_init(&sp, d2, 4, NULL);
		open_in(&t[0], &sp, d2, 400 + take);
		emit_n(&t[0], 3);
		CHECK(oa_stream_end(&t[0]) == 0, "end %d", 400 + take);
		map = sp.files[0].map; /* the watcher's mapping, in effect */
		struct oa_spool_slot *s0 = slot_in(map, 0);
		atomic_store(&s0->state, OA_SPOOL_WATCHED);
		sp.files[0].map = NULL; /* the agent is gone: not its mapping any more */
		oa_spool_forget(&sp);
		t0 = ms_now();
		unsigned waits0 = atomic_load(&oa_spool_waits);
		r = oa_spool_unpack_file(d2, "spool.0.oa", NULL, 0, take, NULL);
		waited = ms_now() - t0;
		unsigned waits = atomic_load(&oa_spool_waits) - waits0;
		if (!take) {
			CHECK(r == 0 && waited >= 40 && count_entries(d2, "spool.") == 0 && count_entries(d2, "thread.") == 0,
			      "a finisher waited (%.1f ms), left the slot, removed the file (r %d)", waited, r);
			atomic_store(&s0->state, OA_SPOOL_DONE);
			CHECK(oa_spool_unpack_done(map, (size_t)st.st_size, d2, &left, &closed, NULL, UINT64_MAX) == 1,
			      "the watcher writes it from its mapping");
		} else {
			/* Not by its time: two suites at once under TSan took
			 * 49 ms to write it. */
			CHECK(r == 1 && waits == 0 && count_entries(d2, "spool.") == 0,
			      "repair writes it at once (r %d, %u waits, %.1f ms)", r, waits, waited);
		}
		CHECK(read_stream(d2, 400 + take, first, last, &ordered) == 3 + 3, "thread %d whole", 400 + take);
		munmap(map, (size_t)st.st_size);
	}

	/* A slot the watcher has written out and is zeroing (RELEASING) when
	 * the process ends: the agent waits for it, does not write it again,
	 * and ends with no file (its main stream is its own to finish).  When
	 * the watcher went through BUSY here, the process left its main stream
	 * to a finisher (2000 threads under ovnirun: 1 run in ~50). */
	char d3[600];
	snprintf(d3, sizeof(d3), "%s/releasing", top);
	mkdir(d3, 0755);
	oa_spool_init(&sp, d3, 5, NULL);
	open_in(&t[0], &sp, d3, 500);
	emit_n(&t[0], 3);
	CHECK(oa_stream_end(&t[0]) == 0, "end 500");
	struct oa_spool_slot *s5 = slot_in(sp.files[0].map, 0);
	atomic_store(&s5->state, OA_SPOOL_RELEASING);
	pthread_t zeroer;
	t0 = ms_now();
	CHECK(pthread_create(&zeroer, NULL, release_later, s5) == 0, "the watcher's release");
	r = oa_spool_unpack(&sp, 0, NULL, 0);
	waited = ms_now() - t0;
	int was_released = atomic_load(&released);
	pthread_join(zeroer, NULL);
	/* Waited until the release, or (a zeroer descheduled that long) for
	 * the bound; no timing asserted otherwise (ASan, two suites at once). */
	CHECK(r == 0 && (was_released || waited >= 45) && atomic_load(&sp.nfiles) == 0 &&
		      count_entries(d3, "spool.") == 0 && count_entries(d3, "thread.") == 0,
	      "waited for the release (%.1f ms, released %d, r %d, nfiles %u), wrote nothing, removed the file", waited,
	      was_released, r, atomic_load(&sp.nfiles));
	/* The same slot in a dead process's file, its watcher gone (repair):
	 * freed, not written. */
	oa_spool_init(&sp, d3, 6, NULL);
	open_in(&t[0], &sp, d3, 600);
	emit_n(&t[0], 3);
	CHECK(oa_stream_end(&t[0]) == 0, "end 600");
	map = sp.files[0].map;
	atomic_store(&slot_in(map, 0)->state, OA_SPOOL_RELEASING);
	sp.files[0].map = NULL;
	oa_spool_forget(&sp);
	r = oa_spool_unpack_file(d3, "spool.0.oa", NULL, 0, 1, NULL);
	CHECK(r == 0 && count_entries(d3, "spool.") == 0 && count_entries(d3, "thread.") == 0 &&
		      atomic_load(&slot_in(map, 0)->state) == OA_SPOOL_FREE,
	      "repair frees a RELEASING slot without writing it (r %d)", r);
	munmap(map, (size_t)st.st_size);
}

/* Slots freed by the watcher are taken again, the lowest first, before a
 * fresh one; a thread that reuses the tid of one still to be written
 * (in a later slot) is written after it. */
static void test_reuse(const char *top)
{
	char w[600];
	subdir(w, sizeof(w), top, "reuse");
	static struct oa_spool sp;
	oa_spool_init(&sp, w, 7, NULL);
	struct oa_stream t[4];
	for (int i = 0; i < 3; i++) {
		open_in(&t[i], &sp, w, 700 + i);
		emit_n(&t[i], 4);
	}
	uint8_t *map = sp.files[0].map;
	size_t len = OA_SPOOL_HEADER + (size_t)OA_SPOOL_SLOTS * OA_SPOOL_SLOT;
	unsigned left;
	int closed;
	CHECK(oa_stream_end(&t[0]) == 0 && oa_stream_end(&t[1]) == 0, "end 700, 701");
	CHECK(oa_spool_unpack_done(map, len, w, &left, &closed, NULL, UINT64_MAX) == 2 && left == 1, "2 written, 1 runs (left %u)", left);
	/* 702 ends, its slot (2) not written yet; a new thread with its tid
	 * gets slot 0, then another gets slot 1, then a fresh one: 3. */
	CHECK(oa_stream_end(&t[2]) == 0, "end 702");
	open_in(&t[0], &sp, w, 702);
	CHECK(t[0].slot == slot_in(map, 0), "a freed slot taken again");
	emit_n(&t[0], 2);
	CHECK(oa_stream_end(&t[0]) == 0, "end 702 again");
	open_in(&t[1], &sp, w, 703);
	open_in(&t[3], &sp, w, 704);
	CHECK(t[1].slot == slot_in(map, 1) && t[3].slot == slot_in(map, 3), "the next freed one, then a fresh one");
	CHECK(atomic_load(&header_of_test(map)->taken) == 4, "4 slots handed out");
	CHECK(oa_spool_unpack_done(map, len, w, &left, &closed, NULL, UINT64_MAX) == 2 && left == 2, "both 702s written (left %u)", left);
	char first[4], last[4];
	int ordered;
	int n = read_stream(w, 702, first, last, &ordered);
	CHECK(n == 4 + 3 + 2 + 3 && ordered, "tid 702: both streams, in the order they ran (%d events)", n);
	CHECK(oa_stream_end(&t[1]) == 0 && oa_stream_end(&t[3]) == 0, "end 703, 704");
	CHECK(oa_spool_unpack(&sp, 0, NULL, 0) == 2 && count_entries(w, "spool.") == 0, "the rest at the end");
	CHECK(count_entries(w, "thread.") == 5, "5 streams (%d)", count_entries(w, "thread."));
}

/* A watcher that gave a slot back (DONE again), 5 ms later. */
static void *undo_watch_later(void *slot)
{
	struct timespec ts = { 0, 5000000 };
	nanosleep(&ts, NULL);
	atomic_store(&((struct oa_spool_slot *)slot)->state, OA_SPOOL_DONE);
	return NULL;
}

/* A recycled tid's later stream waits while its earlier one is not out,
 * so that thread.T/stream.obs has them in the order they ran and one
 * header: the earlier being written by a thread of the process (BUSY), by
 * the watcher (WATCHED: the agent's end waits), both taken after the
 * watcher's pass began, the earlier running in an earlier file when the
 * pass was there and the later taken after the pass began; and a finisher takes a process's spool
 * files in the order they were made (spool.2.oa before spool.10.oa).  The
 * watcher once wrote the later stream while a thread wrote the earlier:
 * two headers, or clocks going back (4 threads x 12000 threads under
 * ovnirun, tids recycled: 5858 of 32448 streams). */
static void test_hold(const char *top)
{
	char w[600], w2[600];
	subdir(w, sizeof(w), top, "hold");
	subdir(w2, sizeof(w2), top, "hold2");
	size_t len = OA_SPOOL_HEADER + (size_t)OA_SPOOL_SLOTS * OA_SPOOL_SLOT;
	unsigned left;
	int closed;
	char first[4], last[4];
	int ordered;
	static struct oa_spool sp, sp2;
	oa_spool_init(&sp, w, 9, NULL);
	struct oa_stream a, b;
	open_in(&a, &sp, w, 900);
	emit_n(&a, 3);
	CHECK(oa_stream_end(&a) == 0, "end 900");
	open_in(&b, &sp, w, 900);
	emit_n(&b, 5);
	CHECK(oa_stream_end(&b) == 0, "end 900 again");
	uint8_t *map = sp.files[0].map;
	struct oa_spool_slot *sa = slot_in(map, 0);
	CHECK(sa->tid == 900 && slot_in(map, 1)->tid == 900, "two slots of tid 900");
	atomic_store(&sa->state, OA_SPOOL_BUSY);
	int r = oa_spool_unpack_done(map, len, w, &left, &closed, NULL, UINT64_MAX);
	CHECK(r == 0 && left == 2 && count_entries(w, "thread.") == 0,
	      "the later stream waits while a thread writes the earlier (r %d, left %u)", r, left);
	/* Both taken after the pass read the file's seq. */
	atomic_store(&sa->state, OA_SPOOL_DONE);
	atomic_fetch_sub(&header_of_test(map)->seq, 2);
	r = oa_spool_unpack_done(map, len, w, &left, &closed, NULL, UINT64_MAX);
	CHECK(r == 0 && left == 2, "slots taken after the pass began wait for the next (r %d, left %u)", r, left);
	atomic_fetch_add(&header_of_test(map)->seq, 2);
	r = oa_spool_unpack_done(map, len, w, &left, &closed, NULL, UINT64_MAX);
	int n = read_stream(w, 900, first, last, &ordered);
	CHECK(r == 2 && left == 0 && n == 3 + 3 + 5 + 3 && ordered,
	      "then both, in the order they ran, one header (r %d, %d events)", r, n);

	/* The agent's end: the earlier one WATCHED, given back 5 ms later. */
	open_in(&a, &sp, w, 901);
	emit_n(&a, 2);
	CHECK(oa_stream_end(&a) == 0, "end 901");
	open_in(&b, &sp, w, 901);
	emit_n(&b, 4);
	CHECK(oa_stream_end(&b) == 0, "end 901 again");
	sa = slot_in(map, 0);
	CHECK(sa->tid == 901, "901 took the first freed slot");
	atomic_store(&sa->state, OA_SPOOL_WATCHED);
	pthread_t th;
	pthread_create(&th, NULL, undo_watch_later, sa);
	r = oa_spool_unpack(&sp, 0, NULL, 0);
	pthread_join(th, NULL);
	n = read_stream(w, 901, first, last, &ordered);
	CHECK(r == 2 && n == 2 + 3 + 4 + 3 && ordered, "the end waits for the earlier, then both (r %d, %d events)",
	      r, n);

	/* A pass over two files of a process (two spools of pid 9 in one
	 * directory: spool.0.oa, spool.1.oa): its start reads how many slots
	 * each had taken; 902 runs in the first, ends while the pass is
	 * there, and its tid goes to a thread that takes a slot in the second
	 * and ends before the pass gets there: that one waits for the next
	 * pass, where the earlier goes first. */
	oa_spool_init(&sp, w, 9, NULL);
	oa_spool_init(&sp2, w, 9, NULL);
	struct oa_stream c;
	open_in(&a, &sp, w, 902);
	emit_n(&a, 2);
	open_in(&c, &sp2, w, 903);
	emit_n(&c, 2);
	CHECK(oa_stream_end(&c) == 0, "end 903");
	uint8_t *m1 = sp.files[0].map, *m2 = sp2.files[0].map;
	uint64_t u1 = oa_spool_seq(m1), u2 = oa_spool_seq(m2);
	struct oa_spool_hold_entry holds[OA_SPOOL_HOLD];
	struct oa_spool_hold hold;
	oa_spool_hold_init(&hold, holds, OA_SPOOL_HOLD);
	r = oa_spool_unpack_done(m1, len, w, &left, &closed, &hold, u1);
	CHECK(r == 0 && left == 1, "902 runs (r %d, left %u)", r, left);
	CHECK(oa_stream_end(&a) == 0, "end 902");
	open_in(&b, &sp2, w, 902);
	emit_n(&b, 4);
	CHECK(oa_stream_end(&b) == 0, "end 902 again (the second file)");
	r = oa_spool_unpack_done(m2, len, w, &left, &closed, &hold, u2);
	CHECK(r == 1 && left == 1, "903 written, the later 902 waits (r %d, left %u)", r, left);
	oa_spool_hold_init(&hold, holds, OA_SPOOL_HOLD);
	u1 = oa_spool_seq(m1);
	u2 = oa_spool_seq(m2);
	r = oa_spool_unpack_done(m1, len, w, &left, &closed, &hold, u1);
	int r2 = oa_spool_unpack_done(m2, len, w, &left, &closed, &hold, u2);
	n = read_stream(w, 902, first, last, &ordered);
	CHECK(r == 1 && r2 == 1 && n == 2 + 3 + 4 + 3 && ordered, "the next pass: both, in order (%d %d, %d events)",
	      r, r2, n);
	CHECK(oa_spool_unpack(&sp, 0, NULL, 0) == 0 && oa_spool_unpack(&sp2, 0, NULL, 0) == 0, "nothing left");

	/* A dead process (a finisher): 910's earlier stream WATCHED (ovnirun
	 * writes it), the later one LIVE (killed in it).  The LIVE one waits
	 * and the file stays (ovnirun never writes a LIVE slot: counted as
	 * the watcher's, it was lost with the file). */
	char w3[600], sp3[700];
	subdir(w3, sizeof(w3), top, "hold3");
	oa_spool_init(&sp, w3, 9, NULL);
	open_in(&a, &sp, w3, 910);
	emit_n(&a, 2);
	CHECK(oa_stream_end(&a) == 0, "end 910");
	open_in(&b, &sp, w3, 910);
	emit_n(&b, 3);
	sa = slot_in(sp.files[0].map, 0);
	atomic_store(&sa->state, OA_SPOOL_WATCHED);
	const char like3[] = "{\n \"version\": 3,\n \"ovni\": {\n  \"part\": \"thread\",\n  \"tid\": 9,\n  \"pid\": 9\n }\n}\n";
	r = oa_spool_unpack_file(w3, "spool.0.oa", like3, sizeof(like3) - 1, 0, NULL);
	snprintf(sp3, sizeof(sp3), "%s/spool.0.oa", w3);
	CHECK(r == 0 && access(sp3, F_OK) == 0 && count_entries(w3, "thread.") == 0,
	      "the LIVE later one waits, the file stays (r %d)", r);
	r = oa_spool_unpack_file(w3, "spool.0.oa", like3, sizeof(like3) - 1, 1, NULL);
	n = read_stream(w3, 910, first, last, &ordered);
	CHECK(r == 2 && n == 2 + 3 + 3 && ordered && access(sp3, F_OK) != 0,
	      "repair (no watcher left): both, in order (r %d, %d events)", r, n);
	oa_stream_drop(&b);
	oa_spool_forget(&sp);

	/* The finisher's order: by number, not as the directory lists them. */
	char f[700];
	const char *names[] = { "spool.10.oa", "spool.2.oa", "spool.run.oa", "spool.x.oa" };
	for (int i = 0; i < 4; i++) {
		snprintf(f, sizeof(f), "%s/%s", w2, names[i]);
		int fd = open(f, O_WRONLY | O_CREAT, 0644);
		CHECK(fd >= 0, "make %s", names[i]);
		close(fd);
	}
	int dfd = open(w2, O_RDONLY | O_DIRECTORY);
	char buf[4096];
	long k0 = oa_spool_next(dfd, -1, buf, sizeof(buf)), k1 = oa_spool_next(dfd, k0, buf, sizeof(buf)),
	     k2 = oa_spool_next(dfd, k1, buf, sizeof(buf));
	close(dfd);
	CHECK(k0 == 2 && k1 == 10 && k2 == -1, "spool files in the order made: %ld %ld %ld", k0, k1, k2);
}

/* A spool of process pid in dir whose tid has an earlier stream in its
 * thread.tid/stream.obs (path in obs), written out already: its events in
 * *n0, its size returned; the spool is started again, empty. */
static uint64_t earlier_stream(struct oa_spool *sp, const char *dir, int pid, int tid, char *obs, size_t obs_size,
			       int *n0)
{
	oa_spool_init(sp, dir, pid, NULL);
	struct oa_stream a;
	open_in(&a, sp, dir, tid);
	emit_n(&a, 3);
	CHECK(oa_stream_end(&a) == 0, "end");
	CHECK(oa_spool_unpack(sp, 0, NULL, 0) == 1, "the earlier stream of tid %d written", tid);
	char first[4], last[4];
	int ordered;
	*n0 = read_stream(dir, tid, first, last, &ordered);
	snprintf(obs, obs_size, "%s/thread.%d/stream.obs", dir, tid);
	struct stat st;
	CHECK(*n0 > 3 && stat(obs, &st) == 0, "earlier stream (%d events)", *n0);
	oa_spool_init(sp, dir, pid, NULL);
	return (uint64_t)st.st_size;
}

/* oa_spool_unpack_file on every spool file of dir, as a finisher; the
 * streams written (of the last file), or -1 when there was none. */
static int unpack_files(const char *dir, const char *like, size_t like_len)
{
	DIR *d = opendir(dir);
	int got = -1;
	for (struct dirent *e; d && (e = readdir(d));)
		if (oa_spool_name(e->d_name))
			got = oa_spool_unpack_file(dir, e->d_name, like, like_len, 1, NULL);
	if (d)
		closedir(d);
	return got;
}

/* A process killed while a thread wrote its slot out as files of its own
 * (it outgrew the slot): after an earlier stream of its recycled tid, part
 * of the slot already appended; and a thread killed right after it made
 * its directory, before any file.  The slot is written once, after what
 * was there before, and every stream starts with its header. */
static void test_spill_cut(const char *top)
{
	char dir[600], obs[700];
	snprintf(dir, sizeof(dir), "%s/spillcut", top);
	mkdir(dir, 0755);
	static struct oa_spool sp;
	int n0;
	uint64_t base = earlier_stream(&sp, dir, 3, 300, obs, sizeof(obs), &n0);
	char first[4], last[4];
	int ordered;
	struct stat st;
	struct oa_stream b, c;
	open_in(&b, &sp, dir, 300);
	emit_n(&b, 6);
	open_in(&c, &sp, dir, 301);
	emit_n(&c, 4);
	/* What spill_slot had done when the process died: tid 300's slot
	 * marked, half of it appended; tid 301's directory made. */
	b.slot->spill_base = base;
	atomic_store(&b.slot->spilling, 1);
	size_t blen = oa_stream_size(&b);
	int fd = open(obs, O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, b.map + 8, (blen - 8) / 2) == (ssize_t)((blen - 8) / 2), "half appended");
	if (fd >= 0)
		close(fd);
	char d301[700];
	snprintf(d301, sizeof(d301), "%s/thread.301", dir);
	CHECK(mkdir(d301, 0755) == 0, "thread.301 made, nothing in it");
	const char like[] = "{\n \"version\": 3,\n \"ovni\": {\n  \"part\": \"thread\",\n  \"tid\": 2,\n  \"pid\": 3\n }\n}\n";
	int got = unpack_files(dir, like, sizeof(like) - 1);
	CHECK(got == 2, "2 live streams written (%d)", got);
	int n = read_stream(dir, 300, first, last, &ordered);
	CHECK(n == n0 + 6 && ordered && stat(obs, &st) == 0 && (uint64_t)st.st_size == base + blen - 8,
	      "tid 300: the earlier stream, then the slot once (%d events, %d before; %lld bytes, %llu + %zu)", n,
	      n0, (long long)st.st_size, (unsigned long long)base, blen - 8);
	n = read_stream(dir, 301, first, last, &ordered);
	CHECK(n == 4 && !memcmp(first, "OHx", 3), "tid 301: a stream from its header (%d events)", n);
	oa_stream_drop(&b);
	oa_stream_drop(&c);
}

/* An unpack that died half way (the slot left BUSY, as the agent's own
 * unpack marks it): writing it again keeps the earlier stream of a
 * recycled tid in its stream.obs (it was started over with O_TRUNC, and
 * that stream lost) and writes the slot's once. */
static void test_redo_keeps(const char *top)
{
	char dir[600], obs[700];
	snprintf(dir, sizeof(dir), "%s/redo", top);
	mkdir(dir, 0755);
	static struct oa_spool sp;
	int n0;
	uint64_t base = earlier_stream(&sp, dir, 4, 400, obs, sizeof(obs), &n0);
	char first[4], last[4];
	int ordered;
	struct stat st;
	struct oa_stream b, c, e;
	open_in(&b, &sp, dir, 400);
	emit_n(&b, 5);
	struct oa_spool_slot *bs = b.slot;
	CHECK(oa_stream_end(&b) == 0, "end b");
	size_t blen = bs ? bs->obs_len : 0; /* its events and the end's OF[ OF] OHe */
	open_in(&c, &sp, dir, 400);
	emit_n(&c, 2);
	struct oa_spool_slot *cs = c.slot;
	CHECK(oa_stream_end(&c) == 0, "end c");
	open_in(&e, &sp, dir, 401);
	emit_n(&e, 4);
	struct oa_spool_slot *es = e.slot;
	CHECK(oa_stream_end(&e) == 0, "end e");
	size_t elen = es ? es->obs_len : 0;
	CHECK(bs && cs && es && bs->seq < cs->seq, "three slots, b's taken first");
	/* What an unpack had done when it died: b's slot noted and half of it
	 * appended; c's slot taken (BUSY) and nothing written; tid 401's
	 * file made and half its stream written. */
	atomic_store(&bs->state, OA_SPOOL_BUSY);
	bs->spill_base = base;
	atomic_store(&bs->spilling, 1);
	int fd = open(obs, O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, oa_spool_obs(bs) + 8, (blen - 8) / 2) == (ssize_t)((blen - 8) / 2), "half of b");
	if (fd >= 0)
		close(fd);
	atomic_store(&cs->state, OA_SPOOL_BUSY);
	char d401[700], o401[720];
	snprintf(d401, sizeof(d401), "%s/thread.401", dir);
	snprintf(o401, sizeof(o401), "%s/stream.obs", d401);
	CHECK(mkdir(d401, 0755) == 0, "thread.401 made");
	atomic_store(&es->state, OA_SPOOL_BUSY);
	es->spill_base = 0;
	atomic_store(&es->spilling, 1);
	fd = open(o401, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && write(fd, oa_spool_obs(es), elen / 2) == (ssize_t)(elen / 2), "half of tid 401");
	if (fd >= 0)
		close(fd);
	int got = unpack_files(dir, NULL, 0);
	CHECK(got == 3, "3 streams written (%d)", got);
	int n = read_stream(dir, 400, first, last, &ordered);
	/* Each end adds OF[ OF] OHe. */
	CHECK(n == n0 + (5 + 3) + (2 + 3) && ordered,
	      "tid 400: the earlier stream, then b and c once each (%d events, %d before)", n, n0);
	n = read_stream(dir, 401, first, last, &ordered);
	CHECK(n == 4 + 3 && !memcmp(first, "OHx", 3) && stat(o401, &st) == 0 && (size_t)st.st_size == elen,
	      "tid 401: its stream once, from its header (%d events, %lld bytes)", n, (long long)st.st_size);
}

/* Recycled tids before their earlier stream is written out (no watcher:
 * everything waits for the end).  A stream that outgrows its slot, and one
 * that gets no slot, write the earlier stream of their tid first
 * (oa_spool_settle: before, they went first and the clock went back at
 * the end's unpack).  And a process with no watcher whose spool fills its
 * files writes its ended threads out itself and takes their slots again:
 * its spool stays at OA_SPOOL_SELF_FILES files (before: 64 files, then
 * files of their own for every thread). */
static void test_recycled(const char *top)
{
	char w[600];
	subdir(w, sizeof(w), top, "recycled");
	static struct oa_spool sp;
	oa_spool_init(&sp, w, 9, NULL);
	struct oa_stream a, b;
	open_in(&a, &sp, w, 900);
	emit_n(&a, 4);
	CHECK(oa_stream_end(&a) == 0, "end 900");
	open_in(&b, &sp, w, 900);
	CHECK(b.slot != NULL, "900 again, in a slot");
	emit_n(&b, 2000);
	CHECK(b.slot == NULL, "left its slot");
	CHECK(oa_stream_end(&b) == 0, "end 900 again");
	char first[4], last[4];
	int ordered;
	int n = read_stream(w, 900, first, last, &ordered);
	CHECK(n >= 4 + 3 + 2000 + 3 && ordered, "tid 900: the short stream first, then the long one (%d events, %s)",
	      n, ordered ? "ordered" : "the clock goes back");
	open_in(&a, &sp, w, 901);
	emit_n(&a, 4);
	CHECK(oa_stream_end(&a) == 0, "end 901");
	atomic_store(&sp.failed, 1); /* no slot for the next */
	open_in(&b, &sp, w, 901);
	CHECK(b.slot == NULL && b.path, "901 again, in files of its own");
	emit_n(&b, 5);
	CHECK(oa_stream_end(&b) == 0, "end 901 again");
	n = read_stream(w, 901, first, last, &ordered);
	CHECK(n == 4 + 3 + 5 + 3 && ordered, "tid 901: both streams, in the order they ran (%d events, %s)", n,
	      ordered ? "ordered" : "the clock goes back");
	CHECK(oa_spool_unpack(&sp, 0, NULL, 0) == 0, "nothing left at the end");

	/* More threads than OA_SPOOL_SELF_FILES files hold, tids recycled. */
	subdir(w, sizeof(w), top, "self");
	oa_spool_init(&sp, w, 10, NULL);
	enum { M = (OA_SPOOL_SELF_FILES + 2) * OA_SPOOL_SLOTS + 100, TIDS = 1500 };
	int in_slot = 0;
	for (int i = 0; i < M; i++) {
		open_in(&a, &sp, w, 1000 + i % TIDS);
		in_slot += a.slot != NULL;
		emit_n(&a, 3);
		CHECK(oa_stream_end(&a) == 0, "end %d", i);
	}
	CHECK(in_slot == M, "every thread in a slot (%d of %d)", in_slot, M);
	CHECK(count_entries(w, "spool.") == (int)OA_SPOOL_SELF_FILES, "%u spool files (%d)", OA_SPOOL_SELF_FILES,
	      count_entries(w, "spool."));
	CHECK(count_entries(w, "thread.") == TIDS, "ended threads written out while it runs (%d)",
	      count_entries(w, "thread."));
	oa_spool_unpack(&sp, 0, NULL, 0);
	CHECK(count_entries(w, "spool.") == 0, "spool files removed");
	int bad = 0;
	for (int t = 0; t < TIDS; t++) {
		int k = M / TIDS + (t < M % TIDS);
		n = read_stream(w, 1000 + t, first, last, &ordered);
		bad += n != k * 6 || !ordered;
	}
	CHECK(bad == 0, "%d recycled tids with a stream missing or out of order", bad);
}

/* The run's spool (ovnirun's) with a loom of 300 CPUs, whose text (~8
 * KiB) no slot holds: a process's slot text leaves them out (the run's
 * first process writes them into the file once) and whoever writes the
 * slot out puts them back, byte for byte: DONE (the process ended), LIVE
 * with its start's text (killed), LIVE with its final text (killed in its
 * end: written with "finished": 0). */
static void test_run_cpus(const char *top)
{
	char w[600], path[700], loomdir[700];
	subdir(w, sizeof(w), top, "run");
	snprintf(path, sizeof(path), "%s/%s", w, OA_RUN_SPOOL_NAME);
	snprintf(loomdir, sizeof(loomdir), "%s/loom.L", w);
	mkdir(loomdir, 0755);
	CHECK(oa_run_create(path, "L") == 0, "run spool made");
	uint8_t *m = oa_run_open(path, 1);
	CHECK(m != NULL, "run spool mapped");
	if (!m)
		return;
	static int phy[300];
	for (int i = 0; i < 300; i++)
		phy[i] = 2 * i;
	static struct oa_meta rm = { .app_id = 1, .rank = -1, .nranks = -1, .loom = "L" };
	rm.ncpus = 300;
	rm.phyids = phy;
	static char full[16384];
	for (int c = 0; c < 3; c++) {
		int pid = 500 + c;
		rm.pid = pid;
		char base[700], rel[64], pdir[800];
		snprintf(rel, sizeof(rel), "loom.L/proc.%d", pid);
		snprintf(base, sizeof(base), "%s/%s", w, rel);
		struct oa_stream st;
		memset(&st, 0, sizeof(st));
		struct oa_stream_cfg cfg = { .base = base, .tid = pid, .meta = &rm, .run = m, .run_rel = rel };
		CHECK(oa_stream_open(&st, &cfg) == 0 && st.slot && st.run == m, "case %d: in a slot of the run's spool", c);
		if (!st.slot)
			continue;
		CHECK(atomic_load(&oa_run_header_of(m)->cpus) == 2, "case %d: the CPUs in the file", c);
		CHECK(st.slot->cpus_at > 0 && st.slot->json_len < OA_SLOT_JSON &&
			      !memmem(oa_spool_json(st.slot), st.slot->json_len, "loom_cpus", 9),
		      "case %d: the slot's text without them (%u bytes)", c, st.slot->json_len);
		emit_n(&st, 4);
		int fin = 0;
		if (c == 0) {
			CHECK(oa_stream_end(&st) == 0, "case 0: ended");
			unsigned in_use = 9;
			CHECK(oa_run_unpack(w, m, NULL, &in_use) == 1, "case 0: written out");
			fin = 1;
		} else {
			struct oa_spool_slot *slot = st.slot;
			if (c == 2) {
				uint32_t at = 0;
				ssize_t n = oa_meta_render_apart(&rm, oa_spool_json(slot), OA_SLOT_JSON, pid, 1,
								 &st.labels, &at);
				CHECK(n > 0, "case 2: the final text, apart");
				slot->cpus_at = at;
				slot->json_len = (uint32_t)n;
				fin = 1;
			}
			CHECK(oa_run_write(w, m, slot, OA_SPOOL_LIVE) == 1, "case %d: a LIVE slot written out", c);
		}
		ssize_t nf = oa_meta_render(&rm, full, sizeof(full), pid, fin, &st.labels);
		CHECK(nf > OA_SLOT_JSON, "case %d: the whole text is larger than a slot's room (%zd)", c, nf);
		if (c == 2)
			full[OA_META_FINISHED_AT] = '0';
		snprintf(pdir, sizeof(pdir), "%s/%s", w, rel);
		char *j = read_json(pdir, pid);
		CHECK(j && strlen(j) == (size_t)nf && !memcmp(j, full, (size_t)nf),
		      "case %d: stream.json is the whole text%s", c, c == 2 ? ", \"finished\": 0" : "");
		free(j);
		char first[4], last[4];
		int ordered;
		int n = read_stream(pdir, pid, first, last, &ordered);
		CHECK(n == (c == 0 ? 4 + 3 : 4) && !strcmp(first, "OHx") && ordered, "case %d: its %d events", c, n);
	}
	munmap(m, oa_run_len());
}

int main(void)
{
	char dir[] = "/tmp/oa-spool.XXXXXX";
	CHECK(mkdtemp(dir) != NULL, "temp dir");
	meta.ncpus = 1;
	meta.phyids = meta_phy;
	static struct oa_spool sp;
	/* With a watcher's list (no watcher reads it): ended threads wait in
	 * the spool (without one, the process writes them out when a file is
	 * full: test_recycled). */
	char list[600];
	snprintf(list, sizeof(list), "%s/list", dir);
	int lf = open(list, O_WRONLY | O_CREAT, 0644);
	CHECK(lf >= 0, "a watcher's list");
	close(lf);
	oa_spool_init(&sp, dir, 1, list);

	/* More threads than a file has slots, each ended. */
	enum { N = OA_SPOOL_SLOTS + 76 };
	static struct oa_stream s[N];
	for (int i = 0; i < N; i++) {
		open_in(&s[i], &sp, dir, 100 + i);
		CHECK(s[i].slot != NULL, "thread %d in a slot", i);
		emit_n(&s[i], 5 + i % 7);
		CHECK(oa_stream_end(&s[i]) == 0, "end %d", i);
	}
	int made = 0;
	for (int i = 0; i < N; i++)
		made += s[i].path != NULL;
	CHECK(made == 0, "no path made for a stream that stayed in its slot (%d made)", made);
	CHECK(count_entries(dir, "thread.") == 0, "no thread file before the unpack");
	CHECK(count_entries(dir, "spool.") == 2, "two spool files (%d)", count_entries(dir, "spool."));

	/* One that outgrows its slot: files of its own at once, and goes on. */
	struct oa_stream big;
	open_in(&big, &sp, dir, 7);
	CHECK(big.slot && !big.path && big.path_base == dir, "in a slot, its path not made");
	emit_n(&big, 2000);
	CHECK(big.slot == NULL, "left its slot");
	char want_dir[600];
	snprintf(want_dir, sizeof(want_dir), "%s/thread.7", dir);
	CHECK(big.path && !big.path_base && !strcmp(big.path, want_dir), "its path made when it left (%s)",
	      big.path ? big.path : "none");
	CHECK(count_entries(dir, "thread.") == 1, "its files exist now");
	CHECK(oa_stream_end(&big) == 0, "end big");

	/* A tid used twice (recycled): the second stream appends. */
	struct oa_stream again;
	open_dir_in(&again, &sp, dir, 100);
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
	oa_spool_init(&sp, dead, 2, NULL);
	struct oa_stream l[3];
	for (int i = 0; i < 3; i++) {
		open_in(&l[i], &sp, dead, 200 + i);
		emit_n(&l[i], 4 + i);
	}
	/* A LIVE slot holds no stream.json (the end renders it there): the
	 * finisher writes its process's main one, with the slot's tid. */
	CHECK(l[0].slot->json_len == 0 && l[2].slot->json_len == 0, "no stream.json rendered at a slot's start");
	/* One killed in its end, after its final stream.json was rendered
	 * there and before its OHe: written as not finished. */
	ssize_t fj = oa_meta_render(&meta, oa_spool_json(l[1].slot), OA_SPOOL_JSON, 201, 1, &l[1].labels);
	CHECK(fj > 0, "final text rendered");
	l[1].slot->json_len = (uint32_t)fj;
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
			got = oa_spool_unpack_file(dead, e->d_name, like, sizeof(like) - 1, 1, NULL);
	closedir(d);
	CHECK(got == 3, "3 live streams written (%d)", got);
	CHECK(count_entries(dead, "spool.") == 0, "dead spool removed");
	for (int i = 0; i < 3; i++) {
		n = read_stream(dead, 200 + i, first, last, &ordered);
		CHECK(n == 4 + i && !strcmp(last, "OB."), "live stream %d: %d events, cut at the last (%s)", i, n, last);
		j = read_json(dead, 200 + i);
		char want[64];
		snprintf(want, sizeof(want), "\"tid\": %d,", 200 + i);
		CHECK(j && strstr(j, want) && (i == 1 ? !strstr(j, "\"finished\": 1") && strstr(j, "\"finished\": 0,")
						      : !strstr(j, "finished")) &&
			      strstr(j, i != 1 ? "\"pid\": 2" : "\"pid\": 1"),
		      "live stream %d: %s stream.json, its tid, not finished: %s", i,
		      i != 1 ? "the main stream's" : "its own", j ? j : "(none)");
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
	CHECK(oa_spool_unpack_file(dead, "spool.5.oa", like, sizeof(like) - 1, 1, NULL) == 0 && access(half, F_OK) != 0,
	      "an empty spool file of a dead process is removed");
	hf = open(half, O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(hf >= 0 && ftruncate(hf, 1 << 20) == 0, "a sized spool file without its header");
	if (hf >= 0)
		close(hf);
	CHECK(oa_spool_unpack_file(dead, "spool.5.oa", like, sizeof(like) - 1, 1, NULL) == 0 && access(half, F_OK) != 0,
	      "a spool file without its header is removed");
	/* Someone else's file of that name is not ours to remove. */
	hf = open(half, O_RDWR | O_CREAT | O_EXCL, 0644);
	static const char foreign[] = "not a spool file, but longer than a spool file's header";
	CHECK(hf >= 0 && write(hf, foreign, sizeof(foreign)) == (ssize_t)sizeof(foreign), "a foreign file");
	if (hf >= 0)
		close(hf);
	CHECK(oa_spool_unpack_file(dead, "spool.5.oa", like, sizeof(like) - 1, 1, NULL) < 0 && access(half, F_OK) == 0,
	      "a foreign file is left, with an error");
	test_watcher(dir);
	test_reuse(dir);
	test_hold(dir);
	test_spill_cut(dir);
	test_redo_keeps(dir);
	test_recycled(dir);
	test_run_cpus(dir);
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "cleanup");
	TEST_DONE();
}
