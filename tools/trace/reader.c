/* reader.c: the shared trace reader (see reader.h): stream discovery,
 * stream.json loading, clock offsets, event framing with bounds checks, and
 * the merged walk in clock order. */
#include "reader.h"
#include "../../writer/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/log.h"
#include "../../writer/ovni_fmt.h"

/* Pages of a stream behind the walk are given back once it has read this
 * much past the last drop: 256 MiB shared by the streams of the trace, at
 * least 4 MiB and at most 64 MiB each, so the mapped pages of a whole walk
 * stay near 256 MiB whatever the trace size (and 4 MiB per stream). */
#define RD_MAPPED_TOTAL (256ull << 20)
#define RD_WINDOW_MIN (4u << 20)
#define RD_WINDOW_MAX (64u << 20)
#define RD_COPY_MAX (64u * 1024u) /* streams up to this size are read, not mapped */
#define RD_FLAGS_RESERVED 0xe0u   /* flag bits above the jumbo bit */

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

int rd_json_int(json_t *root, const char *path, long long *out)
{
	json_t *v = rd_json_path(root, path);
	if (json_is_integer(v)) {
		*out = (long long)json_integer_value(v);
		return 1;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (d == floor(d) && d >= -9.2e18 && d <= 9.2e18) {
			*out = (long long)d;
			return 1;
		}
	}
	return 0;
}

static long long int_or(json_t *root, const char *path, long long def)
{
	long long v;
	return rd_json_int(root, path, &v) ? v : def;
}

