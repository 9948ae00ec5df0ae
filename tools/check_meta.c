/* check_meta.c: the stream.json rules of the emulator: required keys and
 * types per stream, and how streams merge into processes and looms (app id,
 * rank, loom CPUs, model versions, mark types and labels). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void problem(struct ck *c, struct ck_thread *th, const char *kind, const char *what)
{
	ck_problem(c, th, NULL, kind, "%s", what);
}

static struct ck_loom *loom_of(struct ck *c, const char *name)
{
	for (int i = 0; i < c->nlooms; i++)
		if (!strcmp(c->looms[i]->name, name))
			return c->looms[i];
	c->looms = realloc(c->looms, sizeof(*c->looms) * (size_t)(c->nlooms + 1));
	struct ck_loom *l = calloc(1, sizeof(*l));
	c->looms[c->nlooms++] = l;
	l->name = name;
	return l;
}

static struct ck_proc *proc_of(struct ck *c, struct ck_loom *loom, long long pid)
{
	for (int i = 0; i < c->nprocs; i++)
		if (c->procs[i]->loom == loom && c->procs[i]->pid == pid)
			return c->procs[i];
	c->procs = realloc(c->procs, sizeof(*c->procs) * (size_t)(c->nprocs + 1));
	struct ck_proc *p = calloc(1, sizeof(*p));
	c->procs[c->nprocs++] = p;
	p->loom = loom;
	p->pid = pid;
	p->app_id = p->rank = p->nranks = -1;
	return p;
}

/* loom_cpus: join by phyid; the same phyid must keep its index. */
static void add_cpus(struct ck *c, struct ck_thread *th, struct ck_loom *l, json_t *cpus)
{
	if (!cpus)
		return;
	if (!json_is_array(cpus)) {
		problem(c, th, "meta-cpus", "ovni.loom_cpus is not an array");
		return;
	}
	if (json_array_size(cpus) == 0) {
		problem(c, th, "meta-cpus", "empty 'cpus' array in metadata");
		return;
	}
	size_t i;
	json_t *cpu;
	json_array_foreach(cpus, i, cpu) {
		json_t *ji = json_object_get(cpu, "index"), *jp = json_object_get(cpu, "phyid");
		if (!json_is_integer(ji) || !json_is_integer(jp)) {
			problem(c, th, "meta-cpus", "a loom_cpus entry lacks an integer index or phyid");
			continue;
		}
		long long idx = json_integer_value(ji), phy = json_integer_value(jp);
		if (idx < 0 || idx > 1 << 20) {
			problem(c, th, "meta-cpus", "cpu index out of bounds");
			continue;
		}
		int found = 0;
		for (int k = 0; k < l->cap; k++) {
			if (l->phyid[k] == phy) {
				found = 1;
				if (k != idx) {
					char msg[128];
					snprintf(msg, sizeof(msg), "mismatch index in existing cpu: %lld", phy);
					problem(c, th, "meta-cpus", msg);
				}
			}
		}
		if (found)
			continue;
		if (idx >= l->cap) {
			int ncap = (int)idx + 1;
			l->phyid = realloc(l->phyid, sizeof(long long) * (size_t)ncap);
			for (int k = l->cap; k < ncap; k++)
				l->phyid[k] = -1;
			l->cap = ncap;
		}
		if (l->phyid[idx] != -1) {
			char msg[128];
			snprintf(msg, sizeof(msg), "cpu with index %lld already taken", idx);
			problem(c, th, "meta-cpus", msg);
			continue;
		}
		l->phyid[idx] = phy;
	}
}

static void require(struct ck *c, struct ck_thread *th, json_t *req)
{
	static const struct {
		const char *name;
		unsigned bit;
		int major, minor;
	} known[] = {
		{ "ovni", CK_MODEL_OVNI, 1, 1 },     { "openmp", CK_MODEL_OPENMP, 1, 2 },
		{ "kernel", CK_MODEL_KERNEL, 1, 0 }, { "mpi", CK_MODEL_MPI, 1, 0 },
	};
	if (!json_is_object(req)) {
		problem(c, th, "meta-require", "should_enable: missing 'ovni.require' key");
		return;
	}
	const char *name;
	json_t *v;
	json_object_foreach(req, name, v) {
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
			if (strcmp(known[k].name, name))
				continue;
			int maj = -1, min = -1, patch = 0;
			if (!json_is_string(v) || sscanf(json_string_value(v), "%d.%d.%d", &maj, &min, &patch) < 2) {
				problem(c, th, "meta-require", "a required model version is not \"x.y.z\"");
				break;
			}
			if (maj != known[k].major || min > known[k].minor) {
				char msg[160];
				snprintf(msg, sizeof(msg), "unsupported %s model version (want %s, have %d.%d)", name,
					 json_string_value(v), known[k].major, known[k].minor);
				problem(c, th, "meta-require", msg);
			}
			c->models |= known[k].bit;
		}
		if (!strcmp(name, "nosv") || !strcmp(name, "nanos6") || !strcmp(name, "tampi") ||
		    !strcmp(name, "nodes"))
			c->models |= CK_MODEL_OTHER;
	}
}

