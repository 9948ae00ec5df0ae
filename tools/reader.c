/* reader.c: trace discovery, metadata, event framing and the merged walk
 * (see reader.h). */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../writer/log.h"
#include "../writer/ovni_fmt.h"

json_t *rd_json_path(json_t *root, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	json_t *cur = root;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ".", &save); tok && cur; tok = strtok_r(NULL, ".", &save))
		cur = json_is_object(cur) ? json_object_get(cur, tok) : NULL;
	return cur;
}

static long long int_or(json_t *root, const char *path, long long def)
{
	json_t *v = rd_json_path(root, path);
	return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

static const char *str_or_null(json_t *root, const char *path)
{
	json_t *v = rd_json_path(root, path);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Collected by nftw (which takes no user pointer). */
static char **found;
static int nfound, capfound;

static int want_v1; /* collect v1 thread files instead of stream.json dirs */

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	const char *base = strrchr(path, '/');
	if (type != FTW_F || !base)
		return 0;
	if (want_v1) {
		if (strncmp(base + 1, "thread.", 7))
			return 0;
		char meta[4200];
		snprintf(meta, sizeof(meta), "%.*s/metadata.json", (int)(base - path), path);
		if (access(meta, R_OK) != 0)
			return 0;
		base = path + strlen(path); /* keep the whole file path */
	} else if (strcmp(base + 1, "stream.json")) {
		return 0;
	}
	if (nfound == capfound) {
		capfound = capfound ? capfound * 2 : 64;
		char **n = realloc(found, sizeof(*n) * (size_t)capfound);
		if (!n)
			return -1;
		found = n;
	}
	found[nfound++] = strndup(path, (size_t)(base - path));
	return 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* v1: loom.L/proc.P/metadata.json + thread.T -> the v3 metadata of stream T.
 * The loom CPUs come from whichever process of the loom lists them. */
static json_t *v1_meta(struct rd_stream *s, const char *tracedir, char *err, size_t errlen)
{
	char procdir[4200], path[4300];
	snprintf(procdir, sizeof(procdir), "%s", s->obs);
	*strrchr(procdir, '/') = '\0';
	snprintf(path, sizeof(path), "%s/metadata.json", procdir);
	json_error_t jerr;
	json_t *pm = json_load_file(path, 0, &jerr);
	if (!pm) {
		snprintf(err, errlen, "metadata.json line %d: %s", jerr.line, jerr.text);
		return NULL;
	}
	const char *procname = strrchr(procdir, '/') + 1;
	char loomdir[4200];
	snprintf(loomdir, sizeof(loomdir), "%.*s", (int)(procname - 1 - procdir), procdir);
	const char *loomname = strrchr(loomdir, '/') ? strrchr(loomdir, '/') + 1 : loomdir;
	const char *tname = strrchr(s->obs, '/') + 1;
	long long tid = strtoll(tname + 7, NULL, 10), pid = strncmp(procname, "proc.", 5) ? -1 : strtoll(procname + 5, NULL, 10);
	json_t *cpus = json_object_get(pm, "cpus");
	if (!json_is_array(cpus)) { /* another process of the loom has them */
		struct dirent **list = NULL;
		int n = scandir(loomdir, &list, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			if (!cpus && !strncmp(list[i]->d_name, "proc.", 5)) {
				snprintf(path, sizeof(path), "%s/%s/metadata.json", loomdir, list[i]->d_name);
				json_t *other = json_load_file(path, 0, NULL);
				json_t *c = json_object_get(other, "cpus");
				if (json_is_array(c))
					cpus = json_incref(c);
				json_decref(other);
			}
			free(list[i]);
		}
		free(list);
	} else {
		json_incref(cpus);
	}
	(void)tracedir;
	json_t *ovni = json_pack("{s:s, s:I, s:I, s:s, s:{s:s}, s:{s:s, s:s}, s:i}", "part", "thread", "tid",
				 (json_int_t)tid, "pid", (json_int_t)pid, "loom",
				 strncmp(loomname, "loom.", 5) ? loomname : loomname + 5, "require", "ovni", "1.0.0", "lib",
				 "version", "ovni trace format v1 (read by ovni-auto)", "commit", "unknown", "finished", 1);
	json_t *v = json_object_get(pm, "app_id");
	if (json_is_integer(v))
		json_object_set(ovni, "app_id", v);
	if (json_is_integer(v = json_object_get(pm, "rank")))
		json_object_set(ovni, "rank", v);
	if (json_is_integer(v = json_object_get(pm, "nranks")))
		json_object_set(ovni, "nranks", v);
	if (cpus)
		json_object_set_new(ovni, "loom_cpus", cpus);
	json_decref(pm);
	if (!ovni) {
		snprintf(err, errlen, "cannot build the metadata of %s", s->obs);
		return NULL;
	}
	return json_pack("{s:i, s:o}", "version", 3, "ovni", ovni);
}

static void load_stream(struct rd_stream *s)
{
	char path[4200];
	json_error_t jerr;
	if (s->header == 0) {
		s->meta = v1_meta(s, NULL, s->meta_error, sizeof(s->meta_error));
	} else {
		snprintf(path, sizeof(path), "%s/stream.json", s->dir);
		s->meta = json_load_file(path, JSON_ALLOW_NUL, &jerr);
		if (!s->meta)
			snprintf(s->meta_error, sizeof(s->meta_error), "line %d: %s", jerr.line, jerr.text);
	}
	s->version = int_or(s->meta, "version", -1);
	s->part = str_or_null(s->meta, "ovni.part");
	s->loom = str_or_null(s->meta, "ovni.loom");
	s->tid = int_or(s->meta, "ovni.tid", -1);
	s->pid = int_or(s->meta, "ovni.pid", -1);
	s->app_id = int_or(s->meta, "ovni.app_id", -1);
	s->rank = int_or(s->meta, "ovni.rank", -1);
	s->nranks = int_or(s->meta, "ovni.nranks", -1);
	s->finished = int_or(s->meta, "ovni.finished", -1);

	int fd = open(s->obs, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		s->map_error = errno;
		if (fd >= 0)
			close(fd);
		return;
	}
	s->size = (size_t)st.st_size;
	if (s->size) {
		void *m = mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			s->map_error = errno;
			s->size = 0;
		} else {
			s->data = m;
			madvise(m, s->size, MADV_SEQUENTIAL);
		}
	}
	close(fd);
	rd_rewind(s);
}

void rd_rewind(struct rd_stream *s)
{
	s->bad = 0;
	s->error[0] = '\0';
	s->off = s->header;
	s->dropped = 0;
	if (s->header == 0) {
		if (s->map_error) {
			s->bad = 1;
			snprintf(s->error, sizeof(s->error), "cannot read %s: %s", s->obs, strerror(s->map_error));
		}
		return;
	}
	if (s->map_error) {
		s->bad = 1;
		snprintf(s->error, sizeof(s->error), "cannot read stream.obs: %s", strerror(s->map_error));
	} else if (s->size == 0) {
		s->bad = 1;
		snprintf(s->error, sizeof(s->error), "stream.obs is empty");
	} else if (s->size < OVNI_HEADER_SIZE || memcmp(s->data, OVNI_STREAM_MAGIC, 4)) {
		s->bad = 1;
		snprintf(s->error, sizeof(s->error), "offset 0: wrong stream magic '%.4s' (expected 'ovni')",
			 s->size >= 4 ? (const char *)s->data : "");
	} else if (rd_u32(s->data + 4) != OVNI_STREAM_VERSION) {
		s->bad = 1;
		snprintf(s->error, sizeof(s->error), "offset 4: stream version mismatch %u (expected %u)",
			 rd_u32(s->data + 4), OVNI_STREAM_VERSION);
	}
}

/* clock-offsets.txt: a header line, then "index hostname median mean stdev". */
static void load_offsets(struct rd_trace *t)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/clock-offsets.txt", t->dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[1024];
	int lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		if (lineno++ == 0)
			continue;
		char host[512];
		double median;
		int idx;
		if (sscanf(line, "%d %511s %lf", &idx, host, &median) != 3)
			continue;
		t->offsets_loaded = 1;
		size_t hl = strlen(host);
		for (int i = 0; i < t->n; i++) {
			const char *loom = t->streams[i].loom;
			if (loom && !strncmp(loom, host, hl) && (loom[hl] == '.' || loom[hl] == '\0'))
				t->streams[i].offset = (int64_t)median;
		}
	}
	fclose(f);
}

