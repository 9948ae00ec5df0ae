/* test_reader.c: the shared trace reader (tools/trace/reader.c) on hand-written
 * streams: discovery and path order, metadata fields, event framing (normal
 * and jumbo events, every payload size), every kind of damage with its byte
 * offset, the merged walk in clock order with deterministic ties, clock
 * offsets, single-stream directories, v1 traces, random garbage, and the
 * pages given back on a long stream. */
#include <jansson.h>

#include "../../tools/trace/reader.h"
#include "test.h"

static char *top;

/* ---- a tiny writer: raw stream bytes ------------------------------------ */

struct obs {
	uint8_t b[1 << 16];
	size_t n;
};

static void obs_header(struct obs *o)
{
	memcpy(o->b, "ovni\1\0\0\0", 8);
	o->n = 8;
}

/* An event with n payload bytes (0 or 2..16) of value `fill`. */
static size_t obs_ev(struct obs *o, const char *mcv, uint64_t clock, unsigned n, uint8_t fill)
{
	size_t at = o->n;
	o->b[o->n++] = ovni_flags_for_payload(n);
	memcpy(o->b + o->n, mcv, 3);
	o->n += 3;
	memcpy(o->b + o->n, &clock, 8);
	o->n += 8;
	memset(o->b + o->n, fill, n);
	o->n += n;
	return at;
}

static size_t obs_jumbo(struct obs *o, const char *mcv, uint64_t clock, const void *data, uint32_t n)
{
	size_t at = o->n;
	o->b[o->n++] = OVNI_JUMBO_FLAGS;
	memcpy(o->b + o->n, mcv, 3);
	o->n += 3;
	memcpy(o->b + o->n, &clock, 8);
	o->n += 8;
	memcpy(o->b + o->n, &n, 4);
	o->n += 4;
	memcpy(o->b + o->n, data, n);
	o->n += n;
	return at;
}

static void mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "w");
	if (n)
		fwrite(data, 1, n, f);
	fclose(f);
}

/* trace/rel/stream.json (text) and stream.obs (o, or nothing if NULL). */
static void put_stream(const char *trace, const char *rel, const char *json, const struct obs *o)
{
	char dir[4200], path[4300];
	snprintf(dir, sizeof(dir), "%s/%s", trace, rel);
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/stream.json", dir);
	write_file(path, json, strlen(json));
	if (o) {
		snprintf(path, sizeof(path), "%s/stream.obs", dir);
		write_file(path, o->b, o->n);
	}
}

static char *meta(long tid, const char *loom)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"version\":3,\"ovni\":{\"part\":\"thread\",\"tid\":%ld,\"pid\":1,\"loom\":\"%s\",\"app_id\":4,"
		 "\"rank\":1,\"nranks\":3,\"loom_cpus\":[{\"index\":0,\"phyid\":5}],\"require\":{\"ovni\":\"1.1.0\"},"
		 "\"lib\":{\"version\":\"v\",\"commit\":\"c\"},\"finished\":1,"
		 "\"mark\":{\"3\":{\"title\":\"t\",\"chan_type\":\"stack\"}}},\"other\":{\"x\":1}}",
		 tid, loom);
	return buf;
}

static char *newdir(const char *name)
{
	static char buf[4200];
	snprintf(buf, sizeof(buf), "%s/%s", top, name);
	return buf;
}

/* ---- tests ------------------------------------------------------------- */