static const char *str_or_null(json_t *root, const char *path)
{
	json_t *v = rd_json_path(root, path);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The emulator's JSON parser accepts comments; jansson does not. Blank them
 * out (outside strings, keeping newlines so line numbers stay) and retry. */
static json_t *load_json_with_comments(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[8192];
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n > cap) {
			cap = (len + n) * 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	int in_str = 0, changed = 0;
	for (size_t i = 0; i < len; i++) {
		if (in_str) {
			if (buf[i] == '\\')
				i++;
			else if (buf[i] == '"')
				in_str = 0;
		} else if (buf[i] == '"') {
			in_str = 1;
		} else if (buf[i] == '/' && i + 1 < len && buf[i + 1] == '/') {
			for (; i < len && buf[i] != '\n'; i++)
				buf[i] = ' ';
			changed = 1;
		} else if (buf[i] == '/' && i + 1 < len && buf[i + 1] == '*') {
			size_t j = i + 2;
			while (j < len && !(buf[j] == '*' && j + 1 < len && buf[j + 1] == '/'))
				j++;
			size_t end = j + 2 < len ? j + 2 : len; /* past the closing mark */
			for (size_t k = i; k < end; k++)
				if (buf[k] != '\n')
					buf[k] = ' ';
			i = end - 1;
			changed = 1;
		}
	}
	json_t *root = changed ? json_loadb(buf, len, JSON_ALLOW_NUL, NULL) : NULL;
	free(buf);
	return root;
}

/* Collected by nftw (which takes no user pointer). */
static char **found;
static int nfound, capfound;

static int want_v1; /* collect v1 thread files instead of stream.json dirs */
static int nspools;
static char first_spool[4200];

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
		/* The run's spool counts only with a stream in it (a process
		 * of the run that still runs, or ovnirun was killed). */
		if (!strcmp(base + 1, OA_RUN_SPOOL_NAME)) {
			char dir[4200];
			snprintf(dir, sizeof(dir), "%.*s", (int)(base - path), path);
			if (oa_run_unpack_file(dir, 0, NULL) == 0)
				return 0;
		}
		if (oa_spool_name(base + 1) && !nspools++)
			snprintf(first_spool, sizeof(first_spool), "%s", path);
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
static json_t *v1_meta(struct rd_stream *s, char *err, size_t errlen)
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
	long long tid = strtoll(tname + 7, NULL, 10),
		  pid = strncmp(procname, "proc.", 5) ? -1 : strtoll(procname + 5, NULL, 10);
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
	json_t *ovni =
		json_pack("{s:s, s:I, s:I, s:s, s:{s:s}, s:{s:s, s:s}, s:i}", "part", "thread", "tid", (json_int_t)tid,
			  "pid", (json_int_t)pid, "loom", strncmp(loomname, "loom.", 5) ? loomname : loomname + 5,
			  "require", "ovni", "1.0.0", "lib", "version", "ovni trace format v1 (read by ovni-auto)",
			  "commit", "unknown", "finished", 1);
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
		s->meta = v1_meta(s, s->meta_error, sizeof(s->meta_error));
	} else {
		snprintf(path, sizeof(path), "%s/stream.json", s->dir);
		/* Strict first, as the emulator's reader is; a key given twice
		 * is noted (check reports it) and the file read again. */
		s->meta = json_load_file(path, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &jerr);
		if (!s->meta && strstr(jerr.text, "duplicate")) {
			snprintf(s->meta_dup, sizeof(s->meta_dup), "stream.json line %d: %s", jerr.line, jerr.text);
			s->meta = json_load_file(path, JSON_ALLOW_NUL, &jerr);
		}
		if (!s->meta)
			s->meta = load_json_with_comments(path);
		if (!s->meta)
			snprintf(s->meta_error, sizeof(s->meta_error), "stream.json line %d: %s", jerr.line, jerr.text);
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
	s->lib_version = str_or_null(s->meta, "ovni.lib.version");
	s->lib_commit = str_or_null(s->meta, "ovni.lib.commit");
	json_t *v = rd_json_path(s->meta, "ovni.require");
	s->require = json_is_object(v) ? v : NULL;
	v = rd_json_path(s->meta, "ovni.loom_cpus");
	s->loom_cpus = json_is_array(v) ? v : NULL;
	v = rd_json_path(s->meta, "ovni.mark");
	s->marks = json_is_object(v) ? v : NULL;

	int fd = open(s->obs, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		s->map_error = errno;
		if (fd >= 0)
			close(fd);
		rd_rewind(s);
		return;
	}
	s->size = S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
	if (!S_ISREG(st.st_mode))
		s->map_error = EINVAL;
	if (s->size && s->size <= RD_COPY_MAX) {
		uint8_t *buf = malloc(s->size);
		size_t got = 0;
		while (buf && got < s->size) {
			ssize_t r = pread(fd, buf + got, s->size - got, (off_t)got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		if (!buf || got != s->size) {
			s->map_error = buf ? EIO : ENOMEM;
			s->size = 0;
			free(buf);
		} else {
			s->data = buf;
			s->copied = 1;
		}
	} else if (s->size) {
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

static void set_bad(struct rd_stream *s, size_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_bad(struct rd_stream *s, size_t off, const char *fmt, ...)
{
	int n = snprintf(s->error, sizeof(s->error), "offset %zu: ", off);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->error + n, sizeof(s->error) - (size_t)n, fmt, ap);
	va_end(ap);
	s->bad = 1;
	s->bad_offset = off;
}

void rd_rewind(struct rd_stream *s)
{
	s->bad = 0;
	s->bad_offset = 0;
	s->error[0] = '\0';
	s->off = s->header;
	s->dropped = 0;
	if (s->map_error) {
		set_bad(s, 0, "cannot read %s: %s", s->header ? "stream.obs" : s->obs, strerror(s->map_error));
	} else if (s->header == 0) {
		return; /* v1 thread files have no header */
	} else if (s->size == 0) {
		set_bad(s, 0, "stream is empty (stream.obs has 0 bytes)");
	} else if (s->size < 4 || memcmp(s->data, OVNI_STREAM_MAGIC, 4)) {
		char magic[5] = { 0 };
		for (size_t i = 0; i < 4 && i < s->size; i++)
			magic[i] = s->data[i] >= 32 && s->data[i] < 127 ? (char)s->data[i] : '?';
		set_bad(s, 0, "wrong stream magic '%s' (expected '%s')", magic, OVNI_STREAM_MAGIC);
	} else if (s->size < OVNI_HEADER_SIZE) {
		set_bad(s, 4, "stream header cut short (%zu of %u bytes)", s->size, OVNI_HEADER_SIZE);
	} else if (rd_u32(s->data + 4) != OVNI_STREAM_VERSION) {
		set_bad(s, 4, "stream version mismatch %u (expected %u)", rd_u32(s->data + 4), OVNI_STREAM_VERSION);
	}
}

static int cut_short(struct rd_stream *s, size_t off)
{
	set_bad(s, off, "stream ends with incomplete event (%zu bytes left)", s->size - off);
	return -1;
}

int rd_next(struct rd_stream *s, struct rd_event *ev)
{
	if (__builtin_expect(s->bad, 0))
		return -1;
	size_t off = s->off, left = s->size - off;
	if (!left)
		return 0;
	if (__builtin_expect(left < OVNI_EV_HEADER_SIZE, 0))
		return cut_short(s, off);
	const uint8_t *p = s->data + off;
	uint8_t flags = p[0];
	ev->flags = flags;
	ev->mcv[0] = (char)p[1];
	ev->mcv[1] = (char)p[2];
	ev->mcv[2] = (char)p[3];
	ev->mcv[3] = '\0';
	ev->clock = rd_u64(p + 4);
	ev->time = rd_add((int64_t)ev->clock, s->offset);
	ev->offset = off;
	size_t size;
	if (__builtin_expect(flags & 0xf0, 0)) { /* jumbo, or reserved bits */
		if (flags & RD_FLAGS_RESERVED) {
			set_bad(s, off, "reserved flag bits set (flags 0x%02x)", flags);
			return -1;
		}
		if ((flags & 0x0f) != 3) {
			set_bad(s, off, "jumbo event with flags 0x%02x (expected 0x%02x)", flags, OVNI_JUMBO_FLAGS);
			return -1;
		}
		if (left < OVNI_EV_HEADER_SIZE + 4)
			return cut_short(s, off);
		ev->jumbo = 1;
		ev->size = rd_u32(p + OVNI_EV_HEADER_SIZE);
		ev->payload = p + OVNI_EV_HEADER_SIZE + 4;
		size = OVNI_EV_HEADER_SIZE + 4 + (size_t)ev->size;
	} else {
		ev->jumbo = 0;
		ev->size = ovni_flags_payload_size(flags);
		ev->payload = p + OVNI_EV_HEADER_SIZE;
		size = OVNI_EV_HEADER_SIZE + ev->size;
	}
	if (__builtin_expect(size > left, 0))
		return cut_short(s, off);
	if (__builtin_expect(!p[1] || !p[2] || !p[3], 0)) {
		set_bad(s, off, "not an event (MCV bytes %02x %02x %02x)", p[1], p[2], p[3]);
		return -1;
	}
	s->off = off + size;
	/* Memory stays bounded on huge traces: give back what is behind us
	 * (the pages stay in the page cache if read again). */
	if (__builtin_expect(s->off - s->dropped > s->window, 0) && !s->copied) {
		size_t upto = (s->off - s->window / 4) & ~(size_t)0xfffff;
		if (upto > s->dropped) {
			madvise((void *)(s->data + s->dropped), upto - s->dropped, MADV_DONTNEED);
			s->dropped = upto;
		}
	}
	return 1;
}

/* The hostname of a loom: its name up to the first '.'. */
static int loom_host_is(const char *loom, const char *host)
{
	size_t hl = strcspn(loom, ".");
	return strlen(host) == hl && !strncmp(loom, host, hl);
}

int rd_load_offsets(struct rd_trace *t, const char *file)
{
	t->offsets_error[0] = '\0';
	t->noffsets = 0;
	for (int i = 0; i < t->n; i++)
		t->streams[i].offset = 0;
	FILE *f = fopen(file, "r");
	if (!f) {
		snprintf(t->offsets_error, sizeof(t->offsets_error), "%s: cannot open: %s", file, strerror(errno));
		return -1;
	}
	t->offsets_loaded = 1;
	char line[1024];
	int lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		if (lineno++ == 0)
			continue; /* the header */
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		char host[512], extra;
		double median, mean, stdev;
		long long idx;
		int n = sscanf(line, "%lld %511s %lf %lf %lf %c", &idx, host, &median, &mean, &stdev, &extra);
		if (n != 5 || !isfinite(median) || fabs(median) > 9.2e18) {
			snprintf(t->offsets_error, sizeof(t->offsets_error),
				 "%s line %d: expected 'index hostname median mean stdev'", file, lineno);
			continue;
		}
		t->noffsets++;
		int matched = 0;
		for (int i = 0; i < t->n; i++) {
			const char *loom = t->streams[i].loom;
			if (loom && loom_host_is(loom, host)) {
				t->streams[i].offset = (int64_t)median;
				matched = 1;
			}
		}
		if (!matched)
			snprintf(t->offsets_error, sizeof(t->offsets_error),
				 "%s line %d: cannot find loom with hostname '%s'", file, lineno, host);
	}
	fclose(f);
	if (!t->noffsets && !t->offsets_error[0])
		snprintf(t->offsets_error, sizeof(t->offsets_error), "%s: no entries", file);
	return t->offsets_error[0] ? -1 : 0;
}

int rd_open(struct rd_trace *t, const char *path, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory (give a trace or a stream directory)", path);
		return -1;
	}
	int spools_v3 = 0; /* the v3 walk's count (the v1 walk looks at no spool) */
	for (want_v1 = 0; want_v1 < 2; want_v1++) {
		found = NULL;
		if (want_v1)
			spools_v3 = nspools;
		nfound = capfound = nspools = 0;
		if (nftw(path, collect, 32, FTW_PHYS) != 0) {
			for (int i = 0; i < nfound; i++)
				free(found[i]);
			free(found);
			snprintf(err, errlen, "%s: cannot walk the directory", path);
			return -1;
		}
		if (nfound)
			break;
		free(found);
	}
	if (!nfound) {
		/* Every stream still in a spool (ovnirun killed with its
		 * program: `timeout -k`): what would write them out. */
		if (spools_v3)
			snprintf(err, errlen,
				 "%s: no stream written out yet: %d spool file(s) hold them (the processes still run, "
				 "or "
				 "ended without their agent and nobody finished them: ovnirun killed?); `ovni-auto "
				 "repair %s` writes them",
				 path, spools_v3, path);
		else
			snprintf(err, errlen,
				 "%s: no stream (no stream.json, nor v1 metadata.json and thread.* files, below it)",
				 path);
		return -1;
	}
	t->dir = strdup(path);
	t->v1 = want_v1 == 1;
	t->nspools = nspools;
	t->spool[0] = '\0';
	if (nspools) {
		size_t pl = strlen(path);
		const char *rel =
			strncmp(first_spool, path, pl) ? first_spool : first_spool + pl + (first_spool[pl] == '/');
		snprintf(t->spool, sizeof(t->spool), "%s", rel);
	}
	size_t window = (size_t)(RD_MAPPED_TOTAL / (unsigned)nfound);
	window = window < RD_WINDOW_MIN ? RD_WINDOW_MIN : window > RD_WINDOW_MAX ? RD_WINDOW_MAX : window;
	qsort(found, (size_t)nfound, sizeof(*found), by_path);
	t->streams = calloc((size_t)nfound, sizeof(*t->streams));
	t->n = nfound;
	size_t plen = strlen(path);
	for (int i = 0; i < nfound; i++) {
		struct rd_stream *s = &t->streams[i];
		s->index = i;
		s->window = window;
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
	found = NULL;
	char file[4200];
	snprintf(file, sizeof(file), "%s/clock-offsets.txt", path);
	if (access(file, F_OK) == 0)
		rd_load_offsets(t, file);
	return 0;
}

void rd_close(struct rd_trace *t)
{
	for (int i = 0; i < t->n; i++) {
		struct rd_stream *s = &t->streams[i];
		if (s->data && s->copied)
			free((void *)s->data);
		else if (s->data)
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

/* Merged walk: a binary min-heap of streams keyed on their next event's
 * time, then on the stream index. */
struct rd_merge {
	struct rd_trace *t;
	int n;
	int *heap;             /* stream indices */
	struct rd_event *next; /* per stream */
};

static inline int before(const struct rd_merge *m, int a, int b)
{
	int64_t x = m->next[a].time, y = m->next[b].time;
	return x < y || (x == y && a < b);
}

static void sift_down(struct rd_merge *m, int i)
{
	int *h = m->heap, n = m->n, top = h[i];
	for (;;) {
		int l = 2 * i + 1, r = l + 1, c = l;
		if (l >= n)
			break;
		if (r < n && before(m, h[r], h[l]))
			c = r;
		if (!before(m, h[c], top))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = top;
}

struct rd_merge *rd_merge_new(struct rd_trace *t)
{
	struct rd_merge *m = calloc(1, sizeof(*m));
	m->t = t;
	m->heap = calloc((size_t)t->n + 1, sizeof(int));
	m->next = calloc((size_t)t->n + 1, sizeof(struct rd_event));
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
	if (rd_next(*s, &m->next[i]) != 1) {
		m->heap[0] = m->heap[--m->n];
		if (!m->n)
			return 1;
	}
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
	char msg[600];
	if (rd_open(t, path, msg, sizeof(msg)) != 0)
		die("%s", msg);
	if (t->nspools)
		err("%s: %d spool file(s) (%s...): streams not written out yet are missing here (their process "
		    "still runs, or ended without its agent and nobody finished it: ovnirun killed?); `ovni-auto "
		    "repair %s` writes them",
		    path, t->nspools, t->spool, path);
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