int rd_open(struct rd_trace *t, const char *path, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, stat(path, &st) ? strerror(errno) : "not a directory");
		return -1;
	}
	t->dir = strdup(path);
	for (want_v1 = 0; want_v1 < 2; want_v1++) {
		found = NULL;
		nfound = capfound = 0;
		if (nftw(path, collect, 32, FTW_PHYS) != 0) {
			snprintf(err, errlen, "%s: cannot walk the directory", path);
			return -1;
		}
		if (nfound)
			break;
		free(found);
	}
	if (!nfound) {
		snprintf(err, errlen, "%s: no stream (no stream.json, nor v1 metadata.json and thread.* files, below it)",
			 path);
		return -1;
	}
	t->v1 = want_v1 == 1;
	qsort(found, (size_t)nfound, sizeof(*found), by_path);
	t->streams = calloc((size_t)nfound, sizeof(*t->streams));
	t->n = nfound;
	size_t plen = strlen(path);
	for (int i = 0; i < nfound; i++) {
		struct rd_stream *s = &t->streams[i];
		s->index = i;
		s->dir = found[i];
		s->header = t->v1 ? 0 : OVNI_HEADER_SIZE;
		if (t->v1) {
			s->obs = strdup(found[i]);
		} else {
			char obs[4200];
			snprintf(obs, sizeof(obs), "%s/stream.obs", found[i]);
			s->obs = strdup(obs);
		}
		const char *rel = found[i] + plen;
		while (*rel == '/')
			rel++;
		s->relpath = strdup(*rel ? rel : ".");
		load_stream(s);
	}
	free(found);
	load_offsets(t);
	return 0;
}