static void discovery_and_metadata(void)
{
	char *d = strdup(newdir("disc"));
	struct obs o;
	obs_header(&o);
	obs_ev(&o, "OHx", 10, 16, 0);
	put_stream(d, "b/x", meta(3, "node0.a"), &o);
	put_stream(d, "a/z", meta(2, "node0.a"), &o);
	put_stream(d, "a/y", meta(1, "node0.a"), &o);
	char other[4300];
	snprintf(other, sizeof(other), "%s/a/y/notes.txt", d); /* other files are not streams */
	write_file(other, "x", 1);
	struct rd_trace t;
	char err[512];
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0, "open: %s", err);
	CHECK(t.n == 3, "%d streams", t.n);
	if (t.n == 3) {
		CHECK(!strcmp(t.streams[0].relpath, "a/y") && !strcmp(t.streams[1].relpath, "a/z") &&
			      !strcmp(t.streams[2].relpath, "b/x"),
		      "order %s %s %s", t.streams[0].relpath, t.streams[1].relpath, t.streams[2].relpath);
		struct rd_stream *s = &t.streams[0];
		CHECK(s->index == 0 && s->tid == 1 && s->pid == 1 && s->app_id == 4 && s->rank == 1 && s->nranks == 3 &&
			      s->finished == 1 && s->version == 3,
		      "numbers: tid %lld pid %lld app %lld rank %lld/%lld fin %lld v %lld", s->tid, s->pid, s->app_id,
		      s->rank, s->nranks, s->finished, s->version);
		CHECK(s->part && !strcmp(s->part, "thread") && s->loom && !strcmp(s->loom, "node0.a"), "part/loom");
		CHECK(s->lib_version && !strcmp(s->lib_version, "v") && s->lib_commit && !strcmp(s->lib_commit, "c"),
		      "lib");
		CHECK(json_is_object(s->require) && json_object_get(s->require, "ovni"), "require");
		CHECK(json_is_array(s->loom_cpus) && json_array_size(s->loom_cpus) == 1, "loom_cpus");
		CHECK(json_is_object(s->marks) && json_object_get(s->marks, "3"), "marks");
		CHECK(json_integer_value(rd_json_path(s->meta, "other.x")) == 1, "raw json");
		CHECK(rd_json_path(s->meta, "ovni.nothing.here") == NULL, "absent path");
		CHECK(!s->bad && s->size == o.n && s->header == 8, "stream state: bad %d size %zu", s->bad, s->size);
		CHECK(strstr(s->dir, "/a/y") && strstr(s->obs, "/a/y/stream.obs"), "paths %s %s", s->dir, s->obs);
		CHECK(!t.offsets_loaded && t.offsets_error[0] == '\0', "no offsets");
	}
	rd_close(&t);

	/* Integral reals count as numbers (the emulator reads doubles);
	 * comments are accepted; a missing key reads as -1. */
	put_stream(d, "b/x",
		   "// comment\n{\"version\":3.0, /* c */ \"ovni\":{\"tid\":7.0,\"pid\":1.5,\"loom\":\"l//x\"}}", &o);
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0, "open: %s", err);
	struct rd_stream *s = &t.streams[2];
	long long v = 0;
	CHECK(s->meta && s->version == 3 && s->tid == 7 && s->pid == -1 && s->app_id == -1 && s->loom &&
		      !strcmp(s->loom, "l//x") && !s->require && !s->lib_version,
	      "comments/reals: %p v %lld tid %lld pid %lld", (void *)s->meta, s->version, s->tid, s->pid);
	CHECK(rd_json_int(s->meta, "ovni.tid", &v) && v == 7 && !rd_json_int(s->meta, "ovni.pid", &v), "rd_json_int");
	rd_close(&t);

	/* Unparsable JSON: no metadata, the events still read. */
	put_stream(d, "b/x", "{\"version\": 3,", &o);
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0, "open: %s", err);
	s = &t.streams[2];
	struct rd_event ev;
	CHECK(!s->meta && strstr(s->meta_error, "stream.json line") && rd_next(s, &ev) == 1, "broken json: %s",
	      s->meta_error);
	rd_close(&t);

	/* A single stream directory. */
	char one[4300];
	snprintf(one, sizeof(one), "%s/a/z", d);
	CHECK(rd_open(&t, one, err, sizeof(err)) == 0 && t.n == 1 && !strcmp(t.streams[0].relpath, ".") &&
		      t.streams[0].tid == 2,
	      "single stream: %s", err);
	rd_close(&t);

	/* Errors: not a directory, no stream. */
	snprintf(one, sizeof(one), "%s/a/z/stream.json", d);
	CHECK(rd_open(&t, one, err, sizeof(err)) == -1 && strstr(err, "not a directory"), "a file: %s", err);
	CHECK(rd_open(&t, "/nonexistent/x", err, sizeof(err)) == -1 && strstr(err, "No such file"), "missing: %s", err);
	snprintf(one, sizeof(one), "%s/emptydir", top);
	mkdirs(one);
	CHECK(rd_open(&t, one, err, sizeof(err)) == -1 && strstr(err, "no stream"), "empty dir: %s", err);
	free(d);
}

