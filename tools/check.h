/* check.h: internal interface of `ovni-auto check` (cmd_check.c drives;
 * check_meta.c, check_ovni.c and check_openmp.c hold the rules). */
#ifndef OA_CHECK_H
#define OA_CHECK_H

#include <stdint.h>

#include "reader.h"

enum ck_state { TH_UNKNOWN, TH_RUNNING, TH_PAUSED, TH_COOLING, TH_WARMING, TH_DEAD };

struct ck_loom {
	const char *name;
	int ncpus;          /* indices 0..ncpus-1 once the metadata is merged */
	long long *phyid;   /* by index */
	int *running;       /* threads Running on each physical CPU index */
	int cap;
	int has_rank;
};

/* A small u64 -> u64 hash map (open addressing; key 0 not allowed). */
struct ck_map {
	uint64_t *keys, *vals;
	size_t cap, n;
};
int ck_map_get(const struct ck_map *m, uint64_t key, uint64_t *val);
void ck_map_put(struct ck_map *m, uint64_t key, uint64_t val);
void ck_map_free(struct ck_map *m);

struct ck_task {
	uint32_t type;
	int state;        /* 1 created, 2 running, 3 ended */
	int64_t created;  /* time of its PPc */
	int created_by;   /* stream index of the PPc */
	int running_on;   /* stream index while running */
};

struct ck_proc {
	struct ck_loom *loom;
	long long pid, app_id, rank, nranks;
	struct ck_map tids;   /* tid -> stream index + 1 */
	struct ck_map types;  /* typeid -> 1 */
	struct ck_map tasks;  /* taskid -> index into task array + 1 */
	struct ck_task *task;
	size_t ntask, captask;
	struct ck_map tags;   /* OHC tag -> time */
	struct ck_map tagstream;
};

struct ck_thread {
	struct rd_stream *s;
	struct ck_proc *proc;
	int state;
	int cpu;              /* loom index, -1 virtual */
	int flushing;
	int64_t last_time;
	int nevents;
	int64_t *mstack[100]; /* mark stacks */
	int mdepth[100], mcap[100];
	uint32_t *tasks;      /* openmp task stack */
	int ntasks, captasks;
	uint32_t *labels;     /* openmp label stack: (task? 1<<31 : 0) | type */
	int nlabels, caplabels;
	uint16_t *sub;        /* openmp subsystem stack */
	int nsub, capsub;
	int ignored;          /* not a thread stream */
};

struct ck_marktype {
	int declared;
	int stack;
	const char *title;
	struct ck_map labels; /* value -> index into label strings + 1 */
};

struct ck {
	struct rd_trace *t;
	struct ck_thread *th;
	struct ck_proc **procs; /* each allocated alone: threads keep pointers */
	int nprocs;
	struct ck_loom **looms;
	int nlooms;
	struct ck_marktype marks[100];
	const char **labelstr;
	size_t nlabelstr, caplabelstr;
	unsigned models;      /* required models, bits below */
	int quiet;
	long problems;
	long events;
	int streams_with_problems;
	int *stream_bad;
};

#define CK_MODEL_OVNI 1u
#define CK_MODEL_OPENMP 2u
#define CK_MODEL_KERNEL 4u
#define CK_MODEL_MPI 8u
#define CK_MODEL_OTHER 16u

/* Report one problem. `kind` (a static string) groups problems so that no
 * more than 100 of one kind are listed. th may be NULL (trace-wide). */
void ck_problem(struct ck *c, struct ck_thread *th, const struct rd_event *ev, const char *kind, const char *fmt,
		...) __attribute__((format(printf, 5, 6)));

int ck_meta(struct ck *c);  /* metadata of every stream and their merge */
void ck_ovni_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev);
void ck_openmp_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev);
void ck_openmp_end(struct ck *c, struct ck_thread *th);

#endif
