/* meta.c: stream.json rendering with jansson (see meta.h). */
#include "meta.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovni_fmt.h"

static void lock(struct oa_meta *m)
{
	while (atomic_flag_test_and_set_explicit(&m->lock, memory_order_acquire))
		;
}

static void unlock(struct oa_meta *m)
{
	atomic_flag_clear_explicit(&m->lock, memory_order_release);
}

int oa_meta_init(struct oa_meta *m)
{
	m->marks = json_object();
	atomic_flag_clear(&m->lock);
	return m->marks ? 0 : -1;
}

void oa_meta_fini(struct oa_meta *m)
{
	json_decref(m->marks);
	m->marks = NULL;
}

int oa_meta_mark_type(struct oa_meta *m, int type, int stack, const char *title)
{
	char key[16];
	snprintf(key, sizeof(key), "%d", type);
	json_t *t = json_pack("{s:s, s:s, s:{}}", "title", title, "chan_type", stack ? "stack" : "single",
			      "labels");
	if (!t)
		return -1;
	lock(m);
	int r = json_object_get(m->marks, key) ? 0 : json_object_set_new(m->marks, key, t);
	atomic_fetch_add(&m->generation, 1);
	unlock(m);
	if (r != 0 || json_object_get(m->marks, key) != t)
		json_decref(t);
	return 0;
}

int oa_meta_mark_label(struct oa_meta *m, int type, long long value, const char *label)
{
	char key[16], vkey[24];
	snprintf(key, sizeof(key), "%d", type);
	snprintf(vkey, sizeof(vkey), "%lld", value);
	int r = -1;
	lock(m);
	json_t *labels = json_object_get(json_object_get(m->marks, key), "labels");
	if (labels) {
		r = 0;
		if (!json_object_get(labels, vkey)) {
			r = json_object_set_new(labels, vkey, json_string(label));
			atomic_fetch_add(&m->generation, 1);
		}
	}
	unlock(m);
	return r;
}

char *oa_meta_render(struct oa_meta *m, int tid, int finished)
{
	json_t *cpus = json_array();
	for (int i = 0; i < m->ncpus; i++)
		json_array_append_new(cpus, json_pack("{s:i, s:i}", "index", i, "phyid", m->phyids[i]));
	json_t *req = json_pack("{s:s}", "ovni", OVNI_MODEL_OVNI_VERSION);
	if (atomic_load(&m->require) & OA_REQUIRE_OPENMP)
		json_object_set_new(req, "openmp", json_string(OVNI_MODEL_OPENMP_VERSION));
	json_t *ovni = json_pack("{s:s, s:i, s:i, s:s, s:i, s:o, s:o, s:{s:s, s:s}}", "part", "thread", "tid",
				 tid, "pid", m->pid, "loom", m->loom, "app_id", m->app_id, "loom_cpus", cpus,
				 "require", req, "lib", "version", m->lib_version, "commit", m->lib_commit);
	if (!ovni)
		return NULL;
	if (m->rank >= 0 && m->nranks > 0) {
		json_object_set_new(ovni, "rank", json_integer(m->rank));
		json_object_set_new(ovni, "nranks", json_integer(m->nranks));
	}
	if (finished)
		json_object_set_new(ovni, "finished", json_integer(1));
	json_t *root = json_pack("{s:i, s:o}", "version", OVNI_METADATA_VERSION, "ovni", ovni);
	char *text = NULL;
	if (root) {
		lock(m);
		if (json_object_size(m->marks))
			json_object_set_new(ovni, "mark", json_deep_copy(m->marks));
		unlock(m);
		text = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS);
		json_decref(root);
	}
	return text;
}

void oa_meta_unfinish(char *text)
{
	char *p = strstr(text, "\"finished\": 1");
	if (p)
		p[strlen("\"finished\": ")] = '0';
}

int oa_meta_import_marks(struct oa_meta *m, const char *stream_json_path)
{
	json_t *root = json_load_file(stream_json_path, 0, NULL);
	if (!root)
		return -1;
	json_t *marks = json_object_get(json_object_get(root, "ovni"), "mark");
	const char *type;
	json_t *def;
	json_object_foreach(marks, type, def) {
		json_t *title = json_object_get(def, "title"), *kind = json_object_get(def, "chan_type");
		if (!json_is_string(title) || !json_is_string(kind))
			continue;
		int t = atoi(type);
		oa_meta_mark_type(m, t, !strcmp(json_string_value(kind), "stack"), json_string_value(title));
		const char *value;
		json_t *label;
		json_object_foreach(json_object_get(def, "labels"), value, label)
			if (json_is_string(label))
				oa_meta_mark_label(m, t, atoll(value), json_string_value(label));
	}
	json_decref(root);
	return 0;
}

int oa_meta_count_labels(struct oa_meta *m, int type, long long lo, long long hi, const char *prefix)
{
	char key[16];
	snprintf(key, sizeof(key), "%d", type);
	size_t plen = strlen(prefix);
	int n = 0;
	lock(m);
	const char *value;
	json_t *label;
	json_object_foreach(json_object_get(json_object_get(m->marks, key), "labels"), value, label) {
		long long v = atoll(value);
		if (v >= lo && v < hi && json_is_string(label) && !strncmp(json_string_value(label), prefix, plen))
			n++;
	}
	unlock(m);
	return n;
}

long long oa_meta_max_label(struct oa_meta *m, int type, long long lo, long long hi)
{
	char key[16];
	snprintf(key, sizeof(key), "%d", type);
	long long best = lo - 1;
	lock(m);
	const char *value;
	json_t *label;
	json_object_foreach(json_object_get(json_object_get(m->marks, key), "labels"), value, label) {
		long long v = atoll(value);
		if (v >= lo && v < hi && v > best)
			best = v;
	}
	unlock(m);
	return best;
}