static void framing(void)
{
	char *d = strdup(newdir("frame"));
	struct obs o;
	obs_header(&o);
	size_t at[32];
	int n = 0;
	at[n++] = obs_ev(&o, "OHx", 100, 0, 0);
	for (unsigned size = 2; size <= 16; size++)
		at[n++] = obs_ev(&o, "OB.", 100 + size, size, (uint8_t)size);
	at[n++] = obs_jumbo(&o, "POc", 200, "\1\0\0\0label", 10);
	at[n++] = obs_jumbo(&o, "Zz9", 201, "", 0);
	at[n++] = obs_ev(&o, "OHe", 300, 0, 0);
	put_stream(d, "s", meta(1, "n"), &o);
	struct rd_trace t;
	char err[512];
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0, "open: %s", err);
	struct rd_stream *s = &t.streams[0];
	struct rd_event ev;
	int i = 0, r;
	while ((r = rd_next(s, &ev)) == 1) {
		CHECK(i < n && ev.offset == at[i], "event %d at %zu, expected %zu", i, ev.offset, at[i]);
		if (i == 0)
			CHECK(!strcmp(ev.mcv, "OHx") && ev.clock == 100 && ev.size == 0 && !ev.jumbo && ev.flags == 0,
			      "first event");
		if (i >= 1 && i <= 15) {
			unsigned size = (unsigned)i + 1;
			CHECK(ev.size == size && ev.clock == 100 + size && ev.payload[0] == size &&
				      ev.payload[size - 1] == size && ev.flags == size - 1,
			      "payload of %u bytes: size %u", size, ev.size);
		}
		if (i == 16)
			CHECK(ev.jumbo && ev.size == 10 && rd_u32(ev.payload) == 1 && !memcmp(ev.payload + 4, "label", 6) &&
				      ev.flags == 0x13,
			      "jumbo: size %u", ev.size);
		if (i == 17)
			CHECK(ev.jumbo && ev.size == 0 && !strcmp(ev.mcv, "Zz9"), "empty jumbo, unknown MCV");
		CHECK(ev.time == (int64_t)ev.clock, "no offset");
		i++;
	}
	CHECK(r == 0 && i == n && s->off == s->size, "end: r %d, %d of %d events", r, i, n);
	CHECK(rd_next(s, &ev) == 0, "stays at the end");
	rd_rewind(s);
	CHECK(rd_next(s, &ev) == 1 && ev.offset == 8, "rewind");
	rd_close(&t);
	free(d);
}

/* A stream made of a valid prefix and then `tail`; the first error must be
 * at `off` with `what` in the message, after `good` events. */
static void damage(const char *name, const void *tail, size_t ntail, int header, size_t off, const char *what,
		   int good)
{
	char *d = strdup(newdir(name));
	struct obs o;
	o.n = 0;
	if (header) {
		obs_header(&o);
		obs_ev(&o, "OHx", 1, 16, 0);
		obs_ev(&o, "OHe", 2, 0, 0);
	}
	memcpy(o.b + o.n, tail, ntail);
	o.n += ntail;
	put_stream(d, "s", meta(1, "n"), &o);
	struct rd_trace t;
	char err[512];
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0, "%s: open: %s", name, err);
	struct rd_stream *s = &t.streams[0];
	struct rd_event ev;
	int count = 0, r;
	while ((r = rd_next(s, &ev)) == 1)
		count++;
	CHECK(r == -1 && s->bad && s->bad_offset == off && strstr(s->error, what) && count == good,
	      "%s: r %d bad %d at %zu (want %zu), %d events (want %d): %s", name, r, s->bad, s->bad_offset, off,
	      count, good, s->error);
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "offset %zu: ", off);
	CHECK(!strncmp(s->error, prefix, strlen(prefix)), "%s: error '%s' does not start with '%s'", name, s->error,
	      prefix);
	CHECK(rd_next(s, &ev) == -1, "%s: stays bad", name);
	rd_close(&t);
	free(d);
}

