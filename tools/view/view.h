/* view.h: `ovni-auto view`: the model of the timeline (model.c: one row
 * per thread, its intervals of one composite state each, its process
 * events), levels of detail (lod.c) and the self-contained HTML page that
 * shows them (html.c, with viewer.js and viewer.css built in). */
#ifndef OA_VIEW_H
#define OA_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What a composite state is, for its colour and the summary columns. */
enum vw_kind {
	VW_RUNNING, /* running code of its own (no OpenMP/task/MPI state) */
	VW_THREAD,  /* paused, cooling, warming: the thread's state alone */
	VW_BLOCKED, /* in a recorded blocking call (Blocked in: join, ...) */
	VW_OPENMP,  /* an OpenMP runtime state (barrier, critical, ...) */
	VW_TASK,    /* running the body of an OpenMP task or worksharing */
	VW_MPI,     /* inside an MPI call */
	VW_FLUSH,   /* the agent writing its buffer */
	VW_NKINDS
};

struct vw_iv {
	int64_t start, end; /* ns from the trace's start */
	uint32_t state;     /* index in vw_model.states */
	uint32_t detail;    /* string (call site), 0 when none */
};

struct vw_ivs {
	struct vw_iv *v;
	size_t n, cap;
};

struct vw_mark {
	int64_t ts;
	uint32_t text; /* string */
};

struct vw_row {
	int proc; /* index in vw_model.procs */
	int tid;
	uint32_t name; /* thread name (string), 0 when none was recorded */
	int64_t first, last;
	struct vw_ivs iv;
	struct vw_mark *marks;
	size_t nmarks, capmarks;
	int64_t kind_ns[VW_NKINDS];
	/* While the walk runs: the open slices of each track and the state
	 * being extended. */
	struct vw_stack *open;
	uint32_t cur, cur_detail; /* cur: state + 1, 0 when none */
	int64_t since;
	int seen;
};

struct vw_mpi { /* time and outermost calls of one MPI function */
	uint32_t state;
	int64_t ns;
	long calls;
};

struct vw_proc {
	int pid, rank;
	uint32_t name; /* "loom / proc N" */
	int64_t first;
	int nrows;
	struct vw_mpi *mpi;
	int nmpi;
};

struct vw_state {
	uint32_t name; /* string */
	int kind;      /* enum vw_kind */
	int64_t ns;    /* total time in it, all threads */
	long count;    /* intervals */
};

struct vw_model {
	struct vw_row *rows;
	int nrows; /* one per stream of the trace, in stream order */
	struct vw_proc *procs;
	int nprocs;
	struct vw_state *states;
	int nstates, capstates;
	char **strs; /* string table; 0 is "" */
	size_t nstrs, capstrs;
	struct vw_strmap *strmap;
	int64_t duration;
	long long events;
	int bad; /* a stream was damaged */
};

/* Walk the trace at `path` into m (exits when it cannot be opened). */
void vw_build(const char *path, struct vw_model *m);
void vw_free(struct vw_model *m);
uint32_t vw_str(struct vw_model *m, const char *s);

/* Levels of detail: `in` with every interval shorter than q ns merged into
 * buckets of q ns that show the state covering most of the bucket (runs of
 * one state joined); out is overwritten. q <= 1 copies. */
void vw_resample(const struct vw_ivs *in, int64_t q, struct vw_ivs *out);

/* Write the page. Returns 0, or -1 with errno set when writing failed.
 * `budget`: the most bytes of interval data it may hold (it picks the
 * finest resolution that fits). */
int vw_write_html(FILE *f, struct vw_model *m, const char *title, size_t budget);

#endif
