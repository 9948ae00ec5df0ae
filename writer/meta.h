/* meta.h: the stream.json metadata of a process's thread streams.
 * The process-wide part (loom, pid, app id, rank, CPUs, required models, mark
 * types and labels) is kept here; oa_meta_render() produces one thread's JSON
 * text with jansson.  Not async-signal-safe: render ahead of time. */
#ifndef OA_META_H
#define OA_META_H

#include <stdatomic.h>

#include "compiler.h"

struct json_t;

#define OA_REQUIRE_OPENMP 0x1u

struct oa_meta {
	int pid;
	int app_id;
	int rank, nranks; /* rank < 0: not set */
	char loom[256];
	int ncpus;
	int *phyids; /* loom CPU index i has OS CPU number phyids[i] */
	const char *lib_version, *lib_commit;
	_Atomic unsigned require; /* OA_REQUIRE_* */
	struct json_t *marks;     /* {"<type>": {title, chan_type, labels}} */
	_Atomic unsigned generation; /* bumped by every change: re-render when it moved */
	atomic_flag lock;
};

int oa_meta_init(struct oa_meta *m) USE_RET;
void oa_meta_fini(struct oa_meta *m);

/* Declare a mark channel type (stack or single) with a title. */
int oa_meta_mark_type(struct oa_meta *m, int type, int stack, const char *title);
/* Label a value of a mark type (a value keeps its first label). */
int oa_meta_mark_label(struct oa_meta *m, int type, long long value, const char *label);

/* Take over the mark types and labels of an existing stream.json (a stream
 * continued after exec keeps what the previous image recorded). */
int oa_meta_import_marks(struct oa_meta *m, const char *stream_json_path);

/* The largest labelled value of a mark type within [lo, hi), or lo - 1. */
long long oa_meta_max_label(struct oa_meta *m, int type, long long lo, long long hi);
/* How many labels of mark `type` with a value in [lo, hi) start with `prefix`. */
int oa_meta_count_labels(struct oa_meta *m, int type, long long lo, long long hi, const char *prefix);

/* JSON text for thread `tid` (malloc'd, NULL on error). */
char *oa_meta_render(struct oa_meta *m, int tid, int finished);

/* The text of a finished stream turned into the one of an open stream
 * ("finished": 0), in place. */
void oa_meta_unfinish(char *text);

#endif
