/* check_meta.c: the stream.json rules of the emulator: required keys, their
 * types and values in every thread stream, the required model versions, and
 * how streams merge into processes (app id, rank, tids) and looms (loom CPU
 * indices exactly 0..N-1, ranks everywhere or nowhere). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/log.h"
#include "check.h"

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		die("out of memory");
	return p;
}

static struct ck_loom *loom_of(struct ck *c, const char *name, int stream)
{
	for (int i = 0; i < c->nlooms; i++)
		if (!strcmp(c->looms[i]->name, name))
			return c->looms[i];
	c->looms = realloc(c->looms, sizeof(*c->looms) * (size_t)(c->nlooms + 1));
	if (!c->looms)
		die("out of memory");
	struct ck_loom *l = xcalloc(1, sizeof(*l));
	c->looms[c->nlooms++] = l;
	l->name = name;
	l->first_stream = stream;
	return l;
}

static struct ck_proc *proc_of(struct ck *c, struct ck_loom *loom, long long pid, int stream)
{
	for (int i = c->nprocs - 1; i >= 0; i--) /* streams come sorted: usually the last one */
		if (c->procs[i]->loom == loom && c->procs[i]->pid == pid)
			return c->procs[i];
	c->procs = realloc(c->procs, sizeof(*c->procs) * (size_t)(c->nprocs + 1));
	if (!c->procs)
		die("out of memory");
	struct ck_proc *p = xcalloc(1, sizeof(*p));
	c->procs[c->nprocs++] = p;
	p->loom = loom;
	p->pid = pid;
	p->app_id = p->rank = p->nranks = -1;
	p->first_stream = stream;
	return p;
}

/* loom_cpus: joined by phyid; the same phyid must keep its index. */
static void add_cpus(struct ck *c, struct ck_thread *th, struct ck_loom *l, json_t *cpus)
{
	if (!cpus)
		return;
	if (!json_is_array(cpus)) {
		ck_problem(c, th, NULL, "meta-cpus", "ovni.loom_cpus is not an array");
		return;
	}
	if (json_array_size(cpus) == 0) {
		ck_problem(c, th, NULL, "meta-cpus", "empty 'cpus' array in metadata (ovni.loom_cpus is [])");
		return;
	}
	size_t i;
	json_t *cpu;
	json_array_foreach(cpus, i, cpu)
	{
		long long idx, phy;
		json_t *ji = json_object_get(cpu, "index"), *jp = json_object_get(cpu, "phyid");
		if (!rd_json_int(ji, "", &idx)) {
			ck_problem(c, th, NULL, "meta-cpus", "ovni.loom_cpus[%zu]: no integer index", i);
			continue;
		}
		if (!rd_json_int(jp, "", &phy)) {
			ck_problem(c, th, NULL, "meta-cpus", "ovni.loom_cpus[%zu]: no integer phyid", i);
			continue;
		}
		uint64_t key = (uint64_t)phy ^ 0x8000000000000000ull, e;
		if (ck_map_get(&l->byphy, key, &e)) {
			if (l->ent_idx[e - 1] != idx)
				ck_problem(c, th, NULL, "meta-cpus",
					   "mismatch index in existing cpu: %lld (phyid %lld has index %lld elsewhere, "
					   "%lld here)",
					   phy, phy, l->ent_idx[e - 1], idx);
			continue;
		}
		if (l->nent == l->capent) {
			l->capent = l->capent ? l->capent * 2 : 16;
			l->ent_phy = realloc(l->ent_phy, sizeof(long long) * (size_t)l->capent);
			l->ent_idx = realloc(l->ent_idx, sizeof(long long) * (size_t)l->capent);
			if (!l->ent_phy || !l->ent_idx)
				die("out of memory");
		}
		l->ent_phy[l->nent] = phy;
		l->ent_idx[l->nent] = idx;
		ck_map_put(&l->byphy, key, (uint64_t)++l->nent);
	}
}

/* The N CPUs of a loom must use the indices 0..N-1, each once. */
static void merge_cpus(struct ck *c, struct ck_loom *l)
{
	struct ck_thread *th = &c->th[l->first_stream];
	l->ncpus = l->nent;
	l->phyid = xcalloc((size_t)l->ncpus, sizeof(long long));
	l->running = xcalloc((size_t)l->ncpus, sizeof(int));
	if (!l->nent) {
		ck_problem(c, th, NULL, "meta-cpus", "loom %s has no physical CPUs (no ovni.loom_cpus in any stream)",
			   l->name);
		return;
	}
	char *used = xcalloc((size_t)l->ncpus, 1);
	for (int k = 0; k < l->ncpus; k++)
		l->phyid[k] = -1;
	int out = 0;
	for (int e = 0; e < l->nent; e++) {
		long long idx = l->ent_idx[e];
		if (idx < 0 || idx >= l->ncpus) {
			out = 1;
			continue;
		}
		if (used[idx]) {
			ck_problem(c, th, NULL, "meta-cpus",
				   "cpu with index %lld already taken (loom %s, phyids %lld and %lld)", idx, l->name,
				   l->phyid[idx], l->ent_phy[e]);
			continue;
		}
		used[idx] = 1;
		l->phyid[idx] = l->ent_phy[e];
	}
	if (out) {
		for (int e = 0; e < l->nent; e++) {
			long long idx = l->ent_idx[e], missing = -1;
			if (idx >= 0 && idx < l->ncpus)
				continue;
			for (int k = 0; k < l->ncpus && missing < 0; k++)
				if (!used[k])
					missing = k;
			ck_problem(c, th, NULL, "meta-cpus",
				   "cpu index out of bounds: index %lld (phyid %lld) in loom %s of %d CPUs (index %lld "
				   "missing)",
				   idx, l->ent_phy[e], l->name, l->ncpus, missing);
		}
	}
	free(used);
}