static void marks(struct ck *c, struct ck_thread *th, json_t *m)
{
	if (!m)
		return;
	if (!json_is_object(m)) {
		problem(c, th, "meta-mark", "ovni.mark is not an object");
		return;
	}
	const char *key;
	json_t *v;
	json_object_foreach(m, key, v) {
		char *end;
		long type = strtol(key, &end, 10);
		char msg[256];
		if (*end || end == key || type < 0 || type >= 100) {
			snprintf(msg, sizeof(msg), "mark type should be in [0, 100) range: %s", key);
			problem(c, th, "meta-mark", msg);
			continue;
		}
		json_t *title = json_object_get(v, "title"), *kind = json_object_get(v, "chan_type");
		if (!json_is_string(title) || !json_is_string(kind) ||
		    (strcmp(json_string_value(kind), "single") && strcmp(json_string_value(kind), "stack"))) {
			snprintf(msg, sizeof(msg), "mark type %ld needs a title and chan_type single or stack", type);
			problem(c, th, "meta-mark", msg);
			continue;
		}
		struct ck_marktype *mt = &c->marks[type];
		int stack = !strcmp(json_string_value(kind), "stack");
		if (!mt->declared) {
			mt->declared = 1;
			mt->stack = stack;
			mt->title = json_string_value(title);
		} else if (mt->stack != stack || strcmp(mt->title, json_string_value(title))) {
			snprintf(msg, sizeof(msg), "mark with type %ld already registered with another title or kind", type);
			problem(c, th, "meta-mark", msg);
		}
		json_t *labels = json_object_get(v, "labels");
		const char *vk;
		json_t *lab;
		json_object_foreach(labels, vk, lab) {
			long long value = strtoll(vk, &end, 10);
			if (*end || !json_is_string(lab)) {
				snprintf(msg, sizeof(msg), "mark type %ld: bad label entry '%s'", type, vk);
				problem(c, th, "meta-mark", msg);
				continue;
			}
			uint64_t idx;
			const char *text = json_string_value(lab);
			if (ck_map_get(&mt->labels, (uint64_t)value, &idx)) {
				if (strcmp(c->labelstr[idx - 1], text)) {
					snprintf(msg, sizeof(msg), "mark value %lld already defined with label %s", value,
						 c->labelstr[idx - 1]);
					problem(c, th, "meta-mark", msg);
				}
				continue;
			}
			if (c->nlabelstr == c->caplabelstr) {
				c->caplabelstr = c->caplabelstr ? c->caplabelstr * 2 : 64;
				c->labelstr = realloc(c->labelstr, sizeof(*c->labelstr) * c->caplabelstr);
			}
			c->labelstr[c->nlabelstr++] = text;
			ck_map_put(&mt->labels, (uint64_t)value, c->nlabelstr);
		}
	}
}

static void merge_value(struct ck *c, struct ck_thread *th, long long *into, long long v, const char *what)
{
	if (v == -1)
		return;
	if (*into == -1) {
		*into = v;
	} else if (*into != v) {
		char msg[160];
		snprintf(msg, sizeof(msg), "mismatch previous %s %lld with stream value %lld", what, *into, v);
		problem(c, th, "meta-merge", msg);
	}
}

