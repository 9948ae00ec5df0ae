/* test_meta.c: stream.json as the emulator reads it: every required key,
 * types, finished, rank only when known, marks and their labels (the first
 * label of a value stays; a label goes to its owner's stream and global
 * ones to every stream; invalid UTF-8 and control characters survive as
 * valid JSON), labels published from a prepared node, concurrent labelling. */
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
	CHECK(json_integer_value(get(root, "ovni.rank")) == 1 && json_integer_value(get(root, "ovni.nranks")) == 4,
	      "rank");
	CHECK(!strcmp(json_string_value(get(root, "ovni.require.openmp")), "1.2.1"), "openmp required");
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.80.labels.8")), "theirs"), "own label");
	CHECK(!strcmp(json_string_value(get(root, "ovni.mark.81.labels.2")), "mutex"), "global label everywhere");
	CHECK(get(root, "ovni.mark.80.labels.7") == NULL, "not the other's");
	json_decref(root);
	free(text);
	oa_meta_fini(&m);
	test_concurrent();
	TEST_DONE();
}
