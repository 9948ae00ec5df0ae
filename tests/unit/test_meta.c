/* test_meta.c: stream.json as the emulator reads it: every required key,
 * types, finished, rank only when known, marks and their labels. */
#include <jansson.h>

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
	oa_meta_mark_type(&m, 80, 0, "Process events");
	oa_meta_mark_type(&m, 81, 1, "Waits");
	oa_meta_mark_label(&m, 81, 2, "mutex");
	oa_meta_mark_label(&m, 81, 2, "other"); /* the first label stays */
	CHECK(oa_meta_mark_label(&m, 99, 1, "x") != 0, "label of an undeclared type fails");

	char *text = oa_meta_render(&m, 43, 0);
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
	json_decref(root);
	free(text);

	m.rank = 1;
	m.nranks = 4;
	atomic_fetch_or(&m.require, OA_REQUIRE_OPENMP);
	text = oa_meta_render(&m, 43, 1);
	root = json_loads(text, 0, &e);
	CHECK(json_integer_value(get(root, "ovni.finished")) == 1, "finished is the number 1");
	CHECK(json_integer_value(get(root, "ovni.rank")) == 1 && json_integer_value(get(root, "ovni.nranks")) == 4,
	      "rank");
	CHECK(!strcmp(json_string_value(get(root, "ovni.require.openmp")), "1.2.1"), "openmp required");
	json_decref(root);
	free(text);
	oa_meta_fini(&m);
	TEST_DONE();
}