static int parse_version(const char *v, int *maj, int *min)
{
	int patch, n = 0;
	return sscanf(v, "%d.%d.%d%n", maj, min, &patch, &n) == 3 && v[n] == '\0';
}

static void require(struct ck *c, struct ck_thread *th, json_t *req)
{
	if (!req) {
		ck_problem(c, th, NULL, "meta-require", "should_enable: missing 'ovni.require' key in thread %s",
			   th->s->relpath);
		return;
	}
	if (!json_is_object(req)) {
		ck_problem(c, th, NULL, "meta-require", "ovni.require is not an object");
		return;
	}
	const char *name;
	json_t *v;
	json_object_foreach(req, name, v)
	{
		const struct ck_model *m = ck_model_by_name(name);
		if (!m)
			continue; /* unknown models are ignored */
		int maj, min, hmaj = 0, hmin = 0;
		if (!json_is_string(v) || !parse_version(json_string_value(v), &maj, &min)) {
			ck_problem(c, th, NULL, "meta-require",
				   "ovni.require.%s: the version must be a string \"x.y.z\"", name);
			continue;
		}
		if (m->version && parse_version(m->version, &hmaj, &hmin) && (maj != hmaj || min > hmin))
			ck_problem(c, th, NULL, "meta-require", "unsupported %s model version (want %s, have %s) in %s",
				   name, json_string_value(v), m->version, th->s->relpath);
		c->models |= m->bit;
	}
}

static void merge_value(struct ck *c, struct ck_thread *th, long long *into, int have, long long v, const char *what)
{
	if (!have)
		return;
	if (*into == -1)
		*into = v;
	else if (*into != v)
		ck_problem(c, th, NULL, "meta-merge", "mismatch previous %s %lld with stream: %s has %lld", what, *into,
			   th->s->relpath, v);
}

/* The keys of one thread stream; 0 when it cannot join a process. */
static int stream_keys(struct ck *c, struct ck_thread *th)
{
	struct rd_stream *s = th->s;
	json_t *m = s->meta;
	long long v;
	int ok = 1;
	if (!rd_json_int(m, "ovni.tid", &v) || v == 0) {
		ck_problem(c, th, NULL, "meta-tid", "cannot get attribute ovni.tid for stream: %s (a number > 0)",
			   s->relpath);
		ok = 0;
	} else if (v < 0) {
		ck_problem(c, th, NULL, "meta-tid", "cannot get thread tid from stream: %s (ovni.tid is %lld)",
			   s->relpath, v);
		ok = 0;
	}
	if (!rd_json_int(m, "ovni.pid", &v) || v <= 0) {
		ck_problem(c, th, NULL, "meta-pid", "cannot get attribute ovni.pid for stream: %s (a number > 0)",
			   s->relpath);
		ok = 0;
	}
	if (!s->loom) {
		ck_problem(c, th, NULL, "meta-loom", "cannot get attribute ovni.loom for stream: %s (a string)",
			   s->relpath);
		ok = 0;
	} else if (strchr(s->loom, '/')) {
		ck_problem(c, th, NULL, "meta-loom", "ovni.loom '%s' contains a '/'", s->loom);
		ok = 0;
	}
	json_t *fin = rd_json_path(m, "ovni.finished");
	if (!rd_json_int(m, "ovni.finished", &v) || v != 1 || json_is_boolean(fin))
		ck_problem(c, th, NULL, "meta-finished", "thread_load_metadata: missing ovni.finished: %s (must be 1)",
			   s->relpath);
	if (!s->lib_version)
		ck_problem(c, th, NULL, "meta-lib", "missing ovni.lib.version key in thread metadata");
	if (!s->lib_commit)
		ck_problem(c, th, NULL, "meta-lib", "missing ovni.lib.commit key in thread metadata");
	if (rd_json_path(m, "ovni.app_id") && (!rd_json_int(m, "ovni.app_id", &v) || v <= 0))
		ck_problem(c, th, NULL, "meta-appid", "appid must be >0 (ovni.app_id in %s)", s->relpath);
	long long rank, nranks;
	int has_rank = rd_json_int(m, "ovni.rank", &rank), has_nranks = rd_json_int(m, "ovni.nranks", &nranks);
	if ((rd_json_path(m, "ovni.rank") && !has_rank) || (rd_json_path(m, "ovni.nranks") && !has_nranks))
		ck_problem(c, th, NULL, "meta-rank", "ovni.rank and ovni.nranks must be numbers");
	if (has_rank && !has_nranks)
		ck_problem(c, th, NULL, "meta-rank", "missing ovni.nranks attribute (ovni.rank is %lld)", rank);
	if (has_rank && has_nranks && (rank < 0 || rank >= nranks))
		ck_problem(c, th, NULL, "meta-rank", "ovni.rank %lld is not in [0, ovni.nranks=%lld)", rank, nranks);
	require(c, th, rd_json_path(m, "ovni.require"));
	ck_marks_meta(c, th, rd_json_path(m, "ovni.mark"));
	return ok;
}

