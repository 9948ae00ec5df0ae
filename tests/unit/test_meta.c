/* test_meta.c: stream.json as the emulator reads it: every required key,
 * types, finished, rank only when known, marks and their labels (the first
 * label of a value stays; a label goes to its owner's stream and global
 * ones to every stream; invalid UTF-8 and control characters survive as
 * valid JSON), labels published from a prepared node, concurrent labelling;
 * the text without the loom's CPUs, and with them apart. */
#include <jansson.h>
#include <pthread.h>
#include <sys/mman.h>

#include "../../writer/meta.h"
#include "test.h"

static json_t *get(json_t *root, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	json_t *cur = root;
	for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, "."))
		cur = json_object_get(cur, tok);
	return cur;
}

/* oa_meta_write into a memory file, returned as text. */
static char *render(struct oa_meta *m, int tid, int finished, struct oa_label_list *own)
{
	int fd = memfd_create("meta", 0);
	CHECK(oa_meta_write(m, fd, tid, finished, own) == 0, "write");
	off_t len = lseek(fd, 0, SEEK_END);
	char *text = calloc(1, (size_t)len + 1);
	CHECK(pread(fd, text, (size_t)len, 0) == len, "read back");
	close(fd);
	return text;
}

static struct oa_meta cm;
static struct oa_label_list lists[4];

static void *labeller(void *arg)
{
	long id = (long)arg;
	char text[32];
	for (int v = 1; v <= 5000; v++) {
		snprintf(text, sizeof(text), "v%d", v);
		oa_meta_mark_label(&cm, &lists[id], 10, v, text);
	}
	return NULL;
}

/* Four threads label the same 5000 values: each value is written once in
 * all, with its label. */