void rd_close(struct rd_trace *t)
{
	for (int i = 0; i < t->n; i++) {
		struct rd_stream *s = &t->streams[i];
		if (s->data)
			munmap((void *)s->data, s->size);
		json_decref(s->meta);
		free(s->obs);
		free(s->dir);
		free(s->relpath);
	}
	free(t->streams);
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

int rd_next(struct rd_stream *s, struct rd_event *ev)
{
	if (s->bad)
		return -1;
	size_t off = s->off;
	if (off == s->size)
		return 0;
	if (s->size - off < OVNI_EV_HEADER_SIZE)
		goto torn;
	const uint8_t *p = s->data + off;
	ev->flags = p[0];
	ev->mcv[0] = (char)p[1];
	ev->mcv[1] = (char)p[2];
	ev->mcv[2] = (char)p[3];
	ev->mcv[3] = '\0';
	ev->clock = rd_u64(p + 4);
	ev->time = rd_add((int64_t)ev->clock, s->offset);
	ev->offset = off;
	ev->jumbo = ovni_flags_is_jumbo(p[0]);
	size_t size;
	if (ev->flags & 0xe0) {
		snprintf(s->error, sizeof(s->error), "offset %zu: reserved flag bits set (0x%02x)", off, ev->flags);
		s->bad = 1;
		return -1;
	}
	if (ev->jumbo) {
		if ((ev->flags & 0x0f) != 3) {
			snprintf(s->error, sizeof(s->error), "offset %zu: jumbo event with flags 0x%02x", off, ev->flags);
			s->bad = 1;
			return -1;
		}
		if (s->size - off < OVNI_EV_HEADER_SIZE + 4)
			goto torn;
		ev->size = rd_u32(p + OVNI_EV_HEADER_SIZE);
		ev->payload = p + OVNI_EV_HEADER_SIZE + 4;
		size = OVNI_EV_HEADER_SIZE + 4 + (size_t)ev->size;
	} else {
		ev->size = ovni_flags_payload_size(ev->flags);
		ev->payload = p + OVNI_EV_HEADER_SIZE;
		size = OVNI_EV_HEADER_SIZE + ev->size;
	}
	if (size > s->size - off)
		goto torn;
	if (!ev->mcv[0] || !ev->mcv[1] || !ev->mcv[2]) {
		snprintf(s->error, sizeof(s->error), "offset %zu: not an event (MCV bytes %02x %02x %02x)", off,
			 p[1], p[2], p[3]);
		s->bad = 1;
		return -1;
	}
	s->off = off + size;
	/* Memory stays bounded on huge traces: give back what is behind us
	 * (the pages stay in the page cache if read again). */
	if (s->off - s->dropped > (64u << 20)) {
		size_t upto = (s->off - (16u << 20)) & ~(size_t)0xfffff;
		if (upto > s->dropped) {
			madvise((void *)(s->data + s->dropped), upto - s->dropped, MADV_DONTNEED);
			s->dropped = upto;
		}
	}
	return 1;
torn:
	snprintf(s->error, sizeof(s->error), "offset %zu: stream ends with incomplete event (%zu bytes left)", off,
		 s->size - off);
	s->bad = 1;
	return -1;
}

/* Merged walk: a binary min-heap of streams keyed on their next event. */
struct rd_merge {
	struct rd_trace *t;
	int n;
	int *heap;             /* stream indices */
	struct rd_event *next; /* per stream */
};

static int less(struct rd_merge *m, int a, int b)
{
	int64_t x = m->next[a].time, y = m->next[b].time;
	return x < y || (x == y && a < b);
}

static void sift_down(struct rd_merge *m, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, s = i;
		if (l < m->n && less(m, m->heap[l], m->heap[s]))
			s = l;
		if (r < m->n && less(m, m->heap[r], m->heap[s]))
			s = r;
		if (s == i)
			return;
		int tmp = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = tmp;
		i = s;
	}
}

