/* check.h: the checker of `ovni-auto check` (tools/check/).  walk.c drives
 * (the walk in merged clock order, clocks, the end checks, the summary);
 * report.c prints and counts the problems, which the rules report and the
 * driver does not; meta.c holds the stream.json rules and their merge,
 * marks.c the mark channels, ovni.c the ovni model (thread states, CPUs,
 * affinity, flushes), openmp.c the openmp model, models.c the model table
 * and the kernel and mpi models.  cmd_check.c is the command only. */
#ifndef OA_CHECK_H
#define OA_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "../trace/map.h"
#include "../trace/reader.h"

#define CK_MAX_DEPTH 512  /* any stack channel of the emulator */
#define CK_MARK_TYPES 100 /* mark types are 0..99 */
#define CK_LIST_MAX 100   /* problems listed per kind */
#define CK_HOUR_NS 3600000000000ll

enum ck_state { TH_UNKNOWN, TH_RUNNING, TH_PAUSED, TH_COOLING, TH_WARMING, TH_DEAD };
extern const char *const ck_state_name[];

struct ck_loom {
	const char *name;
	int rowidx;                   /* position among the looms sorted by name */
	struct ck_map byphy;          /* phyid key -> entry + 1 */
	long long *ent_phy, *ent_idx; /* loom_cpus entries, in arrival order */
	int nent, capent;
	int ncpus;        /* once merged: indices 0..ncpus-1 */
	long long *phyid; /* by index */
	int *running;     /* threads Running on each physical CPU index */
	int has_rank;
	int first_stream; /* for reports about the loom */
};

struct ck_task {
	uint32_t type;
	int state;       /* TASK_* */
	int64_t created; /* time of its PPc */
	int created_by;  /* stream index of the PPc */
	int running_on;  /* stream index while running */
};
enum { TASK_CREATED = 1, TASK_RUNNING, TASK_ENDED };

struct ck_proc {
	struct ck_loom *loom;
	long long pid, app_id, rank, nranks;
	int first_stream;    /* for reports about the process */
	struct ck_map tids;  /* tid -> stream index + 1 */
	struct ck_map types; /* openmp typeid -> index into typelabel + 1 */
	char **typelabel;
	size_t ntypes, captypes;
	struct ck_map tasks; /* taskid + 1 -> index into task + 1 */
	struct ck_task *task;
	size_t ntask, captask;
	struct ck_map missing;    /* taskid + 1 -> time of a failed PPx */
	struct ck_map missing_by; /* taskid + 1 -> stream index + 1 of it */
	struct ck_map ohc_time;   /* OHC tag -> time */
	struct ck_map ohc_by;     /* OHC tag -> stream index + 1 */
	struct ck_map ohx_time;   /* tag of an OHx -> time */
	struct ck_map ohx_by;     /* tag of an OHx -> stream index + 1 */
};

struct ck_thread {
	struct rd_stream *s;
	struct ck_proc *proc;
	int ignored; /* not checked (bad metadata, not a thread stream) */
	int state;
	int cpu; /* loom index, -1 virtual */
	int flushing;
	int out_of_cpu; /* kernel model: between KCO and KCI */
	int64_t last_time;
	long nevents;
	struct ck_stack64 marks[CK_MARK_TYPES]; /* stack mark channels */
	struct ck_stack tasks;                  /* openmp task ids */
	struct ck_stack labels;                 /* openmp label channel: type ids */
	struct ck_stack sub;                    /* openmp subsystem channel */
	struct ck_stack mpi;                    /* mpi function channel */
};

struct ck_marktype {
	int declared;
	int stack;
	const char *title;
	struct ck_map labels; /* value -> index into c->labelstr + 1 */
	struct ck_map low32;  /* the low 32 bits of a labelled value -> the value */
};

struct ck_kind {
	const char *kind;
	long n;
};

/* Models the emulator knows: what an event's first letter belongs to. */
struct ck_model {
	char letter;
	const char *name;
	const char *version; /* NULL: any version accepted */
	unsigned bit;
};
const struct ck_model *ck_model_by_name(const char *name);
const struct ck_model *ck_model_by_letter(char letter);
#define CK_MODEL_OVNI 1u
#define CK_MODEL_OPENMP 2u

struct ck {
	struct rd_trace *t;
	FILE *out;
	int quiet;
	struct ck_thread *th;
	struct ck_proc **procs; /* each allocated alone: threads keep pointers */
	int nprocs;
	struct ck_loom **looms;
	int nlooms;
	struct ck_marktype marks[CK_MARK_TYPES];
	const char **labelstr;
	size_t nlabelstr, caplabelstr;
	unsigned models; /* bits of the required models */
	long problems;
	long events;
	int streams_with_problems;
	char *stream_bad;
	struct ck_kind kinds[64];
	int warned_ocn; /* notes given once */
};

/* Report one problem: "<stream> offset N MCV: what" (or "<stream>: what",
 * or "trace: what" when th is NULL). `kind` (a static string) groups
 * problems: no more than CK_LIST_MAX of one kind are listed. */
void ck_problem(struct ck *c, struct ck_thread *th, const struct rd_event *ev, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* An informational line, not a problem (not shown with -q). */
void ck_note(struct ck *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Count a problem of `kind` (on thread th, or the trace); *listed: whether
 * it is still to be printed (CK_LIST_MAX per kind). */
void ck_count_problem(struct ck *c, struct ck_thread *th, const char *kind, int *listed);

/* Check the trace at path; problems and the summary go to out. Returns the
 * number of problems, or -1 (err set) when the trace cannot be opened. */
long ck_check_path(const char *path, int quiet, FILE *out, char *err, size_t errlen);

void ck_meta(struct ck *c); /* stream.json of every stream, and their merge */
void ck_marks_meta(struct ck *c, struct ck_thread *th, json_t *marks);
void ck_mark_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev);
void ck_ovni_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev);
void ck_ovni_end(struct ck *c, struct ck_thread *th);
void ck_openmp_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev);
void ck_openmp_end(struct ck *c, struct ck_thread *th);
void ck_kernel_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev);
void ck_mpi_event(struct ck *c, struct ck_thread *th, const struct rd_event *ev);
void ck_mpi_end(struct ck *c, struct ck_thread *th);
void ck_free(struct ck *c);

#endif