static void damages(void)
{
	damage("empty", "", 0, 0, 0, "stream is empty", 0);
	damage("magic", "ovnX\1\0\0\0", 8, 0, 0, "wrong stream magic 'ovnX' (expected 'ovni')", 0);
	damage("short magic", "ov", 2, 0, 0, "wrong stream magic 'ov'", 0);
	damage("short header", "ovni\1\0", 6, 0, 4, "stream header cut short", 0);
	damage("version", "ovni\2\0\0\0", 8, 0, 4, "stream version mismatch 2 (expected 1)", 0);
	/* after a header, OHx (28 bytes) and OHe (12): the tail starts at 48 */
	damage("torn header", "\0OHe\1\2\3\4\5", 9, 1, 48, "stream ends with incomplete event (9 bytes left)", 2);
	damage("torn payload", "\x0fOHx\1\0\0\0\0\0\0\0\1\2\3\4", 16, 1, 48, "incomplete event (16 bytes left)", 2);
	damage("torn jumbo size", "\x13POc\1\0\0\0\0\0\0\0\5\0", 14, 1, 48, "incomplete event", 2);
	damage("jumbo past the end", "\x13POc\1\0\0\0\0\0\0\0\xff\xff\xff\xff\1\0\0\0", 20, 1, 48, "incomplete event", 2);
	damage("reserved bits", "\x40OB.\3\0\0\0\0\0\0\0", 12, 1, 48, "reserved flag bits set (flags 0x40)", 2);
	damage("jumbo flags", "\x12POc\3\0\0\0\0\0\0\0\0\0\0\0", 16, 1, 48, "jumbo event with flags 0x12 (expected 0x13)", 2);
	damage("zeros", "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 24, 1, 48, "not an event (MCV bytes 00 00 00)", 2);

	/* stream.obs missing */
	char *d = strdup(newdir("noobs"));
	put_stream(d, "s", meta(1, "n"), NULL);
	struct rd_trace t;
	char err[512];
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0, "open: %s", err);
	struct rd_event ev;
	CHECK(rd_next(&t.streams[0], &ev) == -1 && strstr(t.streams[0].error, "cannot read stream.obs") &&
		      t.streams[0].map_error == ENOENT,
	      "no stream.obs: %s", t.streams[0].error);
	rd_close(&t);
	free(d);
}

/* Three streams; the merged walk must hand out (stream, clock) in order. */
static void merged(void)
{
	char *d = strdup(newdir("merge"));
	struct obs o;
	const uint64_t a[] = { 5, 10, 10, 30, 40 }, b[] = { 10, 20, 30, 30 }, c[] = { 1, 10, 50 };
	obs_header(&o);
	for (int i = 0; i < 5; i++)
		obs_ev(&o, "OB.", a[i], 2, (uint8_t)i);
	put_stream(d, "s0", meta(1, "n"), &o);
	obs_header(&o);
	for (int i = 0; i < 4; i++)
		obs_ev(&o, "OB.", b[i], 2, (uint8_t)i);
	put_stream(d, "s1", meta(2, "n"), &o);
	obs_header(&o);
	for (int i = 0; i < 3; i++)
		obs_ev(&o, "OB.", c[i], 2, (uint8_t)i);
	put_stream(d, "s2", meta(3, "n"), &o);
	/* time order; equal clocks by stream path, and in file order inside a stream */
	const int want_s[] = { 2, 0, 0, 0, 1, 2, 1, 0, 1, 1, 0, 2 };
	const uint64_t want_c[] = { 1, 5, 10, 10, 10, 10, 20, 30, 30, 30, 40, 50 };
	const int want_i[] = { 0, 0, 1, 2, 0, 1, 1, 3, 2, 3, 4, 2 };
	struct rd_trace t;
	char err[512];
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0, "open: %s", err);
	for (int round = 0; round < 2; round++) { /* a second walk starts over */
		struct rd_merge *m = rd_merge_new(&t);
		struct rd_stream *s;
		struct rd_event ev;
		int k = 0;
		while (rd_merge_next(m, &s, &ev)) {
			CHECK(k < 12 && s->index == want_s[k] && ev.clock == want_c[k] && ev.payload[0] == want_i[k],
			      "merged %d: stream %d clock %llu #%d, want stream %d clock %llu #%d", k, s->index,
			      (unsigned long long)ev.clock, ev.payload[0], want_s[k], (unsigned long long)want_c[k],
			      want_i[k]);
			k++;
		}
		CHECK(k == 12, "merged %d events", k);
		CHECK(rd_merge_next(m, &s, &ev) == 0, "stays at the end");
		rd_merge_free(m);
	}
	rd_close(&t);

	/* A damaged stream stops early; the others go on. */
	obs_header(&o);
	obs_ev(&o, "OB.", 3, 2, 0);
	obs_ev(&o, "OB.", 12, 2, 1);
	o.b[o.n++] = 0x0f; /* torn */
	put_stream(d, "s1", meta(2, "n"), &o);
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0, "open: %s", err);
	struct rd_merge *m = rd_merge_new(&t);
	struct rd_stream *s;
	struct rd_event ev;
	int k = 0, from1 = 0;
	while (rd_merge_next(m, &s, &ev)) {
		k++;
		from1 += s->index == 1;
	}
	CHECK(k == 10 && from1 == 2 && t.streams[1].bad && t.streams[1].bad_offset == 36, "damaged merge: %d events, %d from s1, %s",
	      k, from1, t.streams[1].error);
	rd_merge_free(m);
	rd_close(&t);
	free(d);
}

