/* export.h: the back-ends of `ovni-auto export`. The driver (cmd_export.c)
 * walks the trace in time order and calls these for every track (a thread's
 * states, its OpenMP states, its tasks, each of its mark channels), slice,
 * flow and counter; a back-end streams them out in its own format. */
#ifndef OA_EXPORT_H
#define OA_EXPORT_H

#include <stdint.h>
#include <stdio.h>

struct ex_track {
	uint64_t uuid; /* unique in the output */
	int pid, tid;  /* Chrome pid/tid (process index, synthetic thread id) */
	int real_pid, real_tid;
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

#endif