/* A thread stream joins its loom and process. */
static void join(struct ck *c, struct ck_thread *th, int i)
{
	struct rd_stream *s = th->s;
	long long v;
	struct ck_loom *l = loom_of(c, s->loom, i);
	add_cpus(c, th, l, rd_json_path(s->meta, "ovni.loom_cpus"));
	struct ck_proc *p = proc_of(c, l, s->pid, i);
	th->proc = p;
	int have = rd_json_int(s->meta, "ovni.app_id", &v) && v > 0;
	merge_value(c, th, &p->app_id, have, v, "appid");
	have = rd_json_int(s->meta, "ovni.rank", &v);
	merge_value(c, th, &p->rank, have, v, "rank");
	have = rd_json_int(s->meta, "ovni.nranks", &v);
	merge_value(c, th, &p->nranks, have, v, "nranks");
	uint64_t other;
	if (ck_map_get(&p->tids, (uint64_t)s->tid, &other)) {
		ck_problem(c, th, NULL, "meta-tid", "thread with tid %lld already exists (%s)", s->tid,
			   c->t->streams[other - 1].relpath);
		th->ignored = 1;
	} else {
		ck_map_put(&p->tids, (uint64_t)s->tid, (uint64_t)i + 1);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct ck_loom *const *)a)->name, (*(struct ck_loom *const *)b)->name);
}

void ck_meta(struct ck *c)
{
	const char *libv = NULL;
	int mixed = 0;
	for (int i = 0; i < c->t->n; i++) {
		struct ck_thread *th = &c->th[i];
		struct rd_stream *s = th->s;
		if (!s->meta) {
			ck_problem(c, th, NULL, "meta-parse", "cannot load stream.json: %s", s->meta_error);
			th->ignored = 1;
			continue;
		}
		if (s->meta_dup[0]) /* the emulator's JSON reader refuses it */
			ck_problem(c, th, NULL, "meta-parse", "%s (the emulator refuses it)", s->meta_dup);
		long long version;
		if (!rd_json_int(s->meta, "version", &version))
			ck_problem(c, th, NULL, "meta-version", "missing attribute \"version\"");
		else if (version != 3)
			ck_problem(c, th, NULL, "meta-version", "metadata version mismatch %lld (expected 3)", version);
		if (!s->part) {
			ck_problem(c, th, NULL, "meta-part", "cannot get attribute ovni.part for stream: %s",
				   s->relpath);
			th->ignored = 1;
			continue;
		}
		if (strcmp(s->part, "thread")) {
			ck_note(c, "ignoring unknown stream %s (ovni.part is \"%s\")", s->relpath, s->part);
			th->ignored = 1; /* the emulator fails if it has events */
			continue;
		}
		if (s->lib_version) {
			if (libv && strcmp(libv, s->lib_version))
				mixed = 1;
			libv = s->lib_version;
		}
		if (!stream_keys(c, th)) {
			th->ignored = 1;
			continue;
		}
		join(c, th, i);
	}
	if (mixed)
		ck_note(c, "mixed versions of libovni detected (ovni.lib.version differs between streams)");
	for (int i = 0; i < c->nprocs; i++) {
		struct ck_proc *p = c->procs[i];
		if (p->app_id == -1)
			ck_problem(c, &c->th[p->first_stream], NULL, "meta-appid",
				   "proc_init_end: appid not set (no ovni.app_id in any stream of process %lld of loom "
				   "%s)",
				   p->pid, p->loom->name);
		if (p->rank != -1)
			p->loom->has_rank = 1;
	}
	for (int i = 0; i < c->nprocs; i++) {
		struct ck_proc *p = c->procs[i];
		if (p->loom->has_rank && p->rank == -1)
			ck_problem(
				c, &c->th[p->first_stream], NULL, "meta-rank",
				"process %lld of loom %s has no ovni.rank while other processes of the loom have one",
				p->pid, p->loom->name);
	}
	if (c->nlooms)
		qsort(c->looms, (size_t)c->nlooms, sizeof(*c->looms), by_name);
	for (int i = 0; i < c->nlooms; i++) {
		c->looms[i]->rowidx = i;
		merge_cpus(c, c->looms[i]);
	}
	if (c->nlooms > 1 && !c->t->offsets_loaded)
		ck_note(c, "no clock offset file loaded with %d looms", c->nlooms);
}