int ck_meta(struct ck *c)
{
	for (int i = 0; i < c->t->n; i++) {
		struct ck_thread *th = &c->th[i];
		struct rd_stream *s = th->s;
		char msg[400];
		if (!s->meta) {
			snprintf(msg, sizeof(msg), "cannot parse stream.json: %s", s->meta_error);
			problem(c, th, "meta-parse", msg);
			th->ignored = 1;
			continue;
		}
		if (s->version == -1)
			problem(c, th, "meta-version", "missing attribute \"version\"");
		else if (s->version != 3) {
			snprintf(msg, sizeof(msg), "metadata version mismatch %lld (expected 3)", s->version);
			problem(c, th, "meta-version", msg);
		}
		if (!s->part) {
			problem(c, th, "meta-part", "cannot get attribute ovni.part for stream");
			th->ignored = 1;
			continue;
		}
		if (strcmp(s->part, "thread")) {
			th->ignored = 1; /* the emulator ignores it, and fails if it has events */
			continue;
		}
		if (s->tid <= 0)
			problem(c, th, "meta-tid", "cannot get attribute ovni.tid (a number > 0)");
		if (s->pid <= 0)
			problem(c, th, "meta-pid", "cannot get attribute ovni.pid (a number > 0)");
		if (!s->loom || strchr(s->loom, '/'))
			problem(c, th, "meta-loom", "cannot get attribute ovni.loom (a string without '/')");
		if (s->finished != 1)
			problem(c, th, "meta-finished", "thread_load_metadata: missing ovni.finished");
		if (!json_is_string(rd_json_path(s->meta, "ovni.lib.version")))
			problem(c, th, "meta-lib", "missing ovni.lib.version key in thread metadata");
		if (!json_is_string(rd_json_path(s->meta, "ovni.lib.commit")))
			problem(c, th, "meta-lib", "missing ovni.lib.commit key in thread metadata");
		if (s->app_id == 0 || s->app_id < -1)
			problem(c, th, "meta-appid", "appid must be >0");
		if (s->rank != -1 && s->nranks == -1)
			problem(c, th, "meta-rank", "missing ovni.nranks attribute");
		if (s->rank != -1 && s->nranks != -1 && (s->rank < 0 || s->rank >= s->nranks))
			problem(c, th, "meta-rank", "ovni.rank must be >= 0 and < ovni.nranks");
		require(c, th, rd_json_path(s->meta, "ovni.require"));
		marks(c, th, rd_json_path(s->meta, "ovni.mark"));
		if (s->tid <= 0 || s->pid <= 0 || !s->loom) {
			th->ignored = 1;
			continue;
		}
		struct ck_loom *l = loom_of(c, s->loom);
		add_cpus(c, th, l, rd_json_path(s->meta, "ovni.loom_cpus"));
		struct ck_proc *p = proc_of(c, l, s->pid);
		th->proc = p;
		merge_value(c, th, &p->app_id, s->app_id, "appid");
		merge_value(c, th, &p->rank, s->rank, "rank");
		merge_value(c, th, &p->nranks, s->nranks, "nranks");
		uint64_t other;
		if (ck_map_get(&p->tids, (uint64_t)s->tid, &other)) {
			snprintf(msg, sizeof(msg), "thread with tid %lld already exists (%s)", s->tid,
				 c->t->streams[other - 1].relpath);
			problem(c, th, "meta-tid", msg);
		} else {
			ck_map_put(&p->tids, (uint64_t)s->tid, (uint64_t)i + 1);
		}
	}
	/* Merged results. */
	for (int i = 0; i < c->nprocs; i++) {
		struct ck_proc *p = c->procs[i];
		char msg[160];
		if (p->app_id == -1) {
			snprintf(msg, sizeof(msg), "proc_init_end: appid not set (loom %s, pid %lld)", p->loom->name, p->pid);
			problem(c, NULL, "meta-appid", msg);
		}
		if (p->rank != -1)
			p->loom->has_rank = 1;
	}
	for (int i = 0; i < c->nprocs; i++) {
		struct ck_proc *p = c->procs[i];
		if (p->loom->has_rank && p->rank == -1) {
			char msg[160];
			snprintf(msg, sizeof(msg), "process %lld of loom %s has no rank while others do", p->pid,
				 p->loom->name);
			problem(c, NULL, "meta-rank", msg);
		}
	}
	for (int i = 0; i < c->nlooms; i++) {
		struct ck_loom *l = c->looms[i];
		char msg[160];
		if (!l->cap)
			snprintf(msg, sizeof(msg), "loom %s has no physical CPUs", l->name), problem(c, NULL, "meta-cpus", msg);
		for (int k = 0; k < l->cap; k++) {
			if (l->phyid[k] == -1) {
				snprintf(msg, sizeof(msg), "loom %s: cpu indices are not 0..N-1 (index %d missing)", l->name, k);
				problem(c, NULL, "meta-cpus", msg);
			}
		}
		l->ncpus = l->cap;
		l->running = calloc((size_t)(l->cap ? l->cap : 1), sizeof(int));
	}
	return 0;
}
