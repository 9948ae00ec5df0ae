/* test_finish.c: oa_finish_process, what a parent does for a child that is
 * gone with its streams open: the zeroed window after the last event cut,
 * the open states closed innermost first, OHe, the "how it ended" event on
 * the main thread only, "finished": 1 and the label added to stream.json
 * whatever shape its marks have (no mark at all, no type 80, a type 80
 * without labels, empty labels, labels); a stream with no event set
 * aside; a finished process left alone; a directory a repair holds
 * (flock) left to it. */
#include <jansson.h>
#include <sys/file.h>

#include "../../writer/finish.h"
#include "test.h"

static char dir[512];

static void new_dir(void)
{
	char *d = test_tmpdir("finish");
	snprintf(dir, sizeof(dir), "%s", d ? d : "/nonexistent");
	free(d);
}

static void put(int fd, off_t *off, const char *mcv, uint64_t clock, const void *p, unsigned n)
{
	uint8_t ev[32];
	ev[0] = ovni_flags_for_payload(n);
	memcpy(ev + 1, mcv, 3);
	memcpy(ev + 4, &clock, 8);
	if (n)
		memcpy(ev + 12, p, n);
	CHECK(pwrite(fd, ev, 12 + n, *off) == (ssize_t)(12 + n), "write event");
	*off += 12 + n;
}

static void mark(int fd, off_t *off, const char *mcv, uint64_t clock, int64_t value, int32_t type)
{
	uint8_t p[12];
	memcpy(p, &value, 8);
	memcpy(p + 8, &type, 4);
	put(fd, off, mcv, clock, p, 12);
}

/* thread.TID of process 100: stream.json `json`; stream.obs with OHx, an
 * open mark of type 81, then a zeroed window (as a killed writer leaves). */