static void offsets(void)
{
	char *d = strdup(newdir("offs"));
	struct obs o;
	obs_header(&o);
	obs_ev(&o, "OB.", 1000, 0, 0);
	obs_ev(&o, "OB.", 3000, 0, 0);
	put_stream(d, "l0", meta(1, "node0.x"), &o);
	obs_header(&o);
	obs_ev(&o, "OB.", 7200000002000ull, 0, 0);
	put_stream(d, "l1", meta(2, "node1"), &o);
	put_stream(d, "l2", meta(3, "node10"), &o); /* not node1 */
	char path[4300];
	snprintf(path, sizeof(path), "%s/clock-offsets.txt", d);
	const char *text = "rank hostname offset_median offset_mean offset_std\n\n0 node0 0 0 0\n"
			   "1 node1 -7200000000000 1.5 2\n2 node10 -7200000001500.4 0 0\n";
	write_file(path, text, strlen(text));
	struct rd_trace t;
	char err[512];
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0, "open: %s", err);
	CHECK(t.offsets_loaded && t.noffsets == 3 && !t.offsets_error[0], "loaded %d %d '%s'", t.offsets_loaded,
	      t.noffsets, t.offsets_error);
	CHECK(t.streams[0].offset == 0 && t.streams[1].offset == -7200000000000ll &&
		      t.streams[2].offset == -7200000001500ll,
	      "offsets %lld %lld %lld", (long long)t.streams[0].offset, (long long)t.streams[1].offset,
	      (long long)t.streams[2].offset);
	struct rd_merge *m = rd_merge_new(&t);
	struct rd_stream *s;
	struct rd_event ev;
	const int want_s[] = { 2, 0, 1, 0 };
	const int64_t want_t[] = { 500, 1000, 2000, 3000 };
	int k = 0;
	while (rd_merge_next(m, &s, &ev)) {
		CHECK(k < 4 && s->index == want_s[k] && ev.time == want_t[k] && ev.time == rd_add((int64_t)ev.clock, s->offset),
		      "offset walk %d: stream %d time %lld", k, s->index, (long long)ev.time);
		k++;
	}
	CHECK(k == 4, "offset walk: %d events", k);
	rd_merge_free(m);

	/* Errors of the file: a hostname that matches no loom (node0.x is
	 * loom node0.x's full name, not its hostname), no entries, bad lines. */
	text = "h\n0 node0.x 5 0 0\n";
	write_file(path, text, strlen(text));
	CHECK(rd_load_offsets(&t, path) == -1 && strstr(t.offsets_error, "cannot find loom with hostname 'node0.x'") &&
		      t.streams[0].offset == 0,
	      "unknown host: %s", t.offsets_error);
	text = "h\n\n";
	write_file(path, text, strlen(text));
	CHECK(rd_load_offsets(&t, path) == -1 && strstr(t.offsets_error, "no entries"), "no entries: %s", t.offsets_error);
	text = "h\n0 node0 x y z\n";
	write_file(path, text, strlen(text));
	CHECK(rd_load_offsets(&t, path) == -1 && strstr(t.offsets_error, "line 2: expected 'index hostname median"),
	      "bad line: %s", t.offsets_error);
	CHECK(rd_load_offsets(&t, "/nonexistent/offsets") == -1 && strstr(t.offsets_error, "cannot open"),
	      "missing file: %s", t.offsets_error);
	rd_close(&t);
	free(d);
}

