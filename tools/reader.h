/* reader.h: the one trace reader every tool uses.  Finds the streams of a
 * trace (every directory with a stream.json), loads their metadata with
 * jansson, maps stream.obs read-only and walks its events with bounds checks;
 * a merged walk hands out the events of all streams in clock order (after
 * clock offsets), like the emulator does.  Memory stays bounded: streams are
 * mapped, never copied. */
#ifndef OA_READER_H
#define OA_READER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct rd_event {
	uint8_t flags;
	char mcv[4];        /* NUL-terminated */
	uint64_t clock;     /* raw, as stored */
	int64_t time;       /* clock + the stream's loom offset */
	const uint8_t *payload;
	uint32_t size;      /* payload bytes (jumbo: data bytes after the u32) */
	int jumbo;
	size_t offset;      /* of the event in stream.obs */
};

struct rd_stream {
	char *relpath;      /* directory relative to the trace */
	char *dir;          /* full directory */
	json_t *meta;       /* stream.json, NULL if it could not be read */
	char meta_error[256];
	/* Metadata fields (-1 / NULL when missing or of the wrong type). */
	const char *part, *loom;
	long long tid, pid, app_id, rank, nranks, finished, version;
	const uint8_t *data; /* mapped stream.obs */
	size_t size;
	int map_error;      /* errno of open/mmap, 0 if mapped */
	int64_t offset;     /* clock offset of its loom */
	size_t off;         /* next event */
	size_t dropped;     /* pages before this were released (MADV_DONTNEED) */
	int bad;            /* reading stopped at a malformed event */
	char error[256];    /* what, with the offset */
	int index;          /* in the trace */
	size_t header;      /* 8 (v3 stream.obs) or 0 (v1 thread file) */
	char *obs;          /* the event file */
};

struct rd_trace {
	char *dir;
	struct rd_stream *streams;
	int n;
	int offsets_loaded;
	int v1;             /* a format-v1 trace: metadata synthesised as v3 */
};

/* Open a trace directory (or a single stream directory). Format-v1 traces
 * (a metadata.json in each proc directory, thread.TID event files) are read too: each thread
 * file becomes a stream whose metadata is the v3 equivalent. Returns 0, or
 * -1 with a message in err. */
int rd_open(struct rd_trace *t, const char *path, char *err, size_t errlen);
void rd_close(struct rd_trace *t);
/* The same for the commands: exits with the message when it fails. */
void rd_open_or_die(struct rd_trace *t, const char *path);
/* Report every stream whose reading stopped at damage (stream, offset,
 * what) on stderr. Returns 1 if there was any, else 0. */
int rd_report_damage(struct rd_trace *t);

/* Next event of one stream: 1 read, 0 at the end, -1 malformed (s->error). */
int rd_next(struct rd_stream *s, struct rd_event *ev);
/* Start a stream over. */
void rd_rewind(struct rd_stream *s);

/* Merged walk over all streams in time order (ties: stream order). */
struct rd_merge;
struct rd_merge *rd_merge_new(struct rd_trace *t);
/* 1 with *s and *ev set, 0 at the end. Malformed streams stop early (their
 * s->bad is set and s->error says why). */
int rd_merge_next(struct rd_merge *m, struct rd_stream **s, struct rd_event *ev);
void rd_merge_free(struct rd_merge *m);

/* Payload helpers (unaligned, native order). */
static inline int32_t rd_i32(const uint8_t *p)
{
	int32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}
static inline uint32_t rd_u32(const uint8_t *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}
static inline int64_t rd_i64(const uint8_t *p)
{
	int64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}
static inline uint64_t rd_u64(const uint8_t *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}

/* Time arithmetic on values that come from files: wraps instead of
 * overflowing (garbage clocks must not be undefined behaviour). */
static inline int64_t rd_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline int64_t rd_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* A dotted key of a JSON object ("ovni.lib.version"), NULL if absent. */
json_t *rd_json_path(json_t *root, const char *path);

#endif
