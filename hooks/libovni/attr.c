/* attr.c: the libovni attribute API (ovni_attr_*), provided by the agent:
 * a thread's attributes are a JSON document (jansson, opened when the
 * program has libovni loaded, see json.h) whose members the thread's
 * stream.json ends with; keys under "ovni." go into the agent's "ovni"
 * object, except the agent's own members, which read as the trace says
 * them and cannot be set. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/log.h"
#include "lo.h"

/* The object a dotted key lives in (created when `create`), and its last
 * part. */
static json_t *attr_parent(const char *key, const char **leaf, int create)
{
	if (!lo_self.attrs) {
		if (!create)
			return NULL;
		lo_self.attrs = json_object();
	}
	json_t *o = lo_self.attrs;
	char part[256];
	const char *k = key;
	for (const char *dot; (dot = strchr(k, '.')); k = dot + 1) {
		size_t n = (size_t)(dot - k);
		if (!n || n >= sizeof(part))
			return NULL;
		memcpy(part, k, n);
		part[n] = '\0';
		json_t *c = json_object_get(o, part);
		if (!json_is_object(c)) {
			if (!create)
				return NULL;
			c = json_object();
			json_object_set_new(o, part, c);
		}
		o = c;
	}
	*leaf = k;
	return *k ? o : NULL;
}

/* Members of "ovni" that the agent writes: the program reads them (libovni
 * keeps its metadata in the same tree) but cannot set them. */
static const char *const agent_keys[] = { "part",      "tid",     "pid", "loom", "app_id",   "rank", "nranks",
					  "loom_cpus", "require", "lib", "mark", "finished", NULL };

/* The agent's member that a key "ovni.NAME..." names, or NULL. */
static const char *agent_key(const char *key)
{
	if (strncmp(key, "ovni.", 5))
		return NULL;
	const char *name = key + 5;
	size_t n = strcspn(name, ".");
	for (int i = 0; agent_keys[i]; i++)
		if (strlen(agent_keys[i]) == n && !strncmp(agent_keys[i], name, n))
			return agent_keys[i];
	return NULL;
}

/* An object's members as JSON text to append after `lead` ("{...}" ->
 * lead + "..."), or NULL when it has none. */
static char *members_text(json_t *o, const char *lead)
{
	if (!json_object_size(o))
		return NULL;
	char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	if (!text)
		return NULL;
	size_t n = strlen(text), len = strlen(lead) + n;
	char *members = malloc(len);
	if (members)
		snprintf(members, len, "%s%.*s", lead, (int)(n - 2), text + 1);
	free(text);
	return members;
}

/* Publish the attributes: the members the thread's stream.json ends with,
 * and those under "ovni." inside the agent's "ovni" object. */
static void attr_publish(void)
{
	struct oa_thread *t = lo_thread();
	if (!t || !lo_self.attrs)
		return;
	json_t *top = json_copy(lo_self.attrs);
	if (!top)
		return;
	json_t *mine = json_object_get(top, "ovni");
	char *inner = members_text(mine, ",\n  ");
	json_object_del(top, "ovni");
	char *outer = members_text(top, ",\n ");
	json_decref(top);
	/* the old texts may be read by a renderer right now: kept */
	if (inner)
		atomic_store_explicit(&t->s.labels.ovni_attrs, inner, memory_order_release);
	if (outer)
		atomic_store_explicit(&t->s.labels.attrs, outer, memory_order_release);
}

static void attr_set(const char *key, json_t *v)
{
	HOOK_ERRNO_SAVE();
	const char *leaf;
	json_t *o;
	if (!key || !v || !strcmp(key, "ovni") || !strcmp(key, "version") || agent_key(key) ||
	    !(o = attr_parent(key, &leaf, 1))) {
		if (key && (agent_key(key) || !strcmp(key, "ovni") || !strcmp(key, "version")))
			oa_log("libovni API: attribute \"%s\" is the agent's: not set", key);
		json_decref(v);
		HOOK_ERRNO_RESTORE();
		return;
	}
	json_object_set_new(o, leaf, v);
	attr_publish();
	HOOK_ERRNO_RESTORE();
}

/* The agent's member `name` of "ovni", as stream.json would say it now
 * (mark types in the program's numbering). */
