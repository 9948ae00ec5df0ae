/* tracewrite.h: the test-only trace writer of test_check.c (header only):
 * traces described as text lines, written as stream directories. */
#ifndef OA_TEST_TRACEWRITE_H
#define OA_TEST_TRACEWRITE_H

#include <jansson.h>
#include <sys/stat.h>

#include "test.h"

/* A trace is a list of text lines:
 *   S RELDIR TID PID LOOM   start a stream with the default metadata
 *   K PATH JSON             set a dotted metadata key of the current stream
 *   D PATH                  delete a dotted metadata key
 *   E MCV CLOCK FIELD...    an event; FIELD is i32:N u32:N i64:N u64:N str:TEXT
 *   J MCV CLOCK FIELD...    the same as a jumbo event
 *   R HEX                   raw bytes appended to stream.obs
 *   H HEX                   the 8-byte header replaced
 *   T N                     stream.obs cut to N bytes (N < 0: -N bytes shorter)
 *   F NAME TEXT             a file at the trace top ('|' is a newline)
 * Every line remembers the stream and byte offset it was written at. */

#define MAXLINES 2048

struct trace {
	char *line[MAXLINES];
	int n;
	char rel[MAXLINES][128]; /* per line: its stream */
	size_t off[MAXLINES];    /* per line: its offset in stream.obs */
};

static json_t *default_meta(long tid, long pid, const char *loom)
{
	return json_pack("{s:i, s:{s:s, s:I, s:I, s:s, s:i, s:[{s:i, s:i}, {s:i, s:i}], s:{s:s, s:s}, s:{s:s, s:s},"
			 " s:i, s:{s:{s:s, s:s, s:{s:s}}, s:{s:s, s:s}}}}",
			 "version", 3, "ovni", "part", "thread", "tid", (json_int_t)tid, "pid", (json_int_t)pid, "loom",
			 loom, "app_id", 1, "loom_cpus", "index", 0, "phyid", 0, "index", 1, "phyid", 1, "require",
			 "ovni", "1.1.0", "openmp", "1.2.1", "lib", "version", "test", "commit", "test", "finished", 1,
			 "mark", "5", "title", "Phase", "chan_type", "stack", "labels", "1", "one", "6", "title",
			 "Single", "chan_type", "single");
}

static void json_set_path(json_t *root, const char *path, json_t *value)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	json_t *cur = root;
	char *dot;
	char *key = buf;
	while ((dot = strchr(key, '.'))) {
		*dot = '\0';
		json_t *next = json_object_get(cur, key);
		if (!json_is_object(next)) {
			next = json_object();
			json_object_set_new(cur, key, next);
		}
		cur = next;
		key = dot + 1;
	}
	if (value)
		json_object_set_new(cur, key, value);
	else
		json_object_del(cur, key);
}

static void mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

struct obsbuf {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct obsbuf *o, const void *p, size_t n)
{
	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2 + 256;
		o->b = realloc(o->b, o->cap);
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void hexbytes(struct obsbuf *o, const char *h)
{
	for (; h[0] && h[1]; h += 2) {
		unsigned v;
		sscanf(h, "%2x", &v);
		uint8_t b = (uint8_t)v;
		put(o, &b, 1);
	}
}

static size_t field(const char *f, uint8_t *out)
{
	if (!strncmp(f, "i32:", 4) || !strncmp(f, "u32:", 4)) {
		uint32_t v = (uint32_t)strtoll(f + 4, NULL, 0);
		memcpy(out, &v, 4);
		return 4;
	}
	if (!strncmp(f, "i64:", 4) || !strncmp(f, "u64:", 4)) {
		uint64_t v = f[0] == 'i' ? (uint64_t)strtoll(f + 4, NULL, 0) : strtoull(f + 4, NULL, 0);
		memcpy(out, &v, 8);
		return 8;
	}
	if (!strncmp(f, "str:", 4)) {
		size_t n = strlen(f + 4) + 1;
		memcpy(out, f + 4, n);
		return n;
	}
	fprintf(stderr, "test writer: bad field %s\n", f);
	exit(2);
}

static void write_text_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	for (const char *p = text; *p; p++)
		fputc(*p == '|' ? '\n' : *p, f);
	fclose(f);
}