struct rd_merge *rd_merge_new(struct rd_trace *t)
{
	struct rd_merge *m = calloc(1, sizeof(*m));
	m->t = t;
	m->heap = calloc((size_t)t->n, sizeof(int));
	m->next = calloc((size_t)t->n, sizeof(struct rd_event));
	for (int i = 0; i < t->n; i++) {
		rd_rewind(&t->streams[i]);
		if (rd_next(&t->streams[i], &m->next[i]) == 1)
			m->heap[m->n++] = i;
	}
	for (int i = m->n / 2 - 1; i >= 0; i--)
		sift_down(m, i);
	return m;
}

int rd_merge_next(struct rd_merge *m, struct rd_stream **s, struct rd_event *ev)
{
	if (!m->n)
		return 0;
	int i = m->heap[0];
	*s = &m->t->streams[i];
	*ev = m->next[i];
	if (rd_next(*s, &m->next[i]) != 1)
		m->heap[0] = m->heap[--m->n];
	sift_down(m, 0);
	return 1;
}

void rd_merge_free(struct rd_merge *m)
{
	if (!m)
		return;
	free(m->heap);
	free(m->next);
	free(m);
}

void rd_open_or_die(struct rd_trace *t, const char *path)
{
	char msg[512];
	if (rd_open(t, path, msg, sizeof(msg)) != 0)
		die("%s", msg);
}

int rd_report_damage(struct rd_trace *t)
{
	int bad = 0;
	for (int i = 0; i < t->n; i++) {
		if (t->streams[i].bad) {
			err("%s: %s", t->streams[i].relpath, t->streams[i].error);
			bad = 1;
		}
	}
	return bad;
}