static json_t *view_build(const char *name)
{
	struct oa_thread *t = oa_self;
	if (!strcmp(name, "part"))
		return json_string("thread");
	if (!strcmp(name, "tid"))
		return json_integer(gettid());
	if (!strcmp(name, "pid"))
		return json_integer(oa_meta.pid);
	if (!strcmp(name, "loom"))
		return json_string(oa_meta.loom);
	if (!strcmp(name, "app_id"))
		return json_integer(oa_meta.app_id);
	if (!strcmp(name, "rank"))
		return oa_meta.rank >= 0 && oa_meta.nranks > 0 ? json_integer(oa_meta.rank) : NULL;
	if (!strcmp(name, "nranks"))
		return oa_meta.rank >= 0 && oa_meta.nranks > 0 ? json_integer(oa_meta.nranks) : NULL;
	if (!strcmp(name, "loom_cpus")) {
		json_t *a = json_array();
		for (int i = 0; i < oa_meta.ncpus; i++)
			json_array_append_new(a, json_pack("{s:i, s:i}", "index", i, "phyid", oa_meta.phyids[i]));
		return a;
	}
	if (!strcmp(name, "lib"))
		return json_pack("{s:s, s:s}", "version", oa_meta.lib_version ? oa_meta.lib_version : "", "commit",
				 oa_meta.lib_commit ? oa_meta.lib_commit : "");
	if (!strcmp(name, "require") || !strcmp(name, "mark")) {
		/* what the stream.json of this thread says */
		char *buf = NULL;
		ssize_t n = -EOVERFLOW;
		for (size_t cap = 64 * 1024; n == -EOVERFLOW && cap <= (256u << 20); cap *= 4) {
			free(buf);
			buf = malloc(cap);
			n = buf ? oa_meta_render(&oa_meta, buf, cap, gettid(), 0, t ? &t->s.labels : NULL) : -ENOMEM;
		}
		json_t *root = n > 0 ? json_loadb(buf, (size_t)n, 0, NULL) : NULL;
		free(buf);
		json_t *v = json_object_get(json_object_get(root, "ovni"), name);
		json_incref(v);
		json_decref(root);
		if (!v || !strcmp(name, "require"))
			return v;
		/* the program's mark types under its own numbers */
		json_t *marks = json_object();
		char num[16];
		for (int p = 0; p < OA_META_NTYPES; p++) {
			int to = lo_map_type(p);
			snprintf(num, sizeof(num), "%d", to);
			json_t *m = json_object_get(v, num);
			if (m && (to == p || lo_type_moved(p))) {
				snprintf(num, sizeof(num), "%d", p);
				json_object_set(marks, num, m);
			}
		}
		json_decref(v);
		return marks;
	}
	return NULL;
}

/* An attribute of the agent's, kept in lo_self.view so that the strings
 * handed out stay valid while the value does not change. */
static json_t *view_get(const char *key, const char *name)
{
	json_t *fresh = view_build(name);
	if (!lo_self.view)
		lo_self.view = json_object();
	json_t *old = json_object_get(lo_self.view, name);
	if (fresh && !(old && json_equal(old, fresh)))
		json_object_set(lo_self.view, name, fresh);
	else if (!fresh)
		json_object_del(lo_self.view, name);
	json_decref(fresh);
	json_t *o = json_object_get(lo_self.view, name);
	for (const char *k = key + 5 + strlen(name); o && *k == '.'; k += strcspn(k + 1, ".") + 1) {
		char part[256];
		size_t n = strcspn(k + 1, ".");
		if (!n || n >= sizeof(part))
			return NULL;
		memcpy(part, k + 1, n);
		part[n] = '\0';
		o = json_is_array(o) ? json_array_get(o, strtoul(part, NULL, 10)) : json_object_get(o, part);
	}
	return o;
}

static json_t *attr_get(const char *key)
{
	const char *name = key ? agent_key(key) : NULL;
	if (name)
		return view_get(key, name);
	const char *leaf;
	json_t *o = key ? attr_parent(key, &leaf, 0) : NULL;
	return o ? json_object_get(o, leaf) : NULL;
}

OA_EXPORT int ovni_attr_has(const char *key)
{
	return attr_get(key) != NULL;
}

OA_EXPORT void ovni_attr_set_double(const char *key, double num)
{
	attr_set(key, json_real(num));
}

OA_EXPORT void ovni_attr_set_boolean(const char *key, int value)
{
	attr_set(key, json_boolean(value));
}

OA_EXPORT void ovni_attr_set_str(const char *key, const char *value)
{
	attr_set(key, value ? json_string(value) : NULL);
}

OA_EXPORT void ovni_attr_set_json(const char *key, const char *json)
{
	json_t *v = json ? json_loads(json, JSON_DECODE_ANY, NULL) : NULL;
	if (!v)
		lo_misuse("ovni_attr_set_json with text that is not JSON");
	attr_set(key, v);
}

OA_EXPORT double ovni_attr_get_double(const char *key)
{
	json_t *v = attr_get(key);
	if (!json_is_number(v))
		lo_misuse("ovni_attr_get_double of a missing or non-number attribute");
	return json_number_value(v);
}

OA_EXPORT int ovni_attr_get_boolean(const char *key)
{
	json_t *v = attr_get(key);
	if (!json_is_boolean(v))
		lo_misuse("ovni_attr_get_boolean of a missing or non-boolean attribute");
	return json_is_true(v);
}

OA_EXPORT const char *ovni_attr_get_str(const char *key)
{
	json_t *v = attr_get(key);
	if (!json_is_string(v))
		lo_misuse("ovni_attr_get_str of a missing or non-string attribute");
	return json_string_value(v);
}

OA_EXPORT char *ovni_attr_get_json(const char *key)
{
	json_t *v = attr_get(key);
	return v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
}

OA_EXPORT void ovni_attr_flush(void)
{
	struct oa_thread *t = lo_thread();
	if (!t)
		return;
	HOOK_ERRNO_SAVE();
	oa_guard++;
	oa_stream_sync_meta(&t->s);
	oa_guard--;
	HOOK_ERRNO_RESTORE();
}