static void flush_stream(const char *dir, json_t **meta, struct obsbuf *o)
{
	if (!*meta)
		return;
	char path[4200];
	snprintf(path, sizeof(path), "%s/stream.json", dir);
	json_dump_file(*meta, path, JSON_INDENT(1));
	json_decref(*meta);
	*meta = NULL;
	snprintf(path, sizeof(path), "%s/stream.obs", dir);
	FILE *f = fopen(path, "w");
	fwrite(o->b, 1, o->n, f);
	fclose(f);
	o->n = 0;
}

/* Writes the trace into root (which must not exist yet). */
static void write_trace(struct trace *t, const char *root)
{
	mkdirs(root);
	char dir[4096] = "", rel[128] = "";
	json_t *meta = NULL;
	struct obsbuf o = { 0 };
	for (int i = 0; i < t->n; i++) {
		char line[8192];
		snprintf(line, sizeof(line), "%s", t->line[i]);
		char *save, *w = strtok_r(line, " ", &save);
		if (!strcmp(w, "S")) {
			flush_stream(dir, &meta, &o);
			snprintf(rel, sizeof(rel), "%s", strtok_r(NULL, " ", &save));
			long tid = atol(strtok_r(NULL, " ", &save)), pid = atol(strtok_r(NULL, " ", &save));
			meta = default_meta(tid, pid, strtok_r(NULL, " ", &save));
			snprintf(dir, sizeof(dir), "%s/%s", root, rel);
			mkdirs(dir);
			put(&o, "ovni\1\0\0\0", 8);
		}
		snprintf(t->rel[i], sizeof(t->rel[i]), "%s", rel);
		t->off[i] = o.n;
		if (!strcmp(w, "K")) {
			char *path = strtok_r(NULL, " ", &save);
			json_set_path(meta, path, json_loads(save, JSON_DECODE_ANY, NULL));
		} else if (!strcmp(w, "D")) {
			json_set_path(meta, strtok_r(NULL, " ", &save), NULL);
		} else if (!strcmp(w, "E") || !strcmp(w, "J")) {
			const char *mcv = strtok_r(NULL, " ", &save);
			uint64_t clock = strtoull(strtok_r(NULL, " ", &save), NULL, 0);
			uint8_t payload[4096];
			size_t n = 0;
			char *f;
			while ((f = strtok_r(NULL, " ", &save)))
				n += field(f, payload + n);
			uint8_t flags = w[0] == 'J' ? OVNI_JUMBO_FLAGS : ovni_flags_for_payload((unsigned)n);
			put(&o, &flags, 1);
			put(&o, mcv, 3);
			put(&o, &clock, 8);
			if (w[0] == 'J') {
				uint32_t len = (uint32_t)n;
				put(&o, &len, 4);
			}
			put(&o, payload, n);
		} else if (!strcmp(w, "R")) {
			hexbytes(&o, strtok_r(NULL, " ", &save));
		} else if (!strcmp(w, "H")) {
			size_t keep = o.n;
			o.n = 0;
			hexbytes(&o, strtok_r(NULL, " ", &save));
			o.n = keep;
		} else if (!strcmp(w, "T")) {
			long cut = atol(strtok_r(NULL, " ", &save)); /* < 0: from the end */
			if (cut < 0 && (size_t)-cut <= o.n)
				o.n -= (size_t)-cut;
			else if (cut >= 0 && (size_t)cut < o.n)
				o.n = (size_t)cut;
		} else if (!strcmp(w, "F")) {
			char path[4200];
			char *name = strtok_r(NULL, " ", &save);
			snprintf(path, sizeof(path), "%s/%s", root, name);
			write_text_file(path, save);
		} else if (strcmp(w, "S")) {
			fprintf(stderr, "test writer: bad line '%s'\n", t->line[i]);
			exit(2);
		}
	}
	flush_stream(dir, &meta, &o);
	free(o.b);
}

#endif