static void v1_trace(void)
{
	char *d = strdup(newdir("v1"));
	char dir[4300], path[4400];
	snprintf(dir, sizeof(dir), "%s/loom.n1/proc.10", d);
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/metadata.json", dir);
	const char *pm = "{\"app_id\":2,\"cpus\":[{\"index\":0,\"phyid\":0}]}";
	write_file(path, pm, strlen(pm));
	struct obs o;
	o.n = 0;
	obs_ev(&o, "OHx", 5, 16, 0);
	obs_ev(&o, "OHe", 6, 0, 0);
	snprintf(path, sizeof(path), "%s/thread.11", dir);
	write_file(path, o.b, o.n);
	struct rd_trace t;
	char err[512];
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0 && t.v1 && t.n == 1, "v1 open: %s", err);
	if (t.n == 1) {
		struct rd_stream *s = &t.streams[0];
		struct rd_event ev;
		CHECK(s->tid == 11 && s->pid == 10 && s->app_id == 2 && s->loom && !strcmp(s->loom, "n1") &&
			      s->loom_cpus && s->finished == 1 && s->header == 0,
		      "v1 meta: tid %lld pid %lld", s->tid, s->pid);
		CHECK(rd_next(s, &ev) == 1 && ev.offset == 0 && !strcmp(ev.mcv, "OHx") && rd_next(s, &ev) == 1 &&
			      rd_next(s, &ev) == 0,
		      "v1 events");
	}
	rd_close(&t);
	free(d);
}

/* Random bytes after a valid header: the reader stops cleanly, and every
 * event it hands out lies inside the file. */
static void garbage(void)
{
	char *d = strdup(newdir("garbage"));
	srand(12345);
	int bad = 0, runs = 300;
	for (int run = 0; run < runs; run++) {
		struct obs o;
		obs_header(&o);
		size_t n = (size_t)(rand() % 400);
		for (size_t i = 0; i < n; i++)
			o.b[o.n++] = (uint8_t)rand();
		if (run % 3 == 0) /* mostly plausible flags */
			for (size_t i = 8; i < o.n; i += 12)
				o.b[i] &= 0x1f;
		put_stream(d, "s", meta(1, "n"), &o);
		struct rd_trace t;
		char err[512];
		if (rd_open(&t, d, err, sizeof(err)) != 0) {
			bad++;
			continue;
		}
		struct rd_stream *s = &t.streams[0];
		struct rd_event ev;
		int r, guard = 0;
		size_t last = 0;
		while ((r = rd_next(s, &ev)) == 1 && guard++ < 1000) {
			size_t end = (size_t)(ev.payload - s->data) + ev.size;
			if (end > s->size || ev.offset < last || ev.offset < 8)
				bad++;
			last = ev.offset + 1;
		}
		if (r == 1 || (r == -1 && (!s->bad || s->bad_offset > s->size)))
			bad++;
		rd_close(&t);
	}
	CHECK(bad == 0, "%d of %d random streams misread", bad, runs);
	free(d);
}

/* A stream longer than the drop window gives its pages back as it goes. */
static void long_stream(void)
{
	char *d = strdup(newdir("long"));
	char dir[4300], path[4400];
	snprintf(dir, sizeof(dir), "%s/s", d);
	put_stream(d, "s", meta(1, "n"), NULL);
	snprintf(path, sizeof(path), "%s/stream.obs", dir);
	FILE *f = fopen(path, "w");
	fwrite("ovni\1\0\0\0", 1, 8, f);
	static uint8_t chunk[12 * 4096];
	const long nev = 7 * 1024 * 1024; /* 84 MiB */
	for (long i = 0; i < nev; i += 4096) {
		for (int k = 0; k < 4096; k++) {
			uint64_t clock = (uint64_t)(i + k);
			chunk[12 * k] = 0;
			memcpy(chunk + 12 * k + 1, "OB.", 3);
			memcpy(chunk + 12 * k + 4, &clock, 8);
		}
		fwrite(chunk, 1, sizeof(chunk), f);
	}
	fclose(f);
	struct rd_trace t;
	char err[512];
	CHECK(rd_open(&t, d, err, sizeof(err)) == 0, "open: %s", err);
	struct rd_stream *s = &t.streams[0];
	struct rd_event ev;
	long count = 0, disorder = 0;
	while (rd_next(s, &ev) == 1) {
		disorder += ev.clock != (uint64_t)count;
		count++;
	}
	CHECK(count == nev && !disorder && !s->bad, "long stream: %ld events, %ld out of place", count, disorder);
	CHECK(s->dropped > (32u << 20), "pages behind given back: %zu bytes", s->dropped);
	rd_close(&t);
	unlink(path);
	free(d);
}

int main(void)
{
	top = test_tmpdir("reader");
	CHECK(top != NULL, "tmpdir");
	if (!top)
		TEST_DONE();
	discovery_and_metadata();
	framing();
	damages();
	merged();
	offsets();
	v1_trace();
	garbage();
	long_stream();
	if (!test_failures)
		test_rmrf(top);
	else
		fprintf(stderr, "traces kept in %s\n", top);
	free(top);
	TEST_DONE();
}
