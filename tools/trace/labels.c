/* labels.c: mark labels from the metadata, OpenMP state and MPI function names (labels.h). */
#include "labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "../../writer/mpi_fmt.h"

struct lb_marks {
	struct ck_map values; /* (type << 56 | value & mask) -> index + 1 */
	const char **text;
	size_t n, cap;
	const char *title[100];
	char **owned; /* the "value N" names made here */
	size_t nowned;
};

static uint64_t key(int type, int64_t value)
{
	return (uint64_t)(type + 1) << 56 | ((uint64_t)value & 0xffffffffffffffull);
}

struct lb_marks *lb_marks_load(struct rd_trace *t)
{
	struct lb_marks *m = calloc(1, sizeof(*m));
	for (int i = 0; i < t->n; i++) {
		json_t *marks = rd_json_path(t->streams[i].meta, "ovni.mark");
		const char *tkey;
		json_t *def;
		json_object_foreach(marks, tkey, def)
		{
			int type = atoi(tkey);
			if (type < 0 || type >= 100)
				continue;
			json_t *title = json_object_get(def, "title");
			if (!m->title[type] && json_is_string(title))
				m->title[type] = json_string_value(title);
			const char *vkey;
			json_t *label;
			json_object_foreach(json_object_get(def, "labels"), vkey, label)
			{
				uint64_t dummy, k = key(type, strtoll(vkey, NULL, 10));
				if (!json_is_string(label) || ck_map_get(&m->values, k, &dummy))
					continue;
				if (m->n == m->cap) {
					m->cap = m->cap ? m->cap * 2 : 64;
					m->text = realloc(m->text, sizeof(*m->text) * m->cap);
				}
				m->text[m->n++] = json_string_value(label);
				ck_map_put(&m->values, k, m->n);
			}
		}
	}
	return m;
}

void lb_marks_free(struct lb_marks *m)
{
	if (!m)
		return;
	ck_map_free(&m->values);
	for (size_t i = 0; i < m->nowned; i++)
		free(m->owned[i]);
	free(m->owned);
	free(m->text);
	free(m);
}

const char *lb_mark_label(struct lb_marks *m, int type, int64_t value)
{
	uint64_t idx;
	if (type < 0 || type >= 100)
		return "?";
	if (ck_map_get(&m->values, key(type, value), &idx))
		return m->text[idx - 1];
	/* No label: "value N", made once and kept (callers keep the pointer). */
	char buf[64];
	snprintf(buf, sizeof(buf), "value %lld", (long long)value);
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->text = realloc(m->text, sizeof(*m->text) * m->cap);
	}
	m->text[m->n++] = strdup(buf);
	m->owned = realloc(m->owned, sizeof(*m->owned) * (m->nowned + 1));
	m->owned[m->nowned++] = (char *)m->text[m->n - 1];
	ck_map_put(&m->values, key(type, value), m->n);
	return m->text[m->n - 1];
}

const char *lb_mark_title(struct lb_marks *m, int type)
{
	return type >= 0 && type < 100 && m->title[type] ? m->title[type] : "?";
}

const char *lb_omp_state(char cat, char val)
{
	static const struct {
		char cat, val;
		const char *name;
	} names[] = {
		{ 'B', 'b', "barrier: plain" },
		{ 'B', 'j', "barrier: join" },
		{ 'B', 'f', "barrier: fork" },
		{ 'B', 't', "barrier: task" },
		{ 'I', 'a', "critical: acquiring" },
		{ 'I', 'r', "critical: releasing" },
		{ 'I', '[', "critical: section" },
		{ 'W', 'd', "work: distribute" },
		{ 'W', 'y', "work: dynamic for init" },
		{ 'W', 'c', "work: dynamic for chunk" },
		{ 'W', 's', "work: static for chunk" },
		{ 'W', 'e', "work: section" },
		{ 'W', 'i', "work: single" },
		{ 'T', 'a', "task: allocation" },
		{ 'T', 'c', "task: check deps" },
		{ 'T', 'd', "task: duplicating" },
		{ 'T', 'r', "task: releasing deps" },
		{ 'T', '[', "task: running" },
		{ 'T', 'i', "task: running if0" },
		{ 'T', 's', "task: scheduling" },
		{ 'T', 'g', "task: taskgroup" },
		{ 'T', 't', "task: taskwait" },
		{ 'T', 'w', "task: taskwait deps" },
		{ 'T', 'y', "task: taskyield" },
		{ 'A', '[', "runtime: attached" },
		{ 'C', 'f', "runtime: fork call" },
		{ 'C', 'i', "runtime: init" },
		{ 'M', 'i', "runtime: internal microtask" },
		{ 'M', 'u', "runtime: user microtask" },
		{ 'H', '[', "runtime: worker loop" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].cat == cat && names[i].val == val)
			return names[i].name;
	return NULL;
}

const char *lb_mpi_function(char cat, char val)
{
	static const struct {
		const char *mcv, *name;
	} funcs[] = {
#define LB_MPI(name, lname, n, fn, en, lv) { en, "MPI_" #name },
		OA_MPI_ALL(LB_MPI)
#undef LB_MPI
	};
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (funcs[i].mcv[1] == cat && funcs[i].mcv[2] == val)
			return funcs[i].name;
	return NULL;
}
