/* export.h: the back-ends of `ovni-auto export`. The driver (cmd_export.c)
 * walks the trace in time order and calls these for every track (a thread's
 * states, its OpenMP states, its tasks, each of its mark channels), slice,
 * flow and counter; a back-end streams them out in its own format. */
#ifndef OA_EXPORT_H
#define OA_EXPORT_H

#include <stdint.h>
#include <stdio.h>

/* The tracks of a thread: its state, its OpenMP states, its tasks, one per
 * mark channel, its MPI calls.  A track's uuid is (stream index + 1) << 8
 * | its kind. */
#define EX_TRACK_STATE 0
#define EX_TRACK_OPENMP 1
#define EX_TRACK_TASKS 2
#define EX_TRACK_MARK(type) (3 + (type)) /* mark types 0..99 */
#define EX_TRACK_MPI 103
#define EX_NTRACKS 104
#define EX_TRACK_KIND(uuid) ((int)((uuid)&0xff))
#define EX_TRACK_STREAM(uuid) ((int)((uuid) >> 8) - 1)

struct ex_track {
	uint64_t uuid; /* unique in the output */
	int pid, tid;  /* Chrome pid/tid (process index, synthetic thread id) */
	int real_pid, real_tid;
	int rank;                 /* of its process, -1 when none */
	const char *process_name; /* of its process */
	const char *name;         /* of the track */
	int sort;
};

struct ex_ops {
	void (*begin)(FILE *f);
	void (*track)(FILE *f, const struct ex_track *t);
	void (*counter_track)(FILE *f, uint64_t uuid, int pid, const char *process_name, const char *name);
	/* ts: nanoseconds from the start of the trace */
	void (*slice_begin)(FILE *f, const struct ex_track *t, int64_t ts, const char *name, const char *args_json);
	void (*slice_end)(FILE *f, const struct ex_track *t, int64_t ts);
	void (*flow)(FILE *f, const struct ex_track *t, int64_t ts, uint64_t id, int start, const char *cat);
	/* An event without duration (the OpenMP task event marks). */
	void (*instant)(FILE *f, const struct ex_track *t, int64_t ts, const char *name);
	void (*counter)(FILE *f, uint64_t uuid, int pid, int64_t ts, const char *name, int64_t value);
	void (*end)(FILE *f);
};

extern const struct ex_ops ex_json_ops;
extern const struct ex_ops ex_perfetto_ops;

/* Walk the trace at `path` in time order and hand every track, slice,
 * flow and counter between from_ns and to_ns (nanoseconds from its start)
 * of the threads in `threads` ("TID,TID", NULL for all) to `ops`, which
 * write to `out`. Returns 1 when a stream was damaged (reported on
 * stderr), else 0; exits when the trace cannot be opened. */
int ex_walk(const char *path, const struct ex_ops *ops, FILE *out, int64_t from_ns, int64_t to_ns, const char *threads);

#endif