static void make_stream(int tid, const char *json, int events)
{
	char path[700];
	snprintf(path, sizeof(path), "%s/thread.%d", dir, tid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/thread.%d/stream.json", dir, tid);
	FILE *f = fopen(path, "w");
	fputs(json, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/thread.%d/stream.obs", dir, tid);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	uint8_t hdr[8] = { 'o', 'v', 'n', 'i', 1, 0, 0, 0 };
	CHECK(pwrite(fd, hdr, 8, 0) == 8, "header");
	off_t off = 8;
	if (events) {
		put(fd, &off, "OHx", 1000, NULL, 0);
		mark(fd, &off, "OM[", 1500, 5, 81);
	}
	CHECK(ftruncate(fd, off + 4096) == 0, "window");
	close(fd);
}

static json_t *load(int tid)
{
	char path[700];
	snprintf(path, sizeof(path), "%s/thread.%d/stream.json", dir, tid);
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);
	CHECK(j != NULL, "thread %d: stream.json not JSON: %s (line %d)", tid, e.text, e.line);
	return j;
}

/* The events of thread tid's stream.obs, as "MCV MCV ..." */
static void events(int tid, char *out, size_t size)
{
	char path[700];
	snprintf(path, sizeof(path), "%s/thread.%d/stream.obs", dir, tid);
	size_t len;
	uint8_t *buf = test_read_file(path, &len);
	out[0] = '\0';
	for (size_t off = 8; buf && off + 12 <= len;) {
		unsigned n = ovni_flags_payload_size(buf[off]);
		size_t l = strlen(out);
		snprintf(out + l, size - l, "%s%.3s", l ? " " : "", (char *)buf + off + 1);
		off += 12 + n;
	}
	free(buf);
}

static int64_t value(long pid)
{
	(void)pid;
	return 4242;
}

#define HEAD "{\n \"version\": 3,\n \"ovni\": {\n  \"part\": \"thread\",\n  \"tid\": %d,\n  \"pid\": 100,\n  \"loom\": \"L\""

/* What the writer's end leaves when killed before it cut stream.obs: its
 * final text, with "finished": 0 (stream.c). */
#define HEAD_PENDING                                                                            \
	"{\n \"version\": 3,\n \"ovni\": {\n  \"part\": \"thread\",\n  \"finished\": 0,\n  \"tid\": " \
	"%d,\n  \"pid\": 100,\n  \"loom\": \"L\""

static void one_shape_as(const char *name, const char *marks, int pending)
{
	char json[2048];
	new_dir();
	snprintf(json, sizeof(json), pending ? HEAD_PENDING "%s\n }\n}\n" : HEAD "%s\n }\n}\n", 100, marks);
	make_stream(100, json, 1);
	snprintf(json, sizeof(json), pending ? HEAD_PENDING "%s\n }\n}\n" : HEAD "%s\n }\n}\n", 101, marks);
	make_stream(101, json, 1);
	make_stream(102, "", 0); /* killed as it created its stream */
	int r = oa_finish_process(dir, 100, "killed by signal SIGKILL; streams finished by its parent", value);
	CHECK(r == 3, "%s: finished %d streams, expected 3", name, r);
	char ev[256];
	events(100, ev, sizeof(ev));
	CHECK(!strcmp(ev, "OHx OM[ OM= OM] OHe"), "%s: main thread events: %s", name, ev);
	events(101, ev, sizeof(ev));
	CHECK(!strcmp(ev, "OHx OM[ OM] OHe"), "%s: other thread events: %s", name, ev);
	json_t *j = load(100);
	CHECK(json_integer_value(json_object_get(json_object_get(j, "ovni"), "finished")) == 1, "%s: finished", name);
	json_t *labels = json_object_get(json_object_get(json_object_get(json_object_get(j, "ovni"), "mark"), "80"),
					 "labels");
	const char *text = json_string_value(json_object_get(labels, "4242"));
	CHECK(text && !strcmp(text, "killed by signal SIGKILL; streams finished by its parent"), "%s: label %s", name,
	      text ? text : "(none)");
	CHECK(json_object_size(labels) >= 1, "%s: labels", name);
	json_decref(j);
	j = load(101);
	CHECK(json_integer_value(json_object_get(json_object_get(j, "ovni"), "finished")) == 1, "%s: 101 finished",
	      name);
	json_decref(j);
	char path[700];
	snprintf(path, sizeof(path), "%s/thread.102/stream.json.empty", dir);
	CHECK(access(path, F_OK) == 0, "%s: empty stream set aside", name);
	/* Done: a second reap finds nothing to do. */
	CHECK(oa_finish_process(dir, 100, "again", value) == 0, "%s: second time", name);
	events(100, ev, sizeof(ev));
	CHECK(!strcmp(ev, "OHx OM[ OM= OM] OHe"), "%s: unchanged: %s", name, ev);
	test_rmrf(dir);
}

static void one_shape(const char *name, const char *marks)
{
	one_shape_as(name, marks, 0);
	/* "finished": 0 becomes 1, with no second "finished" key (the
	 * reader keeps the last of two, the emulator's refuses them). */
	char pname[128];
	snprintf(pname, sizeof(pname), "%s, end cut short", name);
	one_shape_as(pname, marks, 1);
	new_dir();
	char json[2048];
	snprintf(json, sizeof(json), HEAD_PENDING "%s\n }\n}\n", 100, marks);
	make_stream(100, json, 1);
	CHECK(oa_finish_process(dir, 100, "x", value) == 1, "%s: finished", pname);
	char path[700];
	snprintf(path, sizeof(path), "%s/thread.100/stream.json", dir);
	size_t len;
	char *raw = (char *)test_read_file(path, &len), *text = raw ? strndup(raw, len) : NULL;
	free(raw);
	const char *f = text ? strstr(text, "\"finished\"") : NULL;
	CHECK(f && !strncmp(f, "\"finished\": 1,", 14) && !strstr(f + 1, "\"finished\""),
	      "%s: one \"finished\": 1: %s", pname, text ? text : "(none)");
	free(text);
	test_rmrf(dir);
}

int main(void)
{
	one_shape("no marks", "");
	one_shape("no type 80", ",\n  \"mark\": {\n   \"81\": {\"title\": \"B\", \"chan_type\": \"stack\", \"labels\": {}}\n  }");
	one_shape("80 without labels", ",\n  \"mark\": {\"80\": {\"title\": \"P\", \"chan_type\": \"single\"}}");
	one_shape("80 with empty labels",
		  ",\n  \"mark\": {\n   \"80\": {\"title\": \"P\", \"chan_type\": \"single\", \"labels\": {}}}");
	one_shape("80 with labels", ",\n  \"mark\": {\n   \"81\": {\"title\": \"B\", \"chan_type\": \"stack\", "
				    "\"labels\": {\"80\": \"x{\"}},\n   \"80\": {\"title\": \"P\", \"chan_type\": "
				    "\"single\", \"labels\": {\n     \"101\": \"signal SIGHUP\"}}}");

	/* A directory a repair holds is left to it. */
	new_dir();
	char json[1024];
	snprintf(json, sizeof(json), HEAD "\n }\n}\n", 100);
	make_stream(100, json, 1);
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(flock(fd, LOCK_EX) == 0, "lock");
	CHECK(oa_finish_process(dir, 100, "x", value) == -EBUSY, "busy");
	close(fd);
	CHECK(oa_finish_process(dir, 100, "x", value) == 1, "after the lock");
	test_rmrf(dir);

	/* A thread whose stream.json was written before its process enabled
	 * OpenMP (its require names only ovni) but whose events are OpenMP's:
	 * the finished stream requires the model, or the emulator refuses
	 * the events. */
	new_dir();
	snprintf(json, sizeof(json), HEAD ",\n  \"require\": {\"ovni\": \"1.1.0\"}\n }\n}\n", 100);
	make_stream(100, json, 0);
	{
		char path[700];
		snprintf(path, sizeof(path), "%s/thread.100/stream.obs", dir);
		int ofd = open(path, O_RDWR);
		off_t off = 8;
		uint32_t id = 1;
		put(ofd, &off, "OHx", 1000, NULL, 0);
		put(ofd, &off, "PPx", 1100, &id, 4);
		close(ofd);
	}
	CHECK(oa_finish_process(dir, 100, "x", value) == 1, "openmp: finished");
	json_t *j = load(100);
	json_t *req = json_object_get(json_object_get(j, "ovni"), "require");
	CHECK(json_is_string(json_object_get(req, "openmp")) && json_is_string(json_object_get(req, "ovni")),
	      "openmp now required, ovni still");
	CHECK(!json_object_get(req, "mpi"), "no mpi: no MPI event");
	json_decref(j);
	/* A process of another loom or untraced: no directory, nothing done. */
	CHECK(oa_finish_process("/nonexistent/proc.1", 1, "x", value) == 0, "no directory");
	test_rmrf(dir);
	TEST_DONE();
}
