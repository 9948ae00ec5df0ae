/* reader.h: the one trace reader every tool uses.  Finds the streams of a
 * trace (every directory with a stream.json), loads their metadata with
 * jansson, maps stream.obs read-only and walks its events with bounds checks;
 * a merged walk hands out the events of all streams in clock order (after
 * clock offsets), like the emulator does.  Memory stays bounded: streams are
 * mapped, never copied, and the pages behind the walk are given back. */
#ifndef OA_READER_H
#define OA_READER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct rd_event {
	uint8_t flags;
	char mcv[4];    /* NUL-terminated */
	uint64_t clock; /* raw, as stored */
	int64_t time;   /* clock + the stream's loom offset */
	const uint8_t *payload;
	uint32_t size; /* payload bytes (jumbo: data bytes after the u32) */
	int jumbo;
	size_t offset; /* of the event in stream.obs */
};

struct rd_stream {
	char *relpath; /* directory relative to the trace ("." for the trace itself) */
	char *dir;     /* full directory */
	json_t *meta;  /* stream.json, NULL if it could not be read */
	char meta_error[256];
	char meta_dup[256]; /* "" or where stream.json has a key twice (the emulator refuses it) */
	/* Metadata fields. Numbers are -1 when missing or not numbers (see
	 * rd_json_int to tell a real -1 apart); pointers NULL when missing or
	 * of the wrong type. All point into meta. */
	const char *part, *loom;
	long long tid, pid, app_id, rank, nranks, finished, version;
	const char *lib_version, *lib_commit;
	json_t *require;     /* ovni.require, an object */
	json_t *loom_cpus;   /* ovni.loom_cpus, an array */
	json_t *marks;       /* ovni.mark, an object */
	const uint8_t *data; /* stream.obs: mapped, or read into memory when small */
	size_t size;
	int copied;        /* data is a malloc'd copy (small streams: a trace of
			     * 100 000 streams would pass the kernel's limit of
			     * ~65 000 mappings per process) */
	int map_error;     /* errno of open/mmap, 0 if mapped */
	int64_t offset;    /* clock offset of its loom */
	size_t off;        /* next event */
	size_t dropped;    /* pages before this were released (MADV_DONTNEED) */
	size_t window;     /* bytes read past `dropped` before the next release */
	int bad;           /* reading stopped at a malformed event (or header) */
	size_t bad_offset; /* where, when bad */
	char error[256];   /* what, starting with "offset N: " */
	int index;         /* in the trace */
	size_t header;     /* 8 (v3 stream.obs) or 0 (v1 thread file) */
	char *obs;         /* the event file */
};

struct rd_trace {
	char *dir;
	struct rd_stream *streams;
	int n;
	int offsets_loaded;      /* a clock offset file was read (even with errors) */
	int noffsets;            /* its entries */
	char offsets_error[512]; /* "" or what was wrong with it */
	int v1;                  /* a format-v1 trace: metadata synthesised as v3 */
	int nspools;             /* spool files found (threads not written out yet) */
	char spool[512];         /* the first one, relative to dir */
};

/* Open a trace directory (or a single stream directory): streams sorted by
 * relative path, metadata loaded, stream.obs mapped and its header checked,
 * and <dir>/clock-offsets.txt applied when it exists. Format-v1 traces (a
 * metadata.json in each proc directory, thread.TID event files) are read
 * too: each thread file becomes a stream whose metadata is the v3
 * equivalent. Returns 0, or -1 with a message in err. */
int rd_open(struct rd_trace *t, const char *path, char *err, size_t errlen);
void rd_close(struct rd_trace *t);
/* The same for the commands: exits with the message when it fails. */
void rd_open_or_die(struct rd_trace *t, const char *path);
/* Report every stream whose reading stopped at damage ("STREAM: offset N:
 * what") on stderr. Returns 1 if there was any, else 0. */
int rd_report_damage(struct rd_trace *t);

/* Load a clock offset file ("index hostname median mean stdev" lines after a
 * header line) and set every stream's offset from its loom's hostname (the
 * loom name before its first '.'). Returns 0, or -1 with t->offsets_error
 * set (no entries, a bad line, or a hostname that matches no loom); the
 * offsets that could be applied stay applied. */
int rd_load_offsets(struct rd_trace *t, const char *file);

/* Next event of one stream: 1 read, 0 at the end, -1 malformed (s->error,
 * s->bad_offset). Never reads outside the mapping. */
int rd_next(struct rd_stream *s, struct rd_event *ev);
/* Start a stream over (also re-checks its header). */
void rd_rewind(struct rd_stream *s);

/* Merged walk over all streams in time order (time = clock + offset; ties go
 * to the stream that comes first in path order, so the order is
 * deterministic). Creating one rewinds every stream. */
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
/* A dotted key holding a number with an integral value (JSON integer, or a
 * real such as 3.0, as the emulator's parser reads every number as a
 * double): 1 and *out set, 0 if absent or not such a number. */
int rd_json_int(json_t *root, const char *path, long long *out);

#endif