static void test_concurrent(void)
{
	CHECK(oa_meta_init(&cm) == 0, "init");
	oa_meta_mark_type(&cm, 10, 0, "T");
	pthread_t th[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, labeller, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	static int seen[5001];
	int dup = 0, total = 0;
	for (int i = 0; i < 4; i++)
		for (struct oa_label *l = atomic_load(&lists[i].head); l; l = l->onext) {
			total++;
			if (l->value < 1 || l->value > 5000 || seen[l->value]++)
				dup++;
		}
	CHECK(total == 5000 && dup == 0, "5000 labels, each once (%d, %d duplicates)", total, dup);
	oa_meta_fini(&cm);
}

/* Fixed labels (signal names, kinds of wait: a table, nothing hashed)
 * come first and refuse a second label; a stream.json read back, the way an
 * exec'd image continues its stream, gives the same types and labels: our
 * own text, and jansson's (repair), with every escape. */
static int ntypes, nlabels;
static char seen[512];

static void on_type(void *arg, int type, int stack, const char *title)
{
	(void)arg;
	ntypes++;
	if (type == 80)
		CHECK(!stack && !strcmp(title, "Process events"), "type 80: %d %s", stack, title);
}

static void on_label(void *arg, int type, int64_t value, const char *text)
{
	(void)arg;
	nlabels++;
	if (type == 80 && value == 7)
		snprintf(seen, sizeof(seen), "%s", text);
}

static void test_fixed_and_import(void)
{
	static struct oa_meta m = { .pid = 5, .app_id = 1, .rank = -1, .nranks = -1, .loom = "L" };
	static const char *const sigs[] = { "signal SIGHUP", NULL, "signal SIGQUIT" };
	struct oa_label_list mine = { 0 };
	oa_meta_mark_type(&m, 80, 0, "Process events");
	CHECK(oa_meta_fixed_labels(&m, 80, 101, sigs, 3) == 0, "fixed labels");
	CHECK(oa_meta_mark_label(&m, NULL, 80, 101, "again") == 1, "a fixed value is labelled");
	CHECK(oa_meta_mark_label(&m, NULL, 80, 102, "none in the table") == 0, "a hole of the table is free");
	CHECK(oa_meta_mark_label(&m, &mine, 80, 7, "q\"uote \\ tab\t \x01 \xc3\xa9 \xf0\x9f\x98\x80") == 0, "label");
	char *text = render(&m, 5, 1, &mine);
	json_error_t e;
	json_t *root = json_loads(text, 0, &e);
	CHECK(root != NULL, "parses: %s", e.text);
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.80.labels.101")), "signal SIGHUP"), "fixed written");
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.80.labels.102")), "none in the table"), "hole");
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.80.labels.103")), "signal SIGQUIT"), "fixed 103");
	CHECK(json_object_size(get(root, "ovni.mark.80.labels")) == 4, "4 labels, none twice");
	/* Read back: ours, then the same through jansson (escapes \uXXXX). */
	for (int pass = 0; pass < 2; pass++) {
		char *src = pass ? json_dumps(root, JSON_ENSURE_ASCII | JSON_SORT_KEYS) : strdup(text);
		int fd = memfd_create("m", 0);
		CHECK(write(fd, src, strlen(src)) == (ssize_t)strlen(src), "write");
		lseek(fd, 0, SEEK_SET);
		ntypes = nlabels = 0;
		seen[0] = '\0';
		CHECK(oa_meta_scan_fd(fd, on_type, on_label, NULL) == 0, "scan %d", pass);
		CHECK(ntypes == 1 && nlabels == 4, "pass %d: %d types, %d labels", pass, ntypes, nlabels);
		CHECK(!strcmp(seen, "q\"uote \\ tab\t \x01 \xc3\xa9 \xf0\x9f\x98\x80"), "pass %d: label read back: %s", pass, seen);
		/* Imported into a fresh table: rendered the same. */
		static struct oa_meta m2;
		memset(&m2, 0, sizeof(m2));
		m2 = (struct oa_meta){ .pid = 5, .app_id = 1, .rank = -1, .nranks = -1, .loom = "L" };
		struct oa_label_list own2 = { 0 };
		lseek(fd, 0, SEEK_SET);
		CHECK(oa_meta_import_marks(&m2, &own2, fd) == 0, "import");
		char *again = render(&m2, 5, 1, &own2);
		json_t *r2 = json_loads(again, 0, &e);
		CHECK(r2 && json_equal(get(r2, "ovni.mark"), get(root, "ovni.mark")), "pass %d: same marks", pass);
		json_decref(r2);
		free(again);
		oa_meta_fini(&m2);
		close(fd);
		free(src);
	}
	int fd = memfd_create("bad", 0);
	CHECK(write(fd, "{\"ovni\": [1, 2", 14) == 14, "write");
	lseek(fd, 0, SEEK_SET);
	CHECK(oa_meta_scan_fd(fd, on_type, on_label, NULL) == -1, "not a stream.json");
	close(fd);
	json_decref(root);
	free(text);
	oa_meta_fini(&m);
}

int main(void)
{
	struct oa_meta m = { .pid = 42, .app_id = 3, .rank = -1, .nranks = -1 };
	int phy[3] = { 0, 2, 5 };
	CHECK(oa_meta_init(&m) == 0, "init");
	strcpy(m.loom, "node7.example");
	m.ncpus = 3;
	m.phyids = phy;
	m.lib_version = "ovni-auto 9.9";
	m.lib_commit = "abc";
	struct oa_label_list mine = { 0 }, other = { 0 };
	oa_meta_mark_type(&m, 80, 0, "Process events");
	oa_meta_mark_type(&m, 81, 1, "Waits");
	CHECK(oa_meta_mark_label(&m, NULL, 81, 2, "mutex") == 0, "global label");
	CHECK(oa_meta_mark_label(&m, &mine, 81, 2, "other") == 1, "the first label stays");
	CHECK(oa_meta_mark_label(&m, NULL, 99, 1, "x") != 0, "label of an undeclared type fails");
	CHECK(oa_meta_mark_label(&m, NULL, 81, 0, "x") != 0, "value 0 fails");
	CHECK(oa_meta_mark_label(&m, &mine, 80, 7, "ours \"q\" \\ \x01 \xff\xfe end") == 0, "own label");
	CHECK(oa_meta_mark_label(&m, &other, 80, 8, "theirs") == 0, "other's label");
	struct oa_label *pre = oa_meta_label_alloc();
	CHECK(oa_meta_label_publish(&m, &mine, pre, 80, 9, "exit status 3") == 0, "prepared label");

	char *text = render(&m, 43, 0, &mine);
	json_error_t e;
	json_t *root = json_loads(text, 0, &e);
	CHECK(root != NULL, "parses: %s", e.text);
	CHECK(json_integer_value(get(root, "version")) == 3, "version");
	CHECK(!strcmp(json_string_value(get(root, "ovni.part")), "thread"), "part");
	CHECK(json_integer_value(get(root, "ovni.tid")) == 43, "tid");
	CHECK(json_integer_value(get(root, "ovni.pid")) == 42, "pid");
	CHECK(!strcmp(json_string_value(get(root, "ovni.loom")), "node7.example"), "loom");
	CHECK(json_integer_value(get(root, "ovni.app_id")) == 3, "app_id");
	CHECK(!strcmp(json_string_value(get(root, "ovni.require.ovni")), "1.1.0"), "require ovni");
	CHECK(get(root, "ovni.require.openmp") == NULL, "no openmp yet");
	CHECK(!strcmp(json_string_value(get(root, "ovni.lib.version")), "ovni-auto 9.9"), "lib.version");
	CHECK(!strcmp(json_string_value(get(root, "ovni.lib.commit")), "abc"), "lib.commit");
	CHECK(get(root, "ovni.finished") == NULL, "not finished while open");
	CHECK(get(root, "ovni.rank") == NULL && get(root, "ovni.nranks") == NULL, "no rank");
	json_t *cpus = get(root, "ovni.loom_cpus");
	CHECK(json_array_size(cpus) == 3, "3 cpus");
	for (size_t i = 0; i < json_array_size(cpus); i++) {
		json_t *c = json_array_get(cpus, i);
		CHECK(json_integer_value(json_object_get(c, "index")) == (json_int_t)i, "index %zu", i);
		CHECK(json_integer_value(json_object_get(c, "phyid")) == phy[i], "phyid %zu", i);
	}
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.80.chan_type")), "single"), "mark 80 single");
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.81.chan_type")), "stack"), "mark 81 stack");
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.81.title")), "Waits"), "mark title");
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.81.labels.2")), "mutex"), "first label kept");
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.80.labels.7")), "ours \"q\" \\ \x01 ?? end"),
	      "escaped, invalid UTF-8 replaced: %s", json_string_value(get(root, "ovni.mark.80.labels.7")));
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.80.labels.9")), "exit status 3"), "prepared label");
	CHECK(get(root, "ovni.mark.80.labels.8") == NULL, "another stream's label is not here");
	json_decref(root);
	free(text);

	m.rank = 1;
	m.nranks = 4;
	atomic_fetch_or(&m.require, OA_REQUIRE_OPENMP);
	text = render(&m, 43, 1, &other);
	root = json_loads(text, 0, &e);
	CHECK(json_integer_value(get(root, "ovni.finished")) == 1, "finished is the number 1");
	CHECK(text[OA_META_FINISHED_AT] == '1', "the digit at OA_META_FINISHED_AT");
	free(text);
	/* Pending (ended, stream.obs not cut yet): 0, where the writer then
	 * puts the 1. */
	text = render(&m, 43, OA_META_PENDING, &other);
	json_decref(root);
	root = json_loads(text, 0, &e);
	CHECK(json_is_integer(get(root, "ovni.finished")) && json_integer_value(get(root, "ovni.finished")) == 0,
	      "pending: finished is 0");
	CHECK(text[OA_META_FINISHED_AT] == '0', "pending: the digit at OA_META_FINISHED_AT");
	CHECK(json_integer_value(get(root, "ovni.rank")) == 1 && json_integer_value(get(root, "ovni.nranks")) == 4,
	      "rank");
	CHECK(!strcmp(json_string_value(get(root, "ovni.require.openmp")), "1.2.1"), "openmp required");
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.80.labels.8")), "theirs"), "own label");
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.81.labels.2")), "mutex"), "global label everywhere");
	CHECK(get(root, "ovni.mark.80.labels.7") == NULL, "not the other's");
	json_decref(root);
	free(text);

	/* Without the loom's CPUs (a process's other threads), and apart (a
	 * slot of the run's spool): the text with oa_meta_render_cpus's put
	 * back at the offset is the whole text, byte for byte, for every
	 * `finished`. */
	for (int fin = 0; fin <= OA_META_PENDING; fin++) {
		char full[8192], apart[8192], ctext[512], joined[8192];
		ssize_t nf = oa_meta_render(&m, full, sizeof(full), 43, fin, &other);
		uint32_t at = 0;
		ssize_t na = oa_meta_render_apart(&m, apart, sizeof(apart), 43, fin, &other, &at);
		ssize_t nc = oa_meta_render_cpus(&m, ctext, sizeof(ctext));
		CHECK(nf > 0 && na > 0 && nc > 0 && na + nc == nf, "apart %d: %zd + %zd = %zd", fin, na, nc, nf);
		CHECK(at > OA_META_FINISHED_AT && at < (uint32_t)na, "apart %d: offset %u", fin, at);
		memcpy(joined, apart, at);
		memcpy(joined + at, ctext, (size_t)nc);
		memcpy(joined + at + nc, apart + at, (size_t)(na - at));
		CHECK(!memcmp(joined, full, (size_t)nf), "apart %d: joined is the whole text", fin);
		ssize_t nn = oa_meta_render(&m, apart, sizeof(apart), 43, fin | OA_META_NO_CPUS, &other);
		CHECK(nn == na, "no cpus %d: the text apart, %zd", fin, nn);
		apart[nn] = 0;
		root = json_loads(apart, 0, &e);
		CHECK(root && get(root, "ovni.loom_cpus") == NULL, "no cpus %d: parses, no loom_cpus", fin);
		CHECK(fin != 1 || json_integer_value(get(root, "ovni.finished")) == 1, "no cpus: finished");
		json_decref(root);
	}
	uint64_t h = oa_meta_cpus_hash(&m);
	phy[2] = 6;
	CHECK(oa_meta_cpus_hash(&m) != h, "the hash follows the list");
	phy[2] = 5;
	CHECK(oa_meta_cpus_hash(&m) == h, "the hash of the same list");
	oa_meta_fini(&m);
	test_concurrent();
	test_fixed_and_import();
	TEST_DONE();
}
